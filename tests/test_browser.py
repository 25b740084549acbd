"""What a reader sees in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

Each scenario runs against the real ``papersift serve`` process of the ``server`` fixture and saves a
screenshot under the test's own output folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]
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


@pytest.fixture
def page(browser: object, server: httpx.Client, tmp_path: Path) -> Iterator[object]:
    context = browser.new_context(base_url=str(server.base_url))  # type: ignore[attr-defined]
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(str(server.base_url)) else outside.append(r.url))
    yield page
    page.screenshot(path=str(tmp_path / "screenshot.png"), full_page=True)
    context.close()
    assert not dialogs, f"script from paper text ran: {dialogs}"
    assert not outside, f"the page reached outside the server: {outside}"


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
