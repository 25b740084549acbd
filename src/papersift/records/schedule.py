"""arXiv's announcement schedule: which listing day a submission lands in.

arXiv closes each day's submissions at 14:00 US-Eastern, Monday to Friday, and announces them that evening
(Sunday–Thursday, 20:00 Eastern). The listing carries the next weekday's date: a Thursday close is the
Friday listing, a Friday close the Monday listing; nothing is announced on Friday or Saturday evenings.
Holidays (a few a year, announced by arXiv in advance) are not modelled: the derived date is then one
listing early, which only matters for sources that give no announcement date at all.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from papersift.records.paper import Paper

EASTERN = ZoneInfo("America/New_York")
DEADLINE = time(14, 0)
_NOON = time(12, 0)


def is_listing_day(day: date) -> bool:
    """Listings are dated Monday to Friday."""
    return day.weekday() < 5


def next_listing_day(day: date) -> date:
    """The first listing day strictly after ``day``."""
    day += timedelta(days=1)
    while not is_listing_day(day):
        day += timedelta(days=1)
    return day


ANNOUNCED = time(20, 0)  # a listing is announced the evening before its date (Sunday-Thursday), US-Eastern


def announcement_time(listing: date) -> datetime:
    """When arXiv announces the listing dated ``listing`` (a weekday): 20:00 US-Eastern the evening before
    (a Monday listing on the Sunday)."""
    return datetime.combine(listing - timedelta(days=1), ANNOUNCED, tzinfo=EASTERN)


def listing_date(submitted: datetime) -> date:
    """The date of the listing that announces a submission made at ``submitted`` (aware or UTC)."""
    if submitted.tzinfo is None:
        submitted = submitted.replace(tzinfo=UTC)
    local = submitted.astimezone(EASTERN)
    close = local.date()
    if local.time() >= DEADLINE or close.weekday() >= 5:
        # after the deadline, or at a weekend: the next weekday's close takes it
        close += timedelta(days=1)
        while close.weekday() >= 5:
            close += timedelta(days=1)
    return next_listing_day(close)


def listing_date_of_day(day: date) -> date:
    """Best guess for a submission known only by its (Eastern) date: assume it came before the deadline."""
    return listing_date(datetime.combine(day, _NOON, tzinfo=EASTERN))


def derive_announced(paper: Paper) -> date | None:
    """The first announcement date of ``paper``: given by the source, else derived from its v1 submission."""
    if paper.announced is not None:
        return paper.announced
    for v in paper.versions:
        if v.version == 1 and v.submitted is not None:
            return listing_date(v.submitted)
    if paper.published is not None:
        return listing_date_of_day(paper.published)
    return None
