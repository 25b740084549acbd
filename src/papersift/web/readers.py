"""The reader's pages and API: log in and out, the library (save, rate, tag, note, import, export, interests),
the personal Daily Papers, the private Atom feed, and ``/api/library`` / ``/api/recommend``.

Every write is a POST or DELETE carrying the CSRF token (a form field, or the ``X-CSRF-Token`` header for the
API; ``web/security.py`` checks it before any route runs), and acts only on the reader of the request: the
personal reader of a single-user install, or the session's. A login hashes outside any lock, in a worker
thread (the route is synchronous), and is throttled per name and per address (``accounts.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

from fastapi import FastAPI, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from starlette.exceptions import HTTPException

from papersift.accounts import (
    LoginError,
    LoginThrottled,
    finish_login,
    login_wait,
    open_session,
    password_matches,
    token_hash,
)
from papersift.digest import atom as digest_atom
from papersift.library import (
    DailyPick,
    daily_view,
    entry_json,
    export_items,
    import_references,
    save_paper,
)
from papersift.listing import paper_json
from papersift.paper import InvalidIdError, normalize_id
from papersift.sources.bibliography import read_bibliography, to_bibtex, to_csl_json
from papersift.store import StoreError
from papersift.store.readers import Interests, Reader
from papersift.web.contract import MAX_TAG, DateParam, DayPath, SaveRequest, errors
from papersift.web.security import SESSION_COOKIE
from papersift.web.state import AppState, day_and_neighbours, parse_day

MAX_IMPORT = 20 * 1024 * 1024  # bytes of one uploaded bibliography
Render = Callable[..., HTMLResponse]


def _words(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(w.strip() for w in text.replace("\n", ",").split(",") if w.strip()))


def _back(request: Request, next_url: str | None) -> str:
    """Where a form returns to: a local path only (never another site)."""
    if next_url and next_url.startswith("/") and not next_url.startswith("//"):
        return next_url
    return "/library"


def add_reader_routes(app: FastAPI, state: AppState, render: Render) -> None:
    """Register the reader's pages and API on ``app``."""
    settings = state.settings

    def need_reader(request: Request) -> Reader:
        reader = state.reader(request)
        if reader is None:
            raise HTTPException(401, "log in first")
        return reader

    def done(request: Request, next_url: str | None, payload: dict[str, Any]) -> Response:
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse(payload)
        return RedirectResponse(_back(request, next_url), status_code=303)

    # -- sessions -------------------------------------------------------------------------------
    @app.get("/login", response_class=HTMLResponse, include_in_schema=False)
    def login_page(request: Request, next: str = "/daily") -> HTMLResponse:
        return render(request, "login.html", next=_back(request, next), error=None)

    @app.post("/login", include_in_schema=False)
    def login_post(
        request: Request,
        name: str = Form(..., max_length=64),
        password: str = Form(..., max_length=1024),
        next: str = Form("/daily"),
    ) -> Response:
        address = request.client.host if request.client else "unknown"
        try:
            wait = login_wait(state.store, settings, name, address)
            if wait > 0:
                raise LoginThrottled(wait)
            reader = state.store.reader(name)
            ok = password_matches(reader, password)  # argon2: no lock held, in a worker thread
            with state.writing() as store:
                reader = finish_login(store, name, address, reader, ok)
                token = open_session(store, settings, reader)
        except LoginThrottled as e:
            page = render(request, "login.html", 429, next=_back(request, next), error=str(e))
            page.headers["Retry-After"] = str(e.wait)
            return page
        except LoginError as e:
            return render(request, "login.html", 401, next=_back(request, next), error=str(e))
        response = RedirectResponse(_back(request, next), status_code=303)
        response.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=settings.session_days * 86400,
            httponly=True,
            samesite="lax",
            secure=settings.secure_cookies,
        )
        return response

    @app.post("/logout", include_in_schema=False)
    def logout(request: Request) -> Response:
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            with state.writing() as store:
                store.drop_session(token_hash(token))
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE)
        return response

    # -- library --------------------------------------------------------------------------------
    def library_data(reader: Reader, tag: str | None) -> dict[str, Any]:
        store = state.store
        entries = store.library(reader.id, tag)
        tags = store.tags(reader.id)
        interests = store.interests(reader.id)
        return {
            "reader": reader.name,
            "tag": tag,
            "tags": [{"tag": t, "count": n} for t, n in tags],
            "interests": {k: list(getattr(interests, k)) for k in Interests.__slots__},
            "entries": [entry_json(e) for e in entries],
        }

    @app.get("/api/library", responses=errors(401, 404))
    def api_library(
        request: Request, tag: str | None = Query(None, min_length=1, max_length=MAX_TAG)
    ) -> dict[str, Any]:
        return library_data(need_reader(request), tag)

    @app.get("/library", response_class=HTMLResponse, responses=errors(html=True))
    def library_page(
        request: Request, tag: str | None = Query(None, min_length=1, max_length=MAX_TAG)
    ) -> Response:
        reader = state.reader(request)
        if reader is None:
            return RedirectResponse("/login?next=/library", status_code=303)
        return render(request, "library.html", data=library_data(reader, tag), message=None)

    @app.post("/api/library", responses=errors(401, 403, 404, 413))
    def api_save(request: Request, body: SaveRequest) -> dict[str, Any]:
        """Save a paper (``id``, an arXiv id) with an optional ``rating`` (-1, 0, 1), ``tags`` and ``note``.

        Send the ``X-CSRF-Token`` header (every page's forms carry the token) with the cookies it came with.
        """
        reader = need_reader(request)
        try:
            pid = normalize_id(body.id)
        except InvalidIdError:
            raise HTTPException(404, "not an arXiv id") from None
        try:
            with state.writing() as store:
                tags = [t.strip() for t in body.tags if t.strip()]
                entry = save_paper(store, reader, pid, tags=tags, note=body.note)
                if body.rating:
                    store.update_entry(reader.id, entry.key, rating=body.rating)
                saved = store.library_entry(reader.id, entry.key)
        except StoreError:
            raise HTTPException(404, f"no paper {pid} in the store") from None
        assert saved is not None
        return entry_json(saved)

    @app.delete("/api/library/{key:path}", responses=errors(401, 403, 404))
    def api_remove(request: Request, key: str) -> dict[str, Any]:
        reader = need_reader(request)
        with state.writing() as store:
            removed = store.remove_entry(reader.id, key)
        if not removed:
            raise HTTPException(404, "that key is not in your library")
        return {"removed": key}

    @app.post("/library/rate", include_in_schema=False)
    def rate(
        request: Request,
        id: str = Form(..., max_length=200),
        rating: int = Form(0, ge=-1, le=1),
        next: str | None = Form(None),
    ) -> Response:
        """Save a paper from any page; +1 / -1 also rate it (the same button again clears the rating)."""
        reader = need_reader(request)
        try:
            with state.writing() as store:
                entry = save_paper(store, reader, id)
                new = 0 if rating and entry.rating == rating else rating
                if rating:
                    store.update_entry(reader.id, entry.key, rating=new)
        except StoreError as e:
            raise HTTPException(404, str(e)) from e
        return done(
            request, next, {"key": entry.key, "saved": True, "rating": new if rating else entry.rating}
        )

    @app.post("/library/edit", include_in_schema=False)
    def edit(
        request: Request,
        key: str = Form(..., max_length=200),
        action: str = Form(...),
        tag: str = Form("", max_length=200),
        note: str = Form("", max_length=20_000),
        next: str | None = Form(None),
    ) -> Response:
        reader = need_reader(request)
        with state.writing() as store:
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
                raise HTTPException(400, f"unknown action {action!r}")
        if not found:
            raise HTTPException(404, f"{key} is not in your library")
        return done(request, next, {"key": key, "action": action})

    @app.post("/library/interests", include_in_schema=False)
    def interests(
        request: Request,
        categories: str = Form("", max_length=2000),
        authors: str = Form("", max_length=2000),
        must: str = Form("", max_length=2000),
        never: str = Form("", max_length=2000),
    ) -> Response:
        reader = need_reader(request)
        new = Interests(_words(categories), _words(authors), _words(must), _words(never))
        with state.writing() as store:
            store.set_interests(reader.id, new)
        return done(request, "/library", {k: list(getattr(new, k)) for k in Interests.__slots__})

    @app.post("/library/import", include_in_schema=False)
    def import_file(
        request: Request, file: Annotated[UploadFile, File()], tag: str = Form("", max_length=2000)
    ) -> Response:
        """A plain ``def``: reading and parsing the upload runs in the thread pool, off the event loop."""
        reader = need_reader(request)
        raw = file.file.read(MAX_IMPORT + 1)
        if len(raw) > MAX_IMPORT:
            raise HTTPException(400, f"the file is over {MAX_IMPORT // 1024 // 1024} MB")
        result = read_bibliography(raw.decode("utf-8-sig", errors="replace"))
        with state.writing() as store:
            report = import_references(store, reader, result.references, tags=_words(tag), source="import")
        errors = [str(e) for e in [*result.errors, *report.errors]]
        summary = {
            "format": result.format,
            "read": report.read,
            "linked": report.linked,
            "kept": report.kept,
            "new": report.new,
            "skipped": errors,
        }
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse(summary)
        return render(request, "library.html", data=library_data(reader, None), message=summary)

    @app.get("/library/export.bib", include_in_schema=False)
    def export_bib(request: Request, tag: str | None = None) -> Response:
        reader = need_reader(request)
        store = state.store
        items = export_items(store, store.library(reader.id, tag))
        return Response(
            to_bibtex(items),
            media_type="application/x-bibtex; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="papersift.bib"'},
        )

    @app.get("/library/export.json", include_in_schema=False)
    def export_csl(request: Request, tag: str | None = None) -> Response:
        reader = need_reader(request)
        store = state.store
        items = export_items(store, store.library(reader.id, tag))
        return Response(to_csl_json(items), media_type="application/vnd.citationstyles.csl+json")

    # -- Daily Papers ---------------------------------------------------------------------------
    def picks_for(
        reader: Reader | None, day: str | None, k: int | None
    ) -> tuple[dict[str, Any], list[DailyPick]]:
        wanted = None if day is None else parse_day(day)
        indexes = state.indexes()
        view = daily_view(indexes.store, indexes, reader, settings.default_categories, wanted, k=k)
        if view is None:
            raise HTTPException(404, "no listings for the followed categories yet")
        if view.day not in view.days:
            raise HTTPException(404, f"no listing of {', '.join(view.categories)} on {view.day}")
        picks = view.picks
        meta = {
            **day_and_neighbours(view.days, view.day),
            "categories": list(view.categories),
            "ranking": "library" if picks and picks[0].score is not None else "arXiv order",
        }
        return meta, picks

    def daily_data(request: Request, day: str | None, k: int | None = None) -> dict[str, Any]:
        reader = state.reader(request)

        def compute() -> dict[str, Any]:
            meta, picks = picks_for(reader, day, k)
            entries = [
                paper_json(
                    p.paper,
                    number=n,
                    score=None if p.score is None else round(p.score, 4),
                    why=list(p.reasons),
                )
                for n, p in enumerate(picks, 1)
            ]
            return {**meta, "reader": reader.name if reader else None, "entries": entries}

        result: dict[str, Any] = state.cached(
            ("daily", day or "", str(reader.id if reader else ""), str(k)),
            compute,
            index=True,
            personal=reader is not None,  # a reader's picks follow their library
        )
        return result

    @app.get("/api/daily", responses=errors(404))
    def api_daily_latest(request: Request) -> dict[str, Any]:
        return daily_data(request, None)

    @app.get("/api/daily/{day}", responses=errors(404))
    def api_daily(request: Request, day: DayPath) -> dict[str, Any]:
        return daily_data(request, day)

    @app.get("/api/recommend", responses=errors(401, 404))
    def api_recommend(
        request: Request,
        day: Annotated[DateParam | None, Query(alias="date")] = None,
        k: int = Query(20, ge=1, le=1000),
    ) -> dict[str, Any]:
        """The reader's Daily Papers, ranked by their library, with why each is where it is."""
        need_reader(request)
        return daily_data(request, day, k)

    @app.get("/daily", response_class=HTMLResponse, responses=errors(404, html=True))
    def daily_latest(request: Request) -> HTMLResponse:
        return render(request, "daily.html", data=daily_data(request, None))

    @app.get("/daily/{day}", response_class=HTMLResponse, responses=errors(404, html=True))
    def daily_page(request: Request, day: DayPath) -> HTMLResponse:
        return render(request, "daily.html", data=daily_data(request, day))

    @app.get("/feed/{token}.atom", response_class=Response, include_in_schema=False)
    def private_feed(token: str) -> Response:
        reader = state.store.reader_by_token(token)
        if reader is None:
            raise HTTPException(404, "no such feed")
        meta, picks = picks_for(reader, None, settings.digest_k)
        body = digest_atom(reader, date.fromisoformat(meta["date"]), picks, settings)
        return Response(body, media_type="application/atom+xml")
