"""The JSON API's route answers: one pydantic model per answer, built of the shapes the CLI, the feeds and
the API share (``library/shapes.py``), that makes the route's JSON: each handler builds its answer with
``Model.make(…)`` (nested shapes in the same pass) and gives its ``.dump()`` (the page's data too, cached
as it is), so the JSON's fields, their order and the OpenAPI document cannot drift apart. ``RESPONSES``
places each model in the OpenAPI document (``contract.openapi_without_422``), so that a client generated
from ``/openapi.json`` gets typed objects. Objects whose keys the views may extend allow extra keys; the
``notes`` and ``why`` lists keep their typed messages (``Said``), which the pages say in their language.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from papersift.library.shapes import (
    DailyPickShape,
    FollowedNew,
    LibraryEntryShape,
    ListedPaper,
    PaperShape,
    RelatedHitShape,
    SearchHitShape,
    Trending,
    Understood,
)
from papersift.ranking.acceptances import Acceptances
from papersift.ranking.daily import QuietDay
from papersift.ranking.topics import TopicMap
from papersift.records.json_model import Said, Shape


class Counts(Shape):
    new: int
    cross: int
    replace: int


class PickerItem(Shape):
    """A link of the category picker: a category (or a whole archive's listing, ``count`` null) with its
    number of papers that day."""

    id: str
    name: str | None  # None: an id unknown to arXiv's taxonomy
    count: int | None
    href: str
    current: bool
    archive: bool


class PickerSection(Shape):
    """A group of the category picker (``id`` "" and no name: the ids unknown to arXiv's taxonomy)."""

    id: str
    name: str | None
    name_zh: str | None
    categories: list[PickerItem]


class Listing(Shape):
    category: str
    category_name: str | None
    date: str
    previous: str | None
    next: str | None
    counts: Counts
    picker: list[PickerSection]
    entries: list[ListedPaper]


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
    sort: str  # relevance, or date: newest first of the most relevant
    page: int
    next_page: int | None
    notes: list[Said]
    understood: Understood | None = None
    total: Total | None = None
    shortened: Shortened | None = None
    unknown_category: UnknownCategory | None = None
    results: list[SearchHitShape]


class Faq(Shape):
    """A paper's stored FAQ as safe HTML (``html`` null when none is stored; ``error`` when it failed)."""

    html: str | None
    error: str | None


class PaperPage(PaperShape):
    faq: Faq
    bibtex: str
    facet: str | None
    notes: list[Said]
    related: list[RelatedHitShape]


class RelatedAnswer(Shape):
    query: str
    notes: list[Said]
    results: list[RelatedHitShape]


class Quiet(Shape):
    """A day with no listing (``ranking.daily.QuietDay``): why (weekend, holiday, not_yet, future,
    not_stored), the next listing day, when arXiv announces it, and all of it in one ``line`` (a message: its
    JSON the English sentence)."""

    date: str
    reason: str
    next: str
    announced: str
    line: Said

    @classmethod
    def of(cls, quiet: QuietDay) -> Quiet:
        return cls.make(
            date=quiet.day.isoformat(),
            reason=quiet.reason,
            next=quiet.next_day.isoformat(),
            announced=quiet.announced.isoformat(),
            line=quiet.line(),
        )


class DailyEntry(DailyPickShape):
    """A Daily Papers pick, ``below`` the reader's threshold or not."""

    below: bool


class NewSince(Shape):
    """What is new since the reader's last visit: the listing days after it and their papers."""

    since: str
    days: list[str]
    papers: int


class AcceptedPaperShape(Shape):
    """A paper accepted at a venue the reader follows: the store paper it is shown as (``id``), its arXiv id
    (null: a venue paper of its own), its title and status as the venue's list gives them."""

    id: str
    arxiv: str | None
    title: str
    status: str


class AcceptedShape(Shape):
    """A followed venue-year's new acceptances (``ranking/acceptances.py``), each paper shown once."""

    venue: str
    year: int
    papers: list[AcceptedPaperShape]

    @classmethod
    def of(cls, found: Acceptances) -> AcceptedShape:
        papers = [
            AcceptedPaperShape.make(id=p.paper_id, arxiv=p.arxiv, title=p.title, status=p.status)
            for p in found.papers
        ]
        return cls.make(venue=found.venue, year=found.year, papers=papers)


class DailyAnswer(Shape):
    date: str
    previous: str | None
    next: str | None
    categories: list[str]
    ranking: str
    reader: str | None
    quiet: Quiet | None
    min_score: float | None
    show_seen: bool
    entries: list[DailyEntry]
    tag: str | None = None  # ranked by this tag of the reader's library alone
    followed_new: list[FollowedNew] = Field(default_factory=list)  # new this week by followed authors
    new: NewSince | None = None  # on /api/daily (not /api/recommend)
    accepted: list[AcceptedShape] | None = None  # …per visit: followed venues' new acceptances, shown once


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
    min_score: float | None
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
    name: str | None  # None: an id unknown to arXiv's taxonomy
    now: str | None  # the current category an old id is filed under
    listings: int


class Categories(Shape):
    """arXiv's taxonomy with the store's counts (``web/categories.py: taxonomy``)."""

    groups: list[GroupShape]
    other: list[OldCategory]


class StatusCount(Shape):
    """How many records of a venue-year have one status (Poster, Oral, Technical Paper…)."""

    status: str
    count: int


class VenueSummaryShape(Shape):
    """A venue-year stored: its records, how many are linked to an arXiv paper, its counts by status (most
    first) and when its list was last imported (UTC)."""

    venue: str
    year: int
    records: int
    linked: int
    statuses: list[StatusCount]
    imported: str | None


class VenueList(Shape):
    """Every venue-year stored, by name then year (newest first) (``web/venue_pages.py``)."""

    venues: list[VenueSummaryShape]


class VenueRecordShape(Shape):
    """One record of a venue's accept list: its venue paper id (``id``), the store paper it is shown as
    (``paper``: its linked arXiv paper, else its venue paper), ``arxiv`` (the linked id, null: none), its
    status, track and links (kind → URL: site, openreview, pdf, github, project, video)."""

    id: str
    paper: str
    arxiv: str | None
    title: str
    authors: list[str]
    status: str
    track: str
    abstract: str
    links: dict[str, str]


class VenueAnswer(Shape):
    """A venue-year's records (``status``: the filter asked for, null: all) in its list's order, with its
    counts and the topic map of their papers that have vectors (null: too few for two topics)."""

    venue: str
    year: int
    status: str | None
    records: int
    linked: int
    statuses: list[StatusCount]
    map: TopicMap | None
    entries: list[VenueRecordShape]


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
    ("get", "/api/venues"): VenueList,
    ("get", "/api/venue/{name}/{year}"): VenueAnswer,
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
