"""arXiv's announcement schedule, checked against real daily listings."""

from __future__ import annotations

import gzip
from datetime import UTC, date, datetime
from itertools import pairwise
from pathlib import Path

import orjson

from papersift.records.paper import Paper, Version
from papersift.records.schedule import derive_announced, listing_date, next_listing_day


def test_deadline_splits_submissions_between_listings() -> None:
    # Monday 2025-03-17: 13:59 EDT (17:59 UTC) makes Tuesday's listing, 14:00 EDT Wednesday's
    assert listing_date(datetime(2025, 3, 17, 17, 59, tzinfo=UTC)) == date(2025, 3, 18)
    assert listing_date(datetime(2025, 3, 17, 18, 0, tzinfo=UTC)) == date(2025, 3, 19)


def test_thursday_after_deadline_and_weekend_go_to_monday() -> None:
    thursday_early = datetime(2026, 1, 22, 18, 0, tzinfo=UTC)  # 13:00 EST: Thursday's close
    assert listing_date(thursday_early) == date(2026, 1, 23)  # announced Thursday evening
    thursday_late = datetime(2026, 1, 22, 20, 0, tzinfo=UTC)  # 15:00 EST: Friday's close
    assert listing_date(thursday_late) == date(2026, 1, 26)  # announced Sunday evening
    friday_late = datetime(2026, 1, 23, 20, 0, tzinfo=UTC)
    saturday = datetime(2026, 1, 24, 12, 0, tzinfo=UTC)
    assert listing_date(friday_late) == listing_date(saturday) == date(2026, 1, 27)


def test_winter_time_moves_the_deadline_in_utc() -> None:
    # 14:00 EST is 19:00 UTC in January
    assert listing_date(datetime(2026, 1, 20, 18, 59, tzinfo=UTC)) == date(2026, 1, 21)
    assert listing_date(datetime(2026, 1, 20, 19, 0, tzinfo=UTC)) == date(2026, 1, 22)


def test_given_announcement_wins_over_derivation() -> None:
    v1 = Version(1, datetime(2026, 1, 20, 12, 0, tzinfo=UTC))
    p = Paper("2601.00001", "T", [], "", ["cs.LG"], versions=[v1])
    assert derive_announced(p) == date(2026, 1, 21)
    p.announced = date(2026, 1, 26)
    assert derive_announced(p) == date(2026, 1, 26)


def _listing_days(shared_data: Path) -> list[tuple[str, date, list[str]]]:
    days = []
    with gzip.open(shared_data / "daily-listings.jsonl.gz", "rb") as f:
        for line in f:
            rec = orjson.loads(line)
            days.append((rec["source"], date.fromisoformat(rec["date"]), rec["ids"]))
    return days


def test_real_weekend_files_repeat_fridays_listing(shared_data: Path) -> None:
    days = _listing_days(shared_data)
    fridays = {(src, day): set(ids) for src, day, ids in days if day.weekday() == 4}
    weekend = [(src, day, set(ids)) for src, day, ids in days if day.weekday() >= 5]
    assert len(days) > 1000 and weekend
    repeats = 0
    for src, day, ids in weekend:
        friday = (src, date.fromordinal(day.toordinal() - (day.weekday() - 4)))
        if len(ids & fridays.get(friday, set())) >= 0.5 * len(ids):
            repeats += 1
    assert repeats / len(weekend) > 0.85  # no new papers are announced on Friday/Saturday evenings


def test_consecutive_real_listings_follow_the_schedule(shared_data: Path) -> None:
    """Each source's next weekday listing is the schedule's next listing day (holidays aside)."""
    by_source: dict[str, list[date]] = {}
    with gzip.open(shared_data / "daily-listings.jsonl.gz", "rb") as f:
        for line in f:
            rec = orjson.loads(line)
            day = date.fromisoformat(rec["date"])
            if day.weekday() < 5:
                by_source.setdefault(rec["source"], []).append(day)
    checked = agree = 0
    for days in by_source.values():
        days.sort()
        for a, b in pairwise(days):
            if (b - a).days <= 4:  # skip gaps in the recording itself
                checked += 1
                agree += next_listing_day(a) == b
    assert checked > 500
    assert agree / checked > 0.9  # the rest: arXiv holidays and days the recorders missed


def test_derived_day_matches_real_announcement_for_recorded_versions(shared_data: Path) -> None:
    """Papers announced on a real listing day derive to that day from their v1 time (API fixtures)."""
    from papersift.sources.atom import parse_atom_page

    page = parse_atom_page(
        (shared_data / "fixtures/api_atom/q_testing_s0_m100_cfe7536492ca.xml").read_bytes(), "api"
    )
    papers = [p for p in page.items if isinstance(p, Paper)]
    assert papers
    for p in papers:
        announced = derive_announced(p)
        assert announced is not None and announced.weekday() < 5
        assert p.published is not None and 0 <= (announced - p.published).days <= 4
