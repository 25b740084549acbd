"""Atom feeds: a category's latest listing (``/list/{category}.atom``), a saved search (``/search.atom``)
and a reader's private Daily Papers (``/feed/{token}.atom``), over the same data as the pages."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request, Response
from starlette.exceptions import HTTPException

from papersift.atom import atom_feed
from papersift.digest import atom as digest_atom
from papersift.ranking.search import Mode
from papersift.reading.shown import lookup
from papersift.web.contract import errors
from papersift.web.daily import picks_for
from papersift.web.listings import listing_data
from papersift.web.pages import Web
from papersift.web.search import search_data

router = APIRouter()


def self_url(web: Web, request: Request) -> str:
    """A feed's own address, on the configured base URL (never the request's Host header)."""
    query = request.url.query
    return web.state.settings.base_url.rstrip("/") + request.url.path + (f"?{query}" if query else "")


@router.get("/list/{category}.atom", response_class=Response, responses=errors(404, html=True))
def listing_feed(request: Request, web: Web, category: str) -> Response:
    data = listing_data(web.state, category, None)
    body = atom_feed(
        f"papersift: {category} {data['date']}",
        f"papersift:list:{category}",
        self_url(web, request),
        data["entries"],
    )
    return Response(body, media_type="application/atom+xml")


@router.get("/search.atom", response_class=Response, responses=errors(html=True))
def search_feed(
    request: Request, web: Web, q: str = Query(..., min_length=1, max_length=1000), mode: Mode = "hybrid"
) -> Response:
    data = search_data(web.state, q, mode, None, None, 1, 20)
    body = atom_feed(f"papersift: {q}", f"papersift:search:{q}", self_url(web, request), data["results"])
    return Response(body, media_type="application/atom+xml")


@router.get("/feed/{token}.atom", response_class=Response, include_in_schema=False)
def private_feed(web: Web, token: str) -> Response:
    state = web.state
    reader = state.store.account_by_token(token)
    if reader is None:
        raise HTTPException(404, "no such feed")
    view = picks_for(state, reader, None, state.settings.digest_k)
    texts = lookup(state.settings, state.store, [p.paper for p in view.picks])
    body = digest_atom(reader, view.day, view.picks, state.settings, texts)
    return Response(body, media_type="application/atom+xml")
