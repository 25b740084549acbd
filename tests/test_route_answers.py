"""Each JSON answer of the API is made by its model (``web/models.py: RESPONSES``, the models OpenAPI
describes): every route's real answer validates as its model and dumps back to the same JSON, so a model and
its route cannot drift apart."""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from papersift.web.models import RESPONSES
from tests.support.data import DAILY_DAYS, EVIL, spread_records, write_jsonl
from tests.support.homes import seeded
from tests.support.inproc import app_client, invoke

CATEGORY, DAY, WEEKEND = "cs.CL", DAILY_DAYS[0], "2026-08-22"  # a real listing day, and the Saturday after it


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """Papers spread over the 20k file, EVIL, and some cs.CL / cs.AI papers of the two daily days."""
    home = seeded(tmp_path_factory.mktemp("answers"), tmp_path_factory)
    marks = tuple(f'"announced": "{d}"'.encode() for d in DAILY_DAYS)
    days: list[dict[str, object]] = []
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        for line in f:
            if any(m in line for m in marks):
                days.append(orjson.loads(line))
                if len(days) == 120:
                    break
    records = [*spread_records(shared_data, 400), EVIL, *days]
    invoke("ingest", str(write_jsonl(home / "answers.jsonl", records)), home=home)
    invoke("embed", home=home)
    invoke("venues", "import", str(shared_data / "venues" / "colm2025.json.gz"), home=home)  # /api/venue…
    return home


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[httpx.Client]:
    with app_client(home) as client:  # no accounts: the personal reader
        yield client


def answers(site: httpx.Client) -> Iterator[tuple[tuple[str, str], httpx.Response]]:
    """A real answer of every route of ``RESPONSES`` (some routes several: their optional parts)."""
    listing = site.get(f"/api/list/{CATEGORY}")
    yield ("get", "/api/list/{category}"), listing
    yield ("get", "/api/list/{category}/{day}"), site.get(f"/api/list/{CATEGORY}/{DAY}?lang=zh")
    yield ("get", "/api/categories"), site.get("/api/categories")
    for params in (
        {"q": "language model agents", "mode": "keyword"},
        {"q": "langauge modles", "mode": "hybrid", "category": "cs.FOO"},  # corrected; no such category
        {"q": "agents " * 200, "page": "2", "k": "5"},  # shortened
        {"q": "LLM", "mode": "semantic", "lang": "zh"},
    ):
        yield ("get", "/api/search"), site.get("/api/search", params=params)
    pid = listing.json()["entries"][0]["id"]
    yield ("get", "/api/abs/{paper_id}"), site.get(f"/api/abs/{pid}")
    yield ("get", "/api/abs/{paper_id}"), site.get(f"/api/abs/{pid}?facet=method&lang=zh")
    yield ("get", "/api/related"), site.get("/api/related", params={"text": "planning with language agents"})
    yield ("get", "/api/daily"), site.get("/api/daily")
    yield ("get", "/api/daily/{day}"), site.get(f"/api/daily/{DAY}?seen=1")
    yield ("get", "/api/daily/{day}"), site.get(f"/api/daily/{WEEKEND}")  # quiet
    yield ("get", "/api/recommend"), site.get(f"/api/recommend?date={DAY}&k=5")
    token = re.search(r'name="csrf" value="([^"]+)"', site.get("/library").text)
    assert token, "the library page carries the CSRF token"
    headers = {"X-CSRF-Token": token[1]}
    saved = {"id": pid, "rating": 1, "tags": ["agents"], "note": "a note"}
    yield ("post", "/api/library"), site.post("/api/library", json=saved, headers=headers)
    yield ("get", "/api/library"), site.get("/api/library")
    yield ("get", "/api/library"), site.get("/api/library?tag=agents")
    yield ("get", "/api/mine"), site.get("/api/mine")
    yield ("get", "/api/list/{category}"), site.get(f"/api/list/{CATEGORY}")  # marked saved
    yield ("delete", "/api/library/{key}"), site.delete(f"/api/library/{pid}", headers=headers)
    yield ("get", "/api/map/{category}/{day}"), site.get(f"/api/map/{CATEGORY}/{DAY}")
    yield ("get", "/api/trending"), site.get("/api/trending")
    yield ("get", "/api/venues"), site.get("/api/venues")
    yield ("get", "/api/venue/{name}/{year}"), site.get("/api/venue/COLM/2025?lang=zh")
    yield ("get", "/healthz"), site.get("/healthz")


def test_every_route_answers_the_json_its_model_makes(site: httpx.Client) -> None:
    seen: set[tuple[str, str]] = set()
    for route, response in answers(site):
        assert response.status_code == 200, (route, response.text)
        body: dict[str, Any] = response.json()
        again = RESPONSES[route].model_validate(body)
        dumped = again.model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert dumped == body, route
        assert list(dumped) == list(body), route  # the fields in the model's order
        seen.add(route)
    assert seen == set(RESPONSES), "a route of RESPONSES without an answer here"
