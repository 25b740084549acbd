"""Light pages at any size of day (``web/parts.py``, ``_part.html``): a listing, Daily Papers and search show
a first part of 25 papers and a "more" link that works without script (the next part's page, numbered on)
and with it (the part's rows alone, appended); every paper of the day is reachable; the topic map above the
first part covers the whole day and a chip without script opens all of its topic's papers, those of later
parts too; in Chromium, "more" appends the next part and the keys move, save, expand and open. A day's
first view does not wait for its map: it holds a placeholder (not kept in the page cache, no map computed)
and the map comes alone (``?map=1&fragment=1``, what the script puts in its place) or inline once drawn,
drawn once, beside the requests too; without script the placeholder links to the map.

Over a real day: every cs.AI paper of 2026-08-21 (82), embedded (``topics_home``)."""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from papersift.web.parts import PART
from tests.support.browser import CHROMIUM, MAP_MS, browsing, screenshot_path
from tests.support.data import DAILY_DAYS
from tests.support.homes import home_copy
from tests.support.inproc import app_client
from tests.support.processes import serving

DAY = DAILY_DAYS[1]
LISTING = f"/list/cs.AI/{DAY}"
ROW = re.compile(r'<article class="paper[^"]*" id="p-([^"]+)".*?<span class="number">#(\d+)</span>', re.S)
MORE = re.compile(r'<a class="more-link" rel="next" href="([^"]+)" data-rows="([^"]+)">([^<]+)</a>')
REST = re.compile(r'<a class="rest-link" href="([^"]+)">([^<]+)</a>')
CHIP = re.compile(
    r'<button type="submit"( name="topic" value="\d+")? class="chip" data-cluster="(\d+)" '
    r'data-papers="([^"]*)" aria-pressed="(true|false)"'
)
WORDS = {
    "en": {
        "more": "more: #26–#50 of {n}",
        "rest": "all {n} remaining",
        "shown": "papers #26–#50 of {n}",
        "topic": "topic “",
        "all": "show them all",
        "keys": "Keys: j / k next / previous paper",
    },
    "zh": {
        "more": "更多：#26–#50（共 {n} 篇）",
        "rest": "其余 {n} 篇全部显示",
        "shown": "第 #26–#50 篇，共 {n} 篇",
        "topic": "主题“",
        "all": "显示全部",
        "keys": "快捷键：j / k 下一篇 / 上一篇",
    },
}


@pytest.fixture(scope="module")
def light_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(topics_home, tmp_path_factory, "light")


@pytest.fixture(scope="module")
def light(light_home: Path) -> Iterator[httpx.Client]:
    """The app with the day's maps drawn (as every view after a day's first finds them: the first view's
    placeholder is ``test_a_days_first_view_holds_a_placeholder_…``)."""
    with app_client(light_home) as client:
        for page in (LISTING, f"/daily/{DAY}"):
            assert '<section class="topic-map"' in client.get(page, params={"map": 1, "fragment": 1}).text
        yield client


@pytest.fixture(scope="module")
def day_ids(light: httpx.Client) -> list[str]:
    """The day's papers in arXiv's order (the JSON twin: the whole day)."""
    entries = light.get(f"/api{LISTING}").json()["entries"]
    assert [e["number"] for e in entries] == list(range(1, len(entries) + 1))
    assert len(entries) > 3 * PART, "a day of more than three parts"
    return [e["id"] for e in entries]


def rows(page: str) -> list[tuple[str, int]]:
    """(paper id, its number #NN) of each row of a page, in order."""
    return [(pid, int(n)) for pid, n in ROW.findall(page)]


def unescaped(url: str) -> str:
    return url.replace("&amp;", "&")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_big_days_listing_opens_with_its_first_part_the_whole_days_map_and_a_more_link(
    light: httpx.Client, day_ids: list[str], lang: str
) -> None:
    response = light.get(LISTING, params={"lang": lang})
    page, words, n = response.text, WORDS[lang], len(day_ids)
    assert rows(page) == list(zip(day_ids[:PART], range(1, PART + 1), strict=True))
    more = MORE.search(page)
    assert more and more.group(3) == words["more"].format(n=n)
    assert (
        unescaped(more.group(1)) == f"{LISTING}?part=2"
        and unescaped(more.group(2)) == f"{LISTING}?part=2&fragment=1"
    )
    rest = REST.search(page)
    assert rest and rest.group(2) == words["rest"].format(n=n - PART)
    # the map: every paper of the day, in each of its three drawings, each named by one chip
    chips = CHIP.findall(page)
    assert sorted(pid for chip in chips for pid in chip[2].split()) == sorted(day_ids)
    assert page.count("<circle ") == 3 * n and all(chip[3] == "false" for chip in chips)
    assert words["keys"] in page  # the keys, listed on the page
    whole = light.get(LISTING, params={"lang": lang, "part": 1, "rest": 1}).content
    assert len(response.content) < 0.6 * len(whole) and len(response.content) < 150_000


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_script_more_reaches_every_paper_of_the_day_numbered_on(
    light: httpx.Client, day_ids: list[str], lang: str
) -> None:
    path, seen, pages = f"{LISTING}?lang={lang}", [], 0
    while path:
        page = light.get(path).text
        shown = rows(page)
        assert [n for _, n in shown] == list(range(len(seen) + 1, len(seen) + len(shown) + 1))  # numbered on
        assert ('<section class="topic-map"' in page) == (pages == 0)  # the map: above the first part only
        if pages == 1:
            assert WORDS[lang]["shown"].format(n=len(day_ids)) in page
            assert f'<a rel="prev" href="{LISTING}">← #1–#25</a>' in page
        seen += [pid for pid, _ in shown]
        more = MORE.search(page)
        path = unescaped(more.group(1)) if more else ""
        pages += 1
    assert seen == day_ids and pages == -(-len(day_ids) // PART)


def test_the_scripts_fetch_is_the_parts_rows_alone_and_its_next_link(light: httpx.Client) -> None:
    first = light.get(LISTING).text
    link = MORE.search(first)
    assert link
    fragment = light.get(unescaped(link.group(2)))
    assert fragment.status_code == 200 and "<html" not in fragment.text and "<header" not in fragment.text
    assert rows(fragment.text) == rows(light.get(unescaped(link.group(1))).text)
    assert [n for _, n in rows(fragment.text)] == list(range(PART + 1, 2 * PART + 1))
    after = MORE.search(fragment.text)
    assert after and unescaped(after.group(1)) == f"{LISTING}?part=3"
    assert "part-note" not in fragment.text  # "papers #26–#50 of …" is the part's own page's, not appended


def test_rest_shows_every_remaining_paper_and_odd_parts_fall_back(
    light: httpx.Client, day_ids: list[str]
) -> None:
    rest = light.get(LISTING, params={"part": 2, "rest": 1}).text
    assert [pid for pid, _ in rows(rest)] == day_ids[PART:] and not MORE.search(rest)
    last = -(-len(day_ids) // PART)
    past = light.get(LISTING, params={"part": 99}).text  # past the end: the last part
    assert [pid for pid, _ in rows(past)] == day_ids[(last - 1) * PART :] and not MORE.search(past)
    for odd in ({"part": "two"}, {"part": "0"}, {"part": "-1"}, {"topic": "99"}, {"topic": "x"}):
        page = light.get(LISTING, params=odd)
        assert page.status_code == 200 and [pid for pid, _ in rows(page.text)] == day_ids[:PART], odd


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_topic_chip_without_script_opens_all_its_papers_those_of_later_parts_too(
    light: httpx.Client, day_ids: list[str], lang: str
) -> None:
    page = light.get(LISTING, params={"lang": lang}).text
    assert f'<form class="chips" method="get" action="{LISTING}"' in page
    later = set(day_ids[PART:])
    name, cluster, papers, _ = next(chip for chip in CHIP.findall(page) if later & set(chip[2].split()))
    assert name == f' name="topic" value="{cluster}"'  # the GET form's ?topic=N
    topic = light.get(LISTING, params={"lang": lang, "topic": cluster}).text
    wanted = papers.split()
    assert sorted(pid for pid, _ in rows(topic)) == sorted(wanted)
    assert all(n == day_ids.index(pid) + 1 for pid, n in rows(topic))  # each with its number in the day
    assert not MORE.search(topic) and f"{WORDS[lang]['topic']}" in topic
    assert f'<a href="{LISTING}">{WORDS[lang]["all"]}</a>' in topic
    pressed = [chip for chip in CHIP.findall(topic) if chip[3] == "true"]
    assert [(chip[0], chip[1]) for chip in pressed] == [("", cluster)]  # pressed again: the whole day
    assert 'data-topic="' in topic  # the chips' script leaves this page to the form


def test_daily_papers_come_in_parts_under_the_whole_days_map(light: httpx.Client) -> None:
    entries = light.get(f"/api/daily/{DAY}").json()["entries"]
    assert len(entries) > PART
    page = light.get(f"/daily/{DAY}").text
    assert [pid for pid, _ in rows(page)] == [e["id"] for e in entries[:PART]]
    assert '<section class="topic-map"' in page
    more = MORE.search(page)
    assert more and unescaped(more.group(1)) == f"/daily/{DAY}?part=2"
    fragment = light.get(unescaped(more.group(2))).text
    assert rows(fragment) == [(e["id"], e["number"]) for e in entries[PART : 2 * PART]]
    everything = light.get(f"/daily/{DAY}", params={"part": 2, "rest": 1}).text
    assert [pid for pid, _ in rows(everything)] == [e["id"] for e in entries[PART:]]


def test_search_results_come_in_parts_numbered_on(light: httpx.Client) -> None:
    query = {"q": "agents", "mode": "semantic"}
    page = light.get("/search", params=query | {"lang": "en"}).text  # (the language is remembered)
    assert [n for _, n in rows(page)] == list(range(1, PART + 1))
    more = MORE.search(page)
    assert more and more.group(3) == "more results: #26–#50" and "page=2" in more.group(1)
    fragment = light.get(unescaped(more.group(2))).text
    numbers = [n for _, n in rows(fragment)]
    assert numbers and numbers == list(range(PART + 1, PART + 1 + len(numbers)))
    assert not {pid for pid, _ in rows(fragment)} & {pid for pid, _ in rows(page)}
    ten = light.get("/search", params=query | {"k": 10}).text  # a size asked for is kept in the links
    assert len(rows(ten)) == 10 and "k=10" in MORE.search(ten).group(1)  # type: ignore[union-attr]
    assert len(light.get("/api/search", params=query).json()["results"]) == 10  # the API as it was
    chinese = light.get("/search", params=query | {"lang": "zh"}).text
    assert "更多结果：#26–#50" in chinese


def test_the_search_forms_empty_dates_are_no_filter_and_a_bad_one_is_said(light: httpx.Client) -> None:
    # the form sends its empty date fields (since=&until=), as its own links did: no filter, not a 400
    empty = light.get("/search", params={"q": "agents", "mode": "keyword", "since": "", "until": ""})
    assert empty.status_code == 200 and rows(empty.text)
    more = MORE.search(empty.text)
    assert more is None or "since=" not in more.group(1)  # the parts' links carry no empty field
    bad = light.get("/search", params={"q": "agents", "since": "2026-13-01", "lang": "en"})
    assert bad.status_code == 400 and "not a date" in bad.text


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
def test_in_chromium_more_appends_the_next_part_and_the_keys_move_save_expand_and_open(
    browser: object, light_home: Path, day_ids: list[str], request: pytest.FixtureRequest
) -> None:
    from playwright.sync_api import expect

    with (
        serving(light_home) as server,
        browsing(browser, str(server.base_url), screenshot_path(request)) as page,
    ):
        page.goto(LISTING)  # type: ignore[attr-defined]
        listed = page.locator("section.listing article.paper")  # type: ignore[attr-defined]
        assert listed.count() == PART
        page.locator("a.more-link").click()  # type: ignore[attr-defined]
        expect(listed).to_have_count(2 * PART)
        assert page.url.endswith(LISTING)  # type: ignore[attr-defined]  # appended, no page left
        assert listed.nth(PART).locator(".number").inner_text() == f"#{PART + 1}"
        assert listed.nth(PART).get_attribute("id") == f"p-{day_ids[PART]}"
        for _ in range(2 * PART + 1):  # j past the last row shown loads the next part
            page.keyboard.press("j")  # type: ignore[attr-defined]
        current = page.locator("article.paper.current")  # type: ignore[attr-defined]
        expect(current).to_have_id(f"p-{day_ids[2 * PART]}")
        expect(listed).to_have_count(3 * PART)
        page.keyboard.press("k")  # type: ignore[attr-defined]
        expect(current).to_have_id(f"p-{day_ids[2 * PART - 1]}")
        page.keyboard.press("e")  # type: ignore[attr-defined]
        assert "collapsed" not in current.locator(".abstract").get_attribute("class")
        page.keyboard.press("s")  # type: ignore[attr-defined]  # saved (the appended row's form works)
        expect(current).to_have_class(re.compile(r"\bsaved\b"))
        expect(current.locator("button.save")).to_have_attribute("aria-pressed", "true")
        target = day_ids[2 * PART - 1]
        page.keyboard.press("o")  # type: ignore[attr-defined]
        page.wait_for_url(f"**/abs/{target}")  # type: ignore[attr-defined]
        # a chip whose topic has papers in later parts: they are loaded, and only the topic's rows shown
        page.goto(LISTING)  # type: ignore[attr-defined]
        page.locator(".topic-map.pending").wait_for(state="detached", timeout=MAP_MS)  # type: ignore[attr-defined]
        chips = page.locator(".chips button.chip")  # type: ignore[attr-defined]
        chip = next(
            c for c in chips.all() if set(c.get_attribute("data-papers").split()) & set(day_ids[PART:])
        )
        wanted = set(chip.get_attribute("data-papers").split())
        chip.click()
        expect(page.locator("nav.more")).to_have_count(0)  # type: ignore[attr-defined]
        expect(listed).to_have_count(len(day_ids))
        assert page.url.endswith(LISTING) and chip.get_attribute("aria-pressed") == "true"  # type: ignore[attr-defined]
        shown = {r.get_attribute("id").removeprefix("p-") for r in listed.all() if r.is_visible()}
        assert shown == wanted and listed.count() == len(day_ids)


def test_the_map_of_the_listing_a_reader_opens_first_is_drawn_when_the_server_starts(
    light_home: Path,
) -> None:
    """``serve`` draws the map of the listing ``/`` opens beside itself (``web/app.warm_maps``), so the
    first view finds its map drawn instead of waiting seconds for it."""
    from papersift.settings import Settings
    from papersift.web.app import warm_maps
    from papersift.web.state import open_state

    state = open_state(Settings(home=light_home))
    try:
        assert not [key for key in state._cache if "topic-map" in key]
        warm_maps(state)
        drawn = [key for key in state._cache if "topic-map" in key]
        assert len(drawn) == 1
        state.cached(drawn[0][-2:], lambda: pytest.fail("the map is drawn again"), index=True)
    finally:
        state.close()


PLACEHOLDER = re.compile(
    r'<section class="topic-map pending"[^>]*data-map="([^"]+)">.*?<p class="map-wait">([^<]+)'
    r'<a href="([^"]+)">([^<]+)</a>',
    re.S,
)
WAITING = {"en": ("The topic map is being drawn. ", "Open it"), "zh": ("主题地图正在绘制。 ", "打开")}


@dataclass
class Cold:
    """An app just started (``cold_app``) and the maps it has computed: one entry per computation."""

    client: httpx.Client
    drawn: list[int]


@contextlib.contextmanager
def cold_app(home: Path, monkeypatch: pytest.MonkeyPatch, soon: float = 3600.0) -> Iterator[Cold]:
    """The app over ``home`` just started, nothing drawn at its start, what ``soon`` computes waiting
    ``soon`` seconds first; ``drawn`` counts the computations of a map (``ranking/topics``' ``topic_map``)."""
    from papersift.ranking.topics import topic_map
    from papersift.web import app, state, topic_pages

    drawn: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        drawn.append(1)
        return topic_map(*args, **kwargs)

    monkeypatch.setattr(topic_pages, "topic_map", counted)
    monkeypatch.setattr(app, "warm_maps", lambda state: None)
    monkeypatch.setattr(state, "SOON_SECONDS", soon)
    with app_client(home) as client:
        yield Cold(client, drawn)


@pytest.fixture(scope="module")
def cold_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(topics_home, tmp_path_factory, "cold")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_days_first_view_holds_a_placeholder_and_the_map_comes_alone_then_inline(
    cold_home: Path, day_ids: list[str], monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    with cold_app(cold_home, monkeypatch) as cold:
        client = cold.client
        client.cookies.set("lang", lang)
        first = client.get(LISTING).text
        assert [pid for pid, _ in rows(first)] == day_ids[:PART] and MORE.search(first)  # the rows at once
        slot = PLACEHOLDER.search(first)
        assert slot, "the map's placeholder"
        fragment_url, waiting, link, open_it = slot.groups()
        assert unescaped(fragment_url) == f"{LISTING}?map=1&fragment=1"
        assert (waiting, open_it) == WAITING[lang] and link == f"/map/cs.AI/{DAY}"  # no script: the map page
        assert "<circle" not in first and 'class="chip"' not in first and not cold.drawn  # no map computed
        assert client.get(LISTING).text.count("topic-map pending") == 1  # a placeholder's page is not kept
        fragment = client.get(unescaped(fragment_url))
        assert fragment.status_code == 200 and cold.drawn == [1]
        alone = fragment.text
        assert "<html" not in alone and "<link" not in alone and "<script" not in alone
        assert alone.count('<section class="topic-map"') == 1 and "pending" not in alone
        assert alone.count("<circle ") == 3 * len(day_ids)
        assert sorted(pid for chip in CHIP.findall(alone) for pid in chip[2].split()) == sorted(day_ids)
        assert f'action="{LISTING}"' in alone  # its chips: the listing's GET form, without script too
        for path in (LISTING, f"{LISTING}?map=1"):  # now drawn: inline, the map computed once
            page = client.get(path).text
            assert '<section class="topic-map"' in page and "topic-map pending" not in page
            assert page.count("<circle ") == 3 * len(day_ids)
        assert cold.drawn == [1]


def test_daily_papers_first_view_holds_a_placeholder_and_a_topic_asked_for_draws_the_map(
    cold_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    daily = f"/daily/{DAY}"
    with cold_app(cold_home, monkeypatch) as cold:
        client = cold.client
        first = client.get(daily, params={"lang": "en"}).text
        slot = PLACEHOLDER.search(first)
        assert slot and unescaped(slot.group(1)) == f"{daily}?map=1&fragment=1"
        assert slot.group(3) == f"{daily}?map=1" and not cold.drawn  # no script: the page with its map
        topic = client.get(daily, params={"topic": 0}).text  # a chip without script: drawn now
        assert '<section class="topic-map"' in topic and 'aria-pressed="true"' in topic
        assert cold.drawn == [1] and 'data-topic="0"' in topic
        alone = client.get(unescaped(slot.group(1))).text
        assert '<section class="topic-map"' in alone and "<html" not in alone
        assert '<section class="topic-map"' in client.get(daily).text and cold.drawn == [1]


def test_a_map_not_drawn_is_drawn_beside_the_requests_once(
    cold_home: Path, day_ids: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first view queues its map (``AppState.soon``); the script's fetch of it meanwhile waits for that
    drawing instead of drawing it again, and the next view finds it."""
    with cold_app(cold_home, monkeypatch, soon=0.01) as cold:
        first = cold.client.get(LISTING).text
        slot = PLACEHOLDER.search(first)
        assert slot  # (its drawing may have begun already: it waits 0.01 s here)
        alone = cold.client.get(unescaped(slot.group(1))).text
        assert alone.count("<circle ") == 3 * len(day_ids)
        assert "topic-map pending" not in cold.client.get(LISTING).text and cold.drawn == [1]
        other = f"/list/cs.AI/{DAILY_DAYS[0]}"  # another day, asked for once: drawn without a fetch
        assert "topic-map pending" in cold.client.get(other).text
        for _ in range(600):
            if "topic-map pending" not in cold.client.get(other).text:
                break
            time.sleep(0.1)
        assert '<section class="topic-map"' in cold.client.get(other).text and cold.drawn == [1, 1]


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
def test_in_chromium_the_map_comes_after_the_rows_and_its_chips_filter_them_and_without_script_a_link(
    browser: object, cold_home: Path, request: pytest.FixtureRequest
) -> None:
    from playwright.sync_api import expect

    daily = f"/daily/{DAY}"
    with (
        serving(cold_home) as server,
        browsing(browser, str(server.base_url), screenshot_path(request)) as page,
    ):
        response = page.goto(daily)  # type: ignore[attr-defined]
        assert "topic-map pending" in response.text()  # the rows first, the map to come
        expect(page.locator(".topic-map.pending")).to_have_count(0, timeout=MAP_MS)  # type: ignore[attr-defined]
        chips = page.locator(".topic-map .chips button.chip")  # type: ignore[attr-defined]
        expect(page.locator("svg.map.small circle")).not_to_have_count(0)  # type: ignore[attr-defined]
        chip = chips.nth(1)
        wanted = set(chip.get_attribute("data-papers").split())
        point = page.locator("svg.map.small circle").last  # type: ignore[attr-defined]  # drawn on top
        point.hover()
        expect(page.locator(".map-tip")).to_be_visible()  # type: ignore[attr-defined]
        chip.click()
        expect(chip).to_have_attribute("aria-pressed", "true")
        expect(page.locator("nav.more")).to_have_count(0)  # type: ignore[attr-defined]  # the rest loaded
        listed = page.locator("section.listing article.paper")  # type: ignore[attr-defined]
        shown = {r.get_attribute("id").removeprefix("p-") for r in listed.all() if r.is_visible()}
        assert shown == wanted and page.url.endswith(daily)  # type: ignore[attr-defined]
        # without script: the placeholder is a link to the map's page
        bare = browser.new_context(base_url=str(server.base_url), java_script_enabled=False)  # type: ignore[attr-defined]
        try:
            plain = bare.new_page()
            plain.goto(f"/list/cs.AI/{DAILY_DAYS[0]}")
            plain.locator(".topic-map.pending .map-wait a").click()
            plain.wait_for_url(f"**/map/cs.AI/{DAILY_DAYS[0]}")
            assert plain.locator("svg.map.wide circle").count() > 20
        finally:
            bare.close()
