"""What every view module serves pages with: the templates, rendering (cached or not, personalised per
response), the error answers, and ``twin``, which registers one handler for a page and its ``/api`` JSON twin.

A view module is an ``APIRouter`` of plain functions. Shared state reaches them through the ``Web``
dependency (the app's ``Site``, kept in ``request.app.state``), never through closures. A page and its JSON
are one function: ``twin(router, "/x")`` serves it at ``/x`` (HTML) and ``/api/x`` (JSON, listed in the
OpenAPI schema); the function asks ``wants_json(request)`` and returns the data dict for the API, a
response for the page. Errors are ``{"error": ...}`` under ``/api/`` and the error page elsewhere.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Annotated, Any, TypeVar, get_type_hints
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException

from papersift.ranking.related import MAX_K
from papersift.records.messages import Message, invalid, say
from papersift.services.demo import loading
from papersift.sources.citetext import author_line
from papersift.sources.latex import plain_text, tex_text
from papersift.store import StoreBusy
from papersift.web.assets import static_url
from papersift.web.contract import DATE_PATTERN, allowed_methods, errors, is_feed
from papersift.web.display_text import highlight, linked
from papersift.web.i18n import install, interface, pick_language
from papersift.web.links import html_url, reference
from papersift.web.state import ACCOUNT_MARK, CSRF_MARK, PROVISIONAL_MARK, AppState, personalise

Handler = TypeVar("Handler", bound=Callable[..., Any])
Answer = Response | dict[str, Any]  # what a twin handler returns: a page, or the data of its JSON twin
TOP_K = Query(10, ge=1, le=MAX_K // 10)  # how many related papers or results a page or API call shows


def make_templates(directory: Any, katex: bool) -> Jinja2Templates:
    """The pages' templates with their filters and globals (``katex``: whether KaTeX is served)."""
    templates = Jinja2Templates(directory=directory)
    env = templates.env
    env.globals |= {"author_line": author_line, "katex": katex, "static": static_url}
    env.globals["lang_href"] = lang_href
    env.filters |= {"highlight": highlight, "tex": tex_text, "plain": plain_text}
    env.filters |= {"linked": linked, "reference": reference}  # text that names a place: its link
    env.globals["html_url"] = html_url
    install(env)  # the catalogs: _(), the interface's words, the ``tr`` filter of messages, category names
    return templates


@dataclass
class Site:
    """What the handlers share: the state (stores, indexes, cache, readers), the templates, and whether
    start-up is done (``/healthz``)."""

    state: AppState
    templates: Jinja2Templates
    health: dict[str, str] = field(default_factory=lambda: {"status": "loading"})

    def language(self, request: Request) -> str:
        return pick_language(
            request.query_params.get("lang"),
            request.cookies.get("lang"),
            request.headers.get("accept-language"),
        )

    def render(self, request: Request, name: str, **context: Any) -> bytes:
        """A template with the personal markers left in (see ``web/state.py``): safe to cache."""
        lang = self.language(request)
        context = {"t": interface(lang), "lang": lang, "csrf": CSRF_MARK, "account": ACCOUNT_MARK, **context}
        context.setdefault("demo_loading", loading(self.state.settings.home))  # the offline demo's banner
        return bytes(self.templates.TemplateResponse(request, name, context).body)

    def page(self, request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
        body = self.render(request, name, here=str(request.url.path), **context)
        return HTMLResponse(personalise(body, request, self.state, self.language(request)), status_code=code)

    def cached_page(
        self,
        request: Request,
        name: str,
        key: tuple[str, ...],
        data: Callable[[], dict[str, Any]],
        index: bool = False,
        personal: bool = False,
        **context: Any,
    ) -> HTMLResponse:
        """A page rendered once per papers version (and index generation when ``index``, any stored data
        when ``personal``) and language, nothing personal in it (errors not kept, nor a page holding
        ``PROVISIONAL_MARK``: one drawn before its map, rendered again next time)."""
        lang = self.language(request)
        here = str(request.url.path)
        body = self.state.cached(
            (*key, lang),
            lambda: self.render(request, name, data=data(), here=here, **context),
            index=index,
            personal=personal,
            keep=lambda page: PROVISIONAL_MARK not in page,
        )
        return HTMLResponse(personalise(body, request, self.state, lang))


def site(request: Request) -> Site:
    """The app's ``Site`` (the dependency behind ``Web``)."""
    found: Site = request.app.state.site
    return found


Web = Annotated[Site, Depends(site)]


def wants_json(request: Request) -> bool:
    """Whether the request is for the JSON API (its path starts with ``/api/``) rather than a page."""
    return request.url.path.startswith("/api/")


def twin(
    router: APIRouter,
    path: str,
    *codes: int,
    page: tuple[int, ...] | None = None,
    api: Mapping[str, tuple[Any, Any] | None] | None = None,
) -> Callable[[Handler], Handler]:
    """Register the decorated handler as the page ``path`` and its JSON twin ``/api{path}``.

    ``codes`` are the error statuses both can answer (``page``, when given, the page's instead); the JSON
    twin is listed in the OpenAPI schema as returning an object, the page as ``text/html``. ``api`` gives
    parameters the JSON twin declares otherwise (name → annotation, default; None: the API has no such
    parameter and the handler gets its default): e.g. a query the empty page does without but the API
    requires.
    """

    def register(handler: Handler) -> Handler:
        router.add_api_route(
            path,
            handler,
            methods=["GET"],
            response_class=HTMLResponse,
            response_model=None,
            responses=errors(*(codes if page is None else page), html=True),
        )
        router.add_api_route(
            "/api" + path,
            _declaring(handler, api) if api else handler,
            methods=["GET"],
            response_model=dict[str, Any],
            responses=errors(*codes),
        )
        return handler

    return register


def _declaring(
    handler: Callable[..., Any], params: Mapping[str, tuple[Any, Any] | None]
) -> Callable[..., Any]:
    """``handler`` with ``params`` declared otherwise in the signature FastAPI reads (same code and name)."""
    hints = get_type_hints(handler, include_extras=True)
    signature = inspect.signature(handler)
    declared = []
    for p in signature.parameters.values():
        if p.name not in params:
            declared.append(p.replace(annotation=hints.get(p.name, p.annotation)))
        elif (changed := params[p.name]) is not None:
            declared.append(p.replace(annotation=changed[0], default=changed[1]))

    @functools.wraps(handler)
    def endpoint(*args: Any, **kwargs: Any) -> Any:
        return handler(*args, **kwargs)

    endpoint.__signature__ = signature.replace(parameters=declared)  # type: ignore[attr-defined]
    return endpoint


# -- errors: JSON under /api/, the error page elsewhere ---------------------------------------------
def _error(
    request: Request,
    status: int,
    message: str,
    headers: Mapping[str, str] | None = None,
    links: list[tuple[str, str]] | None = None,
    fetch: str | None = None,
    said: list[str] | None = None,
) -> Response:
    """``{"error"[, "links"]}`` under ``/api/``, else the error page (with its links and fetch form;
    ``said``: what the page says instead of ``message``, each a message in the page's language)."""
    if wants_json(request):
        body: dict[str, Any] = {"error": message}
        if links:
            body["links"] = [{"label": label, "href": href} for label, href in links]
        return JSONResponse(body, status_code=status, headers=headers)
    if is_feed(request.url.path):
        return PlainTextResponse(message + "\n", status_code=status, headers=headers)
    context = {"status": status, "said": said or [message], "links": links or [], "fetch": fetch}
    response = site(request).page(request, "error.html", status, **context)
    response.headers.update(headers or {})  # e.g. a 405's Allow
    return response


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        exc.headers = {"Allow": allowed_methods(request.app, request.url.path)}
    # a dead end (web/deadends.py) says where to go instead
    links, fetch = getattr(exc, "links", None), getattr(exc, "fetch", None)
    detail = exc.detail if isinstance(exc.detail, Message) else str(exc.detail)
    if exc.status_code in _PHRASES and detail == HTTPStatus(exc.status_code).phrase:  # Starlette's own
        detail = say(_PHRASES[exc.status_code])
    return _error(request, exc.status_code, detail, exc.headers, links, fetch)


_PHRASES = {404: "not_found", 405: "method_not_allowed"}  # the statuses Starlette answers by their phrase


async def store_busy(request: Request, exc: Exception) -> Response:
    """A read past the query time limit (interrupted) or a store locked too long: try again later."""
    return _error(request, 503, say("store_busy", problem=str(exc)))


async def bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = exc.errors()
    return _error(request, 400, "; ".join(map(_problem, problems)), said=[_said(e) for e in problems])


ERROR_HANDLERS: dict[int | type[Exception], Callable[[Request, Exception], Any]] = {
    HTTPException: http_error,
    StoreBusy: store_busy,
    RequestValidationError: bad_request,
}


def _problem(error: Mapping[str, Any]) -> str:
    """One validation error as a stable message: where, and what was wrong (never the input itself)."""
    where = ".".join(str(p) for p in error["loc"][1:]) or "body"
    if error["type"] == "literal_error":
        return f"{where} must be one of {error['ctx']['expected']}"
    return f"{where}: {error['msg']}"


def _said(error: Mapping[str, Any]) -> Message:
    """One validation error as the error page says it: a sentence of the catalogs (with the value given)."""
    where = ".".join(str(p) for p in error["loc"][1:]) or "body"
    kind, ctx, value = error["type"], error.get("ctx") or {}, str(error.get("input", ""))[:80]
    if ctx.get("pattern") == DATE_PATTERN or (kind == "value_error" and where in ("date", "day", "since")):
        return say("not_a_date", value=value)
    return invalid(error, where)


def lang_href(request: Request, lang: str) -> str:
    """The page the request is on, in ``lang``: same path, same query and filters."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    return str(request.url.path) + "?" + urlencode([*params, ("lang", lang)])
