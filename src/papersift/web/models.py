"""The JSON API's response models: pydantic descriptions of the shapes the CLI and API already share
(``reader/shapes.py``) and of each route's answer, so that a client generated from ``/openapi.json`` gets
typed
objects. They describe the JSON, they never make it: the handlers' dicts go out as they are, and
``RESPONSES`` places each model in the OpenAPI document (``contract.openapi_without_422``). Objects whose
keys the views may extend allow extra keys.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


class TldrShape(Shape):
    """A paper's one-sentence TL;DR (``reading.shown.tldr_json``): ``text`` null and ``error`` set when it
    failed; ``by`` the model, or ``extractive`` for the abstract's key sentence."""

    text: str | None
    lang: str
    by: str | None
    error: str | None


class ZhShape(Shape):
    """A paper's 中文 title and abstract (``reading.shown.zh_json``; null when not made or failed)."""

    title: str | None
    abstract: str | None
    by: str | None
    error: str | None


class FullTextShape(Shape):
    """What was read of a paper's full text (``shapes.links_json``): from TeX or a PDF, its sections and
    words, the version read and when."""

    from_: str = Field(alias="from")
    sections: int
    words: int
    version: int | None = None
    fetched: str | None = None


class ReferenceShape(Shape):
    """One entry of a paper's reference list; ``resolved``: the store paper it names."""

    key: str
    text: str
    arxiv_id: str | None
    doi: str | None
    title: str | None
    year: int | None
    url: str | None
    resolved: str | None


class CitingShape(Shape):
    id: str
    title: str


class CodeShape(Shape):
    url: str
    kind: str
    own: bool


class CitationsShape(Shape):
    """Semantic Scholar's citation count (and reference count) of a paper, with the day it was asked."""

    count: int
    references: int | None
    date: str


class PaperShape(Shape):
    """A paper (``paper_json``): every ``--format json`` output and every API list of papers."""

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
    saved: bool | None = None  # the reader's own marks, on lists of papers (web/mine.py)
    rating: int | None = None
    tldr: TldrShape | None = None  # on every paper a face shows (reading/shown.py)
    zh: ZhShape | None = None  # with ?lang=zh
    fulltext: FullTextShape | None = None  # full text (shapes.links_json): null until fetched
    references: list[ReferenceShape] = []
    cited_by: list[CitingShape] = []
    code: list[CodeShape] = []
    citations: CitationsShape | None = None


class ListedPaper(PaperShape):
    """A listing's entry: its number in the day's listing and its kind (new, cross, replace…)."""

    number: int
    kind: str


class SearchHitShape(PaperShape):
    rank: int
    score: float
    terms: list[str]


class RelatedHitShape(PaperShape):
    score: float
    why: list[str]
    terms: list[str]
    shared_authors: list[str]


class DailyPickShape(PaperShape):
    number: int
    score: float | None
    why: list[str]


class Counts(Shape):
    new: int
    cross: int
    replace: int


class Listing(Shape):
    category: str
    category_name: str | None
    date: str
    previous: str | None
    next: str | None
    counts: Counts
    picker: Any = None
    entries: list[ListedPaper]


class Understood(Shape):
    """How a query was read (``shapes.understood_json``): the text searched for and what was rewritten."""

    text_used: str
    original: str
    rewritten: bool
    verbatim: bool
    applied: list[str]
    corrections: list[dict[str, str]]  # {"from", "to"}
    translation: str | None
    acronyms: list[dict[str, str]]  # {"form", "other"}
    suggestions: list[str]
    highlight: list[str]


class Total(Shape):
    """Papers having the query's words (keyword and hybrid mode; semantic results are not counted)."""

    count: int
    capped: bool  # at least ``count``


class Shortened(Shape):
    """A query longer than the page searches: its length and the characters searched."""

    from_: int = Field(alias="from")
    to: int


class UnknownCategory(Shape):
    """A category filter arXiv has no such category for, and the nearest ids it has."""

    category: str
    nearest: list[str]


class SearchAnswer(Shape):
    query: str
    mode: str
    page: int
    next_page: int | None
    notes: list[str]
    understood: Understood | None = None
    total: Total | None = None
    shortened: Shortened | None = None
    unknown_category: UnknownCategory | None = None
    results: list[SearchHitShape]


class PaperPage(PaperShape):
    bibtex: str
    facet: str | None
    notes: list[str]
    related: list[RelatedHitShape]


class RelatedAnswer(Shape):
    query: str
    notes: list[str]
    results: list[RelatedHitShape]


class DailyAnswer(Shape):
    date: str
    previous: str | None
    next: str | None
    categories: list[str]
    ranking: str
    reader: str | None
    entries: list[DailyPickShape]


class LibraryEntryShape(Shape):
    """A library entry (``entry_json``): ``library list --format json`` and ``/api/library``."""

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


class TagCount(Shape):
    tag: str
    count: int


class ZoteroSyncShape(Shape):
    """The last ``library sync zotero`` (``zotero_sync.SyncReport.as_json``): when (``at``, UTC), how long,
    the requests, the collections chosen, whether arXiv was asked, each library's counts and their
    ``totals`` (``items`` read, ``matched`` to arXiv papers, ``fetched``, ``kept`` with their own text,
    ``removed``…)."""

    at: str
    seconds: float
    requests: int
    collections: list[str]
    not_for_me: list[str]
    arxiv: str
    libraries: list[dict[str, Any]]
    totals: dict[str, int]


class LibraryAnswer(Shape):
    reader: str
    tag: str | None
    tags: list[TagCount]
    interests: dict[str, list[str]]
    entries: list[LibraryEntryShape]
    zotero: ZoteroSyncShape | None = None


class Removed(Shape):
    removed: str


class Mine(Shape):
    reader: bool
    ratings: dict[str, int]


class Health(Shape):
    status: str


class CategoryShape(Shape):
    id: str
    name: str
    alias_of: str | None
    listings: int  # the store's announcement rows of the category


class ArchiveShape(Shape):
    id: str
    name: str
    flat: bool
    listed: bool
    categories: list[CategoryShape]


class GroupShape(Shape):
    id: str
    name: str
    name_zh: str
    archives: list[ArchiveShape]


class OldCategory(Shape):
    id: str
    name: str
    now: str | None  # the current category an old id is filed under
    listings: int


class Categories(Shape):
    """arXiv's taxonomy with the store's counts (``web/categories.py: taxonomy_json``)."""

    groups: list[GroupShape]
    other: list[OldCategory]


class Cluster(Shape):
    """A topic; one labelled ``""`` (at most one, last) is the day's other papers, no phrase naming them."""

    label: str
    terms: list[str]
    papers: list[str]


class MapPoint(Shape):
    id: str
    x: float
    y: float
    cluster: int


class TopicMap(Shape):
    """A day's topic map (``ranking/topics.py: map_json``)."""

    category: str
    date: str
    clusters: list[Cluster]
    points: list[MapPoint]


class TrendingPaper(PaperShape):
    saves: int
    upvotes: int


class Trending(Shape):
    """What the lab saved and +1'd over recent days (``reader/shapes.py: trending_json``)."""

    days: int
    papers: list[TrendingPaper]


# (method, path) → the model of its 200 answer
RESPONSES: dict[tuple[str, str], type[BaseModel]] = {
    ("get", "/api/list/{category}"): Listing,
    ("get", "/api/list/{category}/{day}"): Listing,
    ("get", "/api/categories"): Categories,
    ("get", "/api/search"): SearchAnswer,
    ("get", "/api/abs/{paper_id}"): PaperPage,
    ("get", "/api/related"): RelatedAnswer,
    ("get", "/api/daily"): DailyAnswer,
    ("get", "/api/daily/{day}"): DailyAnswer,
    ("get", "/api/recommend"): DailyAnswer,
    ("get", "/api/library"): LibraryAnswer,
    ("post", "/api/library"): LibraryEntryShape,
    ("delete", "/api/library/{key}"): Removed,
    ("get", "/api/mine"): Mine,
    ("get", "/api/map/{category}/{day}"): TopicMap,
    ("get", "/api/trending"): Trending,
    ("get", "/healthz"): Health,
}


def describe(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (an OpenAPI document) with each route of ``RESPONSES`` answering its model."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for (method, path), model in RESPONSES.items():
        operation = schema.get("paths", {}).get(path, {}).get(method)
        if operation is None:
            continue
        model_schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(model_schema.pop("$defs", {}))
        components[model.__name__] = model_schema
        ok = operation.setdefault("responses", {}).setdefault("200", {"description": "Successful Response"})
        ok["content"] = {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}}
    return schema
