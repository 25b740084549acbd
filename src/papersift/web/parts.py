"""Long lists shown in parts: a page holds the first ``PART`` rows of a listing, Daily Papers or search
results, and a "more" link to the next part, so a day of 300 papers opens as fast as one of 20.

The link works without script: ``?part=N`` is the same page with the N-th part (its rows keep their numbers,
``#26…``), ``&rest=1`` every row from there on. With script, ``static/app.js`` fetches the link's
``data-rows`` (the same URL with ``&fragment=1``: the part's rows and the next link only, rendered by
``_part.html``) and puts it in place of the link. A view uses it in three steps:

1. ``ask = asked(request)``: the part, rest, fragment and topic the request asks for (its JSON twin ignores
   them: an API answer is the whole list);
2. the page's data: ``with_part(data, part_of(rows, ask.part, base, rest=ask.rest))`` (or ``page_part`` for
   a list ranked a page at a time, as search is), with ``ask.key()`` in the page's cache key: the part's
   rows get their key sentences there, and a topic's rows (``with_topic_rows``) theirs;
3. render ``fragment_or(ask.fragment, "page.html")``; the page template includes ``_part.html`` where its
   rows go, inside the element that holds them (``{% set part = data.part %}{% include "_part.html" %}``).

``?topic=N`` (``ask.topic``) is a topic chip without script: the page shows that topic's rows, all of them
(``_topic_map.html``'s chips are a GET form; with script they filter in place, after the rest is loaded).
``?map=1`` (``ask.map``) asks for the topic map drawn now: a page whose map is not drawn yet holds a
placeholder instead (``web/topic_pages.py``), which the script fills with ``&fragment=1``, the map alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from fastapi import Request

from papersift.library.shapes import with_tldrs

PART = 25  # rows in a part: the first view of a long list
FRAGMENT = "_part.html"  # the template of a part's rows alone (what the script appends)


@dataclass(frozen=True, slots=True)
class Asked:
    """What a request asks of a long list (``?part=N&rest=1&fragment=1&topic=T&map=1``), read leniently: a
    value that is not a number is the default (these are links the pages make, not an API)."""

    part: int = 1
    rest: bool = False
    fragment: bool = False
    topic: int | None = None
    map: bool = False  # the topic map drawn now (with ``fragment``: the map alone)

    def key(self) -> tuple[str, ...]:
        """Its part of a page's cache key."""
        return (str(self.part), str(self.rest), str(self.fragment), str(self.topic), str(self.map))


def _number(text: str | None, low: int, high: int) -> int | None:
    return int(text) if text and text.isdigit() and low <= int(text) <= high else None


def asked(request: Request) -> Asked:
    """The part (``part``, 1…10,000), ``rest``, ``fragment``, ``topic`` (0…99) and ``map`` of the request's
    query."""
    query = request.query_params
    return Asked(
        part=_number(query.get("part"), 1, 10_000) or 1,
        rest=query.get("rest") == "1",
        fragment=query.get("fragment") == "1",
        topic=_number(query.get("topic"), 0, 99),
        map=query.get("map") == "1",
    )


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a long list: its rows, where they start, and the links to the parts around it."""

    items: list[Any]
    number: int  # 1, 2, …
    size: int  # rows in a whole part
    first: int  # the place of its first row in the whole list (1-based): #26 in part 2 of 25
    total: int | None  # rows in the whole list, where known
    more: int  # rows after this part (where the total is known; else the next part's size)
    next: str | None  # the next part's page (no script)
    next_rows: str | None  # …its rows alone (the script's fetch)
    rest: str | None  # the page of every row from the next part on
    earlier: str | None  # the previous part's page
    start: str  # the first part's page (the list's own)

    @property
    def last(self) -> int:
        """The place of its last row."""
        return self.first + len(self.items) - 1

    @property
    def next_first(self) -> int:
        """The place of the next part's first row."""
        return self.last + 1


def href(base: str, params: Mapping[str, object]) -> str:
    """``base`` with ``params`` added to its query (those that are None, False or empty left out)."""
    kept = [(k, "1" if v is True else str(v)) for k, v in params.items() if v not in (None, False, "")]
    if not kept:
        return base
    return base + ("&" if "?" in base else "?") + urlencode(kept)


def _links(base: str, param: str, number: int, has_next: bool) -> dict[str, Any]:
    after = number + 1
    return {
        "next": href(base, {param: after}) if has_next else None,
        "next_rows": href(base, {param: after, "fragment": True}) if has_next else None,
        "earlier": href(base, {param: number - 1 if number > 2 else None}) if number > 1 else None,
        "start": base,
    }


def part_of(
    rows: Sequence[Any], number: int, base: str, *, size: int = PART, rest: bool = False, param: str = "part"
) -> Part:
    """Part ``number`` of the whole list ``rows`` (past the end: its last part; ``rest``: every row from its
    start on); ``base``, the page's URL without the part (its query, if any, kept)."""
    total = len(rows)
    number = max(1, min(number, -(-total // size)))
    start = (number - 1) * size
    end = total if rest else min(start + size, total)
    links = _links(base, param, number, end < total)
    return Part(
        items=list(rows[start:end]),
        number=number,
        size=size,
        first=start + 1,
        total=total,
        more=min(size, total - end),
        rest=href(base, {param: number + 1, "rest": True}) if end < total else None,
        **links,
    )


def page_part(
    rows: Sequence[Any], number: int, base: str, *, size: int, has_next: bool, param: str = "page"
) -> Part:
    """A list ranked a page at a time (search): ``rows`` are page ``number`` of pages of ``size`` already;
    ``has_next``: whether a next page may hold more."""
    return Part(
        items=list(rows),
        number=number,
        size=size,
        first=(number - 1) * size + 1,
        total=None,
        more=size,
        rest=None,
        **_links(base, param, number, has_next),
    )


def with_part(data: dict[str, Any], part: Part) -> dict[str, Any]:
    """The page's data with the part it shows, its rows complete: each paper's key sentence made where its
    ``tldr`` was left null (``library/shapes.with_tldrs``; rows that are no papers' JSON as they are). The
    JSON twin's data stays whole."""
    return {**data, "part": replace(part, items=with_tldrs(part.items))}


def with_topic_rows(data: dict[str, Any], ask: Asked) -> dict[str, Any]:
    """The page's data for ``ask``: where it asks for one topic's rows (``?topic=N``, a chip without
    script), which may stand anywhere in the list, every entry with its key sentence (``with_tldrs``); else
    as it is (the part's rows get theirs in ``with_part``)."""
    return data if ask.topic is None else data | {"entries": with_tldrs(data["entries"])}


def fragment_or(fragment: bool, page: str, rows: str = FRAGMENT) -> str:
    """The template to render: the part's rows alone (``fragment``: ``rows``, ``_part.html`` or a template
    that includes it), else the whole ``page``."""
    return rows if fragment else page
