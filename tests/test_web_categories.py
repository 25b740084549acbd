"""Category names and the category picker: the store's listed categories, the listing pages, /categories."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

import httpx
import pytest

from papersift.records.paper import Deleted, Paper
from papersift.store import Store
from papersift.web.categories import picker


def _paper(pid: str, categories: list[str], day: date) -> Paper:
    return Paper(
        pid,
        title=f"Paper {pid}",
        authors=["Ada Lovelace"],
        abstract="Plain text.",
        categories=categories,
        announced=day,
        source="test",
    )


def test_listed_categories_counts_rows_in_all_and_on_one_day(store: Store) -> None:
    monday, tuesday = date(2026, 1, 19), date(2026, 1, 20)
    store.upsert(
        [
            _paper("2601.00001", ["cs.LG", "stat.ML"], monday),
            _paper("2601.00002", ["cs.LG"], tuesday),
            _paper("2601.00003", ["hep-th"], tuesday),
        ]
    )
    assert store.listed_categories() == [("cs.LG", 2), ("hep-th", 1), ("stat.ML", 1)]
    assert store.listed_categories(tuesday) == [("cs.LG", 1), ("hep-th", 1), ("stat.ML", 0)]
    assert store.listed_categories(date(2026, 1, 1)) == [("cs.LG", 0), ("hep-th", 0), ("stat.ML", 0)]
    store.upsert([Deleted("2601.00003")])  # a day's count is what the listing shows
    assert store.listed_categories(tuesday) == [("cs.LG", 1), ("hep-th", 0), ("stat.ML", 0)]
    assert len(store.listing("hep-th", tuesday)) == 0


def test_picker_groups_in_taxonomy_order_with_archive_links_and_odd_ids_last() -> None:
    listed = {"stat.ML": 0, "cs.LG": 5, "cs.AI": 2, "hep-th": 1, "astro-ph": 0, "chao-dyn": 0, "na": 3}
    sections = [s.dump() for s in picker(listed, "cs.LG", "2026-01-20")]
    assert [s["name"] for s in sections] == ["Computer Science", "Physics", "Statistics", None]
    cs = sections[0]["categories"]
    assert [i["id"] for i in cs] == ["cs", "cs.AI", "cs.LG"]
    assert cs[0]["archive"] and cs[0]["count"] is None and cs[0]["href"] == "/list/cs/2026-01-20"
    assert cs[2] == {
        "id": "cs.LG",
        "name": "Machine Learning",
        "count": 5,
        "href": "/list/cs.LG/2026-01-20",
        "current": True,
        "archive": False,
    }
    physics = [(i["id"], i["href"]) for i in sections[1]["categories"]]
    # hep-th is flat (no archive link); the bare old astro-ph id is the archive's link; nothing that day
    assert physics == [
        ("astro-ph", "/list/astro-ph"),
        ("hep-th", "/list/hep-th/2026-01-20"),
        ("nlin", "/list/nlin"),
        ("chao-dyn", "/list/chao-dyn"),
    ]
    assert sections[3]["categories"][0]["id"] == "na" and sections[3]["categories"][0]["name"] is None


@pytest.fixture
def web(server: httpx.Client) -> Iterator[httpx.Client]:
    """A client of the shared server with its own cookies (no language remembered from other tests)."""
    with httpx.Client(base_url=server.base_url, timeout=60) as client:
        yield client


def test_listing_page_names_its_category_and_links_the_other_listed_ones(web: httpx.Client) -> None:
    data = web.get("/api/list/cs.LG").json()
    assert data["category_name"] == "Machine Learning"
    page = web.get(f"/list/cs.LG/{data['date']}")
    assert page.status_code == 200
    heading = r"<h1>cs\.LG — Machine Learning · <span class=\"date\">\d{4}-\d\d-\d\d</span></h1>"
    assert re.search(heading, page.text)
    picker_html = page.text[page.text.index('<details class="picker">') :]
    picker_html = picker_html[: picker_html.index("</details>")]
    assert f'href="/list/cs.LG/{data["date"]}" aria-current="page">cs.LG — Machine Learning' in picker_html
    # stat.ML has a listing that day (the cross-listed followed paper): linked to that day, with its count
    assert f'href="/list/stat.ML/{data["date"]}">stat.ML — Machine Learning</a>' in picker_html
    linked = set(re.findall(r'href="/list/([^/"]+)', picker_html))
    listed = {
        c["id"]
        for g in web.get("/api/categories").json()["groups"]
        for a in g["archives"]
        for c in a["categories"]
        if c["listings"]
    }
    assert listed <= linked and "cs.CR" in linked and "cs" in linked
    assert "/categories" in picker_html and "<script" not in picker_html
    zh = web.get(f"/list/cs.LG/{data['date']}", params={"lang": "zh"}).text
    assert "分类目录" in zh and "计算机科学" in zh


def test_categories_page_lists_the_whole_taxonomy_with_links_where_listed(web: httpx.Client) -> None:
    page = web.get("/categories")
    assert page.status_code == 200
    assert '<a href="/list/cs.LG">cs.LG — Machine Learning</a>' in page.text
    assert "Cosmology and Nongalactic Astrophysics" in page.text and "Quantitative Finance" in page.text
    assert (
        '<span class="unlisted" title="nothing stored">q-fin.TR — Trading and Market Microstructure'
        in page.text
    )


def test_api_categories_shape(server: httpx.Client) -> None:
    data = server.get("/api/categories").json()
    assert [g["id"] for g in data["groups"]] == [
        "cs",
        "econ",
        "eess",
        "math",
        "physics",
        "q-bio",
        "q-fin",
        "stat",
    ]
    cats = {c["id"]: c for g in data["groups"] for a in g["archives"] for c in a["categories"]}
    assert len(cats) == 155 and set(cats["cs.LG"]) == {"id", "name", "alias_of", "listings"}
    assert cats["cs.LG"]["listings"] >= 2 and cats["cs.SY"]["alias_of"] == "eess.SY"
    assert cats["q-fin.TR"]["listings"] == 0
    assert all(set(o) == {"id", "name", "now", "listings"} and o["listings"] > 0 for o in data["other"])
    cs = data["groups"][0]["archives"][0]
    assert (cs["id"], cs["name"], cs["flat"], cs["listed"]) == ("cs", "Computer Science", False, True)


def test_unknown_category_still_404s(server: httpx.Client) -> None:
    assert server.get("/list/no.such").status_code == 404
    assert server.get("/api/list/cs.XX").json()["error"] == "no listings for cs.XX"
