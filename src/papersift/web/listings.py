"""The day's listings and the taxonomy: ``/`` (to the opening category), ``/list/{category}[/{day}]`` and
``/categories``, each a page and its ``/api`` JSON twin from one handler. A listing's page shows the day in
parts (``web/parts.py``: ``?part=N``, ``?topic=N``) under the whole day's topic map; its JSON is the whole
day."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from papersift.library.shapes import ListedPaper, with_tldrs
from papersift.ranking.daily import day_quiet
from papersift.records.taxonomy import category_name
from papersift.services.listing import listing_counts, opening_day
from papersift.web.categories import opening_category, picker, taxonomy
from papersift.web.contract import DateParam, DayPath
from papersift.web.deadends import missing_category, missing_listing
from papersift.web.mine import with_state
from papersift.web.models import Listing
from papersift.web.pages import Answer, Site, Web, twin, wants_json
from papersift.web.parts import FRAGMENT, asked, fragment_or, part_of, with_part, with_topic_rows
from papersift.web.reading_pages import reading_lang, texts_for, texts_version
from papersift.web.state import AppState, day_and_neighbours, parse_day

router = APIRouter()
LISTING_MAP = "_listing_map.html"  # the day's topic map alone (?map=1&fragment=1)


def listing_data(
    state: AppState, category: str, day: str | None, lang: str = "en", tldrs: bool = True
) -> dict[str, Any]:
    """A category's listing of ``day`` (None: the latest), numbered, with the day switcher and picker; not
    ``tldrs``: the key sentences left null (``Texts.extractive``), made where shown (``with_tldrs``)."""
    store = state.store
    days = store.announcement_days(category)
    if not days:
        raise missing_category(category)
    when = opening_day(store, category, days) if day is None else parse_day(day)
    entries = store.listing(category, when)
    if not entries:  # why, as far as the store knows it: a weekend, a holiday arXiv announced, not stored
        quiet = day_quiet(store, [category], when)
        raise missing_listing(category, when, days, None if quiet is None else quiet.line())
    texts = dataclasses.replace(texts_for(state, (e.paper for e in entries), lang), extractive=tldrs)
    listed = dict(store.listed_categories(when))
    return Listing.make(
        category=category,
        category_name=category_name(category),
        **day_and_neighbours(days, when),
        counts=listing_counts(entries),
        picker=picker(listed, category, when.isoformat()),
        entries=[ListedPaper.of(e.paper, texts, number=n, kind=e.kind) for n, e in enumerate(entries, 1)],
    ).dump()


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
def home(request: Request, web: Web) -> RedirectResponse:
    state = web.state
    reader = state.account(request)
    followed = state.store.interests(reader.id).categories if reader else ()
    category = opening_category(state.store, followed, state.settings.default_categories[0])
    return RedirectResponse(f"/list/{category}")


def _listing(request: Request, web: Site, category: str, day: str | None) -> Answer:
    state = web.state
    lang, made = reading_lang(web, request), texts_version(state)
    key = ("api-list", category, day or "", lang, made)  # the day's rows, read once for every part and map

    def whole() -> dict[str, Any]:  # without their key sentences: a page makes those of the rows it shows
        found: dict[str, Any] = state.cached(key, lambda: listing_data(state, category, day, lang, False))
        return found

    if wants_json(request):
        data = whole()
        return with_state(state, request, data | {"entries": with_tldrs(data["entries"])}, "entries")
    ask, path = asked(request), str(request.url.path)  # a part of the day (web/parts.py)

    def page_data() -> dict[str, Any]:
        data = with_topic_rows(whole(), ask)
        return with_part(data, part_of(data["entries"], ask.part, path, rest=ask.rest))

    return web.cached_page(
        request,
        fragment_or(ask.fragment, "listing.html", LISTING_MAP if ask.map else FRAGMENT),
        ("list", category, day or "", made, *ask.key()),
        page_data,
        index=True,  # the topic map (web/topic_pages.py)
        personal=state.settings.accounts,  # the lab's counts on the rows
        topic=ask.topic,
        fragment=ask.fragment,
        map_asked=ask.map,  # the map drawn now, not a placeholder (web/topic_pages.py)
    )


@twin(router, "/list/{category}", 404, api={"day": None})
def latest(request: Request, web: Web, category: str, day: DateParam | None = None) -> Answer:
    """The latest listing of ``category`` (the page's ``?day=`` goes to that day's: the date picker without
    script)."""
    if day:
        return RedirectResponse(f"/list/{category}/{parse_day(day, 400).isoformat()}", status_code=303)
    return _listing(request, web, category, None)


@twin(router, "/list/{category}/{day}", 404)
def listing(request: Request, web: Web, category: str, day: DayPath) -> Answer:
    """The listing of ``category`` announced on ``day``."""
    return _listing(request, web, category, day)


@twin(router, "/categories")
def categories(request: Request, web: Web) -> Answer:
    """arXiv's taxonomy with how many announcement rows the store holds for each category."""
    state = web.state

    def data() -> dict[str, Any]:
        return taxonomy(dict(state.store.listed_categories())).dump()

    if wants_json(request):
        return dict(state.cached(("api-categories",), data))
    return web.cached_page(request, "categories.html", ("categories",), data)
