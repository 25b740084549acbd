"""The paper page's FAQ in a real headless Chromium: written into the page as the model streams it (the
server-sent events read by app.js, under the strict CSP), its math typeset once whole; the 中文 page's 原文
/ 译文 / 对照 switch without script; a TL;DR's math typeset by KaTeX; and a page without a model that shows
no error, in English and in 中文, but says once what a model would add and how to connect one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reading_server import LlmServer, llm_env, one_day_home
from tests.support.browser import CHROMIUM, SHOTS, browsing
from tests.support.data import EVIL
from tests.support.inproc import invoke
from tests.support.processes import serving
from tests.test_web_reading import DAY, INJECTION, home

__all__ = ["home"]  # the fixture, shared with test_web_reading (browser, llm: tests/support/fixtures.py)
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
        page.locator(".faq .katex").first.wait_for(timeout=10_000)  # type: ignore[attr-defined]
        assert page.locator(".faq .katex").count() == 1  # type: ignore[attr-defined]  # $O(n^2)$


def test_the_zh_views_switch_without_script(browser: object, web: str, home: Path, llm: LlmServer) -> None:
    invoke(
        "summarize", INJECTION["id"], "--lang", "zh", home=home, env=llm_env(llm)
    )  # 对照 needs a translation
    with browsing(browser, web, SHOTS / "reading_zh.png") as page:
        page.goto(f"/abs/{INJECTION['id']}?lang=zh")  # type: ignore[attr-defined]
        original = page.locator(".pane.original")  # type: ignore[attr-defined]
        translated = page.locator(".pane.translated")  # type: ignore[attr-defined]
        assert original.is_visible() and translated.is_visible()  # 对照: side by side
        page.click("label[for=zh-trans]")  # type: ignore[attr-defined]
        assert translated.is_visible() and not original.is_visible()
        page.click("label[for=zh-orig]")  # type: ignore[attr-defined]
        assert original.is_visible() and not translated.is_visible()


MATH = {
    **EVIL,
    "id": "2608.99991",
    "title": "LoRA-GA$^2$: multi-step gradient alignment for adapters",
    "abstract": "Low-rank adapters are popular. We show that LoRA-GA$^2$ trains 1.24$\\times$ faster "
    "than LoRA at rank $r=8$ on GLUE.",
    "authors": ["A. Author"],
    "categories": ["cs.LG"],
    "primary_category": "cs.LG",
}


@pytest.fixture(scope="module")
def without_model(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Iterator[str]:
    """A server with no model over one real paper and one whose key sentence has math."""
    plain = one_day_home(tmp_path_factory.mktemp("no-model"), shared_data, DAY, 1, MATH)
    with serving(plain) as client:
        yield str(client.base_url).rstrip("/")


def test_a_tldrs_math_is_typeset_and_a_page_without_a_model_shows_no_error(
    browser: object, without_model: str
) -> None:
    for lang, says in (("en", "A language model would add"), ("zh", "接入语言模型后")):
        with browsing(browser, without_model, SHOTS / f"reading_no_model_{lang}.png") as page:
            page.goto(f"/abs/{MATH['id']}?lang={lang}")  # type: ignore[attr-defined]
            tldr = page.locator(".tldr-text")  # type: ignore[attr-defined]
            tldr.locator(".katex").first.wait_for(timeout=10_000)
            assert tldr.locator(".katex").count() == 3  # LoRA-GA$^2$, 1.24$\\times$, $r=8$
            assert "$" not in tldr.inner_text()
            assert page.locator(".failed").count() == 0  # type: ignore[attr-defined]
            note = page.locator(".no-model")  # type: ignore[attr-defined]
            assert note.count() == 1 and note.is_visible() and says in note.inner_text()
            link = note.locator("a[href='/help/model#connecting-a-model']")
            assert link.count() == 1
            if lang == "zh":  # no translation: no 对照 with an empty half, the original whole and a note
                assert page.locator(".zh-views, .pane.translated").count() == 0  # type: ignore[attr-defined]
                assert "未接入语言模型" in page.locator(".zh-note").inner_text()  # type: ignore[attr-defined]
                assert page.locator("p.abstract").is_visible()  # type: ignore[attr-defined]
            link.click()
            assert page.locator("#connecting-a-model").is_visible()  # type: ignore[attr-defined]
