"""The app is built from view modules: a page and its ``/api`` JSON twin are one handler (``web/pages.py``'s
``twin``), and a new page is one function in one module, served for both paths."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from papersift.settings import Settings
from papersift.web.app import create_app
from papersift.web.contract import every_route
from papersift.web.pages import Answer, Web, twin, wants_json
from tests.test_web_security import in_process

TWINS = {
    "/list/{category}",
    "/list/{category}/{day}",
    "/categories",
    "/abs/{paper_id:path}",
    "/related",
    "/search",
    "/daily",
    "/daily/{day}",
    "/library",
    "/map/{category}/{day}",
    "/trending",
    "/venues",
    "/venue/{name}/{year}",
}


def test_every_page_with_a_json_twin_is_one_handler(tmp_path: Path) -> None:
    app = create_app(Settings(home=tmp_path))
    gets = {
        r.path: r.endpoint
        for r in every_route(app.routes)
        if isinstance(r, APIRoute) and "GET" in (r.methods or ())
    }
    twins = {p for p in gets if p.startswith("/api/") and p[4:] in gets}
    assert {p[4:] for p in twins} == TWINS
    for path in twins:
        assert inspect.unwrap(gets[path]) is gets[path[4:]], path


def test_a_new_page_is_one_function_serving_html_and_json(tmp_path: Path) -> None:
    router = APIRouter()

    @twin(router, "/hello/{name}", 404)
    def hello(request: Request, web: Web, name: str) -> Answer:
        if name == "nobody":
            raise HTTPException(404, "nobody here")
        data: dict[str, Any] = {"hello": name, "ready": web.health["status"]}
        return data if wants_json(request) else HTMLResponse(f"<p>hello {name}</p>")

    app = create_app(Settings(home=tmp_path))
    app.include_router(router)
    with in_process(app) as client:
        assert client.get("/api/hello/ada").json() == {"hello": "ada", "ready": "ready"}
        page = client.get("/hello/ada")
        assert page.headers["content-type"].startswith("text/html") and page.text == "<p>hello ada</p>"
        assert client.get("/api/hello/nobody").json() == {"error": "nobody here"}
        missing = client.get("/hello/nobody")
        assert missing.status_code == 404 and "nobody here" in missing.text and "<html" in missing.text
        paths = client.get("/openapi.json").json()["paths"]
        assert "application/json" in paths["/api/hello/{name}"]["get"]["responses"]["200"]["content"]
        assert "text/html" in paths["/hello/{name}"]["get"]["responses"]["200"]["content"]
