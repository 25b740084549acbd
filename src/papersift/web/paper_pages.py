"""A paper and what is related to it: ``/abs/{id}`` (the paper, its BibTeX and related papers) and
``/related?text=`` (papers related to pasted text), each a page and its ``/api`` JSON twin from one handler.
Rankings are kept per store version and index generation: a popular paper costs one ranking."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import FileResponse, HTMLResponse
from starlette.exceptions import HTTPException

from papersift.index.sentences import FACETS
from papersift.library.shapes import RelatedHitShape
from papersift.ranking.related import paper_query, related, text_query
from papersift.reading.shown import with_venues
from papersift.records.messages import reason, say
from papersift.records.paper import InvalidIdError, is_arxiv_id, normalize_id, paper_key
from papersift.services import thumbnails
from papersift.services.listing import paper_bibtex
from papersift.settings import Settings
from papersift.store import Filters
from papersift.web.contract import DateParam
from papersift.web.daily_pages import mark_opened
from papersift.web.deadends import missing_paper
from papersift.web.i18n import interface
from papersift.web.links import found
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
        pid = paper_key(raw_id)  # an arXiv id in any spelling, or a venue paper's
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
        shown = with_venues(state.store, [h.paper for h in hits])  # each hit's venues, one query
        return RelatedAnswer.make(
            query=query.label, notes=query.notes, results=[RelatedHitShape.of_hit(h, shown) for h in hits]
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
    asked = (web.state, paper_id, k, category, day)
    page = web.cached_page(
        request,
        "paper.html",
        ("abs", paper_id, str(k), category or "", since or "", facet or "", texts_version(web.state)),
        lambda: _with_tex_macros(
            web.state,
            _with_venue_code(web.state, _with_stored(web.state, paper_data(*asked, facet or None, lang))),
        ),
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


def _with_stored(state: AppState, data: dict[str, Any]) -> dict[str, Any]:
    """The page's data with ``stored``: the papers its abstract and comments name by arXiv id that the
    store holds (linked here, the others to arXiv)."""
    text = f"{data['abstract']}\n{data.get('comments') or ''}"
    named = sorted({f.target for f in found(text) if f.kind == "arxiv"})
    data["stored"] = [p.id for p in state.store.get_many(named)] if named else []
    return data


def _with_tex_macros(state: AppState, data: dict[str, Any]) -> dict[str, Any]:
    """The page's data with ``tex_macros``: the math macros of the paper's stored TeX (``\\R`` → its body),
    for KaTeX to typeset the authors' own commands; empty without a stored full text from TeX."""
    text = state.store.fulltext(data["id"]) if data.get("fulltext") else None
    data["tex_macros"] = dict(text.macros) if text is not None else {}
    return data


def _with_venue_code(state: AppState, data: dict[str, Any]) -> dict[str, Any]:
    """The page's data with ``venue_code``: each code link of the paper's venue records (its URL without a
    closing slash → the venue and year, "WACV 2025"), shown beside the paper's own."""
    marks = state.store.venues_of([data["id"]]).get(data["id"], [])
    data["venue_code"] = {url.rstrip("/"): f"{m.venue} {m.year}" for m in marks for url in m.code}
    return data


THUMB_CACHE = "public, max-age=604800"  # a week: a thumbnail changes only with a new version's PDF


def thumb_url(settings: Settings) -> Callable[..., str | None]:
    """The templates' ``thumb(id, listing=False)``: the URL of the paper's first-page thumbnail, where it is
    kept or may be fetched (``thumbnails_fetch``, never on a read-only server); in a listing only with
    ``thumbnails_in_listings``."""

    def thumb(paper_id: str, listing: bool = False) -> str | None:
        if (listing and not settings.thumbnails_in_listings) or not is_arxiv_id(paper_id):
            return None  # off in listings; a venue's paper has no arXiv PDF
        fetching = settings.thumbnails_fetch and not settings.read_only
        if thumbnails.shown(settings.home, paper_id) or (fetching and not listing):
            return f"/thumb/{paper_id}.webp"
        return None

    return thumb


@router.get("/thumb/{paper_id:path}.webp", include_in_schema=False)
def thumbnail(request: Request, web: Web, paper_id: str) -> Response:
    """The first page of a stored paper as a WebP thumbnail (fetched first where the settings allow; 304
    when the browser's copy is current); 404, with no page, where there is none."""
    try:
        pid = normalize_id(paper_id)
    except InvalidIdError:
        return Response(status_code=404)
    settings = web.state.settings
    kept: Path | None = thumbnails.path(settings.home, pid)
    if not thumbnails.shown(settings.home, pid):  # fetched for a stored paper where the settings allow
        fetching = not settings.read_only and web.state.store.get(pid) is not None
        kept = thumbnails.fetched(settings, pid) if fetching else None
    if kept is None:
        return Response(status_code=404, headers={"Cache-Control": "no-cache"})
    picture = FileResponse(
        kept, media_type="image/webp", headers={"Cache-Control": THUMB_CACHE}, stat_result=kept.stat()
    )
    if request.headers.get("if-none-match") == picture.headers["etag"]:
        return Response(
            status_code=304, headers={"ETag": picture.headers["etag"], "Cache-Control": THUMB_CACHE}
        )
    return picture


ENTRY_MARK = b"<!--papersift:reader-entry-->"


def _with_reader_entry(request: Request, web: Web, page: HTMLResponse, paper_id: str) -> HTMLResponse:
    """The (cached, impersonal) paper page with the reader's own tags and note of the paper, if any."""
    reader = web.state.account(request)
    entry = web.state.store.library_entry(reader.id, paper_key(paper_id)) if reader else None
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
