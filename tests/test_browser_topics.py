"""The topic map in a real headless Chromium over a real listing: points drawn, a hover card with the
paper's title, a chip that filters the listing, and at every width from 360 to 1600 px the drawing made for
about that width (the listing's, Daily Papers' and the map page's), its labels apart, inside it and >= 11 px.

Screenshots: ``test-output/screenshots/<test name>.png`` (desktop and 390 px).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.browser import CHROMIUM, SHOTS, Labels, browsing, label_boxes, screenshot_path, visit
from tests.support.data import DAILY_DAYS
from tests.support.processes import serving

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
LISTING = f"/list/cs.AI/{DAILY_DAYS[1]}"
MAP_PAGE = f"/map/cs.AI/{DAILY_DAYS[1]}"
DAILY = f"/daily/{DAILY_DAYS[1]}"
MIN_PX = 11.0  # a label's 13 px, never drawn smaller than this on screen


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
        visit(page, f"{LISTING}?rest=1")  # every part of the day (web/parts.py)
        rows = page.locator("section.listing article.paper")  # type: ignore[attr-defined]
        points = page.locator("svg.map:visible circle")  # type: ignore[attr-defined]
        assert page.locator("svg.map.small").is_visible()  # type: ignore[attr-defined]
        assert points.count() == rows.count() > 20
        page.screenshot(path=str(SHOTS / "topic-map-desktop.png"))  # type: ignore[attr-defined]
        point = points.last  # drawn over every other point: the one under the mouse
        point.hover()
        tip = page.locator(".map-tip")  # type: ignore[attr-defined]
        tip.wait_for(state="visible")
        row_title = page.locator(f"[id='p-{point.get_attribute('data-id')}'] a.title")  # type: ignore[attr-defined]
        assert tip.inner_text() == row_title.inner_text().strip()  # each title once: in its row
        chip = page.locator(".chips button.chip").nth(1)  # type: ignore[attr-defined]
        wanted = set(chip.get_attribute("data-papers").split())
        chip.click()
        assert chip.get_attribute("aria-pressed") == "true"
        visible = [r.get_attribute("id").removeprefix("p-") for r in rows.all() if r.is_visible()]
        assert set(visible) == wanted and str(len(wanted)) in chip.inner_text()
        dimmed = page.locator("svg.map:visible g.pt.dim circle")  # type: ignore[attr-defined]
        assert dimmed.count() == points.count() - len(wanted)
        chip.click()
        assert chip.get_attribute("aria-pressed") == "false"
        assert sum(r.is_visible() for r in rows.all()) == rows.count()
        target = point.get_attribute("data-id")
        point.click()
        page.wait_for_url(f"**/abs/{target}")  # type: ignore[attr-defined]


def test_at_390_px_the_listing_draws_a_phones_map_and_keeps_the_chips_that_filter_it(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        visit(page, f"{LISTING}?rest=1", 390, 844)
        assert page.locator("svg.map.phone").is_visible()  # type: ignore[attr-defined]
        assert page.locator("svg.map:visible").count() == 1  # type: ignore[attr-defined]
        chip = page.locator(".chips button.chip").first  # type: ignore[attr-defined]
        assert chip.is_visible()
        chip.click()
        rows = page.locator("section.listing article.paper")  # type: ignore[attr-defined]
        wanted = set(chip.get_attribute("data-papers").split())
        assert {r.get_attribute("id").removeprefix("p-") for r in rows.all() if r.is_visible()} == wanted
        page.screenshot(path=str(SHOTS / "topic-map-390px.png"))  # type: ignore[attr-defined]
        width = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert width <= 390  # nothing wider than the phone


def check_labels(page: object) -> Labels:
    """No two label boxes of the drawn map intersect, none reaches outside the drawing, each is >= 11 px."""
    labels = label_boxes(page)
    assert labels.texts, "the map has labels"
    assert not labels.outside, labels.outside
    assert not labels.overlapping, labels.overlapping
    assert min(labels.font_px) >= MIN_PX, (labels.name, labels.font_px)
    assert all("…" not in label and "“" not in label for label in labels.texts)
    return labels


DRAWN = {  # which drawing each page shows at 390, 700 and 1280 px
    LISTING: {390: "phone", 700: "mid", 1280: "small"},
    DAILY: {390: "phone", 700: "mid", 1280: "small"},
    MAP_PAGE: {390: "narrow", 700: "middle", 1280: "wide"},
}


@pytest.mark.parametrize("width", [390, 700, 1280])
@pytest.mark.parametrize("path", [LISTING, DAILY, MAP_PAGE], ids=["listing", "daily", "map-page"])
def test_map_labels_neither_overlap_nor_leave_the_drawing_and_stay_legible(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest, width: int, path: str
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        visit(page, path, width)
        assert page.locator("svg.map:visible").count() == 1  # type: ignore[attr-defined]
        assert check_labels(page).name == DRAWN[path][width]
        assert page.locator(".chips button.chip").first.is_visible()  # type: ignore[attr-defined]
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # type: ignore[attr-defined]
        name = path.split("/")[1]
        page.screenshot(path=str(SHOTS / f"{name}-map-{width}px.png"), full_page=False)  # type: ignore[attr-defined]


SHOWN = """() => {
  const box = document.querySelector(".map-box").clientWidth;
  const drawings = Array.from(document.querySelectorAll("svg.map")).map((s) => ({
    name: s.classList[1], width: s.viewBox.baseVal.width, shown: s.getClientRects().length > 0}));
  return {box, drawings};
}"""


@pytest.mark.parametrize("path", [LISTING, MAP_PAGE], ids=["listing", "map-page"])
def test_at_every_width_the_drawing_shown_is_the_widest_not_scaled_below_85_percent(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest, path: str
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        visit(page, path)  # its map in place
        for width in range(360, 1601, 20):
            page.set_viewport_size({"width": width, "height": 900})  # type: ignore[attr-defined]
            found = page.evaluate(SHOWN)  # type: ignore[attr-defined]
            drawings = sorted(found["drawings"], key=lambda d: -d["width"])
            assert len(drawings) == 3, drawings
            fits = [d for d in drawings if 0.85 * d["width"] <= found["box"]] or drawings[-1:]
            assert [d["name"] for d in drawings if d["shown"]] == [fits[0]["name"]], (width, found)
            assert check_labels(page).name == fits[0]["name"]


def test_the_map_page_draws_a_larger_map_than_the_listing_with_labels_as_large_at_390_px(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        visit(page, LISTING)
        small = label_boxes(page)
        page.goto(MAP_PAGE)  # type: ignore[attr-defined]
        large = label_boxes(page)
        visit(page, MAP_PAGE, 390, 844)
        phone = label_boxes(page)
        content = page.evaluate("document.querySelector('.map-box').clientWidth")  # type: ignore[attr-defined]
        scrolled = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]

    def size(labels: Labels) -> tuple[float, float]:
        box = labels.drawing
        return float(box["right"]) - float(box["left"]), float(box["bottom"]) - float(box["top"])  # type: ignore[arg-type]

    (small_w, small_h), (large_w, large_h), (phone_w, phone_h) = size(small), size(large), size(phone)
    assert large_w >= small_w - 1 and large_h > 1.25 * small_h  # the content's width, and taller
    assert phone_w >= content - 1 and phone_h > phone_w and scrolled <= 390  # a phone's width, taller still
    assert phone.texts and min(phone.heights) >= 0.85 * min(large.heights)  # labels as large as on a desktop
    assert abs(small_w / small_h - 800 / 420) < 0.02  # the listing's small map as it was


def test_the_map_page_lists_each_topic_with_its_phrases_and_a_link_that_filters_the_listing(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        visit(page, MAP_PAGE)
        sections = page.locator("section.topic")  # type: ignore[attr-defined]
        chips = page.locator(".chips button.chip")  # type: ignore[attr-defined]
        assert sections.count() == chips.count() >= 2
        rows = page.locator("section.topic article.paper")  # type: ignore[attr-defined]
        ids = [r.get_attribute("id") for r in rows.all()]
        drawn = page.locator("svg.map:visible circle")  # type: ignore[attr-defined]
        assert len(ids) == len(set(ids)) == drawn.count()
        second = sections.nth(1)
        assert second.locator("p.terms").is_visible()
        wanted = {r.get_attribute("id") for r in second.locator("article.paper").all()}
        second.locator("a.in-listing").click()
        page.wait_for_url("**/list/cs.AI/**?topic=1")  # type: ignore[attr-defined]
        listing = page.locator("section.listing article.paper")  # type: ignore[attr-defined]
        listing.first.wait_for(state="attached")
        assert {r.get_attribute("id") for r in listing.all() if r.is_visible()} == wanted


def test_dead_ends_lead_somewhere_in_the_browser(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        page.goto("/abs/2501.99999")  # type: ignore[attr-defined]
        link = page.locator("p.dead-end a").first  # type: ignore[attr-defined]
        assert link.get_attribute("href") == "https://arxiv.org/abs/2501.99999"
        # the test server cannot reach arXiv: no fetch is offered (test_dead_ends checks it online)
        assert page.locator("form.fetch").count() == 0  # type: ignore[attr-defined]
        page.goto("/list/cs.AI/2026-08-22")  # type: ignore[attr-defined]
        page.locator("p.dead-end a").first.click()  # type: ignore[attr-defined]
        page.wait_for_url(f"**/list/cs.AI/{DAILY_DAYS[1]}")  # type: ignore[attr-defined]
        page.goto("/list/cs.ai")  # type: ignore[attr-defined]
        assert page.url.endswith("/list/cs.AI")  # type: ignore[attr-defined]
        pid = page.locator("article.paper").first.get_attribute("data-id")  # type: ignore[attr-defined]
        box = page.locator("header form.search input[name=q]")  # type: ignore[attr-defined]
        box.fill(f"https://arxiv.org/abs/{pid}v1")
        box.press("Enter")
        page.wait_for_url(f"**/abs/{pid}")  # type: ignore[attr-defined]


def test_the_smaller_dead_ends_in_the_browser(
    browser: object, map_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(map_server.base_url), screenshot_path(request)) as page:
        icon = page.goto("/favicon.ico")  # type: ignore[attr-defined]
        assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
        page.goto(f"{LISTING}?lang=zh")  # type: ignore[attr-defined]
        authors = page.locator("section.listing p.authors", has_text=re.compile(r"、.+ 等 \d+ 人"))  # type: ignore[attr-defined]
        assert authors.count() > 0 and "more" not in authors.first.inner_text()
        page.goto("/search?q=agents&mode=keyword&lang=en")  # type: ignore[attr-defined]
        said = page.locator("main").inner_text()  # type: ignore[attr-defined]
        total = map_server.get("/api/search", params={"q": "agents", "mode": "keyword"}).json()["total"]
        assert f"{total['count']}{'+' if total['capped'] else ''} results" in said
