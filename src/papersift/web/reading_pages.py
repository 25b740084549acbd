"""The reading layer on the web: the texts a page's papers are shown with (``texts_for``: their TL;DRs,
and on a 中文 page or under ``?lang=zh`` the translated titles and abstracts), and the endpoints that make
texts on demand: a paper's FAQ (``/abs/{id}/faq``: a page without script, ``/api/faq/{id}`` streamed as
server-sent events while the model writes it), ``POST /abs/{id}/summarize`` (its TL;DR, and in 中文 its
title and abstract) and Ask (``POST /ask`` from a paper page or a /library selection, ``POST /api/ask``).

A model is called for a request only when one is configured and, on a ``--public-read-only`` server, when
``PAPERSIFT_READING_PUBLIC`` allows it; Ask is limited per client address (``ask_per_hour``). Generation
uses a connection of its own (never the shared writer: a model call takes seconds). Without a model the
pages say once what one would add and how to connect it (``/help/model``), and the endpoints that would
call one answer 503 with that (the message ``no_model``); with one a public server keeps to itself, 403.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response, StreamingResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from papersift.llm import client
from papersift.llm.errors import ModelError
from papersift.reading import texts as making
from papersift.reading.markdown import to_html
from papersift.reading.passes import summarize
from papersift.reading.prompts import MAX_PAPERS, MAX_QUESTION
from papersift.reading.sections import encoder_of
from papersift.reading.shown import Texts, answer_json, lookup
from papersift.records.catalogs import said
from papersift.records.messages import reason, say
from papersift.records.paper import InvalidIdError, Paper, normalize_id
from papersift.settings import Settings
from papersift.store import Store, open_store
from papersift.web.contract import errors
from papersift.web.pages import Site, Web, wants_json
from papersift.web.state import AppState

router = APIRouter()
HOUR = 3600.0


@dataclass
class AskLimit:
    """Questions per client address in the last hour (kept by the app: ``app.state.ask_limit``)."""

    per_hour: int
    seen: dict[str, deque[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def allow(self, address: str) -> bool:
        now = time.monotonic()
        with self.lock:
            times = self.seen.setdefault(address, deque())
            while times and times[0] < now - HOUR:
                times.popleft()
            if len(times) >= self.per_hour:
                return False
            times.append(now)
            return True


def reading_lang(web: Site, request: Request) -> str:
    """The language of the texts: the page's, or under ``/api`` the ``lang`` query (``en`` without it)."""
    if wants_json(request):
        return "zh" if request.query_params.get("lang") == "zh" else "en"
    return web.language(request)


def texts_for(state: AppState, papers: Iterable[Paper], lang: str) -> Texts:
    """The stored texts to show with ``papers`` in ``lang``."""
    return lookup(state.settings, state.store, list(papers), lang)


def texts_version(state: AppState) -> str:
    """A part of a cache key: changes whenever a text is made."""
    return state.store.readings_version()


def has_model(settings: Settings) -> bool:
    """Whether a model is configured at all (the pages' ``has_model``: without one they say how to connect
    one, never an error)."""
    return client.available(settings)


def _refuse(settings: Settings, what: str) -> None:
    """Raise why no model may write ``what`` here: none is connected (503), or a public server keeps its
    model to itself (403)."""
    if not has_model(settings):
        raise HTTPException(503, say("no_model"))
    raise HTTPException(403, say("model_not_here", what=what))


def may_generate(settings: Settings) -> bool:
    """Whether a request may call the model: one is configured, and a public read-only server allows it."""
    return client.available(settings) and (not settings.read_only or settings.reading_public)


def _paper(state: AppState, raw_id: str) -> Paper:
    try:
        pid = normalize_id(raw_id)
    except InvalidIdError as e:
        raise HTTPException(404, reason(e)) from e
    paper = state.store.get(pid)
    if paper is None:
        raise HTTPException(404, say("not_in_store", id=pid))
    return paper


def _own_store(settings: Settings) -> closing[Store]:
    return closing(open_store(settings))


def faq_html(state: AppState, paper: Paper, lang: str) -> dict[str, Any]:
    """The stored FAQ of ``paper`` in ``lang`` as safe HTML (``html`` None when none is stored; ``error``
    when it failed)."""
    found = state.store.reading(making.reading_key(state.settings, paper, "faq", lang))
    if found is None or found.state == "pending":
        return {"html": None, "error": None}
    return {"html": to_html(found.text) if found.text else None, "error": found.error}


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: ".encode() + orjson.dumps(data) + b"\n\n"


def _faq_events(state: AppState, paper: Paper, lang: str) -> Iterator[bytes]:
    parts: list[str] = []
    settings, encode = state.settings, encoder_of(state.indexes())
    with _own_store(settings) as store:
        try:
            for delta in making.faq_stream(settings, store, paper, lang, encode):
                parts.append(delta)
                yield _sse("delta", {"text": delta})
        except ModelError as e:
            yield _sse("error", {"error": str(said(e, lang))})  # the page's language: the FAQ's
            return
    yield _sse("done", {"html": to_html("".join(parts))})


SSE = {"content": {"text/event-stream": {}}, "description": "Server-sent events: delta, then done or error"}


@router.get(
    "/api/faq/{paper_id:path}",
    response_class=StreamingResponse,
    responses={200: SSE, **errors(403, 404, 503)},
)
def faq_stream(request: Request, web: Web, paper_id: str, lang: str = "en") -> Response:
    """The FAQ of a paper, streamed as server-sent events as it is written: ``delta`` events (``text``),
    then ``done`` (the whole FAQ as safe ``html``) or ``error`` (why it failed)."""
    paper = _paper(web.state, paper_id)
    lang = "zh" if lang == "zh" else "en"
    stored = faq_html(web.state, paper, lang)
    if stored["html"] is None and not may_generate(web.state.settings):
        _refuse(web.state.settings, say("the_faq"))
    headers = {"cache-control": "no-store", "x-accel-buffering": "no"}
    return StreamingResponse(
        _faq_events(web.state, paper, lang), media_type="text/event-stream", headers=headers
    )


@router.get("/abs/{paper_id:path}/faq", include_in_schema=False)
def faq_page(request: Request, web: Web, paper_id: str) -> Response:
    """The FAQ of a paper as a plain page (written first when a model may): the page without script."""
    paper = _paper(web.state, paper_id)
    lang = web.language(request)
    shown = faq_html(web.state, paper, lang)
    if shown["html"] is None and shown["error"] is None and may_generate(web.state.settings):
        with _own_store(web.state.settings) as store:
            encode = encoder_of(web.state.indexes())
            made = making.make(web.state.settings, store, paper, "faq", lang, encode=encode)
        shown = {"html": to_html(made.text) if made.text else None, "error": made.error}
    return web.page(request, "faq.html", paper=paper, faq=shown)


@router.post("/abs/{paper_id:path}/summarize", include_in_schema=False)
def summarize_paper(request: Request, web: Web, paper_id: str, lang: str = Form("en")) -> Response:
    """Make the paper's TL;DR (and in 中文 its title and abstract) now; back to its page."""
    paper = _paper(web.state, paper_id)
    if not may_generate(web.state.settings):
        _refuse(web.state.settings, say("a_tldr"))
    with _own_store(web.state.settings) as store:
        summarize(web.state.settings, store, [paper], "zh" if lang == "zh" else "en", retry_failed=True)
    return RedirectResponse(f"/abs/{paper.id}", status_code=303)


class AskRequest(BaseModel):
    ids: list[str] = Field(min_length=1, max_length=MAX_PAPERS)
    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    lang: str = Field("en", pattern="^(en|zh)$")


def _answer(request: Request, web: Site, ids: list[str], question: str, lang: str) -> dict[str, Any]:
    settings = web.state.settings
    if not may_generate(settings):
        _refuse(settings, say("an_answer"))
    address = request.client.host if request.client else "unknown"
    limit: AskLimit = request.app.state.ask_limit
    if not limit.allow(address):
        raise HTTPException(429, say("questions_an_hour", n=limit.per_hour))
    if not ids or len(ids) > MAX_PAPERS:
        raise HTTPException(400, say("ask_how_many", n=MAX_PAPERS))
    papers = [_paper(web.state, i) for i in dict.fromkeys(ids)]
    with _own_store(settings) as store:
        encode = encoder_of(web.state.indexes())
        return answer_json(making.ask(settings, store, papers, question, lang, encode))


@router.post("/api/ask", responses=errors(400, 403, 404, 429, 503))
def api_ask(request: Request, web: Web, body: AskRequest) -> dict[str, Any]:
    """A question about 1–8 papers (arXiv ids), answered from their texts; every claim marked ``[n]``,
    the ``n``-th of ``papers`` (an answer without them, or citing a paper not given, is a failure: ``error``).
    503 when no model is connected. Send the ``X-CSRF-Token`` header."""
    return _answer(request, web, body.ids, body.question, body.lang)


@router.post("/ask", include_in_schema=False)
def ask_page(
    request: Request,
    web: Web,
    id: Annotated[list[str], Form()],
    question: Annotated[str, Form(max_length=MAX_QUESTION)],
) -> Response:
    """The answer page of the Ask box (a paper page's, or a /library selection's)."""
    lang = web.language(request)
    data = _answer(request, web, id, question, lang)
    html = to_html(data["answer"]) if data["answer"] else None
    return web.page(request, "ask.html", data=data, answer_html=html)


@router.get("/help/model", include_in_schema=False)
def model_help(request: Request, web: Web) -> Response:
    """What a language model adds and how to connect one (the pages without a model link here)."""
    return web.page(request, "model_help.html")
