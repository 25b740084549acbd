"""Search's page and API over real papers (a copy of the topics home, the app in process): ``/api/search``
echoes its sort as it echoes its mode; the page's count line says the ranks shown, on a later part's own page
and in the part the script appends ("results 1–50"), in English and 中文; a search is one frozen form
(``SearchForm``), its cache key telling None from "None", the page and the API ranking it alike; in Chromium
an appended part updates the count line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import FrozenInstanceError
from pathlib import Path

import httpx
import pytest

from papersift.web.parts import PART
from papersift.web.search_pages import SearchForm
from tests.support.browser import CHROMIUM, browsing, screenshot_path
from tests.support.homes import home_copy
from tests.support.inproc import app_client
from tests.support.processes import serving

QUERY = {"q": "model", "mode": "keyword"}  # 100 results and more: four parts
COUNT = re.compile(r'<p class="counts result-count">(.*?)</p>', re.S)
MORE = re.compile(r'<a class="more-link" rel="next" href="([^"]+)" data-rows="([^"]+)">')
ROW = re.compile(r'<article class="paper[^"]*" id="p-([^"]+)"')


@pytest.fixture(scope="module")
def search_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(topics_home, tmp_path_factory, "search")


@pytest.fixture(scope="module")
def site(search_home: Path) -> Iterator[httpx.Client]:
    with app_client(search_home) as client:
        yield client


def unescaped(url: str) -> str:
    return url.replace("&amp;", "&")


def test_the_api_echoes_its_sort_as_it_echoes_its_mode(site: httpx.Client) -> None:
    for sort in ("relevance", "date"):
        answer = site.get("/api/search", params=QUERY | {"sort": sort}).json()
        assert answer["sort"] == sort and answer["mode"] == "keyword" and answer["results"]
    assert site.get("/api/search", params=QUERY).json()["sort"] == "relevance"  # the default, said
    schema = site.get("/openapi.json").json()["components"]["schemas"]["SearchAnswer"]
    assert "sort" in schema["required"] and list(schema["properties"])[:3] == ["query", "mode", "sort"]


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "results {first}–{last}"), ("zh", "第 {first}–{last} 条结果")],
)
def test_the_count_line_says_the_ranks_shown_once_a_part_is_appended(
    site: httpx.Client, lang: str, words: str
) -> None:
    def line(page: str) -> str:
        (found,) = COUNT.findall(page)  # one count line, on the page and in a part
        return str(found)

    page = site.get("/search", params=QUERY | {"lang": lang}).text  # (the language is remembered)
    assert line(page).endswith(words.format(first=1, last=PART))
    more = MORE.search(page)
    assert more and "first=1" in unescaped(more.group(2)) and "first=" not in unescaped(more.group(1))
    appended = site.get(unescaped(more.group(2))).text
    assert len(ROW.findall(appended)) == PART
    assert line(appended).endswith(words.format(first=1, last=2 * PART))
    # without script, the second part's page counts its own ranks; a part appended to it counts on from them
    second = site.get("/search", params=QUERY | {"page": 2}).text
    assert line(second).endswith(words.format(first=PART + 1, last=2 * PART))
    after = MORE.search(second)
    assert after and f"first={PART + 1}" in unescaped(after.group(2))
    third = site.get(unescaped(after.group(2))).text
    last = PART + len(ROW.findall(second)) + len(ROW.findall(third))
    assert line(third).endswith(words.format(first=PART + 1, last=last))
    odd = site.get("/search", params=QUERY | {"page": 2, "fragment": 1, "first": 999}).text  # not a start
    assert line(odd).endswith(words.format(first=PART + 1, last=2 * PART))


def test_a_search_is_one_frozen_form_whose_key_tells_none_from_the_word_none(site: httpx.Client) -> None:
    form = SearchForm("agents", category=None)
    assert form == SearchForm("agents") and hash(form) == hash(SearchForm("agents"))
    assert form.key() == SearchForm("agents").key()
    assert form.key() != SearchForm("agents", category="None").key()
    assert form.key() != SearchForm("agents", verbatim=True).key()
    with pytest.raises(FrozenInstanceError):
        form.q = "other"  # type: ignore[misc]
    # the page and the API rank one form alike: the page's first part is the API's first page of PART
    page = site.get("/search", params=QUERY | {"sort": "date"}).text
    api = site.get("/api/search", params=QUERY | {"sort": "date", "k": PART}).json()
    assert ROW.findall(page) == [r["id"] for r in api["results"]]
    assert site.get("/api/search", params=QUERY | {"sort": "newest"}).status_code in (400, 422)


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
def test_in_chromium_an_appended_part_updates_the_count_line(
    browser: object, search_home: Path, request: pytest.FixtureRequest
) -> None:
    from playwright.sync_api import expect

    with (
        serving(search_home) as server,
        browsing(browser, str(server.base_url), screenshot_path(request)) as page,
    ):
        page.goto("/search?q=model&mode=keyword&lang=en")  # type: ignore[attr-defined]
        count = page.locator("p.result-count")  # type: ignore[attr-defined]
        rows = page.locator("section.results article.paper")  # type: ignore[attr-defined]
        expect(count).to_have_text(re.compile(rf"results 1–{PART}$"))
        page.locator("a.more-link").click()  # type: ignore[attr-defined]
        expect(rows).to_have_count(2 * PART)
        expect(count).to_have_count(1)
        expect(count).to_have_text(re.compile(rf"results 1–{2 * PART}$"))
        assert count.evaluate("p => p.nextElementSibling.matches('section.results')")
