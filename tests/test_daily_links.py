"""Daily Papers ranked by one tag (``/daily?tag=T``) or showing what the reader saw (``?seen=1``) keeps those
filters in its links: the days bar (top and bottom), the day picker (with script and without), the "seen"
toggle, the tag feeds, the topic chips and the "more" link; over two real days of cs.AI (a copy of the topics
home), the app in process."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.data import DAILY_DAYS
from tests.support.homes import home_copy
from tests.support.inproc import app_client, invoke

FIRST, LAST = DAILY_DAYS
TAG = "agents & tools"  # a tag that must be quoted in a link


@pytest.fixture(scope="module")
def site(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """The two days, and a reader whose library holds one paper of the first tagged ``TAG``."""
    home = home_copy(topics_home, tmp_path_factory, "daily-links")
    with app_client(home) as client:
        paper = client.get(f"/api/daily/{FIRST}").json()["entries"][0]["id"]
    invoke("library", "add", paper, "--tag", TAG, home=home)
    with app_client(home) as client:
        yield client


def links(page: str, css_class: str) -> list[str]:
    """The unescaped hrefs of the page's links of ``css_class`` (or inside a nav of that class)."""
    navs = re.findall(rf'<nav class="{css_class}"[^>]*>(.*?)</nav>', page, re.S)
    inside = [href for nav in navs for href in re.findall(r'href="([^"]+)"', nav)]
    own = re.findall(rf'<a class="{css_class}" href="([^"]+)"', page)
    return [html.unescape(h) for h in inside + own]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_tags_daily_papers_keep_the_tag_and_seen_in_their_links(site: httpx.Client, lang: str) -> None:
    quoted = "agents+%26+tools"
    page = site.get(f"/daily/{LAST}", params={"tag": TAG, "seen": "1", "lang": lang})
    assert page.status_code == 200, page.text
    text = page.text
    days = links(text, "days") + links(text, "days bottom")
    assert days == [f"/daily/{FIRST}?seen=1&tag={quoted}"] * 2  # the previous day, above and below
    assert links(text, "seen-toggle") == [f"/daily/{LAST}?tag={quoted}"]  # hide the seen: the tag stays
    tags = links(text, "tag-feeds")
    assert tags == [
        f"/daily/{LAST}?seen=1",
        f"/daily/{LAST}?seen=1&tag={quoted}",
    ]  # another ranking: seen stays
    picker = re.search(r'<form class="day-picker"[^>]*data-query="([^"]*)">(.*?)</form>', text, re.S)
    assert picker and html.unescape(picker.group(1)) == f"?seen=1&tag={quoted}"
    hidden = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', picker.group(2))
    assert [(n, html.unescape(v)) for n, v in hidden] == [("seen", "1"), ("tag", TAG)]
    chips = site.get(f"/daily/{LAST}", params={"tag": TAG, "map": 1}).text  # the day's map drawn now
    form = re.search(r'<form class="chips"[^>]*>(.*?)</form>', chips, re.S)
    kept = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', form.group(1)) if form else []
    assert [(n, html.unescape(v)) for n, v in kept] == [("tag", TAG)]  # a chip without script keeps the tag
    more = re.search(r'<a class="more-link" rel="next" href="([^"]+)"', text)
    assert more and html.unescape(more.group(1)) == f"/daily/{LAST}?seen=1&tag={quoted}&part=2"
    earlier = site.get(f"/daily/{FIRST}", params={"tag": TAG}).text  # only the tag: no seen added
    assert links(earlier, "days") == [f"/daily/{LAST}?tag={quoted}"]
    assert links(earlier, "seen-toggle") == [f"/daily/{FIRST}?seen=1&tag={quoted}"]
    plain = site.get(f"/daily/{FIRST}").text  # no filter: the links as they were
    assert links(plain, "days") == [f"/daily/{LAST}"] and 'data-query=""' in plain


def test_the_day_picker_without_script_goes_to_the_day_keeping_the_filters(site: httpx.Client) -> None:
    went = site.get("/daily", params={"seen": "1", "tag": TAG, "day": FIRST}, follow_redirects=False)
    assert (
        went.status_code == 303 and went.headers["location"] == f"/daily/{FIRST}?seen=1&tag=agents+%26+tools"
    )
    assert site.get(went.headers["location"]).status_code == 200
    bare = site.get("/daily", params={"day": FIRST}, follow_redirects=False)
    assert bare.status_code == 303 and bare.headers["location"] == f"/daily/{FIRST}"
    bad = site.get("/daily", params={"day": "2026-13-01", "lang": "en"}, follow_redirects=False)
    assert bad.status_code == 400 and "not a date" in bad.text
