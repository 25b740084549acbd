"""No dead ends: what a reader reaches instead of a bare error.

* ``HeadAsGet`` (middleware): ``HEAD`` answered wherever ``GET`` is (the GET's status and headers, no body).
* ``CategorySpelling`` (middleware): a category in a listing or map path, or a ``category=`` parameter,
  spelled in any case (``/list/cs.lg``) redirects to arXiv's spelling (``/list/cs.LG``).
* ``missing_paper`` and ``missing_listing``: the 404s that say where to go (the paper on arXiv and a form
  that fetches it from arXiv's API, offered only while that API answers; the nearest days that have a
  listing).
* ``/favicon.ico`` and ``POST /abs/{id}/fetch`` (the paper from arXiv into the store, then its page).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, RedirectResponse
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from papersift.records.messages import reason, say
from papersift.records.paper import InvalidIdError, Paper, normalize_id
from papersift.records.taxonomy import is_known, spelled
from papersift.services.harvest import ArxivClient, HarvestError, fetch_ids
from papersift.services.ingest import ingest_items
from papersift.web.pages import Web

STATIC = Path(__file__).parent / "static"
CATEGORY_PATHS = ("/list/", "/map/", "/api/list/", "/api/map/")  # a category is the segment after these

router = APIRouter()


class DeadEnd(HTTPException):
    """An error that says where to go instead: ``links`` (label, href), and ``fetch`` (a paper id whose
    page a form may fetch from arXiv)."""

    def __init__(
        self, status: int, detail: str, links: list[tuple[str, str]], fetch: str | None = None
    ) -> None:
        super().__init__(status, detail)
        self.links = links
        self.fetch = fetch


def missing_paper(pid: str, online: bool = True) -> DeadEnd:
    """A paper the store does not hold: its arXiv page, and (``online``: arXiv's API answers) the form
    that fetches it."""
    return DeadEnd(
        404,
        say("not_in_store", id=pid),
        [(f"arXiv:{pid}", f"https://arxiv.org/abs/{pid}")],
        fetch=pid if online else None,
    )


def missing_category(category: str) -> DeadEnd:
    """A category the store holds no listing of: every category it does hold, and arXiv's own listing
    (of a category arXiv has)."""
    arxiv = [(f"arXiv: {category}", f"https://arxiv.org/list/{category}/new")] if is_known(category) else []
    links = [(say("all_categories"), "/categories"), *arxiv]
    return DeadEnd(404, say("no_listings_for", category=category), links)


def missing_listing(
    category: str, when: date, days: list[date], why: str | None = None, base: str = "/list"
) -> DeadEnd:
    """A day without a listing of ``category``: why (``why``: ``ranking.daily.day_quiet``'s line, else that
    there is none), and the nearest days before and after it that have one."""
    before = [d for d in days if d < when][-1:]
    after = [d for d in days if d > when][:1]
    links = [(d.isoformat(), f"{base}/{category}/{d.isoformat()}") for d in (*before, *after)]
    return DeadEnd(404, why or say("no_listing_on", category=category, day=when.isoformat()), links)


def canonical_url(scope: Scope) -> str | None:
    """The URL with each category spelled as arXiv spells it; None when it already is."""
    path: str = scope["path"]
    new_path = path
    for prefix in CATEGORY_PATHS:
        if path.startswith(prefix):
            rest = path[len(prefix) :]
            category, sep, tail = rest.partition("/")
            stem = category.removesuffix(".atom")
            new_path = prefix + spelled(stem) + category[len(stem) :] + sep + tail
            break
    query = QueryParams(scope.get("query_string", b"").decode("latin-1"))
    items = [(k, spelled(v) if k == "category" and v else v) for k, v in query.multi_items()]
    if new_path == path and items == query.multi_items():
        return None
    return quote(new_path) + (f"?{urlencode(items)}" if items else "")


class CategorySpelling:
    """Redirect (308) a GET or HEAD whose categories are spelled in another case to arXiv's spelling."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            target = canonical_url(scope)
            if target is not None:
                await RedirectResponse(target, status_code=308)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class HeadAsGet:
    """``HEAD`` as the ``GET`` it asks about: the same status and headers, the body dropped."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if not message.get("more_body", False):
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The site's icon where browsers look for it first (the same drawing as ``static/favicon.svg``)."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.post("/abs/{paper_id:path}/fetch", include_in_schema=False)
def fetch_paper(request: Request, web: Web, paper_id: str) -> RedirectResponse:
    """Fetch a paper the store lacks from arXiv's API, store it, and open its page (the CSRF middleware
    checks the form; offline: an "offline: …" error page)."""
    state = web.state
    try:
        pid = normalize_id(paper_id)
    except InvalidIdError as e:
        raise HTTPException(404, reason(e)) from e
    if state.account(request) is None:
        raise HTTPException(401, say("log_in_first"))
    if state.store.get(pid) is None:
        try:
            with ArxivClient(state.settings) as client:
                found = [p for p in fetch_ids(client, [pid]) if isinstance(p, Paper)]
        except HarvestError as e:
            raise HTTPException(503, reason(e)) from e
        if not found:
            raise DeadEnd(404, say("not_on_arxiv", id=pid), [])
        with state.writing() as store:
            ingest_items(store, found)
    return RedirectResponse(f"/abs/{pid}", status_code=303)
