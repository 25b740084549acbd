"""The JSON API's response models: pydantic descriptions of the shapes the CLI and API already share
(``listing.paper_json``, ``shapes.py``, ``library.entry_json``) and of each route's answer, so that a client
generated from ``/openapi.json`` gets typed objects. They describe the JSON, they never make it: the
handlers' dicts go out as they are, and ``RESPONSES`` places each model in the OpenAPI document
(``contract.openapi_without_422``). Objects whose keys the views may extend allow extra keys.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


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


class SearchAnswer(Shape):
    query: str
    mode: str
    page: int
    next_page: int | None
    notes: list[str]
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


class LibraryAnswer(Shape):
    reader: str
    tag: str | None
    tags: list[TagCount]
    interests: dict[str, list[str]]
    entries: list[LibraryEntryShape]


class Removed(Shape):
    removed: str


class Mine(Shape):
    reader: bool
    ratings: dict[str, int]


class Health(Shape):
    status: str


class Categories(Shape):
    """arXiv's taxonomy with the store's counts (``taxonomy.taxonomy_json``)."""


class TopicMap(Shape):
    """A day's topic map (``web/topics.py``)."""


class Trending(Shape):
    """Trending topics over recent days (``web/topics.py``)."""


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
