"""The paper page's FAQ in a real headless Chromium: written into the page as the model streams it (the
server-sent events read by app.js, under the strict CSP), escaped, with no dialog opened by the model's
HTML; the 中文 page's 原文 / 译文 / 对照 switch without script."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reading_server import LlmServer, llm_env
from tests.support.processes import serving
from tests.test_browser import CHROMIUM, SHOTS, browser, browsing
from tests.test_web_reading import INJECTION, home

__all__ = ["browser", "home"]  # the fixtures, shared (llm: tests/support/fixtures.py)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no Debian chromium")]


@pytest.fixture(scope="module")
def web(home: Path, llm: LlmServer) -> Iterator[str]:
    with serving(home, env=llm_env(llm)) as client:
        yield str(client.base_url).rstrip("/")


def test_the_faq_is_written_into_the_page_as_it_streams(browser: object, web: str) -> None:
    with browsing(browser, web, SHOTS / "reading_faq.png") as page:
        page.goto(f"/abs/{INJECTION['id']}")  # type: ignore[attr-defined]
        heading = page.locator(".faq h3").first  # type: ignore[attr-defined]
        heading.wait_for(timeout=20_000)
        assert heading.text_content() == "What problem does the paper address?"
        assert "<script>alert('model')</script>" in page.locator(".faq").text_content()  # type: ignore[attr-defined]


def test_the_zh_views_switch_without_script(browser: object, web: str) -> None:
    with browsing(browser, web, SHOTS / "reading_zh.png") as page:
        page.goto(f"/abs/{INJECTION['id']}?lang=zh")  # type: ignore[attr-defined]
        original = page.locator(".pane.original")  # type: ignore[attr-defined]
        translated = page.locator(".pane.translated")  # type: ignore[attr-defined]
        assert original.is_visible() and translated.is_visible()  # 对照: side by side
        page.click("label[for=zh-trans]")  # type: ignore[attr-defined]
        assert translated.is_visible() and not original.is_visible()
        page.click("label[for=zh-orig]")  # type: ignore[attr-defined]
        assert original.is_visible() and not translated.is_visible()
