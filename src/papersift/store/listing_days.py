"""Which listing days the store fetched, once for both SQL backends: per category and day, each source
that stored that day's listing (``rss``, ``api``, ``oai``, ``snapshot``, ``mailing``; ``listing`` and
``abs``: arXiv's own files of those formats), how many announcements it held and when. A feed that held none
for its day is arXiv's own word that it announced nothing then (a holiday); a day with no row was never
fetched here.

``ListingDayTables`` is mixed into each backend's store; the table is ``schema.LISTING_DAYS`` (migration 12
of both). The services that store listings write it (``services/harvest.py``, ``services/ingest.py``,
``services/demo.py``); ``ranking/daily.py`` reads it to say why a day has no listing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

from papersift.store.records import FetchedDay
from papersift.store.rows import as_date, now
from papersift.store.sql import SqlBase

SOURCES = ("rss", "api", "oai", "snapshot", "mailing", "listing", "abs")
EVERY = "*"  # the category of a fetch that holds every category


def covers(fetched: str, category: str) -> bool:
    """Whether a fetch of ``fetched`` (a category, an archive such as ``cs``, or ``*``) holds ``category``'s
    listing, or part of it (a fetch of cs.LG is part of the archive cs's)."""
    return (
        fetched in (EVERY, category)
        or category.startswith(fetched + ".")
        or fetched.startswith(category + ".")
    )


def check_source(source: str) -> str:
    if source not in SOURCES:
        raise ValueError(f"a listing's source must be one of {', '.join(SOURCES)}, not {source!r}")
    return source


class ListingDayTables(SqlBase):
    """The fetched listing days over a backend's connection."""

    def record_fetched(self, days: Iterable[FetchedDay]) -> int:
        """Keep each fetched day (a fetch of the same category, day and source again replaces its count
        and time); returns how many were written."""
        stamp = now().isoformat()
        rows = [
            (d.category, d.day.isoformat(), check_source(d.source), d.papers, stamp)
            for d in dict.fromkeys(days)
        ]
        if not rows:
            return 0
        with self._tx() as tx:
            tx.executemany(
                "INSERT INTO listing_days (category, day, source, papers, fetched) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (day, category, source) DO UPDATE SET papers = excluded.papers, "
                "fetched = excluded.fetched",
                rows,
            )
        return len(rows)

    def fetched_days(self, day: date, categories: Sequence[str] | None = None) -> list[FetchedDay]:
        """The fetches of ``day``'s listing, of any of ``categories`` (None: of every category), by
        category and source."""
        rows = self._rows(
            "SELECT category, day, source, papers FROM listing_days WHERE day = ? ORDER BY category, source",
            (day.isoformat(),),
        )
        found = []
        for r in rows:
            category, when = str(r["category"]), as_date(r["day"])
            assert when is not None
            if categories is None or any(covers(category, c) for c in categories):
                found.append(FetchedDay(category, when, str(r["source"]), int(r["papers"])))
        return found
