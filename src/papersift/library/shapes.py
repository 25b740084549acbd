"""The JSON shape of each thing the faces show, in one place, as pydantic models that make the JSON: a paper,
a related hit, a search hit, a library entry, a daily pick, a paper by followed authors and the lab's
trending papers. The API (``web/``, which also gives them to OpenAPI), the feeds (``records/feeds.py``,
``library/digest.py``) and the CLI build their JSON with these models (``Shape.of…(records).dump()``), so a
field is added or renamed here once.

A paper is its record (``RecordShape``) with what the reading layer adds (``reading/shown.py``: its
``tldr``, and ``zh`` in 中文; ``texts`` are the stored texts looked up for the papers shown, the extractive
TL;DR without them) and what is stored of its full text (``fulltext``, ``references``, ``cited_by``, ``code``,
``citations``); the others are a paper with what its ranking adds. ``position`` is how the caller numbers the
items (``rank=`` for results, ``number=`` for a day's listing), plus anything the caller adds (``date=``,
``announced=``): extra keys, after the declared ones in the order given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Self

from pydantic import Field

from papersift.ranking import understand
from papersift.ranking.daily import DailyPick
from papersift.ranking.followed import FollowedPaper
from papersift.ranking.pool import Hit
from papersift.ranking.search import SearchResult
from papersift.reading.shown import Texts, TldrShape, ZhShape
from papersift.records.json_model import Said, Shape
from papersift.records.paper import Paper
from papersift.records.venues import is_venue_id
from papersift.services.lab import Popular
from papersift.services.listing import ABS_URL, PDF_URL
from papersift.sources.citetext import plain_authors
from papersift.sources.fulltext import CodeLink, Reference
from papersift.sources.references import safe_url
from papersift.store.fulltext_rows import CitationCount, Citing, FullTextInfo, PaperLinks
from papersift.store.records import LibraryEntry
from papersift.store.venue_rows import VenueMark, code_of


class FullTextShape(Shape):
    """What was read of a paper's full text: from TeX or a PDF, its sections and words, the version read
    and when."""

    from_: str = Field(alias="from")
    sections: int
    words: int
    version: int | None = None
    fetched: str | None = None

    @staticmethod
    def data(info: FullTextInfo) -> dict[str, Any]:
        return {
            "from": info.source,
            "sections": info.sections,
            "words": info.words,
            "version": info.version or None,
            "fetched": info.fetched.isoformat() if info.fetched else None,
        }


class ReferenceShape(Shape):
    """One entry of a paper's reference list: the entry as written, what was read from it, and
    ``resolved``, the store paper it names (null: none)."""

    key: str
    text: str
    arxiv_id: str | None
    doi: str | None
    title: str | None
    year: int | None
    url: str | None
    resolved: str | None

    @classmethod
    def of(cls, ref: Reference) -> Self:
        return cls.model_validate(cls.data(ref))

    @classmethod
    def data(cls, ref: Reference) -> dict[str, Any]:
        return cls.data_of(ref, url=safe_url(ref.url) if ref.url else None)


class CitingShape(Shape):
    """A store paper citing another: its id and title."""

    id: str
    title: str

    @classmethod
    def of(cls, citing: Citing) -> Self:
        return cls.model_validate(cls.data(citing))

    @staticmethod
    def data(citing: Citing) -> dict[str, Any]:
        return dict(id=citing.paper_id, title=citing.title)


class CodeShape(Shape):
    """A code or project link: its URL, host kind, and whether it is the paper's own."""

    url: str
    kind: str
    own: bool

    @classmethod
    def data(cls, link: CodeLink) -> dict[str, Any]:
        return cls.data_of(link)


class CitationsShape(Shape):
    """Semantic Scholar's citation count (and reference count) of a paper, with the day it was asked."""

    count: int
    references: int | None
    date: str

    @staticmethod
    def data(count: CitationCount) -> dict[str, Any]:
        return dict(count=count.citations, references=count.references, date=count.day.isoformat())


class VenueShape(Shape):
    """A venue that accepted a paper: its name, year, the paper's status there and its track."""

    venue: str
    year: int
    status: str
    track: str

    @staticmethod
    def data(mark: VenueMark) -> dict[str, Any]:
        return {"venue": mark.venue, "year": mark.year, "status": mark.status, "track": mark.track}


def venue_code(marks: Sequence[VenueMark], own: Sequence[CodeLink] = ()) -> list[CodeLink]:
    """A paper's code links, then its venue records' (the paper's own code too), one per URL."""
    seen = {link.url.lower() for link in own}
    extra = [link for mark in marks for link in code_of(mark) if link.url.lower() not in seen]
    return [*own, *{link.url.lower(): link for link in extra}.values()]


class RecordShape(Shape):
    """A paper's record, without what the reading layer adds (the base of every paper's JSON)."""

    id: str
    version: int | None
    title: str
    authors: list[str]
    abstract: str
    categories: list[str]
    primary_category: str
    announced: str | None
    published: str | None
    updated: str | None
    comments: str | None
    journal_ref: str | None
    doi: str | None
    license: str | None
    abs_url: str
    pdf_url: str


def record_fields(paper: Paper, venues: Sequence[VenueMark] = ()) -> dict[str, Any]:
    """The fields of ``RecordShape`` for ``paper``, to construct any model built on it (a venue paper's
    addresses are its venue record's: ``venues``)."""
    if is_venue_id(paper.id):
        abs_url = next((m.url for m in venues if m.url), "")
        pdf_url = next((m.pdf for m in venues if m.pdf), "")
    else:
        abs_url, pdf_url = ABS_URL.format(paper.id), PDF_URL.format(paper.id)
    return {
        "id": paper.id,
        "version": paper.version,
        "title": paper.title,
        "authors": list(plain_authors(paper.authors)),
        "abstract": paper.abstract,
        "categories": paper.categories,
        "primary_category": paper.primary_category,
        "announced": paper.announced.isoformat() if paper.announced else None,
        "published": paper.published.isoformat() if paper.published else None,
        "updated": paper.updated.isoformat() if paper.updated else None,
        "comments": paper.comments,
        "journal_ref": paper.journal_ref,
        "doi": paper.doi,
        "license": paper.license,
        "abs_url": abs_url,
        "pdf_url": pdf_url,
    }


def reading_fields(paper: Paper, texts: Texts) -> dict[str, Any]:
    """What the reading layer adds to a paper's JSON: ``tldr`` (null: a key sentence left for the rows
    shown, ``with_tldrs``), and ``zh`` when the texts are in 中文."""
    zh, tldr = texts.zh(paper), texts.shown_tldr(paper)
    return {"tldr": tldr} if zh is None else {"tldr": tldr, "zh": zh}


def with_tldrs(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Papers' JSON with each ``tldr`` left null (``Texts.extractive`` off) made, the key sentence of the
    paper's abstract (``TldrShape.extractive``), in its place: for the rows a page shows (its handler
    fills them: ``web/parts.with_part``) and for every row of its JSON twin. Other rows as they are."""
    return [
        {**row, "tldr": TldrShape.extractive(row["title"], row["abstract"]).dump()}
        if "tldr" in row and row["tldr"] is None
        else row
        for row in rows
    ]


class PaperShape(RecordShape):
    """A paper as every face shows it in JSON (every ``--format json`` output and every API list of papers):
    its record, its TL;DR (and 中文 texts), what is stored of its full text: ``fulltext`` (null until read),
    ``references``, ``cited_by`` (the store's papers citing it), ``code`` and ``citations`` (Semantic
    Scholar's count with its date, or null); the venues that accepted it (``venues``, with their records'
    code links in ``code``); empty lists and nulls without them."""

    tldr: TldrShape | None = None  # on every paper a face shows (reading/shown.py)
    zh: ZhShape | None = None  # with ?lang=zh
    fulltext: FullTextShape | None = None
    references: list[ReferenceShape] = Field(default_factory=list)
    cited_by: list[CitingShape] = Field(default_factory=list)
    code: list[CodeShape] = Field(default_factory=list)
    citations: CitationsShape | None = None
    venues: list[VenueShape] = Field(default_factory=list)
    saved: bool | None = None  # the reader's own marks, on lists of papers (web/mine.py)
    rating: int | None = None

    @classmethod
    def of(cls, paper: Paper, texts: Texts | None = None, **extra: Any) -> Self:
        """``paper`` with its texts and full text's links (``texts``), then ``extra`` (a key of the record,
        such as a feed's ``announced``, replaces its value)."""
        texts = texts or Texts()
        links = texts.links.get(paper.id) or PaperLinks()
        venues = texts.venues.get(paper.id, [])
        fields = record_fields(paper, venues) | reading_fields(paper, texts)
        fields |= {
            "fulltext": None if links.fulltext is None else FullTextShape.data(links.fulltext),
            "references": [ReferenceShape.data(r) for r in links.references],
            "cited_by": [CitingShape.data(c) for c in links.cited_by],
            "code": [CodeShape.data(c) for c in venue_code(venues, links.code) if safe_url(c.url)],
            "citations": None if links.citations is None else CitationsShape.data(links.citations),
            "venues": [VenueShape.data(m) for m in venues],
        }
        return cls.model_validate(fields | extra)  # one pass builds the nested shapes


class ListedPaper(PaperShape):
    """A listing's entry: its number in the day's listing and its kind (new, cross, replace…)."""

    number: int
    kind: str


class SearchHitShape(PaperShape):
    """A search result: its rank, score and the query terms it matched."""

    rank: int
    score: float
    terms: list[str]

    @classmethod
    def of_hit(cls, hit: Hit, rank: int, texts: Texts | None = None) -> Self:
        return cls.of(hit.paper, texts, rank=rank, score=round(hit.score, 4), terms=hit.terms)


class RelatedHitShape(PaperShape):
    """A related paper: its rank (when numbered), score, why it is related, the shared terms and authors."""

    rank: int | None = None
    score: float
    why: list[Said]
    terms: list[str]
    shared_authors: list[str]

    @classmethod
    def of_hit(cls, hit: Hit, texts: Texts | None = None, **position: Any) -> Self:
        return cls.of(
            hit.paper,
            texts,
            **position,
            score=round(hit.score, 4),
            why=hit.reasons(),
            terms=hit.terms,
            shared_authors=hit.authors,
        )


class DailyPickShape(PaperShape):
    """One of a reader's Daily Papers: its position (``number`` on a day's page, ``rank`` and ``date`` in
    the CLI, ``announced`` in a feed), its score (null in arXiv order), why it is where it is, and how the
    reader already saw it (``seen``: pushed, mailed, opened, read; shown only when asked for)."""

    number: int | None = None
    rank: int | None = None
    date: str | None = None
    score: float | None
    why: list[Said]
    seen: list[str]

    @classmethod
    def of_pick(cls, pick: DailyPick, texts: Texts | None = None, **position: Any) -> Self:
        score = None if pick.score is None else round(pick.score, 4)
        why, seen = list(pick.reasons), list(pick.seen)
        return cls.of(pick.paper, texts, **position, score=score, why=why, seen=seen)


class FollowedNew(PaperShape):
    """A paper by followed authors announced this week (``ranking/followed.py``), and which of them it names
    (``followed``): ``followed_new`` of ``/api/daily``, the lines after the picks of ``recommend --format
    json``, the entries after the picks of a reader's Atom feed."""

    followed: list[str]

    @classmethod
    def of_followed(cls, found: FollowedPaper, texts: Texts | None = None, **extra: Any) -> Self:
        return cls.of(found.paper, texts, **extra, followed=list(found.authors))


class Understood(Shape):
    """How a search query was read (``ranking.understand``): the text searched for, the original, the
    rewrites applied (one note each), the corrections, the translation, the acronyms and, for a query
    matching nothing, the nearest terms (or categories)."""

    text_used: str
    original: str
    rewritten: bool
    verbatim: bool
    applied: list[Said]
    corrections: list[dict[str, str]]  # {"from", "to"}
    translation: str | None
    translated_by: str | None = None  # which reading was searched for: "model" or "dictionary" (None: none)
    acronyms: list[dict[str, str]]  # {"form", "other"}
    suggestions: list[str]
    highlight: list[str]

    @classmethod
    def of(cls, understood: understand.Understood | None) -> Self | None:
        if understood is None:
            return None
        return cls.make(
            text_used=understood.text_used,
            original=understood.original,
            rewritten=understood.rewritten,
            verbatim=understood.verbatim,
            applied=list(understood.applied),
            corrections=[{"from": a, "to": b} for a, b in understood.corrections],
            translation=understood.translation,
            translated_by=understood.translated_by,
            acronyms=[{"form": a, "other": b} for a, b in understood.acronyms],
            suggestions=list(understood.suggestions),
            highlight=understood.highlight,
        )


class SearchResultShape(Shape):
    """One query's results as ``papersift search --format json`` gives them."""

    query: str
    mode: str
    notes: list[Said]
    understood: Understood | None
    results: list[SearchHitShape]

    @classmethod
    def of(cls, result: SearchResult, query: str, results: list[SearchHitShape]) -> Self:
        return cls.make(
            query=query,
            mode=result.mode,
            notes=list(dict.fromkeys(result.notes)),
            understood=Understood.of(result.understood),
            results=results,
        )


class LibraryEntryShape(Shape):
    """A library entry: ``library list --format json`` and ``/api/library``."""

    key: str
    id: str | None
    title: str
    authors: list[str]
    year: int | None
    doi: str | None
    url: str | None
    tags: list[str]
    note: str
    rating: int
    read: bool
    added: str | None
    source: str
    venues: list[VenueShape] = Field(default_factory=list)

    @classmethod
    def of(cls, e: LibraryEntry, venues: Sequence[VenueMark] = ()) -> Self:
        """The entry, with the venues of its paper (``Store.venues_of``) when given."""
        return cls.make(
            key=e.key,
            id=e.paper_id,
            title=e.title,
            authors=list(e.authors),
            year=e.year,
            doi=e.doi,
            url=safe_url(e.url),  # an entry saved before imports checked their links shows none
            tags=list(e.tags),
            note=e.note,
            rating=e.rating,
            read=e.read,
            added=e.added.isoformat() if e.added else None,
            source=e.source,
            venues=[VenueShape.data(m) for m in venues],
        )


class TrendingPaper(RecordShape):
    """A paper the lab saved or +1'd: its record, how many saved it and +1'd it, its TL;DR (and 中文)."""

    saves: int
    upvotes: int
    tldr: TldrShape | None = None
    zh: ZhShape | None = None

    @classmethod
    def of(cls, item: Popular, texts: Texts) -> Self:
        return cls.make(
            **record_fields(item.paper),
            saves=item.saves,
            upvotes=item.upvotes,
            **reading_fields(item.paper, texts),
        )


class Trending(Shape):
    """``/api/trending``: what the lab saved and +1'd over recent ``days``."""

    days: int
    papers: list[TrendingPaper]

    @classmethod
    def of(cls, days: int, items: list[Popular], texts: Texts) -> Self:
        return cls.make(days=days, papers=[TrendingPaper.of(p, texts) for p in items])
