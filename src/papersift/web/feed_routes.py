"""Atom feeds: a category's latest listing (``/list/{category}.atom``), a saved search (``/search.atom``)
and a reader's private Daily Papers (``/feed/{token}.atom``), over the same data as the pages."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request, Response
from starlette.exceptions import HTTPException

from papersift.library.digest import atom as digest_atom
from papersift.library.digest import feed_entry
from papersift.library.words import digest_lang, shown_texts
from papersift.ranking.followed import reader_week
from papersift.ranking.search import Mode
from papersift.reading.shown import lookup
from papersift.records.feeds import atom_feed
from papersift.records.messages import say
from papersift.web.contract import feed_responses
from papersift.web.daily_pages import picks_for
from papersift.web.listings import listing_data
from papersift.web.pages import Web
from papersift.web.search_pages import SearchForm, search_data

router = APIRouter()


def base_url(web: Web, request: Request) -> str:
    """Where this server is reached: the configured ``base_url`` when one is set, else the request's own
    scheme and Host (one the guard has already allowed: ``web/security.py``), so the port is the real one."""
    settings = web.state.settings
    if "base_url" in settings.model_fields_set:
        return settings.base_url.rstrip("/")
    return str(request.base_url).rstrip("/")


def self_url(web: Web, request: Request) -> str:
    """A feed's own address (on ``base_url``)."""
    query = request.url.query
    return base_url(web, request) + request.url.path + (f"?{query}" if query else "")


@router.get("/list/{category}.atom", response_class=Response, responses=feed_responses(404))
def listing_feed(request: Request, web: Web, category: str) -> Response:
    data = listing_data(web.state, category, None)
    body = atom_feed(
        f"papersift: {category} {data['date']}",
        f"papersift:list:{category}",
        self_url(web, request),
        [feed_entry(p) for p in data["entries"]],
    )
    return Response(body, media_type="application/atom+xml")


@router.get("/search.atom", response_class=Response, responses=feed_responses())
def search_feed(
    request: Request, web: Web, q: str = Query(..., min_length=1, max_length=1000), mode: Mode = "hybrid"
) -> Response:
    data = search_data(web.state, SearchForm(q, mode, k=20))
    entries = [feed_entry(p) for p in data["results"]]
    body = atom_feed(f"papersift: {q}", f"papersift:search:{q}", self_url(web, request), entries)
    return Response(body, media_type="application/atom+xml")


@router.get("/feed/{token}.atom", response_class=Response, include_in_schema=False)
def private_feed(request: Request, web: Web, token: str) -> Response:
    state = web.state
    reader = state.store.account_by_token(token)
    if reader is None:
        raise HTTPException(404, say("no_such_feed"))
    view = picks_for(state, reader, None, state.settings.digest_k)
    picked = {p.paper.id for p in view.picks}
    followed = reader_week(
        state.store, reader, view.day, leave_out=picked
    )  # new this week by followed authors
    papers = [p.paper for p in view.picks] + [f.paper for f in followed]
    lang = digest_lang(state.store, state.settings, reader)
    texts = lookup(state.settings, state.store, papers)  # a 中文 reader's: their stored 中文 TL;DRs first
    if lang == "zh":
        texts = shown_texts(texts, lookup(state.settings, state.store, papers, "zh"))
    base = base_url(web, request)
    body = digest_atom(reader, view.day, view.picks, state.settings, texts, base, lang, followed)
    return Response(body, media_type="application/atom+xml")
