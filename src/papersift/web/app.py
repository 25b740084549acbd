"""The FastAPI app, built from view modules: every page is a Jinja2 template over the same data its ``/api``
twin returns as JSON, both served by one handler (``web/pages.py``).

Each view module is an ``APIRouter`` (listings, papers, search, daily, library, accounts, feeds, topics,
mine); handlers reach the shared ``Site`` (``web/pages.py``: state, templates) through ``request.app.state``.
Cross-cutting concerns are middleware: security headers, hosts, sizes and CSRF (``web/security.py``), cache
headers (``web/assets.py``), compression.

No global lock: each request thread reads through its own store connection, writes go through one writer
(``web/state.py``), the indexes are the current index generation (switched to when ``embed`` publishes a new
one) and the model loads only when a request needs a text embedded. Everything from papers is escaped by
Jinja2's autoescaping; responses carry a strict Content-Security-Policy (no inline script, nothing from
other origins).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from papersift.index.onnx_encoder import OnnxModelError
from papersift.ranking.cedict import dictionary
from papersift.ranking.search import search
from papersift.settings import Settings
from papersift.store import StoreError
from papersift.web import (
    daily_pages,
    deadends,
    feed_routes,
    library_pages,
    listings,
    login,
    mine,
    paper_pages,
    reading_pages,
    search_pages,
    topic_pages,
    venue_pages,
)
from papersift.web.assets import CacheHeaders
from papersift.web.categories import opening_category
from papersift.web.contract import errors, openapi_without_422
from papersift.web.display_text import highlight as highlight  # the pages' filter (tests use it from here)
from papersift.web.models import Health
from papersift.web.pages import ERROR_HANDLERS, Site, Web, make_templates
from papersift.web.security import Guard, SecurityHeaders, allowed_hosts, server_secret
from papersift.web.state import AppState, open_state

HERE = Path(__file__).parent
GC_THRESHOLDS = (200_000, 100, 100)  # allocations before a young collection; young per older; older per full
# feeds first: /list/{category}.atom before the listing's /list/{category}; reading's /abs/{id}/faq before
# the paper's /abs/{id}
VIEWS = (
    feed_routes,
    listings,
    deadends,
    reading_pages,
    paper_pages,
    search_pages,
    daily_pages,
    library_pages,
    login,
    mine,
    topic_pages,
    venue_pages,
)


def katex_dir(settings: Settings) -> Path | None:
    """KaTeX as ``npm install`` put it (``make`` does): the configured folder, else the checkout's."""
    for base in (settings.web_assets, HERE.parents[2] / "node_modules"):
        if base is not None and (base / "katex" / "dist" / "katex.min.js").exists():
            return base / "katex" / "dist"
    return None


def warm(state: AppState) -> None:
    """Open the indexes and load the query model now, so that the first search is as fast as the tenth; make
    the 中文 dictionary's compact file where this machine has none yet (seconds, once), so that the first
    中文 query is too."""
    try:
        indexes = state.indexes()  # maps the current index generation
        if indexes.dense is not None or indexes.lexical is not None:  # a search touches every index once
            search(indexes, "warming up the indexes", k=1)
        dictionary(state.settings.model_cache)
    except (StoreError, OnnxModelError, ImportError, OSError) as e:  # listings still work; searches say why
        print(f"papersift: warning: {e}", file=sys.stderr, flush=True)


def warm_maps(state: AppState) -> None:
    """Draw the topic map of the listing ``/`` opens (its latest day of new papers) into this worker's cache,
    beside the server as it starts (``create_app`` gives it to ``AppState.soon``, which ``close`` waits
    for): a map takes seconds, and the first page a reader opens finds its map drawn instead of a
    placeholder. One map only: drawing more at start would slow the first request to another day (two cores
    shared); the others are drawn when their day is first asked for. A map that fails is left to the page,
    which says so."""
    store = state.store
    category = opening_category(store, (), state.settings.default_categories[0])
    try:
        entries = listings.listing_data(state, category, None, tldrs=False)["entries"]  # no TL;DR read
        topic_pages.topic_view(state, entries)
    except (HTTPException, StoreError, OnnxModelError, ValueError, OSError):
        return


def healthz(web: Web) -> dict[str, Any]:
    """``ready`` once the indexes and the query model are loaded, ``loading`` before."""
    return Health.make(**web.health).dump()


def create_app(settings: Settings, announce: str | None = None) -> FastAPI:
    """The app over the store that ``settings`` names; at start-up it loads what searches need (``warm``),
    then prints ``announce`` (the URL ``papersift serve`` listens on), if given."""
    state = open_state(settings)
    katex = katex_dir(settings)
    site = Site(state, make_templates(HERE / "templates", katex is not None))
    topic_pages.add_template_globals(site.templates, state)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        warm(state)
        state.soon(("opening-map",), partial(warm_maps, state))  # beside the first requests
        site.health["status"] = "ready"
        if announce:
            print(f"papersift: ready at {announce}", file=sys.stderr, flush=True)
        yield
        state.close()

    app = FastAPI(title="papersift", version="0.1.0", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.site = site
    app.state.ask_limit = reading_pages.AskLimit(settings.ask_per_hour)
    site.templates.env.globals["can_write"] = reading_pages.may_generate(
        settings
    )  # TL;DR, FAQ and Ask buttons
    site.templates.env.globals["has_model"] = reading_pages.has_model(settings)  # else: how to connect one
    site.templates.env.globals["thumb"] = paper_pages.thumb_url(settings)  # first pages, where kept
    if katex is not None:  # mounted before /static so the longer prefix wins
        app.mount("/static/katex", StaticFiles(directory=katex), name="katex")
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    limits = {"/library/import": library_pages.MAX_IMPORT + 64 * 1024}  # the file and the form around it
    app.add_middleware(Guard, settings=settings, secret=server_secret(settings.home), limits=limits)
    hosts = sorted(allowed_hosts(settings))
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts, www_redirect=False)  # before the guard
    app.add_middleware(CacheHeaders)
    app.add_middleware(SecurityHeaders)  # outside the guard: its refusals carry the headers too
    app.add_middleware(GZipMiddleware, minimum_size=500)
    app.add_middleware(deadends.CategorySpelling)
    app.add_middleware(deadends.HeadAsGet)  # outermost: every layer inside sees the GET it stands for
    for kind, handler in ERROR_HANDLERS.items():
        app.add_exception_handler(kind, handler)

    app.add_api_route("/healthz", healthz, methods=["GET"], responses=errors())
    for view in VIEWS:
        app.include_router(view.router)
    app.openapi = lambda: openapi_without_422(app)  # type: ignore[method-assign]
    return app


def server_app(settings: Settings, announce: str | None = None) -> FastAPI:
    """The app of one ``papersift serve`` worker (``cli/serve.py`` hands each worker its settings).

    A server holds many long-lived objects (cached pages, templates, the model); with Python's default
    thresholds a full garbage collection walks them every few thousand requests, a pause of 100 ms or
    more that set the p95 of cached pages (384 → 32 ms measured with these thresholds). So: collect
    rarely, and never walk what start-up made.
    """
    gc.set_threshold(*GC_THRESHOLDS)
    app = create_app(settings, announce=announce)
    gc.freeze()
    return app
