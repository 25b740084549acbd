"""What a reader sees in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

Each scenario runs against a real ``papersift serve`` process (the ``server`` fixture, or a lab server with
accounts) and saves a full-page screenshot as ``test-output/screenshots/<test name>.png``.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import DAILY_DAYS, ROOT, serving
from tests.test_web_library import add_reader, agent_ids

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]
SHOTS = ROOT / "test-output" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@contextlib.contextmanager
def browsing(browser: object, base_url: str, shot: Path) -> Iterator[object]:
    """A fresh browser context on ``base_url``; no dialog may open and no request may leave the server."""
    context = browser.new_context(base_url=base_url)  # type: ignore[attr-defined]
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(base_url) else outside.append(r.url))
    try:
        yield page
    finally:
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        context.close()
    assert not dialogs, f"script from paper text ran: {dialogs}"
    assert not outside, f"the page reached outside the server: {outside}"


def screenshot_path(request: pytest.FixtureRequest) -> Path:
    return SHOTS / f"{request.node.name}.png"


@pytest.fixture
def page(browser: object, server: httpx.Client, request: pytest.FixtureRequest) -> Iterator[object]:
    with browsing(browser, str(server.base_url), screenshot_path(request)) as page:
        yield page


def test_listing_abstract_expands_and_keys_move(page: object) -> None:
    page.goto("/list/cs.CR")  # type: ignore[attr-defined]
    first = page.locator("article.paper").first  # type: ignore[attr-defined]
    assert first.locator(".number").inner_text() == "#01"
    abstract = first.locator(".abstract")
    assert "collapsed" in abstract.get_attribute("class")
    first.locator(".toggle").click()
    assert "collapsed" not in abstract.get_attribute("class")
    page.keyboard.press("j")  # type: ignore[attr-defined]
    assert "current" in first.get_attribute("class")


def test_paper_page_renders_math_and_escapes_html(page: object) -> None:
    page.goto("/abs/2608.99999")  # type: ignore[attr-defined]
    title = page.locator("h1.title")  # type: ignore[attr-defined]
    assert "<script>alert('title')</script>" in title.inner_text()  # shown as text, never run
    if page.locator("link[href='/static/katex/katex.min.css']").count():  # type: ignore[attr-defined]
        assert title.locator(".katex").count() == 1  # $x<y$ typeset by KaTeX


def test_open_a_paper_follow_a_related_one_and_switch_to_chinese(
    page: object, citation_corpus: Corpus
) -> None:
    pid = sorted(citation_corpus[1])[0]
    page.goto(f"/abs/{pid}")  # type: ignore[attr-defined]
    related = page.locator("section.related article.paper")  # type: ignore[attr-defined]
    assert related.count() == 10 and "why:" in related.first.inner_text()
    target = related.first.get_attribute("id").removeprefix("p-")
    related.first.locator("a.title").click()
    page.wait_for_url(f"**/abs/{target}")  # type: ignore[attr-defined]
    assert target in page.locator("p.meta").inner_text()  # type: ignore[attr-defined]
    page.locator("#lang-switch").click()  # type: ignore[attr-defined]
    page.wait_for_url("**lang=zh")  # type: ignore[attr-defined]
    assert page.locator("section.related h2").inner_text() == "相关论文"  # type: ignore[attr-defined]
    page.goto(f"/abs/{pid}")  # type: ignore[attr-defined]
    assert page.locator("section.related h2").inner_text() == "相关论文"  # type: ignore[attr-defined]  # remembered


def test_search_from_the_header(page: object) -> None:
    page.goto("/list/cs.CR")  # type: ignore[attr-defined]
    page.fill("header input[name=q]", "quark mass")  # type: ignore[attr-defined]
    page.press("header input[name=q]", "Enter")  # type: ignore[attr-defined]
    page.wait_for_url("**/search?q=quark+mass")  # type: ignore[attr-defined]
    results = page.locator("section.results article.paper")  # type: ignore[attr-defined]
    assert results.count() == 10 and results.first.locator(".number").inner_text() == "#01"


def test_related_papers_for_pasted_text(page: object) -> None:
    page.goto("/list/cs.CR")  # type: ignore[attr-defined]
    page.fill("form.related-form textarea", "Lattice QCD determination of light quark masses.")  # type: ignore[attr-defined]
    page.click("form.related-form button")  # type: ignore[attr-defined]
    page.wait_for_url("**/related?text=*")  # type: ignore[attr-defined]
    assert page.locator("section.results article.paper").count() == 10  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def lab_home(daily_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("browser-lab") / "home"
    shutil.copytree(daily_home, home)
    add_reader(home, "ada", "ada's password")
    return home


def test_log_in_save_and_rate_papers_and_see_daily_papers_change(
    browser: object, lab_home: Path, request: pytest.FixtureRequest
) -> None:
    agents = agent_ids(lab_home, DAILY_DAYS[0])
    with (
        serving(lab_home, {"PAPERSIFT_ACCOUNTS": "true"}) as server,
        browsing(browser, str(server.base_url), screenshot_path(request)) as page,
    ):
        page.goto(f"/daily/{DAILY_DAYS[1]}")  # type: ignore[attr-defined]
        assert "in arXiv order" in page.locator("p.counts").inner_text()  # type: ignore[attr-defined]
        before = page.locator("article.paper").first.get_attribute("id")  # type: ignore[attr-defined]
        page.click("header .account a")  # type: ignore[attr-defined]
        page.fill("input[name=name]", "ada")  # type: ignore[attr-defined]
        page.fill("input[name=password]", "ada's password")  # type: ignore[attr-defined]
        page.click("form.login button")  # type: ignore[attr-defined]
        page.wait_for_url("**/daily")  # type: ignore[attr-defined]
        assert "ada" in page.locator("header .account").inner_text()  # type: ignore[attr-defined]
        page.goto(f"/daily/{DAILY_DAYS[0]}")  # type: ignore[attr-defined]
        for pid in agents[:3]:
            row = page.locator(f"article[id='p-{pid}']")  # type: ignore[attr-defined]
            row.locator("button.up").click()
            row.locator("button.up.on").wait_for()  # saved and rated without leaving the page
        page.goto("/library")  # type: ignore[attr-defined]
        assert page.locator("section.library article.entry.liked").count() == 3  # type: ignore[attr-defined]
        page.goto(f"/daily/{DAILY_DAYS[1]}")  # type: ignore[attr-defined]
        counts = page.locator("p.counts").inner_text()  # type: ignore[attr-defined]
        assert "ranked by your library" in counts
        first = page.locator("article.paper").first  # type: ignore[attr-defined]
        assert first.get_attribute("id") != before and "why:" in first.inner_text()


def test_library_page_in_chinese(browser: object, lab_home: Path, request: pytest.FixtureRequest) -> None:
    with (
        serving(lab_home) as server,
        browsing(browser, str(server.base_url), screenshot_path(request)) as page,
    ):
        page.goto("/library?lang=zh")  # type: ignore[attr-defined]
        assert page.locator("h1").first.inner_text().startswith("文库")  # type: ignore[attr-defined]
        assert page.locator("form.import button").inner_text() == "导入"  # type: ignore[attr-defined]


def test_category_picker_names_categories_and_leads_to_the_taxonomy(page: object) -> None:
    page.goto("/list/cs.CR")  # type: ignore[attr-defined]
    assert "Cryptography and Security" in page.locator("nav.days h1").inner_text()  # type: ignore[attr-defined]
    page.click("details.picker summary")  # type: ignore[attr-defined]
    current = page.locator("details.picker a[aria-current=page]")  # type: ignore[attr-defined]
    assert current.inner_text() == "cs.CR — Cryptography and Security"
    page.click("details.picker a[href='/categories']")  # type: ignore[attr-defined]
    page.wait_for_url("**/categories")  # type: ignore[attr-defined]
    assert page.locator("a[href='/list/cs.CR']").count() >= 1  # type: ignore[attr-defined]
    assert "Computer Science" in page.locator("main").inner_text()  # type: ignore[attr-defined]
