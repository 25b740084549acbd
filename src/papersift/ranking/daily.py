"""A reader's Daily Papers: the day's new papers and cross-lists in the categories they follow, ranked by
their library and interests with ``ranking.recommend`` (``profile`` turns the two into its ``Profile``) when
there are any and the vectors exist, else in arXiv order; the one view of them every face shows (the web,
the CLI, the digests) and why a day has none (``NoDailyPapers``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from papersift.index.indexes import Indexes
from papersift.paper import Paper
from papersift.ranking.evidence import library_citations, library_reasons
from papersift.ranking.recommend import LibraryItem, Profile, keyword_pattern, passes, recommend
from papersift.store import Store, StoreError
from papersift.store.records import Account, Interests, LibraryEntry

DAILY_KINDS = ("new", "cross")  # a Daily Papers day: new submissions and cross-lists, not replacements


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
    reasons: tuple[str, ...] = ()


def daily(
    store: Store,
    indexes: Indexes | None,
    reader: Account | None,
    day: date,
    categories: Sequence[str],
    *,
    k: int | None = None,
) -> list[DailyPick]:
    """The day's papers for ``reader``: ranked by the library and interests when there are any and the
    vectors exist, else in arXiv order (with the must / never keywords still applied; no reader: all)."""
    interests = store.interests(reader.id) if reader else Interests()
    entries = store.library(reader.id) if reader else []
    saved = {e.paper_id for e in entries if e.paper_id}
    papers = [p for p in day_papers(store, categories, day) if p.id not in saved]  # never what is saved
    limit = k or len(papers)
    personal = bool(interests.authors or interests.must or interests.never or entries)
    ready = indexes is not None and indexes.dense is not None and indexes.lexical is not None
    if reader and personal and ready:
        assert indexes is not None
        rowids = {p.id: store.rowid(p.id) for p in papers}
        by_rowid = {r: p for p in papers if (r := rowids[p.id]) is not None}
        mine = profile(store, reader, entries)
        ranked = recommend(indexes, mine, list(by_rowid), k=limit, papers=by_rowid)
        picks = [
            DailyPick(by_rowid[r.rowid], r.score, tuple(r.reasons())) for r in ranked if r.rowid in by_rowid
        ]
        return cites_library(store, picks, saved)
    must, never = keyword_pattern(interests.must), keyword_pattern(interests.never)
    keep = [p for p in papers if passes(p, must, never)]
    return cites_library(store, [DailyPick(p, None) for p in keep[:limit]], saved)


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
) -> DailyView:
    """The reader's (or, with no reader, everyone's) Daily Papers of ``day`` (default: the latest) in the
    categories they follow, else ``fallback``, as every face shows them (web, CLI, digests); or
    ``NoDailyPapers`` saying why there are none (the web answers it with a 404, the CLI with an error)."""
    followed = store.interests(reader.id).categories if reader else ()
    categories = tuple(followed or fallback)
    days = daily_days(store, categories)
    if not days:
        raise NoDailyPapers("no listings for the followed categories yet")
    when = day or days[-1]
    if when not in days:
        raise NoDailyPapers(f"no listing of {', '.join(categories)} on {when}")
    return DailyView(categories, days, when, daily(store, indexes, reader, when, categories, k=k))
