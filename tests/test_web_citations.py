"""The web face's citations and feeds (the app in process; a real server where the port is the point):
feeds' self links on the port it really listens on (or the configured base URL), Atom errors as plain text,
the feeds' content type in the OpenAPI document, 405 with ``Allow`` before any CSRF check, feed
autodiscovery links, RIS export of the library."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import feedparser
import httpx
import pytest
import rispy

from tests.support.data import EVIL, spread_records, write_jsonl
from tests.support.inproc import app_client, invoke
from tests.support.processes import serving

CATEGORY = "cs.CR"  # EVIL's, announced


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    home = tmp_path_factory.mktemp("citations")
    records = [*spread_records(shared_data, 400), EVIL]
    invoke("ingest", str(write_jsonl(home / "small.jsonl", records)), home=home)
    invoke("embed", home=home)
    return home


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[httpx.Client]:
    with app_client(home) as client:  # no PAPERSIFT_BASE_URL: links follow the request
        yield client


@pytest.mark.process  # its point is the port a real `papersift serve` listens on
def test_feed_self_links_name_the_port_the_server_listens_on(home: Path) -> None:
    with serving(home) as site:  # no PAPERSIFT_BASE_URL: links follow the request
        answer = site.get(f"/list/{CATEGORY}.atom")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/atom+xml")
    feed = feedparser.parse(answer.content)
    self_link = next(link["href"] for link in feed.feed.links if link["rel"] == "self")
    assert self_link == f"{site.base_url}/list/{CATEGORY}.atom".replace("//list", "/list")
    assert ":8000" not in self_link
    with serving(home, {"PAPERSIFT_BASE_URL": "https://papers.example.org/"}) as configured:
        feed = feedparser.parse(configured.get(f"/list/{CATEGORY}.atom").content)
        assert next(x["href"] for x in feed.feed.links if x["rel"] == "self") == (
            f"https://papers.example.org/list/{CATEGORY}.atom"
        )


def test_feed_errors_are_plain_text_and_the_schema_declares_atom(site: httpx.Client) -> None:
    missing = site.get("/list/no.such.atom")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/plain")
    assert "<" not in missing.text
    empty = site.get("/search.atom?q=")
    assert empty.status_code == 400 and empty.headers["content-type"].startswith("text/plain")
    paths = site.get("/openapi.json").json()["paths"]
    for path in ("/list/{category}.atom", "/search.atom"):
        responses = paths[path]["get"]["responses"]
        assert list(responses["200"]["content"]) == ["application/atom+xml"]
        assert all(list(r["content"]) == ["text/plain"] for code, r in responses.items() if code != "200")


def test_an_undeclared_method_is_405_with_allow_not_a_stale_form(site: httpx.Client) -> None:
    answer = site.put("/api/categories", json={})
    assert answer.status_code == 405 and answer.headers["allow"] == "GET"
    assert answer.json() == {"error": "Method Not Allowed"}
    assert site.post("/api/library", json={"id": "x"}).status_code == 403  # a real route still checks CSRF


def test_search_and_listing_pages_link_their_feeds(site: httpx.Client) -> None:
    page = site.get("/search?q=quantum&mode=keyword").text
    link = re.search(r'<link rel="alternate" type="application/atom\+xml"[^>]*href="([^"]+)"', page)
    assert link and link[1] == "/search.atom?q=quantum&amp;mode=keyword"
    assert site.get(link[1].replace("&amp;", "&")).status_code == 200
    listing = site.get(f"/list/{CATEGORY}").text
    assert f'type="application/atom+xml" title="{CATEGORY}" href="/list/{CATEGORY}.atom"' in listing


def test_the_library_exports_ris_on_the_web(home: Path, tmp_path: Path) -> None:
    source = tmp_path / "mine.ris"
    source.write_text(
        "TY  - JOUR\nTI  - Dense Retrieval\nAU  - Okafor, Chidi\nPY  - 2020\n"
        "VL  - 7\nSP  - 33\nEP  - 47\nER  - \n",
        encoding="utf-8",
    )
    invoke("library", "import", str(source), home=home)
    with app_client(home) as client:  # no accounts: the personal library
        answer = client.get("/library/export.ris")
    assert answer.headers["content-type"].startswith("application/x-research-info-systems")
    (record,) = rispy.loads(answer.text)
    assert (record["title"], record["volume"], record["start_page"], record["end_page"]) == (
        "Dense Retrieval",
        "7",
        "33",
        "47",
    )


def test_a_client_generated_from_the_openapi_document_gets_typed_answers(
    site: httpx.Client, tmp_path: Path
) -> None:
    """datamodel-code-generator turns ``/openapi.json`` into pydantic models; the real answers of the API
    validate as those models, field for field (typed papers, hits, counts), not as bare dicts."""
    spec = tmp_path / "openapi.json"
    spec.write_bytes(site.get("/openapi.json").content)
    out = tmp_path / "client_models.py"
    subprocess.run(
        [
            str(Path(sys.executable).parent / "datamodel-codegen"),
            "--input",
            str(spec),
            "--input-file-type",
            "openapi",
            "--output",
            str(out),
            "--output-model-type",
            "pydantic_v2.BaseModel",
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    module_spec = importlib.util.spec_from_file_location("client_models", out)
    assert module_spec and module_spec.loader
    client = importlib.util.module_from_spec(module_spec)
    sys.modules["client_models"] = client
    module_spec.loader.exec_module(client)

    listing = client.Listing.model_validate(site.get(f"/api/list/{CATEGORY}").json())
    assert listing.counts.new >= 1 and listing.entries[0].number == 1
    assert isinstance(listing.entries[0], client.ListedPaper) and listing.entries[0].authors
    found = client.SearchAnswer.model_validate(site.get("/api/search?q=quantum&mode=keyword").json())
    assert found.results and isinstance(found.results[0].score, float) and found.results[0].rank == 1
    pid = listing.entries[0].id
    page = client.PaperPage.model_validate(site.get(f"/api/abs/{pid}").json())
    assert page.id == pid and page.bibtex.startswith(("@misc", "@preamble"))
    assert all(isinstance(h, client.RelatedHitShape) for h in page.related)
    library = client.LibraryAnswer.model_validate(site.get("/api/library").json())
    assert isinstance(library.entries, list)
    assert client.Mine.model_validate(site.get("/api/mine").json()).ratings is not None
