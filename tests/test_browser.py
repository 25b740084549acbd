"""What a reader sees in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

Each scenario runs against a real ``papersift serve`` process (the ``server`` fixture, or a lab server with
accounts) and saves a full-page screenshot as ``test-output/screenshots/<test name>.png``.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.support.browser import CHROMIUM, browsing, screenshot_path
from tests.support.data import DAILY_DAYS, ROOT
from tests.support.processes import serving
from tests.test_web_library import add_account, agent_ids

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")


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
    # the first part of the results (web/parts.py: 25), numbered from #01
    assert 10 < results.count() <= 25 and results.first.locator(".number").inner_text() == "#01"


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
    add_account(home, "ada", "ada's password")
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
        page.goto(f"/daily/{DAILY_DAYS[0]}?rest=1")  # type: ignore[attr-defined]  # every part (web/parts.py)
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


# -- issue 15: the reader's experience in a real browser ----------------------------------------------
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PAGES = {  # every page a reader opens, by a short name (the paper pages use the first citation query)
    "listing": "/list/cs.CR",
    "paper": "/abs/{pid}",
    "search": "/search?q=quark+mass",
    "search-empty": "/search",
    "no-matches": "/search?q=%F0%9F%98%80",
    "related": "/related?text=Lattice+QCD+determination+of+light+quark+masses.",
    "daily": "/daily",
    "library": "/library",
    "categories": "/categories",
    "login": "/login",
    "error": "/abs/2608.00404",
}
ISSUE_SHOTS = ROOT / "test-output" / "issue15"
ALLOWED_LATIN = {
    "arXiv",
    "pdf",
    "BibTeX",
    "papersift",
    "Atom",
    "CSL",
    "JSON",
    "RIS",
    "Zotero",
    "KaTeX",
    "LaTeX",
    "API",  # 服务商的 API: as 中文 writes it
}


def test_saved_state_shows_on_rows_and_the_paper_page_after_a_reload(
    browser: object, reader_server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    with browsing(browser, str(reader_server.base_url), screenshot_path(request)) as page:
        page.goto("/list/cs.LG")  # type: ignore[attr-defined]
        row = page.locator("article.paper").nth(1)  # type: ignore[attr-defined]
        pid = row.get_attribute("data-id")
        row.locator("button.up").click()
        row.locator("button.up[aria-pressed=true]").wait_for()
        page.reload()  # type: ignore[attr-defined]
        row = page.locator(f"article[id='p-{pid}']")  # type: ignore[attr-defined]
        row.locator("button.up[aria-pressed=true]").wait_for()
        assert row.locator("button.save").get_attribute("aria-pressed") == "true"
        assert row.locator("button.save").inner_text().strip() == "★ saved"  # said in words, not ☆ save
        assert "liked" in row.get_attribute("class")
        unsaved = page.locator("article.paper:not(.saved) button.save").first  # type: ignore[attr-defined]
        assert unsaved.inner_text().strip() == "☆ save"
        page.goto(f"/abs/{pid}")  # type: ignore[attr-defined]
        page.locator(".paper-page button.up[aria-pressed=true]").wait_for()  # type: ignore[attr-defined]
        page.locator(".paper-page button.down").click()  # type: ignore[attr-defined]
        page.locator(".paper-page button.down[aria-pressed=true]").wait_for()  # type: ignore[attr-defined]
        page.reload()  # type: ignore[attr-defined]
        page.locator(".paper-page button.down[aria-pressed=true]").wait_for()  # type: ignore[attr-defined]
        page.goto(f"/abs/{pid}?lang=zh")  # type: ignore[attr-defined]
        page.locator(".paper-page button.save[aria-pressed=true]").wait_for()  # type: ignore[attr-defined]
        saved = page.locator(".paper-page button.save").inner_text()  # type: ignore[attr-defined]
        assert saved.strip() == "★ 已收藏"


def test_copy_bibtex_puts_the_entry_on_the_clipboard(
    browser: object, server: httpx.Client, citation_corpus: Corpus
) -> None:
    pid = sorted(citation_corpus[1])[0]
    context = browser.new_context(  # type: ignore[attr-defined]
        base_url=str(server.base_url), permissions=["clipboard-read", "clipboard-write"]
    )
    page = context.new_page()
    try:
        page.goto(f"/abs/{pid}")
        page.click("button.copy")
        page.locator("button.copy", has_text="Copied").wait_for()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.startswith("@misc{") and f"eprint = {{{pid}}}" in copied
    finally:
        context.close()


ENGLISH_REASONS = re.compile(r"same authors|shared terms|close in content|same category|earlier work")


def test_chinese_pages_have_no_english_left_in_their_own_text(
    browser: object, reader_server: httpx.Client, citation_corpus: Corpus, request: pytest.FixtureRequest
) -> None:
    pid = sorted(citation_corpus[1])[0]
    with browsing(browser, str(reader_server.base_url), screenshot_path(request)) as page:
        for name in (
            "listing",
            "paper",
            "search",
            "no-matches",
            "related",
            "daily",
            "library",
            "login",
            "error",
        ):
            page.goto(PAGES[name].format(pid=pid) + ("&" if "?" in PAGES[name] else "?") + "lang=zh")  # type: ignore[attr-defined]
            why = " ".join(page.locator(".why").all_inner_texts())  # type: ignore[attr-defined]
            assert not ENGLISH_REASONS.search(why), (name, why)
            text = page.evaluate(  # type: ignore[attr-defined]
                """() => {
                  const body = document.body.cloneNode(true);
                  // paper text, names, ids, categories and store terms are the papers' own, not the page's
                  for (const e of body.querySelectorAll(
                    '.title, .abstract, .tldr-text, .authors, .cats, .meta, pre, .why, .picker, .entry, .tag,'
                    + ' .comments, .counts, nav.days h1, option[value], .error, .katex, #lang-switch,'
                    + ' textarea, .brand, .suggestions a, code'  // commands to type are typed as written
                  )) e.remove();
                  return body.innerText;
                }"""
            )
            text = re.sub(r"\b[a-z-]+(\.[A-Za-z-]+)?\b(?=[^\n]*\d)|`[^`]*`", " ", text)
            words = {w for w in re.findall(r"[A-Za-z]{3,}", text) if w not in ALLOWED_LATIN}
            assert not words, (name, words)


def test_dark_mode_follows_the_system(
    browser: object, server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    context = browser.new_context(base_url=str(server.base_url), color_scheme="dark")  # type: ignore[attr-defined]
    page = context.new_page()
    try:
        page.goto("/list/cs.CR")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(22, 24, 28)"
        card = page.evaluate("getComputedStyle(document.querySelector('article.paper')).backgroundColor")
        assert card == "rgb(31, 34, 39)"
        ISSUE_SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ISSUE_SHOTS / "listing-dark-1280.png"), full_page=True)
    finally:
        context.close()


def test_a_390_pixel_screen_lays_out_without_overflow_or_broken_dates(
    browser: object, server: httpx.Client, request: pytest.FixtureRequest
) -> None:
    context = browser.new_context(base_url=str(server.base_url), viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    page = context.new_page()
    try:
        for path in ("/list/cs.CR", "/search?q=quark+mass", "/abs/2608.99999"):
            page.goto(path)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
            dates = "Array.from(document.querySelectorAll('.date')).slice(0, 20)"
            for rects in page.evaluate(f"{dates}.map(e => e.getClientRects().length)"):
                assert rects <= 1, path  # a date never wraps mid-value
        page.goto("/list/cs.CR")
        labels = page.locator("form.day-picker label")
        assert labels.bounding_box()["width"] <= 390
    finally:
        context.close()


@pytest.mark.skipif(not AXE.exists(), reason="npm install has not fetched axe-core")
def test_axe_finds_no_serious_or_critical_violations_on_any_page_in_either_language(
    browser: object, reader_server: httpx.Client, citation_corpus: Corpus
) -> None:
    """Every page, in English and 中文, desktop (1280 px) and phone (390 px): axe-core's checks, and a
    screenshot of each into ``test-output/issue15/``."""
    pid = sorted(citation_corpus[1])[0]
    ISSUE_SHOTS.mkdir(parents=True, exist_ok=True)
    script = AXE.read_text()
    found: dict[str, list[str]] = {}
    for width in (1280, 390):
        context = browser.new_context(  # type: ignore[attr-defined]
            base_url=str(reader_server.base_url), bypass_csp=True, viewport={"width": width, "height": 900}
        )
        page = context.new_page()
        try:
            for lang in ("en", "zh"):
                for name, path in PAGES.items():
                    url = path.format(pid=pid)
                    page.goto(url + ("&" if "?" in url else "?") + f"lang={lang}")
                    page.screenshot(path=str(ISSUE_SHOTS / f"{name}-{lang}-{width}.png"), full_page=True)
                    if width != 1280:
                        continue
                    page.add_script_tag(content=script)
                    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
                    bad = [
                        f"{v['id']} ({v['impact']}): {v['nodes'][0]['target']}"
                        for v in result["violations"]
                        if v["impact"] in ("serious", "critical")
                    ]
                    if bad:
                        found[f"{name} {lang}"] = bad
        finally:
            context.close()
    assert not found, found
