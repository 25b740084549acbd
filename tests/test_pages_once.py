"""Each paper once per page, on a real server over two real days of cs.AI: on the listing, Daily Papers,
search, related (of a paper and of a text), the map page, the library and trending, every paper's title
occurs once in the page, counting its text and every attribute (a title="…" tooltip or hover data that
repeats it counts too: /daily once carried each title three times)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from lxml import html

from tests.support.data import DAILY_DAYS
from tests.support.homes import home_copy
from tests.support.inproc import invoke
from tests.support.processes import serving

DAY = DAILY_DAYS[1]
TEXT = "multi-agent planning with large language models and tool use"


@pytest.fixture(scope="module")
def once_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(topics_home, tmp_path_factory, "once")


@pytest.fixture(scope="module")
def site(once_home: Path) -> Iterator[httpx.Client]:
    with serving(once_home) as client:
        yield client


def titles_in(data: Any) -> dict[str, str]:
    """Every paper (id → title) anywhere in a JSON answer."""
    found: dict[str, str] = {}
    if isinstance(data, dict):
        if isinstance(data.get("id"), str) and isinstance(data.get("title"), str):
            found[data["id"]] = data["title"]
        for value in data.values():
            found |= titles_in(value)
    elif isinstance(data, list):
        for value in data:
            found |= titles_in(value)
    return found


def title_counts(page: str, titles: dict[str, str]) -> dict[str, int]:
    """How often each title occurs in the page's body: its text (a <mark> inside a title does not split
    it) and its attribute values; the head (<title>, description) and the BibTeX block are the paper's
    own metadata, not a repeat."""
    body = html.fromstring(page).find("body")
    assert body is not None
    for own in body.xpath('.//pre[contains(@class, "bibtex")]'):
        own.getparent().remove(own)
    text = " ".join("".join(body.itertext()).split())
    attrs = "\n".join(" ".join(v.split()) for el in body.iter() for v in el.attrib.values())
    counts = {}
    for pid, title in titles.items():
        wanted = " ".join(title.split())
        counts[pid] = text.count(wanted) + attrs.count(wanted)
    return counts


def assert_once(site: httpx.Client, page: str, api: str, titles: dict[str, str] | None = None) -> int:
    titles = titles if titles is not None else titles_in(site.get(api).json())
    answer = site.get(page)
    assert answer.status_code == 200, page
    counts = title_counts(answer.text, titles)
    assert titles and all(n == 1 for n in counts.values()), (page, {p: n for p, n in counts.items() if n > 1})
    return len(titles)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_paper_is_on_each_page_once(site: httpx.Client, once_home: Path, lang: str) -> None:
    listing = site.get(f"/api/list/cs.AI/{DAY}").json()["entries"]
    assert len(listing) > 50
    pid = str(listing[0]["id"])
    invoke("library", "add", *(str(e["id"]) for e in listing[:5]), home=once_home)
    invoke("library", "tag", pid, "to-read", home=once_home)
    shown = {
        f"/list/cs.AI/{DAY}": f"/api/list/cs.AI/{DAY}",
        f"/daily/{DAY}": f"/api/daily/{DAY}",
        "/search?q=agents&mode=keyword": "/api/search?q=agents&mode=keyword",
        f"/abs/{pid}": f"/api/abs/{pid}",  # the paper and its related papers
        f"/related?text={TEXT}": f"/api/related?text={TEXT}",
        "/library": "/api/library",
        "/trending": "/api/trending",
    }
    for page, api in shown.items():  # a long list whole: its first part and the rest (web/parts.py)
        assert assert_once(site, f"{page}{'&' if '?' in page else '?'}lang={lang}&rest=1", api) >= 5, page
    day_titles = {str(e["id"]): str(e["title"]) for e in listing}  # the map's JSON has no titles
    assert assert_once(site, f"/map/cs.AI/{DAY}?lang={lang}", "", day_titles) == len(listing)
