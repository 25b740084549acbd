"""The reader's library: ``/library`` and its ``/api`` twin from one handler, saving and removing through
the JSON API, the pages' forms (save, rate, tag, note, read, interests), importing a bibliography and
exporting BibTeX or CSL JSON.

Every write is a POST or DELETE carrying the CSRF token (a form field, or the ``X-CSRF-Token`` header for the
API; ``web/security.py`` checks it before any route runs), and acts only on the reader of the request: the
personal reader of a single-user install, or the session's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.exceptions import HTTPException

from papersift.library.saved import exported, import_references, save_paper
from papersift.library.shapes import LibraryEntryShape
from papersift.library.zotero_sync import last_sync
from papersift.ranking.acceptances import follow_venues, followed_venues
from papersift.ranking.daily import MIN_SCORE
from papersift.records.messages import reason, say
from papersift.records.paper import InvalidIdError, normalize_id
from papersift.records.taxonomy import spelled
from papersift.records.venues import is_venue_name
from papersift.sources.bibliography import Exportable, read_bibliography, to_bibtex, to_csl_json, to_ris
from papersift.store import StoreError
from papersift.store.records import Account, Interests
from papersift.web.contract import MAX_TAG, SaveRequest, errors
from papersift.web.daily_pages import need_account
from papersift.web.login import back
from papersift.web.models import LibraryAnswer, Removed, TagCount
from papersift.web.pages import Answer, Web, twin, wants_json
from papersift.web.state import AppState

MAX_IMPORT = 20 * 1024 * 1024  # bytes of one uploaded bibliography

router = APIRouter()


def _words(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(w.strip() for w in text.replace("\n", ",").split(",") if w.strip()))


def _done(request: Request, next_url: str | None, payload: dict[str, Any]) -> Response:
    """A form's answer: the payload to a script asking for JSON, else back to the page."""
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse(payload)
    return RedirectResponse(back(next_url), status_code=303)


def library_data(state: AppState, reader: Account, tag: str | None) -> dict[str, Any]:
    store = state.store
    entries = store.library(reader.id, tag)
    venues = store.venues_of([e.paper_id for e in entries if e.paper_id])  # one query: each entry's venues
    tags = store.tags(reader.id)
    interests = store.interests(reader.id)
    kept = store.reader_setting(reader.id, MIN_SCORE)
    return LibraryAnswer.make(
        reader=reader.name,
        tag=tag,
        min_score=float(kept) if kept else None,
        tags=[TagCount.make(tag=t, count=n) for t, n in tags],
        interests={k: list(getattr(interests, k)) for k in Interests.__slots__}
        | {"venues": list(followed_venues(store, reader.id))},
        entries=[LibraryEntryShape.of(e, venues.get(e.paper_id or "", [])) for e in entries],
        zotero=last_sync(store, reader),  # the last `library sync zotero` (SyncReport.as_json), or None
    ).dump()


@twin(router, "/library", 401, 404, page=())
def library(
    request: Request, web: Web, tag: str | None = Query(None, min_length=1, max_length=MAX_TAG)
) -> Answer:
    """The reader's library (``tag``: only the entries with it), their tags and interests."""
    if wants_json(request):
        return library_data(web.state, need_account(web.state, request), tag)
    reader = web.state.account(request)
    if reader is None:
        return RedirectResponse("/login?next=/library", status_code=303)
    return web.page(request, "library.html", data=library_data(web.state, reader, tag), message=None)


@router.post("/api/library", responses=errors(401, 403, 404, 413))
def api_save(request: Request, web: Web, body: SaveRequest) -> dict[str, Any]:
    """Save a paper (``id``, an arXiv id) with an optional ``rating`` (-1, 0, 1), ``tags`` and ``note``.

    Send the ``X-CSRF-Token`` header (every page's forms carry the token) with the cookies it came with.
    """
    reader = need_account(web.state, request)
    try:
        pid = normalize_id(body.id)
    except InvalidIdError:
        raise HTTPException(404, say("not_an_arxiv_id")) from None
    try:
        with web.state.writing() as store:
            tags = [t.strip() for t in body.tags if t.strip()]
            entry = save_paper(store, reader, pid, tags=tags, note=body.note)
            if body.rating:
                store.update_entry(reader.id, entry.key, rating=body.rating)
            saved = store.library_entry(reader.id, entry.key)
    except StoreError:
        raise HTTPException(404, say("no_paper_in_store", id=pid)) from None
    assert saved is not None
    return LibraryEntryShape.of(saved).dump()


@router.delete("/api/library/{key:path}", responses=errors(401, 403, 404))
def api_remove(request: Request, web: Web, key: str) -> dict[str, Any]:
    reader = need_account(web.state, request)
    with web.state.writing() as store:
        removed = store.remove_entry(reader.id, key)
    if not removed:
        raise HTTPException(404, say("key_not_in_library"))
    return Removed.make(removed=key).dump()


@router.post("/library/rate", include_in_schema=False)
def rate(
    request: Request,
    web: Web,
    id: str = Form(..., max_length=200),
    rating: int = Form(0, ge=-1, le=1),
    next: str | None = Form(None),
) -> Response:
    """Save a paper from any page; +1 / -1 also rate it (the same button again clears the rating)."""
    reader = need_account(web.state, request)
    try:
        with web.state.writing() as store:
            entry = save_paper(store, reader, id)
            new = 0 if rating and entry.rating == rating else rating
            if rating:
                store.update_entry(reader.id, entry.key, rating=new)
    except StoreError as e:
        raise HTTPException(404, reason(e)) from e
    return _done(request, next, {"key": entry.key, "saved": True, "rating": new if rating else entry.rating})


@router.post("/library/edit", include_in_schema=False)
def edit(
    request: Request,
    web: Web,
    key: str = Form(..., max_length=200),
    action: str = Form(...),
    tag: str = Form("", max_length=200),
    note: str = Form("", max_length=20_000),
    next: str | None = Form(None),
) -> Response:
    reader = need_account(web.state, request)
    with web.state.writing() as store:
        if action == "remove":
            found = store.remove_entry(reader.id, key)
        elif action == "tag":
            found = store.update_entry(reader.id, key, add_tags=_words(tag))
        elif action == "untag":
            found = store.update_entry(reader.id, key, remove_tags=_words(tag))
        elif action == "note":
            found = store.update_entry(reader.id, key, note=note)
        elif action in ("read", "unread"):
            found = store.update_entry(reader.id, key, read=action == "read")
        else:
            raise HTTPException(400, say("unknown_action", action=repr(action)))
    if not found:
        raise HTTPException(404, say("not_in_library", entry=key))
    return _done(request, next, {"key": key, "action": action})


@router.post("/library/interests", include_in_schema=False)
def interests(
    request: Request,
    web: Web,
    categories: str = Form("", max_length=2000),
    authors: str = Form("", max_length=2000),
    must: str = Form("", max_length=2000),
    never: str = Form("", max_length=2000),
    min_score: str = Form("", max_length=50),
    venues: str = Form("", max_length=2000),
) -> Response:
    reader = need_account(web.state, request)
    if bad := [v for v in _words(venues) if not is_venue_name(v)]:
        raise HTTPException(400, say("venue_bad_name", name=repr(bad[0])))
    followed = tuple(dict.fromkeys(spelled(c) for c in _words(categories)))  # any case, as arXiv spells it
    new = Interests(followed, _words(authors), _words(must), _words(never))
    try:
        threshold = repr(float(min_score)) if min_score.strip() else None
    except ValueError:
        threshold = "nan"
    if threshold is not None and not math.isfinite(float(threshold)):
        raise HTTPException(400, say("not_a_number", value=repr(min_score)))
    with web.state.writing() as store:
        store.set_interests(reader.id, new)
        store.set_reader_setting(reader.id, MIN_SCORE, threshold)
        follow_venues(store, reader.id, _words(venues))
    return _done(request, "/library", {k: list(getattr(new, k)) for k in Interests.__slots__})


@router.post("/library/import", include_in_schema=False)
def import_file(
    request: Request, web: Web, file: Annotated[UploadFile, File()], tag: str = Form("", max_length=2000)
) -> Response:
    """A plain ``def``: reading and parsing the upload runs in the thread pool, off the event loop."""
    reader = need_account(web.state, request)
    raw = file.file.read(MAX_IMPORT + 1)
    if len(raw) > MAX_IMPORT:
        raise HTTPException(400, say("file_too_big", mb=MAX_IMPORT // 1024 // 1024))
    result = read_bibliography(raw.decode("utf-8-sig", errors="replace"))
    with web.state.writing() as store:
        report = import_references(store, reader, result.references, tags=_words(tag), source="import")
    problems = [e.said() for e in [*result.errors, *report.errors]]
    summary = {
        "format": result.format,
        "read": report.read,
        "linked": report.linked,
        "kept": report.kept,
        "new": report.new,
        "skipped": problems,
    }
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse(summary)
    return web.page(request, "library.html", data=library_data(web.state, reader, None), message=summary)


def _export(
    request: Request,
    web: Web,
    tag: str | None,
    write: Callable[[list[Exportable]], str],
    media_type: str,
    filename: str | None = None,
) -> Response:
    """The library (or its papers tagged ``tag``) as ``write`` writes it; ``filename``: as a download."""
    reader = need_account(web.state, request)
    store = web.state.store
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'} if filename else None
    try:
        items = exported(store, reader, tag)
    except StoreError as e:  # a tag no entry has
        raise HTTPException(404, reason(e)) from e
    return Response(write(items), media_type=media_type, headers=headers)


@router.get("/library/export.bib", include_in_schema=False)
def export_bib(request: Request, web: Web, tag: str | None = None) -> Response:
    return _export(request, web, tag, to_bibtex, "application/x-bibtex; charset=utf-8", "papersift.bib")


@router.get("/library/export.json", include_in_schema=False)
def export_csl(request: Request, web: Web, tag: str | None = None) -> Response:
    return _export(request, web, tag, to_csl_json, "application/vnd.citationstyles.csl+json")


@router.get("/library/export.ris", include_in_schema=False)
def export_ris(request: Request, web: Web, tag: str | None = None) -> Response:
    return _export(
        request, web, tag, to_ris, "application/x-research-info-systems; charset=utf-8", "papersift.ris"
    )
