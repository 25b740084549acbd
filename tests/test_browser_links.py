"""Links and first pages in a real headless Chromium under the strict CSP: an abstract's math is typeset by
KaTeX with its URLs, arXiv ids and DOIs still links beside it and no script from its hostile URL run; the
paper page shows the first page kept from the PDF fetched for its full text; a thumbnail fetched on demand
whose PDF will not render is removed from the page, not shown broken."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fulltext_server import PDF, FulltextServer
from tests.support.browser import CHROMIUM, SHOTS, browsing
from tests.support.processes import serving
from tests.test_thumbnails import TRUNCATED, stored

__all__ = ["stored"]  # the fixture, shared with test_thumbnails
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no Debian chromium")]

MATH_AND_LINKS = {
    "id": "2401.00011",
    "title": "Typeset and linked",
    "abstract": r"In $\mathcal{O}(n \log n)$ time (https://example.org/code) after arXiv:1706.03762 and "
    'doi:10.1145/3065386; not https://x.org/a"onmouseover="alert(1) nor javascript:alert(2).',
    "authors": ["A. Author"],
    "categories": ["cs.CL"],
    "primary_category": "cs.CL",
    "published": "2025-01-20",
    "announced": "2025-01-20",
    "source": "test",
    "version": 1,
}


@pytest.fixture(scope="module")
def web(stored: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``papersift serve`` over the thumbnails' home and a paper with math and links, fetching thumbnails
    on demand from a server playing arXiv whose PDF of 2401.00009 is cut short."""
    from tests.support.data import write_jsonl
    from tests.support.inproc import invoke

    home = tmp_path_factory.mktemp("browser-links") / "home"
    shutil.copytree(stored, home)
    invoke("ingest", str(write_jsonl(home.parent / "more.jsonl", [MATH_AND_LINKS])), home=home)
    with FulltextServer() as arxiv:
        arxiv.pdfs["2401.00009"] = (TRUNCATED, PDF)  # type: ignore[assignment]
        env = {**arxiv.env(), "PAPERSIFT_THUMBNAILS_FETCH": "true"}
        with serving(home, env=env) as client:
            yield str(client.base_url).rstrip("/")


def test_math_is_typeset_and_the_links_beside_it_stay_links(browser: object, web: str) -> None:
    with browsing(browser, web, SHOTS / "links_abstract.png") as page:
        page.goto("/abs/2401.00011")  # type: ignore[attr-defined]
        abstract = page.locator("article.paper-page p.abstract")  # type: ignore[attr-defined]
        abstract.locator(".katex").first.wait_for(timeout=10_000)
        assert abstract.locator(".katex").count() == 1
        hrefs = [a.get_attribute("href") for a in abstract.locator("a").all()]
        assert hrefs == [
            "https://example.org/code",
            "/abs/1706.03762",  # stored: its page here
            "https://doi.org/10.1145/3065386",
            "https://x.org/a",
        ]
        assert abstract.locator("[onmouseover]").count() == 0
        tldr = page.locator(".tldr-text")  # type: ignore[attr-defined]  # the key sentence, linked alike
        assert tldr.locator("a").count() == 4 and tldr.locator(".katex").count() == 1


def test_the_first_page_is_shown_and_one_that_cannot_be_had_is_removed(browser: object, web: str) -> None:
    with browsing(browser, web, SHOTS / "links_first_page.png") as page:
        page.goto("/abs/2501.10120")  # type: ignore[attr-defined]
        img = page.locator(".paper-page img.thumb")  # type: ignore[attr-defined]
        page.wait_for_function("() => document.querySelector('img.thumb').complete")  # type: ignore[attr-defined]
        assert img.evaluate("i => i.naturalWidth") == 200 and img.is_visible()
        page.goto("/abs/2401.00009")  # type: ignore[attr-defined]
        page.wait_for_function("() => !document.querySelector('.first-page')")  # type: ignore[attr-defined]
        assert page.locator("h1.title").first.is_visible()  # the page itself, not an error page
