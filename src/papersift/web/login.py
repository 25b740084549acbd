"""Logging in and out: ``/login`` (the form and its POST) and ``/logout``.

A login hashes outside any lock, in a worker thread (the route is synchronous), and is throttled per name
and per address (``services/accounts.py``); the CSRF token of the form is checked by ``web/security.py``.
"""

from __future__ import annotations

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from papersift.records.messages import reason
from papersift.services.accounts import (
    LoginError,
    LoginThrottled,
    finish_login,
    login_wait,
    open_session,
    password_matches,
    token_hash,
)
from papersift.web.pages import Web
from papersift.web.security import SESSION_COOKIE

router = APIRouter()


def back(next_url: str | None) -> str:
    """Where a form returns to: a local path only (never another site)."""
    if next_url and next_url.startswith("/") and not next_url.startswith("//"):
        return next_url
    return "/library"


@router.get("/login", response_class=HTMLResponse, include_in_schema=False)
def login_page(request: Request, web: Web, next: str = "/daily") -> HTMLResponse:
    return web.page(request, "login.html", next=back(next), error=None)


@router.post("/login", include_in_schema=False)
def login_post(
    request: Request,
    web: Web,
    name: str = Form(..., max_length=64),
    password: str = Form(..., max_length=1024),
    next: str = Form("/daily"),
) -> Response:
    state, settings = web.state, web.state.settings
    address = request.client.host if request.client else "unknown"
    try:
        wait = login_wait(state.store, settings, name, address)
        if wait > 0:
            raise LoginThrottled(wait)
        reader = state.store.account(name)
        ok = password_matches(reader, password)  # argon2: no lock held, in a worker thread
        with state.writing() as store:
            reader = finish_login(store, name, address, reader, ok)
            token = open_session(store, settings, reader)
    except LoginThrottled as e:
        page = web.page(request, "login.html", 429, next=back(next), error=reason(e))
        page.headers["Retry-After"] = str(e.wait)
        return page
    except LoginError as e:
        return web.page(request, "login.html", 401, next=back(next), error=reason(e))
    response = RedirectResponse(back(next), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 86400,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
    return response


@router.post("/logout", include_in_schema=False)
def logout(request: Request, web: Web) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        with web.state.writing() as store:
            store.drop_session(token_hash(token))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE)
    return response
