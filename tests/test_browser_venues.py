"""``/venue/COLM/2025`` in a real headless Chromium over a real ``papersift serve``, COLM 2025's real accept
list imported into a small store (``colm_home``): every record shown with its status, the topic map drawn
over the papers that have vectors, its chips filtering the records, each record opening its paper; the same
in 中文.

Screenshots: ``test-output/screenshots/<test name>.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from papersift.web.parts import PART
from tests.support.browser import CHROMIUM, SHOTS, browsing, screenshot_path, visit
from tests.support.homes import home_copy
from tests.support.processes import serving
from tests.support.venues import BADGE, COLM_RECORDS

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
VENUE = "/venue/COLM/2025"


@pytest.fixture(scope="module")
def venue_server(colm_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    with serving(home_copy(colm_home, tmp_path_factory, "browser-venue")) as client:
        yield client


@pytest.mark.parametrize(
    ("lang", "heading", "statuses"), [("en", "accepted papers", "Status"), ("zh", "录用论文", "录用类型")]
)
def test_the_venue_page_shows_every_record_with_its_status_and_the_topic_map(
    browser: object,
    venue_server: httpx.Client,
    request: pytest.FixtureRequest,
    lang: str,
    heading: str,
    statuses: str,
) -> None:
    with browsing(browser, str(venue_server.base_url), screenshot_path(request)) as page:
        visit(page, f"{VENUE}?lang={lang}")
        assert page.locator("html").get_attribute("lang") == ("zh-CN" if lang == "zh" else "en")  # type: ignore[attr-defined]
        assert page.locator("h1").first.inner_text() == "COLM 2025"  # type: ignore[attr-defined]
        assert heading in page.locator("p.counts").first.inner_text()  # type: ignore[attr-defined]
        assert statuses in page.locator("nav.venue-statuses").inner_text()  # type: ignore[attr-defined]
        rows = page.locator("section.listing article.paper")  # type: ignore[attr-defined]
        assert rows.count() == PART  # the first part; "more" appends the next
        assert set(rows.locator(".venue-badge").all_inner_texts()) == {BADGE}
        assert rows.first.locator(".venue-badge").is_visible()
        points = page.locator("svg.map:visible circle")  # type: ignore[attr-defined]
        assert points.count() > 200 and page.locator(".chips button.chip").count() >= 2  # type: ignore[attr-defined]
        page.screenshot(path=str(SHOTS / f"venue-colm-2025-{lang}.png"))  # type: ignore[attr-defined]
        page.locator("nav.more a.more-link").click()  # type: ignore[attr-defined]
        rows.nth(PART).wait_for(state="attached")
        assert rows.count() == 2 * PART and rows.nth(PART).locator(".number").inner_text() == f"#{PART + 1}"
        chip = page.locator(".chips button.chip").first  # type: ignore[attr-defined]
        wanted = set(chip.get_attribute("data-papers").split())
        chip.click()  # the rest of the records loaded, then only the topic's shown
        rows.nth(COLM_RECORDS - 1).wait_for(state="attached")
        visible = {r.get_attribute("id").removeprefix("p-") for r in rows.all() if r.is_visible()}
        assert visible == wanted and 0 < len(wanted) < COLM_RECORDS
        first = page.locator(f"[id='p-{sorted(wanted)[0]}'] a.title")  # type: ignore[attr-defined]
        target = first.get_attribute("href")
        first.click()
        page.wait_for_url(f"**{target}")  # type: ignore[attr-defined]
        assert BADGE in page.locator(".paper-page .venues").inner_text()  # type: ignore[attr-defined]


def test_the_venues_page_links_each_venue_and_its_statuses(
    browser: object, venue_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(venue_server.base_url), screenshot_path(request)) as page:
        visit(page, "/venues?lang=zh")
        row = page.locator("tr.venue-row[data-venue='COLM']")  # type: ignore[attr-defined]
        assert "418" in row.inner_text() and "Poster · 418" in row.inner_text()
        row.locator("a.status").click()
        page.wait_for_url("**/venue/COLM/2025?status=Poster")  # type: ignore[attr-defined]
        assert page.locator("section.listing article.paper").count() == PART  # type: ignore[attr-defined]
