"""Daily Papers: the day's new papers in the followed categories, ranked by the reader's library when there
is one (``/daily[/{day}]`` and its ``/api`` twin from one handler, and ``/api/recommend``). The picks are
assembled by ``ranking.daily.daily_picks``, as in the CLI and the digests."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.exceptions import HTTPException

from papersift.ranking.daily import DailyView, NoDailyPapers, daily_picks
from papersift.shapes import daily_pick_json
from papersift.store.records import Account
from papersift.web.contract import DateParam, DayPath, errors
from papersift.web.pages import Answer, Web, twin, wants_json
from papersift.web.reading import reading_lang, texts_for, texts_version
from papersift.web.state import AppState, day_and_neighbours, parse_day

router = APIRouter()


def need_account(state: AppState, request: Request) -> Account:
    """The reader of the request, or 401."""
    reader = state.account(request)
    if reader is None:
        raise HTTPException(401, "log in first")
    return reader


def picks_for(state: AppState, reader: Account | None, day: str | None, k: int | None) -> DailyView:
    """The reader's (or everyone's) picks of ``day`` (None: the latest); 404 when there is no listing."""
    indexes = state.indexes()
    wanted = None if day is None else parse_day(day)
    try:
        return daily_picks(indexes.store, indexes, reader, state.settings.default_categories, wanted, k=k)
    except NoDailyPapers as e:
        raise HTTPException(404, str(e)) from None


def daily_data(
    state: AppState, request: Request, day: str | None, k: int | None = None, lang: str = "en"
) -> dict[str, Any]:
    reader = state.account(request)

    def compute() -> dict[str, Any]:
        view = picks_for(state, reader, day, k)
        texts = texts_for(state, (p.paper for p in view.picks), lang)
        return {
            **day_and_neighbours(view.days, view.day),
            "categories": list(view.categories),
            "ranking": view.ranking,
            "reader": reader.name if reader else None,
            "entries": [daily_pick_json(p, texts, number=n) for n, p in enumerate(view.picks, 1)],
        }

    result: dict[str, Any] = state.cached(
        ("daily", day or "", str(reader.id if reader else ""), str(k), lang, texts_version(state)),
        compute,
        index=True,
        personal=reader is not None,  # a reader's picks follow their library
    )
    return result


def _daily(request: Request, web: Web, day: str | None) -> Answer:
    data = daily_data(web.state, request, day, lang=reading_lang(web, request))
    return data if wants_json(request) else web.page(request, "daily.html", data=data)


@twin(router, "/daily", 404)
def daily_latest(request: Request, web: Web) -> Answer:
    """The latest Daily Papers (the reader's, ranked by their library; else everyone's in arXiv order)."""
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
) -> dict[str, Any]:
    """The reader's Daily Papers, ranked by their library, with why each is where it is."""
    need_account(web.state, request)
    return daily_data(web.state, request, day, k)
