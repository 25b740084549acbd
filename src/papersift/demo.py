"""Getting real papers for a first run: recent announcements from arXiv, or the offline snapshot.

``make demo`` calls these through ``papersift demo``: online, today's RSS announcements of the default
categories; offline (no network, a development checkout or CI), the latest announcement days of the
shared snapshot, so the listing a new user sees is a real recent day either way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import orjson

from papersift.harvest import ArxivClient, HarvestError, reachable, sync_rss
from papersift.ingest import ingest_items
from papersift.paper import Paper, Parsed
from papersift.settings import Settings
from papersift.sources import open_bytes
from papersift.sources.snapshot import iter_snapshot
from papersift.store import IngestCounts, Store


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


def latest_days(snapshot: Path, days: int) -> dict[str, set[date]]:
    """Each primary category's ``days`` latest announcement dates in a snapshot (a category listed only
    now and then still gets its own latest week, not the busiest categories' last days)."""
    seen: dict[str, set[str]] = {}
    with open_bytes(snapshot) as f:
        for line in f:
            if b'"announced": "' in line or b'"announced":"' in line:
                record = orjson.loads(line)
                value, category = record.get("announced"), record.get("primary_category")
                if value and category:
                    seen.setdefault(category, set()).add(value)
    return {c: {date.fromisoformat(d) for d in sorted(v)[-days:]} for c, v in seen.items()}


def load_recent_snapshot(store: Store, snapshot: Path, days: int) -> tuple[IngestCounts, str]:
    """Ingest the papers of every primary category's latest ``days`` announcement days of a snapshot.

    Returns the counts and the busiest primary category of the latest day (the listing to show).
    """
    wanted = latest_days(snapshot, days)
    last = max((d for v in wanted.values() for d in v), default=None)
    busiest: Counter[str] = Counter()

    def recent(items: Iterator[Parsed]) -> Iterator[Parsed]:
        for p in items:
            if isinstance(p, Paper) and p.announced in wanted.get(p.primary_category, ()):
                if p.announced == last:
                    busiest[p.primary_category] += 1
                yield p

    with open_bytes(snapshot) as f:
        counts = ingest_items(store, recent(iter_snapshot(f, snapshot.name)))
    top = busiest.most_common(1)
    return counts, top[0][0] if top else ""
