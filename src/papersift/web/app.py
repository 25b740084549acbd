"""The FastAPI app: every page is a Jinja2 template over the same data its ``/api`` twin returns as JSON.

No global lock: each request thread reads through its own store connection, writes go through one writer
(``web/state.py``), the indexes are the current index generation (switched to when ``embed`` publishes a new
one) and the model loads only when a request needs a text embedded. Everything
from papers is escaped by Jinja2's autoescaping; responses carry a strict Content-Security-Policy (no
inline script, nothing from other origins).
"""

from __future__ import annotations

import gc
import os
import re
import sqlite3
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from papersift.atom import atom_feed
from papersift.index.onnx_encoder import OnnxModelError
from papersift.index.sentences import FACETS
from papersift.listing import listing_counts, paper_bibtex, paper_json
from papersift.paper import InvalidIdError, format_authors, normalize_id
from papersift.ranking.related import MAX_K, RelatedHit, paper_query, related, text_query
from papersift.ranking.search import MODES, Mode, search
from papersift.settings import Settings
from papersift.store import Filters, StoreError, open_store
from papersift.taxonomy import category_name
from papersift.web.assets import CacheHeaders, static_url
from papersift.web.categories import opening_category, picker, taxonomy_json
from papersift.web.contract import DateParam, DayPath, allowed_methods, errors, openapi_without_422
from papersift.web.i18n import TEXT, pick_language, translate
from papersift.web.mine import add_state_routes, with_state
from papersift.web.readers import MAX_IMPORT, add_reader_routes
from papersift.web.security import Guard, refuse, server_secret
from papersift.web.state import (
    ACCOUNT_MARK,
    CSRF_MARK,
    AppState,
    day_and_neighbours,
    parse_day,
    personalise,
)
from papersift.web.text import highlight, plain_text, tex_text
from papersift.web.topics import add_topic_routes

HERE = Path(__file__).parent
GC_THRESHOLDS = (200_000, 100, 100)  # allocations before a young collection; young per older; older per full
MAX_TEXT = 4_000  # characters of pasted text in a URL (percent-encoded it stays under uvicorn's 64 KiB line)
# KaTeX sizes its output with style attributes: those (never <style> or script) are allowed inline
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


Facet = Annotated[str, Query(pattern="^(|" + "|".join(FACETS) + ")$")]  # a paper facet; "": the whole paper


def katex_dir(settings: Settings) -> Path | None:
    """KaTeX as ``npm install`` put it (``make`` does): the configured folder, else the checkout's."""
    for base in (settings.web_assets, HERE.parents[2] / "node_modules"):
        if base is not None and (base / "katex" / "dist" / "katex.min.js").exists():
            return base / "katex" / "dist"
    return None


class SecurityHeaders:
    """CSP and friends on every response, and the language cookie (plain ASGI: cheap per request)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                lang = request.query_params.get("lang")
                if lang in TEXT:
                    cookies = Response()
                    cookies.set_cookie("lang", lang, max_age=365 * 86400, samesite="lax")
                    for name, value in cookies.raw_headers:
                        if name == b"set-cookie":
                            headers.append("set-cookie", value.decode("latin-1"))
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            if not started:  # a stable 500 with the headers above; the error still reaches the log
                await refuse(scope, send_with_headers, 500, "internal error")
            raise


def warm(state: AppState) -> None:
    """Open the indexes and load the query model now, so that the first search is as fast as the tenth."""
    try:
        indexes = state.indexes()  # maps the current index generation
        if indexes.dense is not None or indexes.lexical is not None:  # a search touches every index once
            search(indexes, "warming up the indexes", k=1)
    except (StoreError, OnnxModelError, ImportError) as e:  # listings still work; searches will say why
        print(f"papersift: warning: {e}", file=sys.stderr, flush=True)


def create_app(settings: Settings, announce: str | None = None) -> FastAPI:
    """The app over the store that ``settings`` names; at start-up it loads what searches need (``warm``),
    then prints ``announce`` (the URL ``papersift serve`` listens on), if given."""
    state = AppState(settings, open_store(settings), open_store(settings))
    health = {"status": "loading"}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        warm(state)
        health["status"] = "ready"
        if announce:
            print(f"papersift: ready at {announce}", file=sys.stderr, flush=True)
        yield
        state.close()

    app = FastAPI(title="papersift", version="0.1.0", docs_url=None, redoc_url=None, lifespan=lifespan)
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["format_authors"] = format_authors
    templates.env.filters["highlight"] = highlight
    templates.env.filters["tex"] = tex_text
    templates.env.filters["plain"] = plain_text
    katex = katex_dir(settings)
    if katex is not None:  # mounted before /static so the longer prefix wins
        app.mount("/static/katex", StaticFiles(directory=katex), name="katex")
    templates.env.globals["katex"] = katex is not None
    templates.env.globals["static"] = static_url
    templates.env.globals["lang_href"] = lang_href
    templates.env.filters["tr"] = translate
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    limits = {"/library/import": MAX_IMPORT + 64 * 1024}  # the file and the form around it
    app.add_middleware(Guard, settings=settings, secret=server_secret(settings.home), limits=limits)
    app.add_middleware(CacheHeaders)
    app.add_middleware(SecurityHeaders)  # outside the guard: its refusals carry the headers too
    app.add_middleware(GZipMiddleware, minimum_size=500)

    def language(request: Request) -> str:
        return pick_language(
            request.query_params.get("lang"),
            request.cookies.get("lang"),
            request.headers.get("accept-language"),
        )

    def render(request: Request, name: str, **context: Any) -> bytes:
        """A template with the personal markers left in (see ``web/state.py``): safe to cache."""
        lang = language(request)
        context = {"t": TEXT[lang], "lang": lang, "csrf": CSRF_MARK, "account": ACCOUNT_MARK, **context}
        return bytes(templates.TemplateResponse(request, name, context).body)

    def page(request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
        body = render(request, name, here=str(request.url.path), **context)
        return HTMLResponse(personalise(body, request, state, language(request)), status_code=code)

    def cached_page(
        request: Request,
        name: str,
        key: tuple[str, ...],
        data: Callable[[], dict[str, Any]],
        index: bool = False,
        personal: bool = False,
        **context: Any,
    ) -> HTMLResponse:
        """A page rendered once per papers version (and index generation when ``index``, any stored data
        when ``personal``) and language, nothing personal in it (errors not kept)."""
        lang = language(request)
        here = str(request.url.path)
        body = state.cached(
            (*key, lang),
            lambda: render(request, name, data=data(), here=here, **context),
            index=index,
            personal=personal,
        )
        return HTMLResponse(personalise(body, request, state, lang))

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 405:
            exc.headers = {"Allow": allowed_methods(app, request.url.path)}
        if wants_json(request):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        response = page(request, "error.html", exc.status_code, status=exc.status_code, message=exc.detail)
        response.headers.update(exc.headers or {})  # e.g. a 405's Allow
        return response

    @app.exception_handler(sqlite3.OperationalError)
    async def store_busy(request: Request, exc: sqlite3.OperationalError) -> Response:
        """A read past the query time limit (interrupted) or a store locked too long: try again later."""
        message = f"the store is busy ({exc}); try again in a moment"
        if wants_json(request):
            return JSONResponse({"error": message}, status_code=503)
        return page(request, "error.html", 503, status=503, message=message)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        message = "; ".join(_problem(e) for e in exc.errors())
        if wants_json(request):
            return JSONResponse({"error": message}, status_code=400)
        return page(request, "error.html", 400, status=400, message=message)

    # -- data (shared by pages and API) ------------------------------------------------------------
    def listing_data(category: str, day: str | None) -> dict[str, Any]:
        store = state.store
        days = store.announcement_days(category)
        if not days:
            raise HTTPException(404, f"no listings for {category}")
        when = days[-1] if day is None else parse_day(day)
        entries = store.listing(category, when)
        listed = dict(store.listed_categories(when))
        if not entries:
            raise HTTPException(404, f"no {category} listing on {when}")
        return {
            "category": category,
            "category_name": category_name(category),
            **day_and_neighbours(days, when),
            "counts": listing_counts(entries),
            "picker": picker(listed, category, when.isoformat()),
            "entries": [paper_json(e.paper, number=n, kind=e.kind) for n, e in enumerate(entries, 1)],
        }

    def categories_data() -> dict[str, Any]:
        """arXiv's taxonomy with how many announcement rows the store holds for each category."""
        return taxonomy_json(dict(state.store.listed_categories()))

    def paper_data(
        raw_id: str, k: int, category: str | None, since: date | None, facet: str | None = None
    ) -> dict[str, Any]:
        """The paper and its related papers (kept per store version: popular papers cost one ranking);
        ``facet``: related in that part of the paper only (background, method or result sentences)."""
        try:
            pid = normalize_id(raw_id)
        except InvalidIdError as e:
            raise HTTPException(404, str(e)) from e
        key = ("paper", pid, str(k), category or "", since.isoformat() if since else "", facet or "")
        return dict(state.cached(key, lambda: ranked_paper(pid, k, category, since, facet), index=True))

    def ranked_paper(
        pid: str, k: int, category: str | None, since: date | None, facet: str | None
    ) -> dict[str, Any]:
        indexes = state.indexes()
        paper = indexes.store.get(pid)
        if paper is None:
            raise HTTPException(404, f"{pid} is not in the store")
        query = paper_query(indexes, paper, facet=facet)
        hits = related(indexes, query, k=k, category=category, since=since)
        return {
            **paper_json(paper),
            "bibtex": paper_bibtex(paper),
            "facet": facet,
            "notes": query.notes,
            "related": [_related_json(h) for h in hits],
        }

    def text_data(text: str, k: int, category: str | None = None) -> dict[str, Any]:
        if not text.strip():
            raise HTTPException(400, "the text is empty")
        key = ("text", text, str(k), category or "")
        return dict(state.cached(key, lambda: ranked_text(text, k, category), index=True))

    def ranked_text(text: str, k: int, category: str | None) -> dict[str, Any]:
        indexes = state.indexes()
        query = text_query(indexes, text)
        hits = related(indexes, query, k=k, category=category)
        return {"query": query.label, "notes": query.notes, "results": [_related_json(h) for h in hits]}

    def search_data(
        q: str, mode: str, category: str | None, since: str | None, page_no: int, k: int
    ) -> dict[str, Any]:
        if mode not in MODES:
            raise HTTPException(400, f"mode must be one of {', '.join(MODES)}")
        filters = Filters(category=category or None, since=parse_day(since, 400) if since else None)
        key = ("search", q, mode, category or "", since or "", str(page_no), str(k))
        return dict(state.cached(key, lambda: ranked_search(q, mode, filters, page_no, k), index=True))

    def ranked_search(q: str, mode: Mode, filters: Filters, page_no: int, k: int) -> dict[str, Any]:
        result = search(state.indexes(), q, mode=mode, k=k, offset=(page_no - 1) * k, filters=filters)
        first = (page_no - 1) * k + 1
        return {
            "query": q,
            "mode": result.mode,
            "page": page_no,
            "next_page": page_no + 1 if len(result.hits) == k else None,
            "notes": result.notes,
            "results": [
                paper_json(h.paper, rank=r, score=round(h.score, 4), terms=h.terms)
                for r, h in enumerate(result.hits, first)
            ],
        }

    # -- routes ---------------------------------------------------------------------------------
    @app.get("/healthz", responses=errors())
    def healthz() -> dict[str, str]:
        """``ready`` once the indexes and the query model are loaded, ``loading`` before."""
        return dict(health)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home(request: Request) -> RedirectResponse:
        reader = state.reader(request)
        store = state.store
        followed = store.interests(reader.id).categories if reader else ()
        category = opening_category(store, followed, settings.default_categories[0])
        return RedirectResponse(f"/list/{category}")

    @app.get("/api/list/{category}", responses=errors(404))
    def api_latest(request: Request, category: str) -> dict[str, Any]:
        data = state.cached(("api-list", category, ""), lambda: listing_data(category, None))
        return with_state(state, request, data, "entries")

    @app.get("/api/list/{category}/{day}", responses=errors(404))
    def api_listing(request: Request, category: str, day: DayPath) -> dict[str, Any]:
        data = state.cached(("api-list", category, day), lambda: listing_data(category, day))
        return with_state(state, request, data, "entries")

    def self_url(request: Request) -> str:
        """A feed's own address, on the configured base URL (never the request's Host header)."""
        query = request.url.query
        return settings.base_url.rstrip("/") + request.url.path + (f"?{query}" if query else "")

    @app.get("/list/{category}.atom", response_class=Response, responses=errors(404, html=True))
    def listing_feed(request: Request, category: str) -> Response:
        data = listing_data(category, None)
        body = atom_feed(
            f"papersift: {category} {data['date']}",
            f"papersift:list:{category}",
            self_url(request),
            data["entries"],
        )
        return Response(body, media_type="application/atom+xml")

    @app.get("/search.atom", response_class=Response, responses=errors(html=True))
    def search_feed(
        request: Request, q: str = Query(..., min_length=1, max_length=1000), mode: Mode = "hybrid"
    ) -> Response:
        data = search_data(q, mode, None, None, 1, 20)
        body = atom_feed(f"papersift: {q}", f"papersift:search:{q}", self_url(request), data["results"])
        return Response(body, media_type="application/atom+xml")

    @app.get("/list/{category}", response_class=HTMLResponse, responses=errors(400, 404, html=True))
    def latest(request: Request, category: str, day: DateParam | None = None) -> Response:
        if day:  # the date picker without script
            return RedirectResponse(f"/list/{category}/{parse_day(day, 400).isoformat()}", status_code=303)
        return cached_page(
            request,
            "listing.html",
            ("list", category, ""),
            lambda: listing_data(category, None),
            index=True,  # the topic map (web/topics.py)
            personal=settings.accounts,  # the lab's counts on the rows
        )

    @app.get("/list/{category}/{day}", response_class=HTMLResponse, responses=errors(404, html=True))
    def listing(request: Request, category: str, day: DayPath) -> HTMLResponse:
        return cached_page(
            request,
            "listing.html",
            ("list", category, day),
            lambda: listing_data(category, day),
            index=True,  # the topic map (web/topics.py)
            personal=settings.accounts,  # the lab's counts on the rows
        )

    @app.get("/api/categories", responses=errors())
    def api_categories() -> dict[str, Any]:
        return dict(state.cached(("api-categories",), categories_data))

    @app.get("/categories", response_class=HTMLResponse, responses=errors(html=True))
    def categories_page(request: Request) -> HTMLResponse:
        return cached_page(request, "categories.html", ("categories",), categories_data)

    K = Query(10, ge=1, le=MAX_K // 10)

    @app.get("/api/abs/{paper_id:path}", responses=errors(404))
    def api_paper(
        paper_id: str,
        k: int = K,
        category: str | None = None,
        since: DateParam | None = None,
        facet: Facet | None = None,
    ) -> dict[str, Any]:
        return paper_data(paper_id, k, category, parse_day(since, 400) if since else None, facet or None)

    @app.get("/abs/{paper_id:path}", response_class=HTMLResponse, responses=errors(404, html=True))
    def paper_page(
        request: Request,
        paper_id: str,
        k: int = K,
        category: str | None = None,
        since: DateParam | None = None,
        facet: Facet | None = None,
    ) -> HTMLResponse:
        day = parse_day(since, 400) if since else None
        return cached_page(
            request,
            "paper.html",
            ("abs", paper_id, str(k), category or "", since or "", facet or ""),
            lambda: paper_data(paper_id, k, category, day, facet or None),
            index=True,
            category=category or "",
            since=since or "",
            facet=facet or "",
            facets=FACETS,
            since_options=[(y, f"{y}-01-01") for y in (date.today().year - n for n in (1, 2, 5, 10))],
        )

    @app.get("/api/related", responses=errors())
    def api_related(
        text: str = Query(..., max_length=MAX_TEXT, pattern=r"\S"), k: int = K, category: str | None = None
    ) -> dict[str, Any]:
        return text_data(text, k, category or None)

    @app.get("/related", response_class=HTMLResponse, responses=errors(html=True))
    def related_page(
        request: Request, text: str = Query("", max_length=MAX_TEXT), k: int = K
    ) -> HTMLResponse:
        data = text_data(text, k) if text.strip() else None
        return page(request, "related.html", data=data, text=text)

    @app.get("/api/search", responses=errors())
    def api_search(
        q: str = Query(..., max_length=1000),
        mode: Mode = "hybrid",
        category: str | None = None,
        since: DateParam | None = None,
        page_no: int = Query(1, alias="page", ge=1, le=100),
        k: int = K,
    ) -> dict[str, Any]:
        return search_data(q, mode, category, since, page_no, k)

    @app.get("/search", response_class=HTMLResponse, responses=errors(html=True))
    def search_page(
        request: Request,
        q: str = Query("", max_length=1000),
        mode: Mode = "hybrid",
        category: str | None = None,
        since: DateParam | None = None,
        page_no: int = Query(1, alias="page", ge=1, le=100),
        k: int = K,
    ) -> HTMLResponse:
        words = re.findall(r"\w+", q)
        context: dict[str, Any] = {"q": q, "mode": mode, "category": category or "", "since": since or ""}
        context |= {"hl": words, "search_page": True}
        if not q.strip():
            return page(request, "search.html", 200, data=None, **context)
        return cached_page(
            request,
            "search.html",
            ("search-page", q, mode, category or "", since or "", str(page_no), str(k)),
            lambda: search_data(q, mode, category, since, page_no, k),
            index=True,
            **context,
        )

    add_reader_routes(app, state, page)
    add_state_routes(app, state)
    add_topic_routes(app, state, page, cached_page, templates)
    app.openapi = lambda: openapi_without_422(app)  # type: ignore[method-assign]
    return app


def _problem(error: Mapping[str, Any]) -> str:
    """One validation error as a stable message: where, and what was wrong (never the input itself)."""
    where = ".".join(str(p) for p in error["loc"][1:]) or "body"
    if error["type"] == "literal_error":
        return f"{where} must be one of {error['ctx']['expected']}"
    return f"{where}: {error['msg']}"


def lang_href(request: Request, lang: str) -> str:
    """The page the request is on, in ``lang``: same path, same query and filters."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    return str(request.url.path) + "?" + urlencode([*params, ("lang", lang)])


def app_from_env() -> FastAPI:
    """The app for the settings in the environment (how ``papersift serve`` starts each worker).

    A server holds many long-lived objects (cached pages, templates, the model); with Python's default
    thresholds a full garbage collection walks them every few thousand requests, a pause of 100 ms or
    more that set the p95 of cached pages (384 → 32 ms measured with these thresholds). So: collect
    rarely, and never walk what start-up made.
    """
    gc.set_threshold(*GC_THRESHOLDS)
    app = create_app(Settings(), announce=os.environ.get("PAPERSIFT_SERVE_URL"))
    gc.freeze()
    return app


def _related_json(hit: RelatedHit) -> dict[str, Any]:
    return paper_json(
        hit.paper, score=round(hit.score, 4), why=hit.reasons(), terms=hit.terms, shared_authors=hit.authors
    )
