"""The web face's guard, one ASGI middleware in front of every route: how big a request may be, and which
unsafe requests are the reader's own (CSRF); and which hosts may be named (``allowed_hosts``, for
Starlette's ``TrustedHostMiddleware`` outside the guard).

- **Hosts.** The ``Host`` header must be a loopback name (``127.0.0.1``, ``localhost``, ``[::1]``, any port),
  the host of ``Settings.base_url``, or one of ``Settings.allowed_hosts``: a page that rebinds its own
  domain to 127.0.0.1 gets 400 ("Invalid host header"), not the library.
- **Size.** A body over the route's limit is answered 413 from its ``Content-Length``, or as soon as the
  streamed bytes pass it, before anything (form, multipart, JSON) is parsed.
- **CSRF.** Every POST/PUT/PATCH/DELETE must carry the token (the ``X-CSRF-Token`` header, or the ``csrf``
  form field) and, when the browser says where it comes from (``Sec-Fetch-Site``, ``Origin``), come from this
  site. The token is an HMAC under a server secret (``secret.key`` in the home, 0600) of the session
  cookie, or of the ``papersift_csrf`` cookie before a login: setting a cookie for the host does not mint
  one. The middleware puts the request's token in ``request.state.csrf_token`` for the pages' forms.
- **Read-only.** With ``Settings.read_only`` (``serve --public-read-only``) every unsafe request is 403 and
  the library's pages do not exist.

``HttpMiddleware`` is the plain ASGI base of the guard, ``SecurityHeaders`` and ``assets.CacheHeaders``.
``SecurityHeaders``, outside the guard, puts the Content-Security-Policy (no inline script, nothing from
other origins) and its friends on every response, the guard's refusals and a stable 500 included.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import os
import re
import secrets
from collections.abc import Mapping
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import orjson
from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from papersift.records.catalogs import LANGUAGES, said
from papersift.records.messages import say
from papersift.settings import Settings
from papersift.web.contract import allowed_methods, is_feed
from papersift.web.i18n import pick_language

SESSION_COOKIE = "papersift_session"
CSRF_COOKIE = "papersift_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
SECRET_FILE = "secret.key"
MAX_BODY = 1024 * 1024  # bytes of any request body but an upload (a 20,000-character note fits easily)
LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]"})
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SAME_SITE = frozenset({"same-origin", "none"})  # Sec-Fetch-Site values of the reader's own requests
READING_POSTS = ("/ask", "/summarize")  # posts a public read-only server takes with PAPERSIFT_READING_PUBLIC
PRIVATE_PREFIXES = ("/library", "/api/library", "/api/recommend", "/feed/", "/login", "/logout")
STALE = say("stale_form")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,64}")
# KaTeX sizes its output with style attributes: those (never <style> or script) are allowed inline
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def server_secret(home: Path) -> bytes:
    """The install's secret (made on first use: 32 random bytes, created atomically, readable by its owner
    only; every worker and process of the install reads the same file)."""
    path = home / SECRET_FILE
    try:
        return bytes.fromhex(path.read_text().strip())
    except FileNotFoundError:
        pass
    home.mkdir(parents=True, exist_ok=True)
    temp = home / f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, secrets.token_hex(32).encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(temp, path)  # never replaces a secret another process made first
    except FileExistsError:
        pass
    finally:
        temp.unlink()
    return bytes.fromhex(path.read_text().strip())


def csrf_token(secret: bytes, binding: str) -> str:
    """The form token of a browser: keyed by the server secret, bound to its session (or CSRF) cookie."""
    return hmac.new(secret, b"csrf\0" + binding.encode(), hashlib.sha256).hexdigest()


def allowed_hosts(settings: Settings) -> frozenset[str]:
    """Loopback names, the base URL's host and the configured extra names."""
    base = urlsplit(settings.base_url).hostname
    extra = {h.strip().lower() for h in settings.allowed_hosts if h.strip()}
    if base:
        extra.add(f"[{base}]" if ":" in base else base)
    return LOOPBACK | frozenset(f"[{h}]" if ":" in h and not h.startswith("[") else h for h in extra)


def cross_site(headers: Headers, own: frozenset[str]) -> bool:
    """Does the browser say this request comes from another site? ``Sec-Fetch-Site`` decides when sent;
    else an ``Origin`` other than this site's (``null`` tells nothing: Chromium sends it for a same-origin
    form under ``Referrer-Policy: no-referrer``, and the token is still required)."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site.lower() not in SAME_SITE
    origin = headers.get("origin")
    if origin is None or origin == "null":
        return False
    return urlsplit(origin.lower()).netloc not in own


def _cookies(headers: Headers) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no cookie at all
        return {}
    return {k: m.value for k, m in jar.items()}


async def _form_token(scope: Scope, body: bytes) -> str | None:
    """The ``csrf`` field of a urlencoded or multipart body (already read and size-checked)."""
    kind = Headers(scope=scope).get("content-type", "").split(";")[0].strip().lower()
    if kind == "application/x-www-form-urlencoded":
        fields = parse_qsl(body.decode("latin-1"), keep_blank_values=True)
        return next((v for k, v in fields if k == CSRF_FIELD), None)
    if kind != "multipart/form-data":
        return None
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    try:
        form = await Request(scope, replay).form()
    except Exception:  # a malformed body: no token (the route never sees it)
        return None
    try:
        value = form.get(CSRF_FIELD)
        return value if isinstance(value, str) else None
    finally:
        await form.close()


class HttpMiddleware:
    """A plain ASGI middleware (cheap per request) over HTTP requests: anything else (the lifespan) goes
    straight to ``app``; ``http`` handles the requests."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


class TooLarge(Exception):
    """The body went past its limit while streaming."""


async def _read_body(receive: Receive, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise TooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


class Guard(HttpMiddleware):
    """Body size, CSRF and read-only mode (see the module docstring), before any route runs."""

    def __init__(
        self, app: ASGIApp, settings: Settings, secret: bytes, limits: Mapping[str, int] | None = None
    ) -> None:
        super().__init__(app)
        self.settings = settings
        self.secret = secret
        base = urlsplit(settings.base_url)
        self.base_netloc = (base.netloc or "").lower()
        self.limits = dict(limits or {})

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = Headers(scope=scope)
        path: str = scope["path"]
        method: str = scope["method"]
        reading = self.settings.reading_public and path.endswith(
            READING_POSTS
        )  # Ask, a TL;DR (web/reading_pages.py)
        if (
            self.settings.read_only
            and not reading
            and (method in UNSAFE or path.startswith(PRIVATE_PREFIXES))
        ):
            code = 403 if method in UNSAFE else 404
            await refuse(scope, send, code, say("read_only") if code == 403 else say("not_found"))
            return
        limit = self.limits.get(path, MAX_BODY)
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await refuse(scope, send, 413, say("request_too_big", limit=limit))
            return
        try:
            body = await _read_body(receive, limit)
        except TooLarge:
            await refuse(scope, send, 413, say("request_too_big", limit=limit))
            return

        cookies = _cookies(headers)
        seed = cookies.get(CSRF_COOKIE, "")
        new_seed = None
        if not _TOKEN.fullmatch(seed):
            seed = new_seed = secrets.token_urlsafe(32)
        token = csrf_token(self.secret, cookies.get(SESSION_COOKIE) or seed)
        scope.setdefault("state", {})["csrf_token"] = token

        if method in UNSAFE and not _method_not_allowed(scope, path, method):
            own = frozenset({(headers.get("host") or "").lower(), self.base_netloc})
            if cross_site(headers, own):
                await refuse(scope, send, 403, say("cross_site"))
                return
            sent = headers.get(CSRF_HEADER) or await _form_token(scope, body)
            if sent is None or not hmac.compare_digest(sent.encode(), token.encode()):
                await refuse(scope, send, 403, STALE)
                return

        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and new_seed is not None:
                cookie = (
                    f"{CSRF_COOKIE}={new_seed}; Max-Age={365 * 86400}; Path=/; HttpOnly; SameSite=strict"
                    + ("; Secure" if self.settings.secure_cookies else "")
                )
                MutableHeaders(scope=message).append("set-cookie", cookie)
            await send(message)

        await self.app(scope, replay, send_with_cookie)


def _method_not_allowed(scope: Scope, path: str, method: str) -> bool:
    """A route of ``path`` exists but takes no ``method``: the app answers 405 with ``Allow`` and runs no
    handler, so the CSRF check (a 403 "stale form" for a form that never was) does not come first."""
    app = scope.get("app")
    if app is None:
        return False
    allowed = allowed_methods(app, path)
    return bool(allowed) and method not in allowed.split(", ")


async def refuse(scope: Scope, send: Send, status: int, message: str) -> None:
    """A short error answer: ``{"error": ...}`` for the JSON API, a tiny HTML page for the rest (in the
    request's language)."""
    if scope["path"].startswith("/api/"):
        body, kind = orjson.dumps({"error": message}), b"application/json"
    elif is_feed(scope["path"]):
        body, kind = (message + "\n").encode(), b"text/plain; charset=utf-8"
    else:
        request = Request(scope)
        lang = pick_language(
            request.query_params.get("lang"),
            request.cookies.get("lang"),
            request.headers.get("accept-language"),
        )
        page = f"<!doctype html><title>{status}</title><p>{html.escape(said(message, lang))}</p>\n"
        body, kind = page.encode(), b"text/html; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class SecurityHeaders(HttpMiddleware):
    """CSP and friends on every response, and the language cookie."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                lang = request.query_params.get("lang")
                if lang in LANGUAGES:
                    cookies = Response()
                    cookies.set_cookie("lang", lang, max_age=365 * 86400, samesite="lax")
                    for name, value in cookies.raw_headers:
                        if name == b"set-cookie":
                            headers.append("set-cookie", value.decode("latin-1"))
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            if not started:  # a stable 500 with the headers above; the error still reaches the log
                await refuse(scope, send_with_headers, 500, "internal error")
            raise
