"""Daily Papers: the day's new papers in the followed categories, ranked by the reader's library when there
is one (``/daily[/{day}]`` and its ``/api`` twin from one handler, and ``/api/recommend``). The picks are
assembled by ``ranking.daily.daily_picks``, as in the CLI and the digests: what the reader has seen left
out (``?seen=1`` brings it back, marked), the papers below their threshold after a line saying so, what is
new since their last visit, and on a day arXiv announces nothing, when the next listing comes. A reader
marks a paper read with ``POST /seen`` (the rows' button and the ``r`` key) or ``/api/seen``."""

from __future__ import annotations

import dataclasses
from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from papersift.library.shapes import FollowedNew, with_tldrs
from papersift.ranking.acceptances import Acceptances, new_acceptances, note_acceptances
from papersift.ranking.daily import (
    DailyView,
    NoDailyPapers,
    QuietDay,
    daily_picks,
    day_papers,
    day_quiet,
    followed_days,
    min_score,
    reader_categories,
)
from papersift.ranking.followed import FollowedPaper, reader_week
from papersift.ranking.tags import UnknownTag
from papersift.records.catalogs import said
from papersift.records.messages import reason, say
from papersift.records.paper import InvalidIdError, paper_key
from papersift.store.records import Account
from papersift.web.contract import DateParam, DayPath, errors
from papersift.web.i18n import interface
from papersift.web.login import back
from papersift.web.models import AcceptedShape, DailyAnswer, DailyEntry, NewSince, Quiet
from papersift.web.pages import Answer, Web, twin, wants_json
from papersift.web.parts import FRAGMENT, Asked, asked, href, part_of, with_part, with_topic_rows
from papersift.web.reading_pages import reading_lang, texts_for, texts_version
from papersift.web.state import AppState, day_and_neighbours, parse_day

SEEN_DAY, SINCE_DAY = "daily_seen_day", "daily_since_day"  # reader settings: the visits of the page

router = APIRouter()
DAY_MAP = "_daily_map.html"  # the day's topic map alone (?map=1&fragment=1)


def need_account(state: AppState, request: Request) -> Account:
    """The reader of the request, or 401."""
    reader = state.account(request)
    if reader is None:
        raise HTTPException(401, say("log_in_first"))
    return reader


def picks_for(state: AppState, reader: Account | None, day: str | None, k: int | None) -> DailyView:
    """The reader's (or everyone's) picks of ``day`` (None: the latest), what they saw left out; 404 when
    there is no listing."""
    view = view_or_quiet(state, reader, day, k)
    if isinstance(view, QuietDay):
        raise HTTPException(404, view.line())
    return view


def view_or_quiet(
    state: AppState,
    reader: Account | None,
    day: str | None,
    k: int | None,
    show_seen: bool = False,
    tag: str | None = None,
) -> DailyView | QuietDay:
    """The reader's (or everyone's) picks of ``day`` (None: the latest; ``tag``: ranked by that tag alone);
    a day with no listing: why, as far as the store knows it (``day_quiet``), and the next listing; 404
    when the day was fetched and has nothing for the reader, or no such tag."""
    indexes = state.indexes()
    wanted = None if day is None else parse_day(day)
    fallback = state.settings.default_categories
    try:
        return daily_picks(
            indexes.store, indexes, reader, fallback, wanted, k=k, show_seen=show_seen, tag=tag
        )
    except UnknownTag as e:
        raise HTTPException(404, reason(e)) from None
    except NoDailyPapers as e:
        categories = reader_categories(indexes.store, reader, fallback)
        quiet = day_quiet(indexes.store, categories, wanted) if wanted is not None else None
        if quiet is None:
            raise HTTPException(404, reason(e)) from None
        return quiet


def daily_data(
    state: AppState,
    request: Request,
    day: str | None,
    k: int | None = None,
    lang: str = "en",
    show_seen: bool = False,
    tag: str | None = None,
) -> dict[str, Any]:
    reader = state.account(request)

    def compute() -> dict[str, Any]:
        view = view_or_quiet(state, reader, day, k, show_seen, tag)
        if isinstance(view, QuietDay):
            days = followed_days(state.store, reader, state.settings.default_categories)
            return DailyAnswer.make(
                **day_and_neighbours(days, view.day),
                categories=[],
                ranking="arXiv order",
                reader=reader.name if reader else None,
                quiet=Quiet.of(view),
                min_score=None,
                show_seen=show_seen,
                entries=[],
            ).dump()
        texts = texts_for(state, (p.paper for p in view.picks), lang)  # key sentences for the rows shown:
        texts = dataclasses.replace(texts, extractive=False)  # ``whole`` makes them all (library/shapes.py)
        limit = min_score(state.store, reader)
        followed = followed_new(state, reader, view.day)
        return DailyAnswer.make(
            **day_and_neighbours(view.days, view.day),
            categories=list(view.categories),
            ranking=view.ranking,
            reader=reader.name if reader else None,
            quiet=None,
            min_score=limit,
            show_seen=show_seen,
            entries=[
                DailyEntry.of_pick(
                    p, texts, number=n, below=limit is not None and p.score is not None and p.score < limit
                )
                for n, p in enumerate(view.picks, 1)
            ],
            tag=view.tag,
            followed_new=[FollowedNew.of_followed(f) for f in followed],
        ).dump()

    result: dict[str, Any] = state.cached(
        (
            "daily",
            day or "",
            str(reader.id if reader else ""),
            str(k),
            lang,
            str(show_seen),
            texts_version(state),
            tag or "",
        ),
        compute,
        index=True,
        personal=reader is not None,  # a reader's picks follow their library and what they saw
    )
    return result


def whole(data: dict[str, Any]) -> dict[str, Any]:
    """The JSON of ``daily_data``: every entry with its TL;DR (a page makes those of the rows it shows)."""
    return data | {"entries": with_tldrs(data["entries"])}


def followed_new(state: AppState, reader: Account | None, day: date) -> list[FollowedPaper]:
    """New this week by the authors the reader follows, up to ``day`` (``ranking/followed.py``), what they
    saved left out; none for no reader."""
    return [] if reader is None else reader_week(state.store, reader, day)


def since_last_visit(state: AppState, reader: Account | None) -> NewSince | None:
    """What is new since the reader's last visit of Daily Papers: the listing days after the latest one
    they saw before (and how many papers those hold), kept until a newer listing comes; this visit is
    remembered. None for no reader, a first visit or nothing new."""
    if reader is None:
        return None
    store = state.store
    categories = store.interests(reader.id).categories or state.settings.default_categories
    days = followed_days(store, reader, state.settings.default_categories)
    if not days:
        return None
    latest = days[-1]
    seen, since = store.reader_setting(reader.id, SEEN_DAY), store.reader_setting(reader.id, SINCE_DAY)
    if seen is None or date.fromisoformat(seen) < latest:
        with state.writing() as w:
            w.set_reader_setting(reader.id, SEEN_DAY, latest.isoformat())
            if seen is not None:
                w.set_reader_setting(reader.id, SINCE_DAY, seen)
        since = seen
    if since is None:
        return None
    newer = [d for d in days if d > date.fromisoformat(since)][-10:]
    if not newer:
        return None
    papers = sum(len(day_papers(store, categories, d)) for d in newer)
    return NewSince.make(since=since, days=[d.isoformat() for d in newer], papers=papers)


def acceptances_once(state: AppState, reader: Account | None) -> list[Acceptances]:
    """The accepted papers of the venues the reader follows not yet noted for them (``ranking/acceptances``),
    recorded as seen as they are shown: each paper once. None for no reader."""
    if reader is None:
        return []
    found = new_acceptances(state.store, reader.id)
    if found:
        with state.writing() as store:
            note_acceptances(store, reader.id, found)
    return found


def _daily(request: Request, web: Web, day: str | None) -> Answer:
    show_seen = request.query_params.get("seen") in ("1", "true", "yes")
    tag = request.query_params.get("tag", "").strip()[:200] or None  # ranked by one tag of the library
    data = daily_data(web.state, request, day, lang=reading_lang(web, request), show_seen=show_seen, tag=tag)
    ask = asked(request)  # a part of the day's papers (web/parts.py); the rows alone are no visit
    if ask.fragment and not wants_json(request):
        rows = DAY_MAP if ask.map else FRAGMENT  # the map alone (web/topic_pages.py), or a part's rows
        return web.page(request, rows, **daily_part(request, web, data, ask, show_seen, tag))
    reader = web.state.account(request)
    new = since_last_visit(web.state, reader)
    data = {**data, "new": None if new is None else new.dump()}  # DailyAnswer's last fields, per visit
    accepted = acceptances_once(web.state, reader)
    data["accepted"] = [AcceptedShape.of(a).dump() for a in accepted]
    if wants_json(request):
        return whole(data)
    lang = web.language(request)
    quiet = said(data["quiet"]["line"], lang) if data["quiet"] else None
    tags = [name for name, _ in web.state.store.tags(reader.id)] if reader else []
    parted = daily_part(request, web, data, ask, show_seen, tag)
    return web.page(request, "daily.html", quiet_line=quiet, reader_tags=tags, **parted)


def daily_part(
    request: Request, web: Web, data: dict[str, Any], ask: Asked, show_seen: bool, tag: str | None
) -> dict[str, Any]:
    """The page's context for the part of the day's papers ``ask`` names: the data with its part, the line
    above the first paper below the reader's threshold, the rows' read button, the topic shown; the page's
    filters (``seen``, ``tag``) kept in its links: ``filtered(**changed)`` this day's page with some changed,
    ``days_query`` the other days' (the days bar), ``kept_fields`` its forms' (the day picker, the chips)."""
    here = str(request.url.path)
    kept: dict[str, str | None] = {"seen": "1" if show_seen else None, "tag": tag}
    base = href(here, kept)
    below = next((e["number"] for e in data["entries"] if e.get("below")), None)
    line = interface(web.language(request))["below_threshold"] % {"score": data["min_score"]}
    data = with_topic_rows(data, ask)
    return {
        "data": with_part(data, part_of(data["entries"], ask.part, base, rest=ask.rest)),
        "divider": {"number": below, "kind": "threshold-cut", "line": line} if below else None,
        "read_button": data["reader"] is not None,
        "topic": ask.topic,
        "fragment": ask.fragment,
        "map_asked": ask.map,
        "filtered": lambda **changed: href(here, kept | changed),
        "days_query": href("", kept),
        "kept_fields": [(name, value) for name, value in kept.items() if value],
    }


@twin(router, "/daily", 404)
def daily_latest(request: Request, web: Web) -> Answer:
    """The latest Daily Papers (the reader's, ranked by their library; else everyone's in arXiv order); the
    page's ``?day=`` goes to that day's, its filters kept (the day picker without script)."""
    day = request.query_params.get("day")
    if day and not wants_json(request):
        kept = {name: request.query_params.get(name) for name in ("seen", "tag")}
        return RedirectResponse(href(f"/daily/{parse_day(day, 400).isoformat()}", kept), status_code=303)
    return _daily(request, web, None)


@twin(router, "/daily/{day}", 404)
def daily(request: Request, web: Web, day: DayPath) -> Answer:
    """The Daily Papers of ``day``."""
    return _daily(request, web, day)


@router.get("/api/recommend", responses=errors(401, 404))
def api_recommend(
    request: Request,
    web: Web,
    day: Annotated[DateParam | None, Query(alias="date")] = None,
    k: int = Query(20, ge=1, le=1000),
    tag: Annotated[str | None, Query(max_length=200)] = None,
) -> dict[str, Any]:
    """The reader's Daily Papers, ranked by their library (or one ``tag`` of it alone), with why each is
    where it is."""
    need_account(web.state, request)
    return whole(daily_data(web.state, request, day, k, tag=tag or None))


class SeenRequest(BaseModel):
    """A paper the reader read (``read``: false forgets it)."""

    id: str = Field(max_length=200)
    read: bool = True


def _mark_read(web: Web, request: Request, paper_id: str, read: bool) -> dict[str, Any]:
    reader = need_account(web.state, request)
    try:
        pid = paper_key(paper_id)
    except InvalidIdError:
        raise HTTPException(404, say("not_an_arxiv_id")) from None
    with web.state.writing() as store:
        if read:
            store.mark_seen(reader.id, [pid], "read")
        else:
            store.unmark_seen(reader.id, [pid], "read")
        if store.library_entry(reader.id, pid) is not None:
            store.update_entry(reader.id, pid, read=read)
    return {"id": pid, "read": read}


@router.post("/api/seen", responses=errors(401, 403, 404))
def api_seen(request: Request, web: Web, body: SeenRequest) -> dict[str, Any]:
    """Mark a paper read (saved or not; ``read``: false undoes it): it is not ranked for you again."""
    return _mark_read(web, request, body.id, body.read)


@router.post("/seen", include_in_schema=False)
def seen_form(
    request: Request,
    web: Web,
    id: str = Form(..., max_length=200),
    read: bool = Form(True),
    next: str | None = Form(None),
) -> Response:
    """The rows' "read" button (and the ``r`` key): the paper leaves the Daily Papers."""
    payload = _mark_read(web, request, id, read)
    if "application/json" in request.headers.get("accept", ""):
        return JSONResponse(payload)
    return RedirectResponse(back(next), status_code=303)


def mark_opened(state: AppState, request: Request, paper_id: str) -> None:
    """The reader of the request opened the paper's page: it is not ranked for them again (written once)."""
    reader = state.account(request)
    if reader is None:
        return
    try:
        pid = paper_key(paper_id)
    except InvalidIdError:
        return
    if any(m.how == "opened" for m in state.store.seen(reader.id, [pid]).get(pid, [])):
        return
    with state.writing() as store:
        store.mark_seen(reader.id, [pid], "opened")
