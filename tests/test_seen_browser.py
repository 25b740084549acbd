"""Marking papers read in a real browser: ``j`` then ``r`` on Daily Papers, and the row's ✓ button, mark the
paper read without leaving the page; on the next visit they are gone (and back, marked, with the toggle)."""

from __future__ import annotations

from pathlib import Path

import pytest

from papersift.store.sqlite import SqliteStore
from tests.support.browser import CHROMIUM
from tests.support.data import as_papers, spread_records
from tests.support.processes import serving

DAY = "2026-08-21"
pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed"),
    pytest.mark.process,
]


def test_the_r_key_and_the_read_button_take_papers_out_of_daily_papers(
    browser: object, shared_data: Path, tmp_path: Path
) -> None:
    records = [
        {**r, "announced": DAY, "categories": ["cs.LG"]} for r in spread_records(shared_data, 600)[:12]
    ]
    store = SqliteStore(tmp_path / "papersift.db")
    store.upsert(as_papers(records))
    store.close()
    with serving(tmp_path) as server:
        context = browser.new_context(base_url=str(server.base_url))  # type: ignore[attr-defined]
        page = context.new_page()
        page.goto(f"/daily/{DAY}")
        rows = page.locator("article.paper")
        first, second = rows.nth(0).get_attribute("data-id"), rows.nth(1).get_attribute("data-id")
        page.keyboard.press("j")
        page.keyboard.press("r")
        page.locator(f"article[data-id='{first}'].read").wait_for()  # marked without leaving the page
        rows.nth(1).locator("button.read").click()
        page.locator(f"article[data-id='{second}'].read").wait_for()
        assert page.url.endswith(f"/daily/{DAY}")
        page.goto(f"/daily/{DAY}")
        assert page.locator("article.paper").count() == 10
        assert page.locator(f"article[data-id='{first}']").count() == 0
        page.click("a.seen-toggle")
        page.locator(f"article[data-id='{first}'].seen").wait_for()
        assert "seen: read" in page.locator(f"article[data-id='{first}'] .seen-as").inner_text()
        context.close()
        kept = server.get(f"/api/daily/{DAY}", params={"seen": "1"}).json()["entries"]
    assert [e["seen"] for e in kept[:2]] == [["read"], ["read"]]
