"""The FastAPI app: every page is a Jinja2 template over the same data its ``/api`` twin returns as JSON.

One store connection serves every request under a lock (SQLite connections are not for concurrent use);
the indexes open on first use and the model loads only when a request needs a text embedded. Everything
from papers is escaped by Jinja2's autoescaping; responses carry a strict Content-Security-Policy (no
inline script, nothing from other origins).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException

from papersift.index.pipeline import Indexes, open_indexes
from papersift.listing import listing_counts, paper_bibtex, paper_json
from papersift.paper import InvalidIdError, format_authors, normalize_id
from papersift.ranking.related import MAX_K, RelatedHit, paper_query, related, text_query
from papersift.ranking.search import MODES, search
from papersift.settings import Settings
from papersift.store import Filters, Store, open_store
from papersift.web.atom import atom_feed
from papersift.web.i18n import TEXT, pick_language

HERE = Path(__file__).parent
MAX_TEXT = 20_000  # characters of pasted text a request may carry
CACHE_ENTRIES = 2_000  # listing data and pages kept per worker
# KaTeX sizes its output with style attributes: those (never <style> or script) are allowed inline
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def katex_dir(settings: Settings) -> Path | None:
    """KaTeX as ``npm install`` put it (``make`` does): the configured folder, else the checkout's."""
    for base in (settings.web_assets, HERE.parents[2] / "node_modules"):
        if base is not None and (base / "katex" / "dist" / "katex.min.js").exists():
            return base / "katex" / "dist"
    return None


@dataclass
class _State:
    settings: Settings
    store: Store
    lock: threading.Lock = field(default_factory=threading.Lock)
    _indexes: Indexes | None = None
    _cache: dict[tuple[str, ...], Any] = field(default_factory=dict)
    _version: int = -1

    def indexes(self) -> Indexes:
        if self._indexes is None:
            self._indexes = open_indexes(self.store, self.settings)
        return self._indexes

    def cached(self, key: tuple[str, ...], compute: Callable[[], Any]) -> Any:
        """Listings are immutable until the store changes: keep what was computed until it does."""
        with self.lock:
            version = self.store.data_version()
            if version != self._version:
                self._cache.clear()
                self._version = version
            if key in self._cache:
                return self._cache[key]
        value = compute()
        with self.lock:
            if len(self._cache) > CACHE_ENTRIES:
                self._cache.clear()
            self._cache[key] = value
        return value


def create_app(settings: Settings) -> FastAPI:
    """The app over the store that ``settings`` names."""
    state = _State(settings, open_store(settings))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        state.store.close()

    app = FastAPI(title="papersift", version="0.1.0", docs_url=None, redoc_url=None, lifespan=lifespan)
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.globals["format_authors"] = format_authors
    katex = katex_dir(settings)
    if katex is not None:  # mounted before /static so the longer prefix wins
        app.mount("/static/katex", StaticFiles(directory=katex), name="katex")
    templates.env.globals["katex"] = katex is not None
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.middleware("http")
    async def headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        lang = request.query_params.get("lang")
        if lang in TEXT:
            response.set_cookie("lang", lang, max_age=365 * 86400, samesite="lax")
        return response

    def page(request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
        lang = pick_language(
            request.query_params.get("lang"),
            request.cookies.get("lang"),
            request.headers.get("accept-language"),
        )
        return templates.TemplateResponse(
            request, name, {"t": TEXT[lang], "lang": lang, **context}, status_code=code
        )

    def cached_page(
        request: Request, name: str, key: tuple[str, ...], data: Callable[[], dict[str, Any]]
    ) -> HTMLResponse:
        """A listing-like page rendered once per store version and language (errors are not kept)."""
        lang = pick_language(
            request.query_params.get("lang"),
            request.cookies.get("lang"),
            request.headers.get("accept-language"),
        )
        body = state.cached((*key, lang), lambda: bytes(page(request, name, data=data()).body))
        return HTMLResponse(body)

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if wants_json(request):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return page(request, "error.html", exc.status_code, status=exc.status_code, message=exc.detail)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        message = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors())
        if wants_json(request):
            return JSONResponse({"error": message}, status_code=400)
        return page(request, "error.html", 400, status=400, message=message)

    # -- data (shared by pages and API) ------------------------------------------------------------
    def listing_data(category: str, day: str | None) -> dict[str, Any]:
        with state.lock:
            days = state.store.announcement_days(category)
            if not days:
                raise HTTPException(404, f"no listings for {category}")
            when = days[-1] if day is None else _parse_day(day)
            entries = state.store.listing(category, when)
        if not entries:
            raise HTTPException(404, f"no {category} listing on {when}")
        return {
            "category": category,
            **_day_and_neighbours(days, when),
            "counts": listing_counts(entries),
            "entries": [paper_json(e.paper, number=n, kind=e.kind) for n, e in enumerate(entries, 1)],
        }

    def daily_data(day: str | None) -> dict[str, Any]:
        """The day's new papers across the followed categories, in arXiv's order, each paper once."""
        categories = list(settings.default_categories)
        with state.lock:
            days = sorted({d for c in categories for d in state.store.announcement_days(c)})
            if not days:
                raise HTTPException(404, "no listings for the followed categories yet")
            when = days[-1] if day is None else _parse_day(day)
            entries = [e for c in categories for e in state.store.listing(c, when) if e.kind == "new"]
        seen: set[str] = set()
        papers: list[dict[str, Any]] = []
        for e in entries:
            if e.paper.id not in seen:
                seen.add(e.paper.id)
                papers.append(paper_json(e.paper, number=len(papers) + 1, kind=e.kind))
        if not papers and day is not None:
            raise HTTPException(404, f"no new papers on {when}")
        return {
            **_day_and_neighbours(days, when),
            "categories": categories,
            "ranking": "arXiv order",
            "entries": papers,
        }

    def paper_data(raw_id: str, k: int, category: str | None, since: date | None) -> dict[str, Any]:
        try:
            pid = normalize_id(raw_id)
        except InvalidIdError as e:
            raise HTTPException(404, str(e)) from e
        with state.lock:
            paper = state.store.get(pid)
            if paper is None:
                raise HTTPException(404, f"{pid} is not in the store")
            indexes = state.indexes()
            hits = related(indexes, paper_query(indexes, paper), k=k, category=category, since=since)
        return {
            **paper_json(paper),
            "bibtex": paper_bibtex(paper),
            "related": [_related_json(h) for h in hits],
        }

    def text_data(text: str, k: int) -> dict[str, Any]:
        if not text.strip():
            raise HTTPException(400, "the text is empty")
        with state.lock:
            indexes = state.indexes()
            query = text_query(indexes, text)
            hits = related(indexes, query, k=k)
        return {"query": query.label, "notes": query.notes, "results": [_related_json(h) for h in hits]}

    def search_data(
        q: str, mode: str, category: str | None, since: str | None, page_no: int, k: int
    ) -> dict[str, Any]:
        if mode not in MODES:
            raise HTTPException(400, f"mode must be one of {', '.join(MODES)}")
        filters = Filters(category=category or None, since=_parse_day(since, 400) if since else None)
        with state.lock:
            result = search(state.indexes(), q, mode=mode, k=k, offset=(page_no - 1) * k, filters=filters)
        first = (page_no - 1) * k + 1
        return {
            "query": q,
            "mode": result.mode,
            "page": page_no,
            "notes": result.notes,
            "results": [
                paper_json(h.paper, rank=r, score=round(h.score, 4), terms=h.terms)
                for r, h in enumerate(result.hits, first)
            ],
        }

    # -- routes ---------------------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home() -> RedirectResponse:
        category = settings.default_categories[0]
        with state.lock:
            for candidate in settings.default_categories:
                if state.store.announcement_days(candidate):
                    category = candidate
                    break
        return RedirectResponse(f"/list/{category}")

    @app.get("/api/list/{category}")
    def api_latest(category: str) -> dict[str, Any]:
        return dict(state.cached(("api-list", category, ""), lambda: listing_data(category, None)))

    @app.get("/api/list/{category}/{day}")
    def api_listing(category: str, day: str) -> dict[str, Any]:
        return dict(state.cached(("api-list", category, day), lambda: listing_data(category, day)))

    @app.get("/list/{category}.atom", response_class=Response)
    def listing_feed(request: Request, category: str) -> Response:
        data = listing_data(category, None)
        body = atom_feed(
            f"papersift: {category} {data['date']}",
            f"papersift:list:{category}",
            str(request.url),
            data["entries"],
        )
        return Response(body, media_type="application/atom+xml")

    @app.get("/search.atom", response_class=Response)
    def search_feed(
        request: Request, q: str = Query(..., min_length=1, max_length=1000), mode: str = "hybrid"
    ) -> Response:
        data = search_data(q, mode, None, None, 1, 20)
        body = atom_feed(f"papersift: {q}", f"papersift:search:{q}", str(request.url), data["results"])
        return Response(body, media_type="application/atom+xml")

    @app.get("/api/daily")
    def api_daily_latest() -> dict[str, Any]:
        return daily_data(None)

    @app.get("/api/daily/{day}")
    def api_daily(day: str) -> dict[str, Any]:
        return daily_data(day)

    @app.get("/daily", response_class=HTMLResponse)
    def daily_latest(request: Request) -> HTMLResponse:
        return cached_page(request, "daily.html", ("daily", ""), lambda: daily_data(None))

    @app.get("/daily/{day}", response_class=HTMLResponse)
    def daily(request: Request, day: str) -> HTMLResponse:
        return cached_page(request, "daily.html", ("daily", day), lambda: daily_data(day))

    @app.get("/list/{category}", response_class=HTMLResponse)
    def latest(request: Request, category: str) -> HTMLResponse:
        return cached_page(
            request, "listing.html", ("list", category, ""), lambda: listing_data(category, None)
        )

    @app.get("/list/{category}/{day}", response_class=HTMLResponse)
    def listing(request: Request, category: str, day: str) -> HTMLResponse:
        return cached_page(
            request, "listing.html", ("list", category, day), lambda: listing_data(category, day)
        )

    K = Query(10, ge=1, le=MAX_K // 10)

    @app.get("/api/abs/{paper_id:path}")
    def api_paper(
        paper_id: str, k: int = K, category: str | None = None, since: str | None = None
    ) -> dict[str, Any]:
        return paper_data(paper_id, k, category, _parse_day(since, 400) if since else None)

    @app.get("/abs/{paper_id:path}", response_class=HTMLResponse)
    def paper_page(
        request: Request, paper_id: str, k: int = K, category: str | None = None, since: str | None = None
    ) -> HTMLResponse:
        data = paper_data(paper_id, k, category, _parse_day(since, 400) if since else None)
        return page(request, "paper.html", data=data, category=category or "", since=since or "")

    @app.get("/api/related")
    def api_related(text: str = Query(..., max_length=MAX_TEXT), k: int = K) -> dict[str, Any]:
        return text_data(text, k)

    @app.get("/related", response_class=HTMLResponse)
    def related_page(
        request: Request, text: str = Query("", max_length=MAX_TEXT), k: int = K
    ) -> HTMLResponse:
        data = text_data(text, k) if text.strip() else None
        return page(request, "related.html", data=data, text=text)

    @app.get("/api/search")
    def api_search(
        q: str = Query(..., max_length=1000),
        mode: str = "hybrid",
        category: str | None = None,
        since: str | None = None,
        page_no: int = Query(1, alias="page", ge=1, le=100),
        k: int = K,
    ) -> dict[str, Any]:
        return search_data(q, mode, category, since, page_no, k)

    @app.get("/search", response_class=HTMLResponse)
    def search_page(
        request: Request,
        q: str = Query("", max_length=1000),
        mode: str = "hybrid",
        category: str | None = None,
        since: str | None = None,
        page_no: int = Query(1, alias="page", ge=1, le=100),
        k: int = K,
    ) -> HTMLResponse:
        data = search_data(q, mode, category, since, page_no, k) if q.strip() else None
        return page(
            request, "search.html", data=data, q=q, mode=mode, category=category or "", since=since or ""
        )

    return app


def app_from_env() -> FastAPI:
    """The app for the settings in the environment (how ``papersift serve`` starts each worker)."""
    return create_app(Settings())


def _day_and_neighbours(days: list[date], when: date) -> dict[str, str | None]:
    """``date`` with the previous and next days that have a listing (the pages' day switcher)."""
    earlier = [d for d in days if d < when]
    later = [d for d in days if d > when]
    return {
        "date": when.isoformat(),
        "previous": earlier[-1].isoformat() if earlier else None,
        "next": later[0].isoformat() if later else None,
    }


def _parse_day(value: str, status: int = 404) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise HTTPException(status, f"not a date (YYYY-MM-DD): {value!r}") from None


def _related_json(hit: RelatedHit) -> dict[str, Any]:
    return paper_json(
        hit.paper, score=round(hit.score, 4), why=hit.reasons(), terms=hit.terms, shared_authors=hit.authors
    )
