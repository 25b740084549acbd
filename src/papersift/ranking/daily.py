"""A reader's Daily Papers: the day's new papers and cross-lists in the categories they follow, ranked by
their library and interests with ``ranking.recommend`` (``profile`` turns the two into its ``Profile``) when
there are any and the vectors exist, else in arXiv order; the one view of them every face shows (the web,
the CLI, the digests) and why a day has none (``NoDailyPapers``; ``quiet_day`` says why, as far as the
store's fetched days tell it, and when the next one comes). What the reader has seen (``seen_ways``:
pushed, mailed, opened, read) is left out before ranking, or kept and marked with ``show_seen``;
``min_score`` is the reader's threshold of pushes and mails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Literal

from papersift.index.indexes import Indexes
from papersift.ranking.evidence import library_citations, library_reasons
from papersift.ranking.recommend import LibraryItem, Profile, keyword_pattern, passes, recommend
from papersift.ranking.tags import known_tag
from papersift.records.messages import Message, dated, say
from papersift.records.paper import Paper
from papersift.records.schedule import announcement_time, is_listing_day, next_listing_day
from papersift.store import Store, StoreError
from papersift.store.records import Account, FetchedDay, Interests, LibraryEntry

DAILY_KINDS = ("new", "cross")  # a Daily Papers day: new submissions and cross-lists, not replacements
DIGEST_WAYS = ("pushed", "mailed")  # seen in a digest: the same day's other channels still carry it
MIN_SCORE = "min_score"  # the reader setting (store.reader_setting) of the threshold


def profile(store: Store, reader: Account, entries: Sequence[LibraryEntry] | None = None) -> Profile:
    """The reader's library (``entries`` when already read) and interests as the recommender's input."""
    interests = store.interests(reader.id)
    items: list[LibraryItem] = []
    for e in store.library(reader.id) if entries is None else entries:
        rowid = store.rowid(e.paper_id) if e.paper_id else None
        items.append(
            LibraryItem(
                rowid=rowid,
                text=f"{e.title}. {e.abstract}".strip(),
                authors=e.authors,
                rating=e.rating,
                added=e.added or _epoch(),
                title=e.title,
            )
        )
    return Profile(
        items=tuple(items),
        categories=interests.categories,
        authors=interests.authors,
        must=interests.must,
        never=interests.never,
    )


def _epoch() -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC)


def daily_days(store: Store, categories: Sequence[str]) -> list[date]:
    """Every announcement day of any of ``categories``, oldest first."""
    return sorted({d for c in categories for d in store.announcement_days(c)})


def day_papers(store: Store, categories: Sequence[str], day: date) -> list[Paper]:
    """The day's new papers and cross-lists in the followed categories, in arXiv order, each once."""
    seen: dict[str, Paper] = {}
    for category in categories:
        for entry in store.listing(category, day):
            if entry.kind in DAILY_KINDS and entry.paper.id not in seen:
                seen[entry.paper.id] = entry.paper
    return list(seen.values())


@dataclass(frozen=True, slots=True)
class DailyPick:
    """One paper of a reader's Daily Papers, with why it is where it is (empty for arXiv order)."""

    paper: Paper
    score: float | None
    reasons: tuple[Message, ...] = ()
    seen: tuple[str, ...] = ()  # how the reader saw it (pushed, mailed, opened, read): only with show_seen


def seen_ways(
    store: Store, reader: Account, paper_ids: Sequence[str], digest_day: date | None = None
) -> dict[str, tuple[str, ...]]:
    """paper id → how the reader saw it (papers never seen left out). A paper pushed or mailed only in the
    digest of ``digest_day`` does not count then: every channel of one day carries the same papers."""
    found: dict[str, tuple[str, ...]] = {}
    for pid, marks in store.seen(reader.id, paper_ids).items():
        ways = [m.how for m in marks if not (digest_day and m.how in DIGEST_WAYS and m.day == digest_day)]
        if ways:
            found[pid] = tuple(dict.fromkeys(ways))
    return found


def min_score(store: Store, reader: Account | None, given: float | None = None) -> float | None:
    """The score below which nothing is pushed or mailed: ``given`` (``--min-score``), else the reader's
    setting, else none."""
    if given is not None or reader is None:
        return given
    kept = store.reader_setting(reader.id, MIN_SCORE)
    return float(kept) if kept else None


def above(picks: Sequence[DailyPick], threshold: float | None) -> list[DailyPick]:
    """The picks at or above ``threshold`` (picks in arXiv order have no score and all pass)."""
    if threshold is None:
        return list(picks)
    return [p for p in picks if p.score is None or p.score >= threshold]


def daily(
    store: Store,
    indexes: Indexes | None,
    reader: Account | None,
    day: date,
    categories: Sequence[str],
    *,
    k: int | None = None,
    show_seen: bool = False,
    digest_day: date | None = None,
    tag: str | None = None,
) -> list[DailyPick]:
    """The day's papers for ``reader``: ranked by the library and interests when there are any and the
    vectors exist, else in arXiv order (with the must / never keywords still applied; no reader: all).
    What the reader has seen is left out (``show_seen``: kept, marked; ``digest_day``: see ``seen_ways``).
    ``tag`` (as ``ranking/tags.known_tag`` spells it): ranked by that tag's papers alone, the keywords
    still applied, followed authors not lifted (they are no part of the tag)."""
    interests = store.interests(reader.id) if reader else Interests()
    entries = store.library(reader.id) if reader else []
    saved = {e.paper_id for e in entries if e.paper_id}
    papers = [p for p in day_papers(store, categories, day) if p.id not in saved]  # never what is saved
    ways = seen_ways(store, reader, [p.id for p in papers], digest_day) if reader else {}
    limit = k or len(papers)

    def kept(picks: list[DailyPick]) -> list[DailyPick]:
        # the seen are ranked with the rest (a score does not move because another paper was seen), then
        # left out unless asked for
        return (picks if show_seen else [p for p in picks if not p.seen])[:limit]

    personal = bool(interests.authors or interests.must or interests.never or entries)
    ready = indexes is not None and indexes.dense is not None and indexes.lexical is not None
    if reader and personal and ready:
        assert indexes is not None
        tagged = None if tag is None else store.library(reader.id, tag)  # read only to rank by a tag
        rowids = {p.id: store.rowid(p.id) for p in papers}
        by_rowid = {r: p for p in papers if (r := rowids[p.id]) is not None}
        mine = profile(store, reader, entries if tagged is None else tagged)
        if tagged is not None:
            mine = replace(mine, authors=())
        ranked = recommend(indexes, mine, list(by_rowid), k=limit + len(ways), papers=by_rowid)
        picks = [
            DailyPick(p, r.score, tuple(r.reasons()), ways.get(p.id, ()))
            for r in ranked
            if (p := by_rowid.get(r.rowid)) is not None
        ]
        return kept(cites_library(store, picks, saved))
    must, never = keyword_pattern(interests.must), keyword_pattern(interests.never)
    picks = [DailyPick(p, None, (), ways.get(p.id, ())) for p in papers if passes(p, must, never)]
    return kept(cites_library(store, picks, saved))


def cites_library(store: Store, picks: list[DailyPick], library: set[str]) -> list[DailyPick]:
    """``picks`` with why they matter to the reader's library added to their reasons ("cites 2 papers of
    your library", "cited by 1 paper of your library": ``ranking/evidence.py``), in the same order and with
    the same scores: the references are evidence shown, not scored."""
    found = library_citations(store, [p.paper.id for p in picks], library)
    if not found:
        return picks
    return [
        replace(p, reasons=p.reasons + tuple(library_reasons(*found[p.paper.id])))
        if p.paper.id in found
        else p
        for p in picks
    ]


@dataclass(frozen=True, slots=True)
class DailyView:
    """One day's Daily Papers: the categories followed, every day they have listings, the picks."""

    categories: tuple[str, ...]
    days: list[date]
    day: date
    picks: list[DailyPick]
    tag: str | None = None  # ranked by this tag's papers alone (``ranking/tags.py``)

    @property
    def ranking(self) -> str:
        """How the picks are ordered: ``library`` (ranked by the reader's library) or ``arXiv order``."""
        return "library" if self.picks and self.picks[0].score is not None else "arXiv order"


class NoDailyPapers(StoreError):
    """Nothing to pick from: the followed categories have no listings at all, or none on the day asked."""


def daily_picks(
    store: Store,
    indexes: Indexes | None,
    reader: Account | None,
    fallback: Sequence[str],
    day: date | None = None,
    *,
    k: int | None = None,
    show_seen: bool = False,
    digest_day: date | None = None,
    tag: str | None = None,
) -> DailyView:
    """The reader's (or, with no reader, everyone's) Daily Papers of ``day`` (default: the latest) in the
    categories they follow, else ``fallback``, as every face shows them (web, CLI, digests); or
    ``NoDailyPapers`` saying why there are none (the web answers it with a 404, the CLI with an error).
    ``tag``: ranked by that tag's papers alone (``UnknownTag`` when the reader has none of that name)."""
    tag = None if tag is None else known_tag(store, reader, tag)
    categories = reader_categories(store, reader, fallback)
    days = daily_days(store, categories)
    if not days:
        raise NoDailyPapers(say("no_followed_listings"))
    when = day or days[-1]
    if when not in days:
        raise NoDailyPapers(say("no_listing_of", categories=", ".join(categories), day=when.isoformat()))
    picks = daily(
        store, indexes, reader, when, categories, k=k, show_seen=show_seen, digest_day=digest_day, tag=tag
    )
    return DailyView(categories, days, when, picks, tag)


def followed_days(store: Store, reader: Account | None, fallback: Sequence[str]) -> list[date]:
    """Every listing day of the categories the reader follows (else ``fallback``), oldest first."""
    return daily_days(store, reader_categories(store, reader, fallback))


QuietReason = Literal["weekend", "holiday", "not_yet", "future", "not_stored"]


@dataclass(frozen=True, slots=True)
class QuietDay:
    """A day with no listing to show, and why, as far as it is known (``quiet_day``): ``weekend`` (arXiv
    lists Monday to Friday), ``holiday`` (arXiv's own feed for the day was seen empty), ``future`` (a day
    still to come), ``not_yet`` (today's listing, not announced yet), ``not_stored`` (never fetched here:
    nothing is known of it); the next listing day, with when arXiv announces it."""

    day: date
    reason: QuietReason
    next_day: date
    announced: datetime  # aware (US-Eastern), the evening before ``next_day``

    def line(self) -> Message:
        """The day and the next announcement in one sentence, a message (the page, digests, pushes and the
        CLI say it in their reader's language)."""
        at, utc = f"{self.announced:%Y-%m-%d %H:%M}", f"{self.announced.astimezone(UTC):%Y-%m-%d %H:%M}"
        when = {"weekday": dated("weekday", self.day), "day": self.day.isoformat()}
        if self.reason == "not_stored":
            return say("quiet_not_stored", **when)
        if self.reason in ("not_yet", "future"):
            return say(f"quiet_{self.reason}", **when, announced=at, utc=utc)
        then = {"next_weekday": dated("weekday", self.next_day), "next": self.next_day.isoformat()}
        return say(f"quiet_{self.reason}", **when, **then, announced=at, utc=utc)

    @property
    def subject_key(self) -> str:
        """The message key of a digest's subject for the day (its argument: ``day``)."""
        return "digest_not_stored_subject" if self.reason == "not_stored" else "digest_quiet_subject"


def quiet_day(
    days: Sequence[date], day: date, fetched: Sequence[FetchedDay] = (), now: datetime | None = None
) -> QuietDay | None:
    """Why ``day`` has no listing among ``days`` (the stored listing days, oldest first), said only as far as
    it is known: a weekend; a day still to come (``future``), or today's listing not announced yet; a
    holiday only where a feed of the day was ``fetched`` empty (arXiv's own word); else, where nothing of
    the day was fetched, that it is not stored here. None when ``day`` has a listing, or was fetched with
    papers (the categories asked for had none that day)."""
    if day in days:
        return None
    if not is_listing_day(day):
        return QuietDay(day, "weekend", next_listing_day(day), announcement_time(next_listing_day(day)))
    announced = announcement_time(day)
    now = now or datetime.now(UTC)
    if announced > now:
        future = day > now.astimezone(announced.tzinfo).date()
        return QuietDay(day, "future" if future else "not_yet", day, announced)
    if any(f.empty for f in fetched):
        later = [d for d in days if d > day] or [next_listing_day(day)]
        return QuietDay(day, "holiday", later[0], announcement_time(later[0]))
    if fetched:
        return None
    return QuietDay(day, "not_stored", next_listing_day(day), announcement_time(next_listing_day(day)))


def reader_categories(store: Store, reader: Account | None, fallback: Sequence[str]) -> tuple[str, ...]:
    """The categories the reader follows, else ``fallback``."""
    followed = store.interests(reader.id).categories if reader else ()
    return tuple(followed or fallback)


def day_quiet(
    store: Store, categories: Sequence[str], day: date, now: datetime | None = None
) -> QuietDay | None:
    """``quiet_day`` of ``day`` for ``categories``, from what the store holds: its listing days and its
    fetches of the day. The one answer every face gives (web, CLI, digests, pushes, JSON)."""
    days = daily_days(store, tuple(categories))
    return quiet_day(days, day, store.fetched_days(day, categories), now)
