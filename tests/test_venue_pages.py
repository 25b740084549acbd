"""Venues on the web, over COLM 2025's real accept list imported into a small store (the arXiv papers of
``arxiv-300k`` whose titles are COLM's, embedded): ``/venues`` and ``/venue/COLM/2025`` with their JSON
twins under ``/api/`` (each record with its status, its paper and the venue's topic map), in English and
中文; a clean 404 for a venue not stored or a name with a slash; the badge "COLM 2025 · Poster" on the
paper page, in search results and related papers; the search filter ``venue=``."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests.support.data import write_jsonl
from tests.support.inproc import app_client, invoke
from tests.support.venues import BADGE, COLM_RECORDS
from tests.test_zh_pages_have_no_english import english_left, half_width_left, paper_strings

ROW = re.compile(r'<article class="paper venue-record" id="p-([^"]+)"')


@pytest.fixture(scope="module")
def site(colm_home: Path) -> Iterator[httpx.Client]:
    with app_client(colm_home) as client:
        yield client


@pytest.fixture(scope="module")
def colm(site: httpx.Client) -> dict[str, Any]:
    answer = site.get("/api/venue/COLM/2025")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def test_the_venues_api_lists_colm_2025_with_its_counts_by_status(
    site: httpx.Client, colm: dict[str, Any]
) -> None:
    venues = site.get("/api/venues").json()["venues"]
    (found,) = [v for v in venues if (v["venue"], v["year"]) == ("COLM", 2025)]
    assert found["records"] == COLM_RECORDS and found["statuses"] == [{"status": "Poster", "count": 418}]
    assert found["linked"] == sum(1 for e in colm["entries"] if e["arxiv"]) > 150
    page = site.get("/venues")
    assert page.status_code == 200 and 'href="/venue/COLM/2025"' in page.text and "Poster · 418" in page.text


def test_the_venue_api_lists_every_record_with_its_paper_status_links_and_topic_map(
    colm: dict[str, Any], site: httpx.Client
) -> None:
    entries = colm["entries"]
    assert (colm["venue"], colm["year"], colm["records"]) == ("COLM", 2025, COLM_RECORDS)
    assert len(entries) == COLM_RECORDS and {e["status"] for e in entries} == {"Poster"}
    assert len({e["id"] for e in entries}) == len({e["paper"] for e in entries}) == COLM_RECORDS
    for e in entries:
        assert e["id"].startswith("colm2025-") and e["paper"] == (e["arxiv"] or e["id"])
        assert e["title"] and e["links"]["site"].startswith("https://openreview.net/forum?id=")
    clusters = colm["map"]["clusters"]
    assert len(clusters) >= 2 and colm["map"]["category"] == "COLM 2025"
    mapped = {p for c in clusters for p in c["papers"]}
    assert mapped <= {e["paper"] for e in entries} and len(mapped) == len(colm["map"]["points"]) > 200
    assert site.get("/api/venue/colm/2025").json()["entries"] == entries  # a venue's name in any case
    assert len(site.get("/api/venue/COLM/2025?status=poster").json()["entries"]) == COLM_RECORDS
    none = site.get("/api/venue/COLM/2025?status=Oral").json()
    assert none["entries"] == [] and none["map"] is None and none["status"] == "Oral"


def test_the_page_shows_its_records_in_parts_each_linking_its_paper(
    colm: dict[str, Any], site: httpx.Client
) -> None:
    page = site.get("/venue/COLM/2025")
    assert page.status_code == 200
    assert 'class="topic-map"' in page.text and 'name="venue" value="COLM 2025"' in page.text
    first = ROW.findall(page.text)
    assert len(first) == 25 and page.text.count(f'<span class="venue-badge">{BADGE}</span>') == 25
    assert 'href="/venue/COLM/2025?part=2"' in page.text  # "more", without script
    rest = ROW.findall(site.get("/venue/COLM/2025?part=2&rest=1").text)
    assert first + rest == [e["paper"] for e in colm["entries"]]  # every record once, in the list's order
    more = site.get("/venue/COLM/2025?part=2&fragment=1").text  # what the script appends
    assert ROW.findall(more) == rest[:25] and "<html" not in more
    topic = site.get("/venue/COLM/2025?topic=0").text  # a chip without script: its topic's records
    assert set(ROW.findall(topic)) == set(colm["map"]["clusters"][0]["papers"])
    linked = next(e for e in colm["entries"] if e["arxiv"])
    alone = next(e for e in colm["entries"] if not e["arxiv"])
    for e in (linked, alone):
        assert site.get(f"/abs/{e['paper']}").status_code == 200
    shown = site.get(f"/api/abs/{alone['paper']}").json()  # a venue paper of its own
    assert shown["venues"] == [{"venue": "COLM", "year": 2025, "status": "Poster", "track": "main"}]


def test_a_venues_first_view_holds_its_maps_placeholder_and_the_map_comes_alone(
    colm_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records at once, the map (seconds) after them: a placeholder its script fills with
    ``?map=1&fragment=1``, a link to the page with its map without script (``web/topic_pages.py``)."""
    from papersift.web import app, state

    monkeypatch.setattr(app, "warm_maps", lambda state: None)
    monkeypatch.setattr(state, "SOON_SECONDS", 3600.0)  # nothing drawn beside the requests meanwhile
    with app_client(colm_home) as fresh:
        page = fresh.get("/venue/COLM/2025?lang=en").text
        assert 'class="topic-map pending"' in page and "<circle" not in page and len(ROW.findall(page)) == 25
        assert 'data-map="/venue/COLM/2025?map=1&amp;fragment=1"' in page
        assert '<a href="/venue/COLM/2025?map=1">Open it</a>' in page  # no script: the page with its map
        alone = fresh.get("/venue/COLM/2025?map=1&fragment=1").text
        assert alone.count('<section class="topic-map"') == 1 and "<html" not in alone
        assert alone.count('class="chip"') >= 2 and '<svg class="map wide"' in alone
        assert '<section class="topic-map"' in fresh.get("/venue/COLM/2025").text  # drawn: inline now


def test_the_pages_are_in_english_and_chinese(site: httpx.Client, colm: dict[str, Any]) -> None:
    english = site.get("/venue/COLM/2025?lang=en").text
    assert "accepted papers" in english and "Search this venue" in english
    chinese = site.get("/venue/COLM/2025?lang=zh").text
    assert (
        "录用论文" in chinese and "在本会议中搜索" in chinese and BADGE in chinese
    )  # the venue's words as it writes them
    papers = paper_strings(colm) | {"COLM", "Poster", "OpenReview", "main"}
    papers |= {"Enter", "PDF"}  # the footer's names of keys
    for path in ("/venues", "/venue/COLM/2025", "/venue/COLM/2025?part=2", "/venue/NOPE/2025"):
        page = site.get(f"{path}{'&' if '?' in path else '?'}lang=zh").text
        assert not english_left(page, papers | {"NOPE"}), path
        assert not half_width_left(page, papers), path


@pytest.mark.parametrize(
    "path",
    ["/venue/NOPE/2025", "/venue/COLM/2024", "/venue/a%2Fb/2025", "/venue/a/b/2025", "/venue/CO%20LM/2025"],
)
def test_a_venue_not_stored_or_a_name_with_a_slash_is_a_clean_404(site: httpx.Client, path: str) -> None:
    page = site.get(path)
    assert page.status_code == 404 and "<html" in page.text and "Traceback" not in page.text
    api = site.get("/api" + path)
    assert api.status_code == 404 and set(api.json()) <= {"error", "links"}
    if path == "/venue/COLM/2024":  # the venue's other years are linked
        assert {"label": "COLM 2025", "href": "/venue/COLM/2025"} in api.json()["links"]


def test_a_linked_paper_carries_its_badge_on_its_page_in_search_and_related(
    colm: dict[str, Any], site: httpx.Client
) -> None:
    linked = next(e for e in colm["entries"] if e["arxiv"])
    page = site.get(f"/abs/{linked['arxiv']}").text
    assert f">{BADGE}</a>" in page  # the paper's badge, linking its venue
    assert page.count("venue-badge") >= 2  # …and its related papers', COLM papers all
    words = " ".join(re.findall(r"[A-Za-z]{4,}", linked["title"])[:5])
    found = site.get("/search", params={"q": words, "mode": "keyword", "verbatim": "1"}).text
    assert f'id="p-{linked["arxiv"]}"' in found and f">{BADGE}</a>" in found


def test_search_filters_by_venue(site: httpx.Client) -> None:
    asked = {"q": "language models", "mode": "keyword", "k": "20"}
    within = site.get("/api/search", params={**asked, "venue": "COLM 2025"}).json()["results"]
    assert within and all(r["venues"][0]["venue"] == "COLM" for r in within)
    assert site.get("/api/search", params={**asked, "venue": "CoRL"}).json()["results"] == []
    form = site.get("/search", params={**asked, "venue": "COLM 2025"}).text
    assert 'name="venue" value="COLM 2025"' in form and "venue=COLM%202025" in form


def test_the_paper_page_shows_its_records_code_beside_its_own(tmp_path: Path, shared_data: Path) -> None:
    """WACV's records name their arXiv ids and code: the arXiv papers of ``arxiv-300k`` they name (3 with
    code), ingested, then WACV 2025's list imported."""
    with gzip.open(shared_data / "venues" / "wacv2025.json.gz", "rb") as f:
        code = {r["arxiv"]: r["github"] for r in json.load(f) if r.get("arxiv") and r.get("github")}
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        papers = [r for r in map(orjson.loads, f) if r["id"] in code]
    invoke("ingest", str(write_jsonl(tmp_path / "wacv-arxiv.jsonl", papers)), home=tmp_path)
    invoke("venues", "import", str(shared_data / "venues" / "wacv2025.json.gz"), home=tmp_path)
    assert len(papers) == 3
    with app_client(tmp_path) as site:
        for paper in papers:
            url = str(code[paper["id"]]).rstrip("/")
            page = site.get(f"/abs/{paper['id']}?lang=zh").text
            assert f'>{url}</a> <span class="venue-code">（WACV 2025 录用记录中的代码）</span>' in page
            (section,) = re.findall(r'<section class="code-links">.*?</section>', page, re.S)
            assert section.count("<li>") == 1  # once, however its closing slash is written
            assert ">WACV 2025 · Poster</a>" in page
