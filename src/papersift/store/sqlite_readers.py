"""The reader tables of the SQLite store: accounts, sessions, library entries and tags, interests, digests.

``ReaderTables`` is mixed into ``SqliteStore``; it uses the store's connection and write transaction. Every
query names the reader, so one reader's rows are never read or changed through another reader's calls.
Session tokens are stored only as hashes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import Any

import orjson

from papersift.store import StoreError
from papersift.store.readers import Digest, Interests, LibraryEntry, Reader
from papersift.store.rows import (
    DIGEST_COLUMNS,
    ENTRY_COLUMNS,
    check_rating,
    digest_from_row,
    entry_from_row,
    now,
    parse_ts,
    reader_from_row,
)
from papersift.store.signals import LabSignals

SCHEMA = """
CREATE TABLE readers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    feed_token TEXT NOT NULL UNIQUE,
    email TEXT,
    created TEXT NOT NULL,
    interests TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    reader INTEGER NOT NULL REFERENCES readers(id) ON DELETE CASCADE,
    expires TEXT NOT NULL
);
CREATE TABLE login_failures (name TEXT NOT NULL, at TEXT NOT NULL);
CREATE INDEX login_failures_name ON login_failures(name, at);
CREATE TABLE library (
    reader INTEGER NOT NULL REFERENCES readers(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    paper_id TEXT,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,
    abstract TEXT NOT NULL,
    year INTEGER,
    doi TEXT,
    url TEXT,
    venue TEXT,
    note TEXT NOT NULL DEFAULT '',
    rating INTEGER NOT NULL DEFAULT 0,
    read INTEGER NOT NULL DEFAULT 0,
    added TEXT NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (reader, key)
) WITHOUT ROWID;
CREATE TABLE tags (
    reader INTEGER NOT NULL,
    key TEXT NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (reader, key, tag)
) WITHOUT ROWID;
CREATE TABLE digests (
    id INTEGER PRIMARY KEY,
    reader INTEGER NOT NULL REFERENCES readers(id) ON DELETE CASCADE,
    day TEXT NOT NULL,
    channel TEXT NOT NULL,
    subject TEXT NOT NULL,
    text TEXT NOT NULL,
    html TEXT NOT NULL,
    papers TEXT NOT NULL,
    sent TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    UNIQUE (reader, day, channel)
);
CREATE INDEX papers_doi ON papers(lower(doi)) WHERE doi IS NOT NULL
"""

# 4: login failures per client address too; pruning by time
LOGIN_SCHEMA = """
ALTER TABLE login_failures ADD COLUMN address TEXT;
CREATE INDEX login_failures_address ON login_failures(address, at);
CREATE INDEX login_failures_at ON login_failures(at);
CREATE INDEX sessions_expires ON sessions(expires)
"""


class ReaderTables(LabSignals):
    """Readers and their libraries, on the ``SqliteStore`` connection (``db``, ``_transaction``)."""

    db: sqlite3.Connection
    _transaction: Any  # () -> AbstractContextManager[None], from SqliteStore

    def _tx(self) -> AbstractContextManager[None]:
        tx: AbstractContextManager[None] = self._transaction()
        return tx

    def _select(self, sql: str, args: Sequence[object]) -> list[tuple[Any, ...]]:
        return list(self.db.execute(sql, tuple(args)).fetchall())

    def _change(self, sql: str, args: Sequence[object]) -> None:
        with self._tx():
            self.db.execute(sql, tuple(args))

    # -- accounts -------------------------------------------------------------------------------
    def add_reader(
        self, name: str, password_hash: str | None, feed_token: str, email: str | None = None
    ) -> Reader:
        name = name.strip()
        if not name or len(name) > 64:
            raise StoreError("a reader's name is 1 to 64 characters")
        try:
            with self._tx():
                cur = self.db.execute(
                    "INSERT INTO readers (name, password_hash, feed_token, email, created) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (name, password_hash, feed_token, email, now().isoformat()),
                )
        except sqlite3.IntegrityError as e:
            raise StoreError(f"a reader named {name!r} already exists") from e
        reader = self.reader_by_id(int(cur.lastrowid or 0))
        assert reader is not None
        return reader

    def _one_reader(self, where: str, arg: object) -> Reader | None:
        row = self.db.execute(
            f"SELECT id, name, password_hash, feed_token, email, created FROM readers WHERE {where}", (arg,)
        ).fetchone()
        return reader_from_row(row) if row else None

    def reader(self, name: str) -> Reader | None:
        return self._one_reader("name = ?", name.strip())

    def reader_by_id(self, reader_id: int) -> Reader | None:
        return self._one_reader("id = ?", reader_id)

    def reader_by_token(self, feed_token: str) -> Reader | None:
        return self._one_reader("feed_token = ?", feed_token)

    def readers(self) -> list[Reader]:
        rows = self.db.execute(
            "SELECT id, name, password_hash, feed_token, email, created FROM readers ORDER BY id"
        )
        return [reader_from_row(r) for r in rows]

    def update_reader(
        self,
        reader_id: int,
        *,
        password_hash: str | None = None,
        email: str | None = None,
        feed_token: str | None = None,
    ) -> None:
        with self._tx():
            for column, value in (
                ("password_hash", password_hash),
                ("email", email),
                ("feed_token", feed_token),
            ):
                if value is not None:
                    self.db.execute(f"UPDATE readers SET {column} = ? WHERE id = ?", (value, reader_id))

    def add_session(self, reader_id: int, token_hash: str, expires: datetime) -> None:
        with self._tx():
            self.db.execute("DELETE FROM sessions WHERE expires < ?", (now().isoformat(),))
            self.db.execute(
                "INSERT INTO sessions (token_hash, reader, expires) VALUES (?, ?, ?)",
                (token_hash, reader_id, expires.isoformat()),
            )

    def session_reader(self, token_hash: str) -> Reader | None:
        row = self.db.execute(
            "SELECT r.id, r.name, r.password_hash, r.feed_token, r.email, r.created FROM sessions s "
            "JOIN readers r ON r.id = s.reader WHERE s.token_hash = ? AND s.expires > ?",
            (token_hash, now().isoformat()),
        ).fetchone()
        return reader_from_row(row) if row else None

    def drop_session(self, token_hash: str) -> None:
        with self._tx():
            self.db.execute("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))

    def add_login_failure(self, name: str, address: str | None = None) -> None:
        with self._tx():
            self.db.execute(
                "INSERT INTO login_failures (name, address, at) VALUES (?, ?, ?)",
                (name, address, now().isoformat()),
            )

    def login_failures(
        self, since: datetime, *, name: str | None = None, address: str | None = None
    ) -> tuple[int, datetime | None]:
        column, value = ("name", name) if address is None else ("address", address)
        row = self.db.execute(
            f"SELECT COUNT(*), MAX(at) FROM login_failures WHERE {column} = ? AND at >= ?",
            (value, since.isoformat()),
        ).fetchone()
        return int(row[0]), parse_ts(row[1])

    def prune_logins(self, failures_before: datetime) -> int:
        with self._tx():
            failures = self.db.execute(
                "DELETE FROM login_failures WHERE at < ?", (failures_before.isoformat(),)
            ).rowcount
            expired = (now().isoformat(),)
            sessions = self.db.execute("DELETE FROM sessions WHERE expires < ?", expired).rowcount
        return failures + sessions

    # -- interests ------------------------------------------------------------------------------
    def interests(self, reader_id: int) -> Interests:
        row = self.db.execute("SELECT interests FROM readers WHERE id = ?", (reader_id,)).fetchone()
        data = orjson.loads(row[0]) if row else {}
        return Interests(**{k: tuple(v) for k, v in data.items() if k in Interests.__slots__})

    def set_interests(self, reader_id: int, interests: Interests) -> None:
        data = {k: list(getattr(interests, k)) for k in Interests.__slots__}
        with self._tx():
            self.db.execute(
                "UPDATE readers SET interests = ? WHERE id = ?", (orjson.dumps(data).decode(), reader_id)
            )

    # -- library --------------------------------------------------------------------------------
    def save_entries(self, reader_id: int, entries: Sequence[LibraryEntry]) -> int:
        """Add or update entries (tags add up; a rating or a note, when given, replaces); returns new ones."""
        added = 0
        with self._tx():
            for e in entries:
                old = self._entry(reader_id, e.key)
                check_rating(e.rating)
                when = (e.added or now()).isoformat()
                self.db.execute(
                    f"INSERT INTO library (reader, {ENTRY_COLUMNS}) VALUES ({', '.join('?' * 15)}) "
                    "ON CONFLICT (reader, key) DO UPDATE SET "
                    "paper_id = COALESCE(excluded.paper_id, paper_id), "
                    "note = CASE WHEN excluded.note != '' THEN excluded.note ELSE note END, "
                    "rating = CASE WHEN excluded.rating != 0 THEN excluded.rating ELSE rating END, "
                    "read = MAX(read, excluded.read)",
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
                        when,
                        e.source,
                    ),
                )
                self.db.executemany(
                    "INSERT OR IGNORE INTO tags (reader, key, tag) VALUES (?, ?, ?)",
                    ((reader_id, e.key, t) for t in e.tags),
                )
                added += old is None
        return added

    def _entry(self, reader_id: int, key: str) -> LibraryEntry | None:
        found = list(self._entries("l.reader = ? AND l.key = ?", (reader_id, key)))
        return found[0] if found else None

    def library_entry(self, reader_id: int, key: str) -> LibraryEntry | None:
        return self._entry(reader_id, key)

    def library(self, reader_id: int, tag: str | None = None) -> list[LibraryEntry]:
        """A reader's entries, newest first (only those tagged ``tag`` when given)."""
        if tag is None:
            return list(self._entries("l.reader = ?", (reader_id,)))
        return list(
            self._entries(
                "l.reader = ? AND EXISTS (SELECT 1 FROM tags t WHERE t.reader = l.reader AND t.key = l.key "
                "AND t.tag = ?)",
                (reader_id, tag),
            )
        )

    def _entries(self, where: str, args: tuple[Any, ...]) -> Iterator[LibraryEntry]:
        rows = self.db.execute(
            f"SELECT {', '.join('l.' + c.strip() for c in ENTRY_COLUMNS.split(','))}, "
            "(SELECT json_group_array(tag) FROM (SELECT tag FROM tags t "
            "WHERE t.reader = l.reader AND t.key = l.key ORDER BY tag)) "
            f"FROM library l WHERE {where} ORDER BY l.added DESC, l.key",
            args,
        )
        for r in rows:
            yield entry_from_row(r, tuple(orjson.loads(r[14])))

    def update_entry(
        self,
        reader_id: int,
        key: str,
        *,
        rating: int | None = None,
        note: str | None = None,
        read: bool | None = None,
        add_tags: Sequence[str] = (),
        remove_tags: Sequence[str] = (),
    ) -> bool:
        """Change one entry; False when the reader has no such entry."""
        if self._entry(reader_id, key) is None:
            return False
        with self._tx():
            if rating is not None:
                self.db.execute(
                    "UPDATE library SET rating = ? WHERE reader = ? AND key = ?",
                    (check_rating(rating), reader_id, key),
                )
            if note is not None:
                self.db.execute(
                    "UPDATE library SET note = ? WHERE reader = ? AND key = ?", (note, reader_id, key)
                )
            if read is not None:
                self.db.execute(
                    "UPDATE library SET read = ? WHERE reader = ? AND key = ?", (int(read), reader_id, key)
                )
            self.db.executemany(
                "INSERT OR IGNORE INTO tags (reader, key, tag) VALUES (?, ?, ?)",
                ((reader_id, key, t) for t in add_tags),
            )
            self.db.executemany(
                "DELETE FROM tags WHERE reader = ? AND key = ? AND tag = ?",
                ((reader_id, key, t) for t in remove_tags),
            )
        return True

    def remove_entry(self, reader_id: int, key: str) -> bool:
        with self._tx():
            cur = self.db.execute("DELETE FROM library WHERE reader = ? AND key = ?", (reader_id, key))
            self.db.execute("DELETE FROM tags WHERE reader = ? AND key = ?", (reader_id, key))
        return cur.rowcount > 0

    def tags(self, reader_id: int) -> list[tuple[str, int]]:
        rows = self.db.execute(
            "SELECT tag, COUNT(*) FROM tags WHERE reader = ? GROUP BY tag ORDER BY tag", (reader_id,)
        )
        return [(t, int(n)) for t, n in rows]

    # -- linking imported references to stored papers ------------------------------------------
    def paper_id_by_doi(self, doi: str) -> str | None:
        row = self.db.execute(
            "SELECT id FROM papers WHERE doi IS NOT NULL AND lower(doi) = ? AND deleted = 0 LIMIT 1",
            (doi.lower(),),
        ).fetchone()
        return str(row[0]) if row else None

    # -- digests --------------------------------------------------------------------------------
    def queue_digest(
        self,
        reader_id: int,
        day: date,
        channel: str,
        subject: str,
        text: str,
        html: str,
        papers: Sequence[str],
    ) -> Digest:
        """Keep a digest for sending; one per (reader, day, channel), later calls return the kept one."""
        with self._tx():
            self.db.execute(
                "INSERT OR IGNORE INTO digests (reader, day, channel, subject, text, html, papers) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    reader_id,
                    day.isoformat(),
                    channel,
                    subject,
                    text,
                    html,
                    orjson.dumps(list(papers)).decode(),
                ),
            )
        row = self.db.execute(
            f"SELECT {DIGEST_COLUMNS} FROM digests WHERE reader = ? AND day = ? AND channel = ?",
            (reader_id, day.isoformat(), channel),
        ).fetchone()
        return digest_from_row(row)

    def unsent_digests(self, channel: str) -> list[Digest]:
        rows = self.db.execute(
            f"SELECT {DIGEST_COLUMNS} FROM digests WHERE channel = ? AND sent IS NULL ORDER BY id", (channel,)
        )
        return [digest_from_row(r) for r in rows]

    def mark_digest(self, digest_id: int, *, sent: bool, error: str | None = None) -> None:
        with self._tx():
            self.db.execute(
                "UPDATE digests SET attempts = attempts + 1, sent = ?, error = ? WHERE id = ?",
                (now().isoformat() if sent else None, error, digest_id),
            )

    def digests(self, reader_id: int, limit: int = 30) -> list[Digest]:
        rows = self.db.execute(
            f"SELECT {DIGEST_COLUMNS} FROM digests WHERE reader = ? ORDER BY day DESC, id DESC LIMIT ?",
            (reader_id, limit),
        )
        return [digest_from_row(r) for r in rows]
