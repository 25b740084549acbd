"""Lab signals: how many readers of this install saved a paper or rated it +1 (counts only, never who).

``LabSignals`` is mixed into both SQL backends' stores (the SQL is written once, over ``sql.SqlBase``).
A save is a library entry of the paper not rated "not for me"; a +1 is an entry rated 1. Readers whose
``counted`` column is 0 (they opted out) are left out of every count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from papersift.store.sql import NamedRow, SqlBase

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


_SIGNAL = (
    f"SELECT l.paper_id AS paper, {_SAVES} AS saves, {_UPVOTES} AS upvotes, MAX(l.added) AS last {_COUNTED}"
)


class LabSignals(SqlBase):
    """The counting queries, over a backend's connection."""

    def lab_signals(self, paper_ids: Sequence[str]) -> dict[str, Signal]:
        """The counts of the given papers (papers nobody counted saved are left out)."""
        found: dict[str, Signal] = {}
        ids = list(dict.fromkeys(paper_ids))
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows = self._rows(
                f"{_SIGNAL} AND l.paper_id IN ({', '.join('?' * len(part))}) GROUP BY l.paper_id", part
            )
            for r in rows:
                if int(r["saves"]):
                    found[str(r["paper"])] = _signal(r)
        return found

    def trending(self, since: datetime, limit: int = 20) -> list[Signal]:
        """Papers saved or +1'd since ``since``: most saves + upvotes first, ties by the latest signal."""
        rows = self._rows(
            f"{_SIGNAL} AND l.added >= ? "
            f"GROUP BY l.paper_id HAVING {_SAVES} > 0 "
            f"ORDER BY {_SAVES} + {_UPVOTES} DESC, MAX(l.added) DESC, l.paper_id DESC LIMIT ?",
            [since.isoformat(), limit],
        )
        return [_signal(r) for r in rows]


def _signal(row: NamedRow) -> Signal:
    return Signal(str(row["paper"]), int(row["saves"]), int(row["upvotes"]), str(row["last"]))
