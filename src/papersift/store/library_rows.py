"""A reader's library and digests, once for both SQL backends: saved and rated entries, their tags, and
digests kept until sent.

``LibraryTables`` is mixed into each backend's store. Every query names the reader.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, Unpack

import orjson

from papersift.records.messages import stored
from papersift.store.records import Digest, DigestText, EntryChanges, LibraryEntry
from papersift.store.rows import (
    DIGEST_COLUMNS,
    ENTRY_COLUMNS,
    check_rating,
    digest_from_row,
    entry_from_row,
    now,
)
from papersift.store.sql import SqlBase, Tx

_ENTRY = ", ".join("l." + c.strip() for c in ENTRY_COLUMNS.split(","))
_ADD_TAGS = "INSERT INTO tags (reader, key, tag) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"


class LibraryTables(SqlBase):
    """Library entries, tags and digests over a backend's connection."""

    def save_entries(self, reader_id: int, entries: Sequence[LibraryEntry]) -> int:
        """Add or update entries (tags add up; a rating or a note, when given, replaces); returns new ones."""
        added = 0
        with self._tx() as tx:
            for e in entries:
                check_rating(e.rating)
                known = tx.execute(
                    "SELECT 1 AS known FROM library WHERE reader = ? AND key = ?", (reader_id, e.key)
                )
                added += not known.fetchall()
                tx.execute(
                    f"INSERT INTO library AS l (reader, {ENTRY_COLUMNS}) VALUES ({', '.join('?' * 18)}) "
                    "ON CONFLICT (reader, key) DO UPDATE SET "
                    "paper_id = COALESCE(excluded.paper_id, l.paper_id), "
                    "note = CASE WHEN excluded.note != '' THEN excluded.note ELSE l.note END, "
                    "rating = CASE WHEN excluded.rating != 0 THEN excluded.rating ELSE l.rating END, "
                    "read = CASE WHEN excluded.read > l.read THEN excluded.read ELSE l.read END, "
                    "volume = CASE WHEN excluded.volume != '' THEN excluded.volume ELSE l.volume END, "
                    "issue = CASE WHEN excluded.issue != '' THEN excluded.issue ELSE l.issue END, "
                    "pages = CASE WHEN excluded.pages != '' THEN excluded.pages ELSE l.pages END",
                    (
                        reader_id,
                        e.key,
                        e.paper_id,
                        e.title,
                        orjson.dumps(list(e.authors)).decode(),
                        e.abstract,
                        e.year,
                        e.doi,
                        e.url,
                        e.venue,
                        e.note,
                        e.rating,
                        int(e.read),
                        (e.added or now()).isoformat(),
                        e.source,
                        e.volume,
                        e.issue,
                        e.pages,
                    ),
                )
                tx.executemany(_ADD_TAGS, [(reader_id, e.key, t) for t in e.tags])
        return added

    def library_entry(self, reader_id: int, key: str) -> LibraryEntry | None:
        found = self._entries("l.reader = ? AND l.key = ?", (reader_id, key))
        return found[0] if found else None

    def library(self, reader_id: int, tag: str | None = None) -> list[LibraryEntry]:
        """A reader's entries, newest first (only those tagged ``tag`` when given)."""
        if tag is None:
            return self._entries("l.reader = ?", (reader_id,))
        return self._entries(
            "l.reader = ? AND EXISTS (SELECT 1 FROM tags t WHERE t.reader = l.reader AND t.key = l.key "
            "AND t.tag = ?)",
            (reader_id, tag),
        )

    def _entries(self, where: str, args: tuple[Any, ...]) -> list[LibraryEntry]:
        tags = self.dialect.json_list("tag", "FROM tags t WHERE t.reader = l.reader AND t.key = l.key", "tag")
        rows = self._rows(
            f"SELECT {_ENTRY}, {tags} AS tags FROM library l WHERE {where} ORDER BY l.added DESC, l.key", args
        )
        return [entry_from_row(r) for r in rows]

    def update_entry(self, reader_id: int, key: str, **changes: Unpack[EntryChanges]) -> bool:
        """Change one entry; False when the reader has no such entry."""
        if self.library_entry(reader_id, key) is None:
            return False
        rating, read = changes.get("rating"), changes.get("read")
        with self._tx() as tx:
            for column, value in (
                ("rating", None if rating is None else check_rating(rating)),
                ("note", changes.get("note")),
                ("read", None if read is None else int(read)),
            ):
                if value is not None:
                    tx.execute(
                        f"UPDATE library SET {column} = ? WHERE reader = ? AND key = ?",
                        (value, reader_id, key),
                    )
            tx.executemany(_ADD_TAGS, [(reader_id, key, t) for t in changes.get("add_tags", ())])
            tx.executemany(
                "DELETE FROM tags WHERE reader = ? AND key = ? AND tag = ?",
                [(reader_id, key, t) for t in changes.get("remove_tags", ())],
            )
        return True

    def remove_entry(self, reader_id: int, key: str) -> bool:
        with self._tx() as tx:
            gone = tx.execute("DELETE FROM library WHERE reader = ? AND key = ?", (reader_id, key)).rowcount
            tx.execute("DELETE FROM tags WHERE reader = ? AND key = ?", (reader_id, key))
        return gone > 0

    def tags(self, reader_id: int) -> list[tuple[str, int]]:
        rows = self._rows(
            "SELECT tag, COUNT(*) AS n FROM tags WHERE reader = ? GROUP BY tag ORDER BY tag", (reader_id,)
        )
        return [(r["tag"], int(r["n"])) for r in rows]

    # -- digests --------------------------------------------------------------------------------
    def queue_digest(self, reader_id: int, day: date, channel: str, made: DigestText) -> Digest:
        """Keep a digest for sending; one per (reader, day, channel), later calls return the kept one."""
        kept = (reader_id, day.isoformat(), channel)
        with self._tx() as tx:
            tx.execute(
                "INSERT INTO digests (reader, day, channel, subject, text, html, papers) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (*kept, made.subject, made.text, made.html, orjson.dumps(list(made.papers)).decode()),
            )
            row = self._digest(tx, kept)
        return digest_from_row(row)

    def _digest(self, tx: Tx, kept: tuple[int, str, str]) -> Any:
        sql = f"SELECT {DIGEST_COLUMNS} FROM digests WHERE reader = ? AND day = ? AND channel = ?"
        return tx.execute(sql, kept).fetchall()[0]

    def unsent_digests(self, channel: str) -> list[Digest]:
        rows = self._rows(
            f"SELECT {DIGEST_COLUMNS} FROM digests WHERE channel = ? AND sent IS NULL ORDER BY id", (channel,)
        )
        return [digest_from_row(r) for r in rows]

    def mark_digest(self, digest_id: int, *, sent: bool, error: str | None = None) -> None:
        """A send tried: sent now, or not and why (kept as data: ``records/messages.stored``)."""
        self._change(
            "UPDATE digests SET attempts = attempts + 1, sent = ?, error = ? WHERE id = ?",
            (now().isoformat() if sent else None, error and stored(error), digest_id),
        )

    def digests(self, reader_id: int, limit: int = 30) -> list[Digest]:
        rows = self._rows(
            f"SELECT {DIGEST_COLUMNS} FROM digests WHERE reader = ? ORDER BY day DESC, id DESC LIMIT ?",
            (reader_id, limit),
        )
        return [digest_from_row(r) for r in rows]
