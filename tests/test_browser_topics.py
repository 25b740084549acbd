"""The topic map in a real headless Chromium over a real listing: points drawn, a hover card with the
paper's title, a chip that filters the listing, and at 390 px the plain list instead of the map.

Screenshots: ``test-output/screenshots/<test name>.png`` (desktop and 390 px).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.data import DAILY_DAYS
from tests.support.processes import serving
from tests.test_browser import CHROMIUM, SHOTS, browser, browsing, screenshot_path
from tests.test_topics import topics_home

__all__ = ["browser", "topics_home"]  # fixtures shared with other modules
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
LISTING = f"/list/cs.AI/{DAILY_DAYS[1]}"


@pytest.fixture(scope="module")
def map_server(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    home = tmp_path_factory.mktemp("browser-map") / "home"
    shutil.copytree(topics_home, home)
    with serving(home) as client:
        yield client


def test_the_map_renders_hovers_and_its_chips_filter_the_listing(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        page.set_viewport_size({"width": 1280, "height": 900})  # type: ignore[attr-defined]
        page.goto(LISTING)  # type: ignore[attr-defined]
        rows = page.locator("section.listing article.paper")  # type: ignore[attr-defined]
        points = page.locator("svg.map a.pt")  # type: ignore[attr-defined]
        assert page.locator("svg.map").is_visible()  # type: ignore[attr-defined]
        assert points.count() == rows.count() > 20
        hidden = page.locator(".topic-list").bounding_box()  # type: ignore[attr-defined]
        assert hidden["width"] <= 1 and hidden["height"] <= 1  # kept for screen readers only
        page.screenshot(path=str(SHOTS / "topic-map-desktop.png"))  # type: ignore[attr-defined]
        point = points.last  # drawn over every other point: the one under the mouse
        point.hover()
        tip = page.locator(".map-tip")  # type: ignore[attr-defined]
        tip.wait_for(state="visible")
        assert tip.inner_text() == point.get_attribute("data-title")
        assert point.locator("title").text_content() == point.get_attribute("data-title")
        chip = page.locator(".chips button.chip").nth(1)  # type: ignore[attr-defined]
        wanted = set(chip.get_attribute("data-papers").split())
        chip.click()
        assert chip.get_attribute("aria-pressed") == "true"
        visible = [r.get_attribute("id").removeprefix("p-") for r in rows.all() if r.is_visible()]
        assert set(visible) == wanted and str(len(wanted)) in chip.inner_text()
        assert page.locator("svg.map a.pt.dim").count() == points.count() - len(wanted)  # type: ignore[attr-defined]
        chip.click()
        assert chip.get_attribute("aria-pressed") == "false"
        assert sum(r.is_visible() for r in rows.all()) == rows.count()
        target = point.get_attribute("data-id")
        point.click()
        page.wait_for_url(f"**/abs/{target}")  # type: ignore[attr-defined]


def test_at_390_px_the_map_becomes_a_plain_list(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        page.set_viewport_size({"width": 390, "height": 844})  # type: ignore[attr-defined]
        page.goto(LISTING)  # type: ignore[attr-defined]
        assert not page.locator("svg.map").is_visible()  # type: ignore[attr-defined]
        topics = page.locator(".topic-list details")  # type: ignore[attr-defined]
        assert topics.first.is_visible()
        assert topics.count() == page.locator(".chips button.chip").count()  # type: ignore[attr-defined]
        topics.first.locator("summary").click()
        page.screenshot(path=str(SHOTS / "topic-map-390px.png"))  # type: ignore[attr-defined]
        link = topics.first.locator("li a").first
        assert link.is_visible() and link.get_attribute("href").startswith("/abs/")
        width = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert width <= 390  # nothing wider than the phone
