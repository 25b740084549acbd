"""The candidate pool search and related share: one hit type, one widening loop, one filter.

A ranker scores a pool of candidates (the searchers' best, ``ranking/searchers.py``) and ``admitted``
walks them best first, fetching the papers in chunks, keeping those that pass the ``Filters`` (applied here,
once, to every key the store did not already filter) and the ranker's own test. When the filters leave
fewer than asked for, ``widen`` scores a pool eight times as deep, until one holds every paper. ``Hit`` is
what both rankers return: a paper, its score, the query's phrases it contains, and for related papers the
evidence behind the score (``Hit.reasons``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

from papersift.ranking.evidence import cocited_reason, coupling_reason
from papersift.records.messages import Message, counted, say
from papersift.records.paper import Paper
from papersift.records.venues import venue_filter
from papersift.store import Filters, Store

T = TypeVar("T")
WIDEN = 8  # each wider pool is this many times as deep


@dataclass(frozen=True, slots=True)
class Hit:
    """One result: the paper, its score, the query's phrases it holds as written (``terms``), and for a
    related paper the evidence behind the score."""

    paper: Paper
    score: float
    terms: list[str] = field(default_factory=list)
    dense: float | None = None  # the dense cosine (None: no vectors)
    lexical: float = 0.0  # the tf-idf cosine
    authors: list[str] = field(default_factory=list)  # shared with the query paper
    same_category: bool = False
    earlier: bool = False
    match: tuple[int, int, float] | None = None  # (query sentence, their sentence, cosine); 0 = title
    days_earlier: int | None = None  # how long before the query paper it was submitted (when ``earlier``)
    months_earlier: int | None = None  # the same in months, when a date is known only to its month
    coupling: int = 0  # references shared with the query paper (bibliographic coupling)
    cocited: int = 0  # store papers citing both it and the query paper

    def reasons(self) -> list[Message]:
        """Why it is related, in words; never empty (at least how close it is in content or wording)."""
        out: list[Message] = []
        if self.match is not None and self.match[2] >= 0.5:
            mine, theirs, cosine = self.match
            out.append(
                say(
                    "sentence_match",
                    mine=_sentence_name("your", mine),
                    theirs=_sentence_name("their", theirs),
                    cosine=f"{cosine:.2f}",
                )
            )
        if self.authors:
            out.append(say("same_authors", authors=", ".join(self.authors)))
        if self.coupling:
            out.append(coupling_reason(self.coupling))
        if self.cocited:
            out.append(cocited_reason(self.cocited))
        if self.terms:
            out.append(say("shared_terms", terms=", ".join(self.terms)))
        if self.dense is not None and self.dense >= 0.5:
            out.append(say("close_in_content", score=f"{self.dense:.2f}"))
        if self.same_category:
            out.append(say("same_category", category=self.paper.primary_category))
        if self.earlier:
            out.append(how_much_earlier(self.days_earlier, self.months_earlier))
        if not any(r.key in ("shared_terms", "close_in_content", "same_authors") for r in out):
            if self.dense is not None and self.dense > 0:
                out.insert(0, say("close_in_content", score=f"{self.dense:.2f}"))
            else:
                out.insert(0, say("similar_wording", score=f"{self.lexical:.2f}"))
        return out


def how_much_earlier(days: int | None, months: int | None = None) -> Message:
    """``3 years earlier``, ``2 weeks earlier``, ``the same day, submitted before``: what a gap means.
    ``months`` (a date known only to its month, ``paper.first_submitted``): said in months or years,
    never in days (``the same month, submitted before``)."""
    if months is not None:
        if months <= 0:
            return say("same_month_before")
        if months >= 12:
            years = round(months / 12)
            return counted("years_earlier", years)
        return counted("months_earlier", months)
    if days is None:
        return say("earlier_work")
    if days <= 0:
        return say("same_day_before")
    for size, unit in ((365, "year"), (30, "month"), (7, "week"), (1, "day")):
        if days >= size:
            n = round(days / size) if size > 1 else days
            return counted(f"{unit}s_earlier", n)
    return say("earlier_work")


def _sentence_name(whose: str, number: int) -> Message:
    return say(f"{whose}_title") if number == 0 else say(f"{whose}_sentence", n=number)


def admitted(
    store: Store,
    ranked: Sequence[int],
    filters: Filters,
    want: int,
    step: int,
    *,
    prefiltered: Collection[int] = (),
    keep: Callable[[Paper], bool] | None = None,
) -> list[tuple[int, Paper]]:
    """The first ``want`` of ``ranked`` keys (best first) whose paper is stored, passes ``filters`` (unless
    its key is in ``prefiltered``: the store filtered it already) and ``keep``; papers fetched ``step`` at
    a time."""
    out: list[tuple[int, Paper]] = []
    filters = with_venue_papers(store, filters)
    for start in range(0, len(ranked), max(step, 1)):
        chunk = ranked[start : start + step]
        papers = store.by_rowids(list(chunk))
        for key in chunk:
            paper = papers.get(key)
            if paper is None or (key not in prefiltered and not filters.admit(paper)):
                continue
            if keep is not None and not keep(paper):
                continue
            out.append((key, paper))
            if len(out) == want:
                return out
    return out


def with_venue_papers(store: Store, filters: Filters) -> Filters:
    """``filters`` with the ids of its venue's papers looked up (once: the store's keyword search filters
    by venue itself, every other candidate is tested here)."""
    if not filters.venue or filters.venue_papers is not None:
        return filters
    slug, year = venue_filter(filters.venue)
    return replace(filters, venue_papers=frozenset(store.venue_papers(slug, year) if slug else ()))


def widen(
    collect: Callable[[int], list[T]], pool: int, want: int, size: int, count: int = 0
) -> tuple[list[T], int]:
    """``collect(pool)`` from a pool of ``pool`` candidates, widened until it holds ``want`` hits or every
    paper (``size``), and how many hits there are up to ``count``: the hits of the first pool that held
    enough, and the count from the pool that held ``count`` (counting goes on widening after the page is
    found; the page stays that of the first pool, as if nothing were counted)."""
    page: list[T] | None = None
    while True:
        hits = collect(pool)
        if page is None and (len(hits) >= want or pool >= size):
            page = hits
        if page is not None and (len(hits) >= count or pool >= size):
            return page, min(len(hits), count)
        pool *= WIDEN
