"""Lab signals: how many readers of this install saved a paper or rated it +1 (counts only, never who).

``LabSignals`` is mixed into both backends' ``ReaderTables``; each supplies ``_select`` and ``_change`` over
its own connection (the SQL is written once, with ``?`` placeholders). A save is a library entry of the paper
not rated "not for me"; a +1 is an entry rated 1. Readers whose ``counted`` column is 0 (they opted out)
are left out of every count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

# the schema change both backends apply (SQLite migration 4, PostgreSQL migration 3)
SCHEMA = """
ALTER TABLE readers ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
CREATE INDEX library_paper ON library (paper_id) WHERE paper_id IS NOT NULL
"""

_SAVES = "SUM(CASE WHEN l.rating >= 0 THEN 1 ELSE 0 END)"
_UPVOTES = "SUM(CASE WHEN l.rating = 1 THEN 1 ELSE 0 END)"
_COUNTED = "FROM library l JOIN readers r ON r.id = l.reader WHERE r.counted = 1 AND l.paper_id IS NOT NULL"


@dataclass(frozen=True, slots=True)
class Signal:
    """One paper's counts: readers who saved it (any rating but -1), readers who rated it +1."""

    paper_id: str
    saves: int
    upvotes: int
    last: str = ""  # when the latest of those entries was added (ISO time)


class LabSignals:
    """The counting queries, over a backend's ``_select`` / ``_change``."""

    def _select(self, sql: str, args: Sequence[object]) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def _change(self, sql: str, args: Sequence[object]) -> None:
        raise NotImplementedError

    def lab_signals(self, paper_ids: Sequence[str]) -> dict[str, Signal]:
        """The counts of the given papers (papers nobody counted saved are left out)."""
        found: dict[str, Signal] = {}
        ids = list(dict.fromkeys(paper_ids))
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows = self._select(
                f"SELECT l.paper_id, {_SAVES}, {_UPVOTES}, MAX(l.added) {_COUNTED} "
                f"AND l.paper_id IN ({', '.join('?' * len(part))}) GROUP BY l.paper_id",
                part,
            )
            for pid, saves, upvotes, last in rows:
                if int(saves):
                    found[str(pid)] = Signal(str(pid), int(saves), int(upvotes), str(last))
        return found

    def trending(self, since: datetime, limit: int = 20) -> list[Signal]:
        """Papers saved or +1'd since ``since``: most saves + upvotes first, ties by the latest signal."""
        rows = self._select(
            f"SELECT l.paper_id, {_SAVES}, {_UPVOTES}, MAX(l.added) {_COUNTED} AND l.added >= ? "
            f"GROUP BY l.paper_id HAVING {_SAVES} > 0 "
            f"ORDER BY {_SAVES} + {_UPVOTES} DESC, MAX(l.added) DESC, l.paper_id DESC LIMIT ?",
            [since.isoformat(), limit],
        )
        return [Signal(str(p), int(s), int(u), str(t)) for p, s, u, t in rows]

    def counted(self, reader_id: int) -> bool:
        """Whether the reader's saves and ratings count in the lab's signals (the default)."""
        rows = self._select("SELECT counted FROM readers WHERE id = ?", [reader_id])
        return bool(rows and rows[0][0])

    def set_counted(self, reader_id: int, counted: bool) -> None:
        self._change("UPDATE readers SET counted = ? WHERE id = ?", [int(counted), reader_id])
