"""The digests' "popular in your lab this week": real papers saved by three readers of one store appear,
with their counts, in the e-mail (text and HTML) and Markdown digests; a one-reader install has none."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from papersift.library.digest import lab_week, markdown, queue_email
from papersift.library.saved import save_paper
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore
from tests.support.data import as_papers, spread_records


def test_digests_name_what_the_lab_saved_this_week(shared_data: Path, tmp_path: Path) -> None:
    papers = as_papers(spread_records(shared_data, 2000))
    store = SqliteStore(tmp_path / "papersift.db")
    store.upsert(papers)
    ada = store.add_account("ada", "hash", "t-a")
    assert lab_week(store) == []  # one reader: her own saves are no signal
    bob, cy = store.add_account("bob", "hash", "t-b"), store.add_account("cy", "hash", "t-c")
    for reader, rating in ((ada, 1), (bob, 1), (cy, 0)):
        save_paper(store, reader, papers[0].id, rating=rating)
    save_paper(store, bob, papers[1].id)
    week = lab_week(store)
    assert [(p.paper.id, p.saves, p.upvotes) for p in week] == [(papers[0].id, 3, 2), (papers[1].id, 1, 0)]
    settings = Settings(home=tmp_path)
    digest = queue_email(store, settings, ada, date(2026, 8, 21), [])
    assert "Popular in your lab this week" in digest.text
    assert f"{papers[0].title} (3 saved · 2 +1)" in digest.text
    assert "<h3>Popular in your lab this week</h3>" in digest.html
    text = markdown(ada, date(2026, 8, 21), [], week)
    assert "## Popular in your lab this week" in text and "— 1 saved\n" in text
    store.close()
