"""The reader's own state on papers (saved, rating), added per response to pages and JSON that are cached
without it: ``/api/mine`` gives the map the pages' script applies to every row, and ``with_state`` adds
``"saved"`` / ``"rating"`` to the paper entries of a cached JSON answer.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from papersift.web.contract import errors
from papersift.web.models import Mine
from papersift.web.pages import Web
from papersift.web.state import AppState

PRIVATE = "private, no-store"

router = APIRouter()


def reader_ratings(state: AppState, request: Request) -> dict[str, int] | None:
    """paper id → rating (-1, 0 saved, 1) for every stored paper in the reader's library; None: no reader."""
    reader = state.account(request)
    if reader is None:
        return None

    def compute() -> dict[str, int]:
        return {e.paper_id: e.rating for e in state.store.library(reader.id) if e.paper_id}

    ratings: dict[str, int] = state.cached(("mine", str(reader.id)), compute, personal=True)
    return ratings


def with_state(state: AppState, request: Request, data: dict[str, Any], field: str) -> dict[str, Any]:
    """``data`` with each of ``data[field]`` marked ``saved`` and ``rating`` (null when not saved) for the
    reader of the request (a copy: the cached answer stays impersonal)."""
    ratings = reader_ratings(state, request) or {}
    entries = [
        {**e, "saved": e["id"] in ratings, "rating": ratings.get(e["id"])} for e in data.get(field, [])
    ]
    return {**data, field: entries}


@router.get("/api/mine", responses=errors())
def api_mine(request: Request, web: Web) -> JSONResponse:
    """The reader's saved papers and ratings (``{"reader": null}`` when nobody is logged in)."""
    ratings = reader_ratings(web.state, request)
    body = Mine.make(reader=ratings is not None, ratings=ratings or {})
    return JSONResponse(body.dump(), headers={"Cache-Control": PRIVATE})
