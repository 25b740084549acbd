"""The offline demo's whole days: ``../shared/data/listings-extra/`` (every new cs.LG submission of four
June 2026 days, math.NT's of fourteen August days) is loaded beside the snapshot, each paper at its place
in its day's listing, so a cs.LG day lists in full."""

from __future__ import annotations

import gzip
import itertools
from datetime import date
from pathlib import Path

import orjson
import pytest

from papersift.services.demo import EXTRA
from papersift.settings import Settings
from papersift.sources.snapshot import iter_day_listings
from papersift.store import open_store
from tests.support.data import write_jsonl
from tests.support.inproc import invoke


@pytest.fixture()
def shared(tmp_path: Path, shared_data: Path) -> Path:
    """A data folder with a small real snapshot (the 300k file takes half a minute to scan) and the real
    listings-extra folder beside it (linked, never copied)."""
    folder = tmp_path / "shared"
    folder.mkdir()
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        records = [r for r in map(orjson.loads, itertools.islice(f, 299_000, 300_000)) if r.get("announced")]
    write_jsonl(folder / "arxiv-300k.jsonl.gz", records[:50], gz=True)
    (folder / EXTRA).symlink_to(shared_data / EXTRA, target_is_directory=True)
    return folder


def _listings(shared_data: Path, category: str) -> dict[date, list[str]]:
    with gzip.open(shared_data / EXTRA / "daily-listings.jsonl.gz", "rb") as f:
        return {x.day: list(x.ids) for x in iter_day_listings(f) if x.category == category}


def test_the_offline_demo_lists_whole_cs_lg_days_in_their_listings_order(
    tmp_path: Path, shared: Path, shared_data: Path
) -> None:
    home = tmp_path / "home"
    shown = invoke(
        "demo",
        "--offline",
        "--no-embed",
        "--no-background",
        "--days",
        "2",
        "--shared",
        str(shared),
        home=home,
    )
    days = _listings(shared_data, "cs.LG")
    latest, before, *_ = sorted(days, reverse=True)
    assert f"whole day of cs.LG: {latest} ({len(days[latest])} new submissions)" in shown.stdout
    assert "whole day of math.NT: 2026-08-21" in shown.stdout
    store = open_store(Settings(home=home))
    try:
        for day in (latest, before):  # each category's latest --days whole days, every paper in its place
            entries = store.listing("cs.LG", day)
            assert [e.paper.id for e in entries if e.kind == "new"] == days[day]
            assert [e.position for e in entries if e.kind == "new"] == list(range(1, len(days[day]) + 1))
        assert len(days[latest]) == 121 and store.listing("cs.LG", min(days)) == []  # nor an earlier day
    finally:
        store.close()
    listing = invoke("list", "cs.LG", "--date", latest.isoformat(), home=home)
    assert listing.stdout.splitlines()[0].endswith(f"{len(days[latest])} new, 0 cross-lists, 0 replacements")


def test_a_day_listing_without_its_category_is_refused_naming_the_line(shared_data: Path) -> None:
    with gzip.open(shared_data / "daily-listings.jsonl.gz", "rb") as f:  # the whole-archive shape
        whole = next(f)
    with pytest.raises(ValueError, match="line 2: no category"):
        list(iter_day_listings(iter([b"\n", whole]), "daily-listings.jsonl.gz"))
