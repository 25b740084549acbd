"""Getting real papers for a first run: recent announcements from arXiv, or the offline snapshot.

``make demo`` calls these through ``papersift demo``: online, today's RSS announcements of the default
categories, then their earlier days from the API; offline (no network, a development checkout or CI), the
latest announcement days of the shared snapshot, and the whole days of ``listings-extra/`` beside it (each
category's new submissions of a day in the listing's order, e.g. cs.LG and math.NT). The listing a new
user sees is a real recent day either way: the latest day first (the first page is up in seconds), the
other days after it in the background.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

from papersift.records.paper import Announcement, Paper, Parsed
from papersift.services.harvest import ArxivClient, HarvestError, query_api, reachable, sync_rss
from papersift.services.ingest import ingest_items, ingest_listed
from papersift.settings import Settings
from papersift.sources import open_bytes
from papersift.sources.snapshot import DayListing, iter_day_listings, iter_snapshot
from papersift.store import IngestCounts, Store
from papersift.store.records import FetchedDay

PARTS = ("all", "first", "rest")  # what of the snapshot's latest days ``load_recent_snapshot`` loads


LOADING = "demo-loading"  # in the home while an offline demo's other days load in the background


def loading(home: Path) -> bool:
    """Whether an offline demo is still loading its other days into the store at ``home``."""
    return (home / LOADING).exists()


def arxiv_reachable(settings: Settings, timeout: float = 5.0) -> bool:
    """One quick request, no retries: is arXiv's feed server there at all?"""
    return reachable(settings.rss_url, settings, timeout)


def sync_recent(settings: Settings, store: Store, categories: list[str]) -> IngestCounts | None:
    """Today's announcements of ``categories`` from arXiv; None when arXiv cannot be reached."""
    if not arxiv_reachable(settings):
        return None
    try:
        with ArxivClient(settings) as client:
            return sync_rss(client, store, categories)
    except HarvestError:
        return None


API_MOST = 2000  # papers of the earlier days asked of the API (a few requests, 3 s apart)
API_PAGE = 500


def earlier_days(
    settings: Settings, store: Store, categories: list[str], days: int, today: date | None = None
) -> IngestCounts:
    """The earlier days of ``categories`` from arXiv's API, newest first: the papers submitted in the
    calendar span of ``days`` listing days before ``today``. Their announcement days follow from their
    submission times by arXiv's schedule (``schedule.derive_announced``, at upsert), so they list as
    those days' new papers. Raises ``HarvestError`` (``offline: …`` when the API cannot be reached)."""
    today = today or date.today()
    start = today - timedelta(days=days * 7 // 5 + 3)  # weekends; a submission waits up to a day
    wanted = " OR ".join(f"cat:{c}" for c in categories)
    query = f"({wanted}) AND submittedDate:[{start:%Y%m%d}0000 TO {today:%Y%m%d}2359]"
    with ArxivClient(settings) as client:
        items = query_api(client, query, max_results=API_MOST, page_size=API_PAGE, newest_by="submittedDate")
        return ingest_listed(store, items, "api")


_ANNOUNCED = re.compile(rb'"announced": ?"(\d{4}-\d{2}-\d{2})"')  # a record's own field (inside a string
_PRIMARY = re.compile(rb'"primary_category": ?"([^"\\]+)"')  # its quotes would be escaped)


def latest_days(snapshot: Path, days: int) -> dict[str, set[date]]:
    """Each primary category's ``days`` latest announcement dates in a snapshot (a category listed only
    now and then still gets its own latest week, not the busiest categories' last days)."""
    return _scan(snapshot, days)[0]


def _scan(snapshot: Path, days: int) -> tuple[dict[str, set[date]], list[bytes]]:
    """``latest_days``, and the lines of the snapshot's latest day (kept as it is read: no second pass)."""
    seen: dict[str, set[bytes]] = {}
    newest = b""
    lines: list[bytes] = []
    with open_bytes(snapshot) as f:
        for line in f:
            found = _ANNOUNCED.search(line)
            primary = _PRIMARY.search(line) if found else None
            if found and primary:
                day = found.group(1)
                seen.setdefault(primary.group(1).decode(), set()).add(day)
                if day > newest:
                    newest, lines = day, []
                if day == newest:
                    lines.append(line)
    wanted = {c: {date.fromisoformat(d.decode()) for d in sorted(v)[-days:]} for c, v in seen.items()}
    return wanted, lines


def load_recent_snapshot(
    store: Store, snapshot: Path, days: int, part: str = "all"
) -> tuple[IngestCounts, str]:
    """Ingest the papers of every primary category's latest ``days`` announcement days of a snapshot.

    ``part``: ``first``, only the papers of the snapshot's latest day (what a first page shows, loaded in
    seconds); ``rest``, all but those; ``all``. Returns the counts and the busiest primary category of the
    latest day (the listing to show).
    """
    if part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
    wanted, newest = _scan(snapshot, days)
    last = max((d for v in wanted.values() for d in v), default=None)
    busiest: Counter[str] = Counter()

    def recent(items: Iterator[Parsed]) -> Iterator[Parsed]:
        for p in items:
            if isinstance(p, Paper) and p.announced in wanted.get(p.primary_category, ()):
                if p.announced == last:
                    busiest[p.primary_category] += 1
                if part == "all" or (part == "first") == (p.announced == last):
                    yield p

    dates = {d.isoformat().encode() for v in wanted.values() for d in v}
    if part == "first":  # the latest day's lines, kept by the first pass
        lines = newest
    else:  # only the lines of those days are parsed (seconds, not half a minute)
        with open_bytes(snapshot) as f:
            lines = [line for line in f if (m := _ANNOUNCED.search(line)) and m.group(1) in dates]
    counts = ingest_listed(
        store, recent(iter_snapshot(io.BytesIO(b"".join(lines)), snapshot.name)), "snapshot"
    )
    top = busiest.most_common(1)
    return counts, top[0][0] if top else ""


EXTRA = "listings-extra"  # whole days beside the snapshot: papers.jsonl.gz and daily-listings.jsonl.gz


def load_day_listings(store: Store, folder: Path, days: int) -> tuple[IngestCounts, list[DayListing]]:
    """Each category's latest ``days`` whole days of a listings folder (``papers.jsonl.gz`` and
    ``daily-listings.jsonl.gz``, ``{date, category, source, n, ids[]}``): their papers stored with their
    place in the day's listing as new submissions. Returns the counts and the listings loaded, latest
    first; nothing when the folder holds no such files."""
    listings_path, papers_path = folder / "daily-listings.jsonl.gz", folder / "papers.jsonl.gz"
    if not (listings_path.exists() and papers_path.exists()):
        return IngestCounts(), []
    with open_bytes(listings_path) as f:
        every = list(iter_day_listings(f, listings_path.name))
    latest: dict[str, set[date]] = {}
    for c in {x.category for x in every}:
        latest[c] = set(sorted({x.day for x in every if x.category == c})[-days:])
    chosen = sorted((x for x in every if x.day in latest[x.category]), key=lambda x: (x.day, x.category))
    places: dict[str, list[Announcement]] = {}
    for x in chosen:
        for n, pid in enumerate(x.ids, 1):
            places.setdefault(pid, []).append(Announcement(x.day, x.category, "new", n))

    def listed(items: Iterator[Parsed]) -> Iterator[Parsed]:
        for p in items:
            if isinstance(p, Paper) and p.id in places:
                p.listings.extend(places[p.id])
                yield p

    with open_bytes(papers_path) as f:
        counts = ingest_items(store, listed(iter_snapshot(f, papers_path.name)))
    store.record_fetched(FetchedDay(x.category, x.day, "snapshot", len(x.ids)) for x in chosen)
    return counts, chosen[::-1]
