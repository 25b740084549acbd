"""What the HTTP API promises its clients, in one place: the error body, the statuses each route declares,
the request models of the JSON API and the shapes of dates and modes in the OpenAPI schema.

Every error is ``{"error": "<stable message>"}`` (pages: an HTML page); a route declares each status it can
answer, including the guard's (``web/security.py``): 400 bad input or unknown host, 403 CSRF / read-only,
413 body too large.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
)
from starlette.routing import BaseRoute

from papersift.web.models import describe

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
MAX_TAGS = 50
MAX_TAG = 64
MAX_NOTE = 20_000
MAX_KEY = 200
DESCRIPTIONS = {
    400: "Bad input (or an unknown Host)",
    401: "Log in first",
    403: "Missing or stale CSRF token, a cross-site request, or a read-only server",
    404: "Not found",
    413: "Request body too large",
    429: "Too many failed logins: wait (Retry-After)",
    503: "No language model is connected to this server (the error says how to connect one)",
}


class ErrorBody(BaseModel):
    """Every error the JSON API returns."""

    error: str


def errors(*codes: int, html: bool = False) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that can answer ``codes`` (and 400, the guard's unknown host)."""
    content = {"text/html": {"schema": {"type": "string"}}} if html else None
    out: dict[int | str, dict[str, Any]] = {}
    for code in sorted({400, *codes}):
        entry: dict[str, Any] = {"description": DESCRIPTIONS[code]}
        if html:
            entry["content"] = content
        else:
            entry["model"] = ErrorBody
        out[code] = entry
    return out


ATOM = "application/atom+xml"


def feed_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of an Atom feed: the feed itself, and its errors as plain text."""
    text = {"text/plain": {"schema": {"type": "string"}}}
    out: dict[int | str, dict[str, Any]] = {
        200: {"description": "An Atom 1.0 feed", "content": {ATOM: {"schema": {"type": "string"}}}}
    }
    for code in sorted({400, *codes}):
        out[code] = {"description": DESCRIPTIONS[code], "content": text}
    return out


def is_feed(path: str) -> bool:
    """An Atom feed's path: its errors are plain text, not an HTML page."""
    return path.endswith(".atom")


def _real_date(value: str) -> str:
    date.fromisoformat(value)  # ValueError (a 400) for 2026-13-45
    return value


DayPath = Annotated[
    str, Field(pattern=DATE_PATTERN, json_schema_extra={"format": "date"})
]  # no such day: 404
DateParam = Annotated[DayPath, AfterValidator(_real_date)]  # a query's date: not a date is 400
# a date field of a form (search's since and until): empty, as the form sends a field left blank, is no date
FormDate = Annotated[
    DateParam | None,
    BeforeValidator(lambda value: value or None),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "format": "date", "pattern": DATE_PATTERN},
                {"type": "string", "maxLength": 0},
                {"type": "null"},
            ]
        }
    ),
]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TAG)]  # the route trims; blank ones go
Rating = Annotated[int, Field(strict=True, ge=-1, le=1, json_schema_extra={"enum": [-1, 0, 1]})]


class SaveRequest(BaseModel):
    """``POST /api/library``: save a paper, with an optional rating, tags and note."""

    model_config = ConfigDict(extra="forbid", strict=True)

    id: Annotated[str, StringConstraints(max_length=MAX_KEY, pattern=r"^[!-~]+$")]  # printable ASCII
    rating: Rating = 0
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    note: str = Field("", max_length=MAX_NOTE)


def allowed_methods(app: FastAPI, path: str) -> str:
    """The ``Allow`` of a 405: every method any route of ``path`` takes (Starlette names the first's only)."""
    methods: set[str] = set()
    for route in every_route(app.routes):
        regex, route_methods = getattr(route, "path_regex", None), getattr(route, "methods", None)
        if regex is not None and route_methods and regex.match(path):
            methods |= route_methods
    return ", ".join(sorted(methods))


def every_route(routes: Iterable[BaseRoute]) -> Iterator[BaseRoute]:
    """Every route, those of the included view routers (``app.include_router``, no prefix) among them."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if isinstance(included, APIRouter):
            yield from every_route(included.routes)
        else:
            yield route


def openapi_without_422(app: FastAPI) -> dict[str, Any]:
    """The app's OpenAPI schema with FastAPI's default 422 entries removed (validation errors are 400) and
    each JSON answer's model (``web/models.py``)."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        components = schema.get("components", {}).get("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            components.pop(name, None)
        app.openapi_schema = describe(schema)
    return app.openapi_schema
