"""A paper and what is related to it: ``/abs/{id}`` (the paper, its BibTeX and related papers) and
``/related?text=`` (papers related to pasted text), each a page and its ``/api`` JSON twin from one handler.
Rankings are kept per store version and index generation: a popular paper costs one ranking."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from starlette.exceptions import HTTPException

from papersift.index.sentences import FACETS
from papersift.ranking.related import paper_query, related, text_query
from papersift.reader.shapes import RelatedHitShape
from papersift.records.messages import reason, say
from papersift.records.paper import InvalidIdError, normalize_id
from papersift.services.listing import paper_bibtex
from papersift.store import Filters
from papersift.web.contract import DateParam
from papersift.web.daily_pages import mark_opened
from papersift.web.deadends import missing_paper
from papersift.web.i18n import interface
from papersift.web.models import Faq, PaperPage, RelatedAnswer
from papersift.web.pages import TOP_K, Answer, Web, twin, wants_json
from papersift.web.reading_pages import faq_html, reading_lang, texts_for, texts_version
from papersift.web.state import AppState, parse_day

MAX_TEXT = 4_000  # characters of pasted text in a URL (percent-encoded it stays under uvicorn's 64 KiB line)

router = APIRouter()
Facet = Annotated[str, Query(pattern="^(|" + "|".join(FACETS) + ")$")]  # a paper facet; "": the whole paper


def paper_data(
    state: AppState,
    raw_id: str,
    k: int,
    category: str | None,
    since: date | None,
    facet: str | None = None,
    lang: str = "en",
) -> dict[str, Any]:
    """The paper and its related papers (kept per store version: popular papers cost one ranking);
    ``facet``: related in that part of the paper only (its background, method or result sentences)."""
    try:
        pid = normalize_id(raw_id)
    except InvalidIdError as e:
        raise HTTPException(404, reason(e)) from e

    def ranked() -> dict[str, Any]:
        indexes = state.indexes()
        paper = indexes.store.get(pid)
        if paper is None:
            raise missing_paper(pid, state.online())
        query = paper_query(indexes, paper, facet=facet)
        hits = related(indexes, query, k=k, filters=Filters(category=category, since=since))
        texts = texts_for(state, [paper, *(h.paper for h in hits)], lang)
        return PaperPage.of(
            paper,
            texts,
            faq=Faq.make(**faq_html(state, paper, lang)),
            bibtex=paper_bibtex(paper),
            facet=facet,
            notes=query.notes,
            related=[RelatedHitShape.of_hit(h, texts) for h in hits],
        ).dump()

    made = texts_version(state)
    key = ("paper", pid, str(k), category or "", since.isoformat() if since else "", facet or "", lang, made)
    return dict(state.cached(key, ranked, index=True))


def text_data(state: AppState, text: str, k: int, category: str | None = None) -> dict[str, Any]:
    """The papers related to ``text`` (what the text was read as, and any notes about it)."""
    if not text.strip():
        raise HTTPException(400, say("text_empty"))

    def ranked() -> dict[str, Any]:
        indexes = state.indexes()
        query = text_query(indexes, text, translate=state.translate())
        hits = related(indexes, query, k=k, filters=Filters(category=category))
        return RelatedAnswer.make(
            query=query.label, notes=query.notes, results=[RelatedHitShape.of_hit(h) for h in hits]
        ).dump()

    key = ("text", text, str(k), category or "")
    return dict(state.cached(key, ranked, index=True))


@twin(router, "/abs/{paper_id:path}", 404)
def paper(
    request: Request,
    web: Web,
    paper_id: str,
    k: int = TOP_K,
    category: str | None = None,
    since: DateParam | None = None,
    facet: Facet | None = None,
) -> Answer:
    """A paper with its BibTeX and its ``k`` most related papers (in ``category``, announced ``since``;
    alike in one ``facet`` of the paper: background, method or result)."""
    day = parse_day(since, 400) if since else None
    lang = reading_lang(web, request)
    if wants_json(request):
        return paper_data(web.state, paper_id, k, category, day, facet or None, lang)
    page = web.cached_page(
        request,
        "paper.html",
        ("abs", paper_id, str(k), category or "", since or "", facet or "", texts_version(web.state)),
        lambda: paper_data(web.state, paper_id, k, category, day, facet or None, lang),
        index=True,
        category=category or "",
        since=since or "",
        facet=facet or "",
        facets=FACETS,
        since_options=[(y, f"{y}-01-01") for y in (date.today().year - n for n in (1, 2, 5, 10))],
    )
    if page.status_code == 200:
        mark_opened(web.state, request, paper_id)  # opened: not in the reader's Daily Papers again
    return _with_reader_entry(request, web, page, paper_id)


ENTRY_MARK = b"<!--papersift:reader-entry-->"


def _with_reader_entry(request: Request, web: Web, page: HTMLResponse, paper_id: str) -> HTMLResponse:
    """The (cached, impersonal) paper page with the reader's own tags and note of the paper, if any."""
    reader = web.state.account(request)
    entry = web.state.store.library_entry(reader.id, normalize_id(paper_id)) if reader else None
    if entry is None or not (entry.tags or entry.note):
        return page
    lang = web.language(request)
    html = web.templates.get_template("_reader_entry.html").render(entry=entry, t=interface(lang))
    body = bytes(page.body).replace(ENTRY_MARK, html.encode())
    return HTMLResponse(body, status_code=page.status_code)


@twin(router, "/related", api={"text": (str, Query(..., max_length=MAX_TEXT, pattern=r"\S"))})
def related_to_text(
    request: Request,
    web: Web,
    text: str = Query("", max_length=MAX_TEXT),
    k: int = TOP_K,
    category: str | None = None,
) -> Answer:
    """The papers related to a pasted text (the page without ``text`` is the empty form)."""
    if wants_json(request):  # the API requires the text (``twin``'s ``api``)
        return text_data(web.state, text, k, category or None)
    data = text_data(web.state, text, k, category or None) if text.strip() else None
    return web.page(request, "related.html", data=data, text=text)
