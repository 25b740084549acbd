"""What each reader has seen, once for both SQL backends: a paper pushed, mailed, opened (its page visited
by the reader) or marked read, so it is never ranked for them again; and a reader's own settings by name
(the score below which nothing is pushed or mailed, the Daily Papers day they last visited).

``SeenTables`` is mixed into each backend's store; the tables are ``schema.SEEN`` (migration 10 of both).
A paper keeps the first time of each way it was seen; a pushed or mailed mark also names the digest's day,
so the other channels of that same day still carry it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from papersift.store.records import SEEN_HOW, Seen
from papersift.store.rows import now, parse_ts
from papersift.store.sql import SqlBase


def check_how(how: str) -> str:
    if how not in SEEN_HOW:
        raise ValueError(f"seen how must be one of {', '.join(SEEN_HOW)}, not {how!r}")
    return how


class SeenTables(SqlBase):
    """Seen papers and readers' settings over a backend's connection."""

    def mark_seen(self, reader_id: int, paper_ids: Sequence[str], how: str, day: date | None = None) -> int:
        """Record that the reader saw these papers ``how`` (the first time of each way is kept); returns
        how many marks are new."""
        check_how(how)
        stamp = now().isoformat()
        added = 0
        with self._tx() as tx:
            for pid in dict.fromkeys(paper_ids):
                added += tx.execute(
                    "INSERT INTO seen (reader, paper_id, how, at, day) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT DO NOTHING",
                    (reader_id, pid, how, stamp, day.isoformat() if day else None),
                ).rowcount
        return added

    def unmark_seen(self, reader_id: int, paper_ids: Sequence[str], how: str) -> int:
        """Forget one way the reader saw these papers (``read`` undone); returns the marks removed."""
        check_how(how)
        with self._tx() as tx:
            return sum(
                tx.execute(
                    "DELETE FROM seen WHERE reader = ? AND paper_id = ? AND how = ?", (reader_id, pid, how)
                ).rowcount
                for pid in dict.fromkeys(paper_ids)
            )

    def seen(self, reader_id: int, paper_ids: Sequence[str] | None = None) -> dict[str, list[Seen]]:
        """paper id → the ways the reader saw it, first first (all the reader's papers, or these)."""
        where, args = "reader = ?", [reader_id]
        if paper_ids is not None:
            if not paper_ids:
                return {}
            clause, arg = self.dialect.one_of("paper_id", list(paper_ids))
            where, args = f"{where} AND {clause}", [reader_id, arg]
        rows = self._rows(f"SELECT paper_id, how, at, day FROM seen WHERE {where} ORDER BY at, how", args)
        found: dict[str, list[Seen]] = {}
        for r in rows:
            at = parse_ts(str(r["at"]))
            assert at is not None
            day = date.fromisoformat(str(r["day"])) if r["day"] else None
            found.setdefault(str(r["paper_id"]), []).append(Seen(str(r["paper_id"]), str(r["how"]), at, day))
        return found

    def reader_setting(self, reader_id: int, name: str) -> str | None:
        row = self._one("SELECT value FROM reader_settings WHERE reader = ? AND name = ?", (reader_id, name))
        return None if row is None else str(row["value"])

    def set_reader_setting(self, reader_id: int, name: str, value: str | None) -> None:
        """Keep (or, with None, forget) one of the reader's settings."""
        with self._tx() as tx:
            if value is None:
                tx.execute("DELETE FROM reader_settings WHERE reader = ? AND name = ?", (reader_id, name))
                return
            tx.execute(
                "INSERT INTO reader_settings (reader, name, value) VALUES (?, ?, ?) "
                "ON CONFLICT (reader, name) DO UPDATE SET value = excluded.value",
                (reader_id, name, value),
            )
