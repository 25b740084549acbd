"""Search: ``/search`` and ``/api/search`` (hybrid, keyword or semantic, with filters and pages) from one
handler; results are kept per store version and index generation."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.exceptions import HTTPException

from papersift.paper import is_arxiv_id, normalize_id
from papersift.ranking.search import MODES, Mode, search
from papersift.shapes import search_hit_json
from papersift.store import Filters
from papersift.web.contract import DateParam
from papersift.web.pages import TOP_K, Answer, Web, twin, wants_json
from papersift.web.state import AppState, parse_day

router = APIRouter()
TOTAL_CAP = 100  # results counted for a query's total (more: "100+ results")


def search_data(
    state: AppState, q: str, mode: str, category: str | None, since: str | None, page_no: int, k: int
) -> dict[str, Any]:
    """One page of results for ``q`` (``next_page`` is null on the last page)."""
    if mode not in MODES:
        raise HTTPException(400, f"mode must be one of {', '.join(MODES)}")
    filters = Filters(category=category or None, since=parse_day(since, 400) if since else None)

    def ranked() -> dict[str, Any]:
        result = search(state.indexes(), q, mode=mode, k=k, offset=(page_no - 1) * k, filters=filters)
        first = (page_no - 1) * k + 1
        return {
            "query": q,
            "mode": result.mode,
            "page": page_no,
            "next_page": page_no + 1 if len(result.hits) == k else None,
            "notes": result.notes,
            "total": total_data(state, q, mode, filters),
            "results": [search_hit_json(h, r) for r, h in enumerate(result.hits, first)],
        }

    key = ("search", q, mode, category or "", since or "", str(page_no), str(k))
    return dict(state.cached(key, ranked, index=True))


def total_data(state: AppState, q: str, mode: Mode, filters: Filters) -> dict[str, Any]:
    """How many results ``q`` has: ``{"count", "capped"}`` (``capped``: at least ``count``); kept per
    query and filters."""

    def counted() -> dict[str, Any]:
        hits = search(state.indexes(), q, mode=mode, k=TOTAL_CAP + 1, filters=filters).hits
        return {"count": min(len(hits), TOTAL_CAP), "capped": len(hits) > TOTAL_CAP}

    key = ("search-total", q, mode, filters.category or "", str(filters.since or ""))
    return dict(state.cached(key, counted, index=True))


@twin(router, "/search", api={"q": (str, Query(..., max_length=1000))})
def search_papers(
    request: Request,
    web: Web,
    q: str = Query("", max_length=1000),
    mode: Mode = "hybrid",
    category: str | None = None,
    since: DateParam | None = None,
    page_no: int = Query(1, alias="page", ge=1, le=100),
    k: int = TOP_K,
) -> Answer:
    """Search the papers: ``q`` in any mode (the page without ``q`` is the empty form)."""
    if wants_json(request):  # the API requires q (``twin``'s ``api``)
        return search_data(web.state, q, mode, category, since, page_no, k)
    context: dict[str, Any] = {"q": q, "mode": mode, "category": category or "", "since": since or ""}
    context |= {"hl": re.findall(r"\w+", q), "search_page": True}
    if not q.strip():
        return web.page(request, "search.html", 200, data=None, **context)
    if is_arxiv_id(q.strip()):  # an id or an arXiv URL opens the paper (a 404 there links arXiv)
        return RedirectResponse(f"/abs/{normalize_id(q.strip())}", status_code=303)
    return web.cached_page(
        request,
        "search.html",
        ("search-page", q, mode, category or "", since or "", str(page_no), str(k)),
        lambda: search_data(web.state, q, mode, category, since, page_no, k),
        index=True,
        **context,
    )
