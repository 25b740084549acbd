"""The topic map and the lab's signals on a real server: ``/api/map`` (the CLI's JSON), the map above a real
listing and on its own page in English and 中文, and three real readers saving and rating papers: counts on
the rows, ``/api/trending``, opting out, and the digests' "popular in your lab this week"."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from papersift.ranking.topics import TopicMap
from papersift.services.accounts import create_account
from papersift.settings import Settings
from papersift.store import open_store
from papersift.web import topic_pages
from papersift.web.i18n import interface
from papersift.web.pages import make_templates
from papersift.web.topic_pages import map_view, widest
from tests.support.data import DAILY_DAYS, day_records
from tests.support.processes import run_cli, serving
from tests.test_web_library import csrf, log_in

CATEGORY = "cs.AI"
DAY = DAILY_DAYS[1]
READERS = {"ada": "ada's password", "bob": "bob's password", "cy": "cy's password"}


@pytest.fixture(scope="module")
def lab_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("topics-lab") / "home"
    shutil.copytree(topics_home, home)
    with contextlib.closing(open_store(Settings(home=home))) as store:  # as `papersift reader add` does
        for name, password in READERS.items():
            create_account(store, name, password)
    return home


@pytest.fixture(scope="module")
def lab(lab_home: Path) -> Iterator[httpx.Client]:
    with serving(lab_home, {"PAPERSIFT_ACCOUNTS": "true"}) as client:
        yield client


def test_the_map_api_is_the_topics_commands_json(lab: httpx.Client, lab_home: Path) -> None:
    response = lab.get(f"/api/map/{CATEGORY}/{DAY}")
    assert response.status_code == 200
    data = response.json()
    cli = json.loads(run_cli("topics", CATEGORY, "--date", DAY, "-f", "json", home=lab_home).stdout)
    assert data == cli
    listing = lab.get(f"/api/list/{CATEGORY}/{DAY}").json()
    assert sorted(p["id"] for p in data["points"]) == sorted(e["id"] for e in listing["entries"])
    assert lab.get(f"/api/map/{CATEGORY}/1999-01-01").status_code == 404
    assert lab.get(f"/api/map/{CATEGORY}/{DAY}?days=99").status_code == 400
    paths = lab.get("/openapi.json").json()["paths"]
    assert {"/api/map/{category}/{day}", "/map/{category}/{day}", "/api/trending"} <= set(paths)


def test_the_map_is_drawn_above_the_listing_and_on_its_own_page(lab: httpx.Client) -> None:
    data = lab.get(f"/api/map/{CATEGORY}/{DAY}").json()
    page = lab.get(f"/list/{CATEGORY}/{DAY}?map=1").text  # drawn now (a first view: its placeholder)
    assert page.count("<circle ") == 3 * len(data["points"])  # drawn for a desktop, a tablet, a phone
    assert page.count('class="chip" data-cluster=') == len(data["clusters"])
    for cluster in data["clusters"]:  # each chip: the label (or its most central paper's title) · papers
        if cluster["label"]:
            assert f"{cluster['label']} · {len(cluster['papers'])}</button>" in page
    # the groups no phrase names: one "other papers" group, last, drawn grey and unlabelled, under the rest
    unnamed = [c for c in data["clusters"] if not c["label"]]
    assert len(unnamed) <= 1 and all(
        c["label"] for c in data["clusters"][: len(data["clusters"]) - len(unnamed)]
    )
    assert "“" not in page.split("<svg")[1].split("</svg>")[0]  # no label is a paper's title
    assert '<section class="topic-map"' in page and "data-title=" not in page  # titles: in the rows only
    assert "<script>" not in page and "<style" not in page  # the strict CSP: scripts and styles are files
    own = lab.get(f"/map/{CATEGORY}/{DAY}")
    assert own.status_code == 200

    def drawn(text: str, drawing: str) -> tuple[float, float]:
        assert text.count(f'<svg class="map {drawing}"') == 1
        svg = text.split(f'<svg class="map {drawing}" viewBox="0 0 ')[1].split("</svg>")[0]
        assert svg.count("<circle ") == len(data["points"])
        width, height = (float(v) for v in svg.split('"')[0].split())
        return width, height

    assert [drawn(page, d) for d in ("small", "mid", "phone")] == [(800, 420), (600, 380), (340, 300)]
    for drawing in ("wide", "middle", "narrow"):  # the map page's large map: a desktop's, tablet's, phone's
        width, height = drawn(own.text, drawing)
        assert height > 0.7 * width > 200
    chinese = lab.get(f"/map/{CATEGORY}/{DAY}?lang=zh").text
    assert "主题" in chinese and "主题地图" not in chinese.split("<main>")[0]
    assert "主题 · " in lab.get(f"/list/{CATEGORY}/{DAY}?lang=zh&map=1").text


def test_three_readers_signals_show_on_rows_and_trending(lab: httpx.Client, lab_home: Path) -> None:
    ids = [str(r["id"]) for r in day_records(lab_home, DAY) if CATEGORY in r["categories"]][:3]
    clients = {name: log_in(lab, name, password) for name, password in READERS.items()}
    plan = {"ada": [(ids[0], 1), (ids[1], 0)], "bob": [(ids[0], 1), (ids[2], -1)], "cy": [(ids[0], 0)]}
    for name, ratings in plan.items():
        client = clients[name]
        token = csrf(client, f"/list/{CATEGORY}/{DAY}")
        for pid, rating in ratings:
            response = client.post("/library/rate", data={"id": pid, "rating": str(rating), "csrf": token})
            assert response.status_code == 303
    trending = lab.get("/api/trending").json()
    assert trending["days"] == 7
    assert [(p["id"], p["saves"], p["upvotes"]) for p in trending["papers"]] == [
        (ids[0], 3, 2),
        (ids[1], 1, 0),
    ]
    assert trending["papers"][0]["title"]
    assert lab.get("/api/trending?days=1").json()["days"] == 1
    row = (
        clients["ada"]
        .get(f"/list/{CATEGORY}/{DAY}?rest=1")
        .text.split(f'id="p-{ids[0]}"')[1]
        .split("</article>")[0]
    )
    assert "★ 3 saved · 2 +1" in row
    # counts, never names (as words: a random CSRF token in the row may hold "ada" among its hex digits)
    assert not re.search(r"\b(?:ada|bob)\b", row)
    page = clients["bob"].get("/trending").text
    assert "Don&#39;t count me" in page or "Don't count me" in page
    # cy stops being counted: her save no longer counts
    token = csrf(clients["cy"], "/trending")
    assert clients["cy"].post("/lab/counted", data={"counted": "0", "csrf": token}).status_code == 303
    assert lab.get("/api/trending").json()["papers"][0]["saves"] == 2
    assert "Count me" in clients["cy"].get("/trending").text
    assert lab.post("/lab/counted", data={"counted": "0", "csrf": "forged"}).status_code == 403
    # the digests: "popular in your lab this week"
    markdown = lab_home / "ada.md"
    run_cli("digest", "--markdown", str(markdown), "--reader", "ada", "--date", DAY, home=lab_home)
    text = markdown.read_text()
    assert "## Popular in your lab this week" in text
    assert f"(https://arxiv.org/abs/{ids[0]}) — 2 saved · 2 +1" in text


def test_a_day_of_two_or_three_papers_shows_its_listing_without_a_map(lab: httpx.Client) -> None:
    counts = lab.get("/api/categories").json()
    small = []
    for category in ("cs.CL", "cs.LG", "cs.CV", "cs.RO", "cs.HC", "cs.MA", "cs.CY", "cs.SE", "cs.IR"):
        listing = lab.get(f"/api/list/{category}/{DAY}")
        if listing.status_code == 200 and 2 <= len(listing.json()["entries"]) <= 3:
            small.append(category)
    assert small, counts
    for category in small:
        page = lab.get(f"/list/{category}/{DAY}")
        assert page.status_code == 200 and '<section class="topic-map"' not in page.text
        assert lab.get(f"/map/{category}/{DAY}").status_code == 200
        assert lab.get(f"/api/map/{category}/{DAY}").status_code == 200


GROUP = re.compile(r'<g class="pt [^"]*" data-cluster="(\d+)">(.*?)</g>', re.S)
POINT = re.compile(r'<circle cx="([\d.]+)" cy="([\d.]+)"')
CHIP = re.compile(r'class="chip" data-cluster="(\d+)" data-papers="([^"]*)"')


def drawn_points(page: str) -> dict[tuple[str, str], tuple[str, str]]:
    """(drawing, paper id) → the paper's point (cx, cy) in each of the page's drawings (a topic's points
    are a group of circles in the order of its chip's papers)."""
    papers = {n: ids.split() for n, ids in CHIP.findall(page)}
    drawings = re.findall(r'<svg class="map (\w+)"(.*?)</svg>', page, re.S)
    return {
        (name, pid): xy
        for name, svg in drawings
        for n, group in GROUP.findall(svg)
        for pid, xy in zip(papers[n], POINT.findall(group), strict=True)
    }


def test_daily_papers_map_stays_put_when_a_paper_is_saved(lab: httpx.Client, lab_home: Path) -> None:
    reader = log_in(lab, "cy", READERS["cy"])
    before = reader.get(f"/daily/{DAY}?map=1").text  # the map drawn now, not its placeholder
    points = drawn_points(before)
    assert len(points) > 3 * 20
    labels = re.findall(r'<text class="lbl"[^>]*>([^<]+)</text>', before)
    pid = next(iter(points))[1]
    token = csrf(reader, f"/daily/{DAY}")
    saved = reader.post("/library/rate", data={"id": pid, "rating": "1", "csrf": token})
    assert saved.status_code == 303
    after = reader.get(f"/daily/{DAY}?map=1").text
    moved = {key: xy for key, xy in drawn_points(after).items() if points.get(key, xy) != xy}
    assert not moved and re.findall(r'<text class="lbl"[^>]*>([^<]+)</text>', after) == labels


def map_of(page: str) -> str:
    """The drawn map of a page: its SVG, as served."""
    return page.split('<section class="topic-map"')[1].split("</svg>")[0]


def test_a_listings_map_never_depends_on_a_readers_library(lab: httpx.Client, lab_home: Path) -> None:
    anonymous = map_of(lab.get(f"/list/{CATEGORY}/{DAY}?lang=en&map=1").text)  # drawn now
    reader = log_in(lab, "bob", READERS["bob"])
    before = map_of(reader.get(f"/list/{CATEGORY}/{DAY}?map=1").text)
    pid = next(iter(drawn_points(reader.get(f"/list/{CATEGORY}/{DAY}?map=1").text)))[1]
    token = csrf(reader, f"/list/{CATEGORY}/{DAY}")
    assert reader.post("/library/rate", data={"id": pid, "rating": "1", "csrf": token}).status_code == 303
    assert map_of(reader.get(f"/list/{CATEGORY}/{DAY}?map=1").text) == before == anonymous


def test_daily_papers_carry_each_paper_and_its_title_once(lab: httpx.Client) -> None:
    reader = log_in(lab, "ada", READERS["ada"])
    page = reader.get(f"/daily/{DAY}?rest=1").text  # every part (web/parts.py)
    entries = reader.get(f"/api/daily/{DAY}").json()["entries"]
    rows = re.findall(r'<article class="paper[^"]*" id="p-([^"]+)"', page)
    assert len(rows) == len(set(rows)) == len(entries) > 20
    titles = re.findall(r'<a class="title" href="/abs/([^"]+)">', page)
    assert sorted(titles) == sorted(rows) and "data-title=" not in page


def test_the_days_other_papers_are_drawn_grey_under_the_topics_and_unlabelled() -> None:
    clusters = [
        {"label": "graph neural networks", "terms": ["graph neural networks"], "papers": ["a", "b", "c"]},
        {
            "label": "",
            "terms": ["speech", "budget"],
            "papers": ["d", "e"],
        },  # the groups no phrase names: one, last
    ]
    points = [
        {"id": i, "x": x, "y": x, "cluster": c} for i, x, c in (("d", 0.1, 1), ("a", 0.5, 0), ("e", 0.9, 1))
    ]
    points += [{"id": i, "x": 0.5, "y": 0.6, "cluster": 0} for i in ("b", "c")]
    tmap = TopicMap.make(category="", date="", clusters=clusters, points=points)
    view = map_view(tmap, {})
    assert [t["colour"] for t in view["topics"]] == ["t0", "t-other"]
    for drawing in view["drawings"]:
        assert [p["colour"] for p in drawing["points"]] == ["t-other"] * 2 + ["t0"] * 3  # grey ones first
        assert [label["label"] for label in drawing["labels"]] == ["graph neural networks"]
    assert interface("en")["other_topic"] == "other papers" and interface("zh")["other_topic"] == "其他论文"


def test_a_topic_named_by_its_category_is_said_in_the_pages_language() -> None:
    # "Graphics" (cs.GR's name) names a topic: the chips, the map's label and its tooltip say 图形学 on the
    # 中文 face; the label is placed by its widest face, so it overlaps nothing in either language
    clusters = [
        {"label": "Graphics", "terms": ["Graphics", "mesh rendering"], "papers": ["a", "b", "c"]},
        {"label": "KV cache", "terms": ["KV cache"], "papers": ["d", "e", "f"]},
    ]
    points = [{"id": i, "x": n / 6, "y": 0.5, "cluster": int(n >= 3)} for n, i in enumerate("abcdef")]
    tmap = TopicMap.make(category="", date="", clusters=clusters, points=points)
    view = map_view(tmap, {})
    assert [t["category"] for t in view["topics"]] == [True, False]
    env = make_templates(Path(topic_pages.__file__).parent / "templates", katex=False).env
    shown = {}
    for lang in ("en", "zh"):
        html = env.get_template("_topic_map.html").render(tm=view, t=interface(lang), lang=lang, here="/")
        shown[lang] = html
        assert "KV cache · 3" in html  # a phrase as its papers write it, in every language
    assert "Graphics · 3" in shown["en"] and ">Graphics</text>" in shown["en"]
    assert "图形学 · 3" in shown["zh"] and ">图形学</text>" in shown["zh"] and "Graphics" not in shown["zh"]
    assert widest("Graphics") == "Graphics" and widest("Computer Vision and Pattern Recognition")
