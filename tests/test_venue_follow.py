"""Following a venue (``papersift follow --venue``, the library's interests form): when its accept list is
imported, its accepted papers come into the reader's Daily Papers once, as a "new acceptances" section
(the page and ``/api/daily``), recorded as seen; never a second time, not on a reload, not when the same
list is imported again; each reader once. A name with a slash is refused. Real data: COLM 2025's list and
its arXiv papers of ``arxiv-300k``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from papersift.ranking.acceptances import followed_venues, new_acceptances, note_acceptances
from papersift.store.sqlite import SqliteStore
from tests.support.data import write_jsonl
from tests.support.inproc import app_client, invoke
from tests.support.venues import BADGE, COLM, COLM_RECORDS, colm_arxiv_records

TOKEN = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture(scope="module")
def arxiv_file(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    folder = tmp_path_factory.mktemp("colm-arxiv")
    return write_jsonl(folder / "colm-arxiv.jsonl", colm_arxiv_records(shared_data))


@pytest.fixture
def home(tmp_path: Path, arxiv_file: Path) -> Path:
    """COLM 2025's arXiv papers, its list not imported yet."""
    invoke("ingest", str(arxiv_file), home=tmp_path)
    return tmp_path


def test_a_followed_venues_accepted_papers_come_into_daily_papers_once_when_its_list_is_imported(
    home: Path,
) -> None:
    followed = invoke("follow", "--venue", "colm", "--category", "cs.CL", home=home).stdout
    assert "venues: colm" in followed
    with app_client(home) as web:
        assert web.get("/api/daily").json()["accepted"] == []  # nothing imported yet
        assert web.get("/api/venues").json()["venues"] == []
        invoke("venues", "import", str(COLM), home=home)
        assert [v["venue"] for v in web.get("/api/venues").json()["venues"]] == ["COLM"]  # no stale page
        (group,) = web.get("/api/daily").json()["accepted"]
        assert (group["venue"], group["year"], len(group["papers"])) == ("COLM", 2025, COLM_RECORDS)
        assert {p["status"] for p in group["papers"]} == {"Poster"}
        linked = [p for p in group["papers"] if p["arxiv"]]
        assert linked and all(p["id"] == p["arxiv"] for p in linked)
        assert web.get("/api/daily").json()["accepted"] == []  # once: a reload shows none
        invoke("venues", "import", str(COLM), home=home)  # the same list again
        assert web.get("/api/daily").json()["accepted"] == []
        shown = web.get("/api/daily?seen=1").json()["entries"]
        assert any("accepted" in e["seen"] for e in shown if e["id"] in {p["id"] for p in linked})


def test_the_daily_page_shows_the_new_acceptances_once_in_english_and_chinese(home: Path) -> None:
    invoke("follow", "--venue", "COLM", "--category", "cs.CL", home=home)
    invoke("venues", "import", str(COLM), home=home)
    with app_client(home) as web:
        page = web.get("/daily?lang=zh").text
        assert "你关注的会议新录用的论文" in page and "COLM 2025 录用：418 篇" in page
        assert page.count(f'<span class="venue-badge">{BADGE}</span>') == COLM_RECORDS
        assert 'href="/venue/COLM/2025"' in page
        again = web.get("/daily?lang=en").text
        assert "New acceptances" not in again and 'class="accepted"' not in again


def test_each_reader_is_told_once(home: Path) -> None:
    invoke("venues", "import", str(COLM), home=home)
    store = SqliteStore(home / "papersift.db")
    ada, bob = store.add_account("ada", "hash", "t-a"), store.add_account("bob", "hash", "t-b")
    for reader in (ada, bob):
        invoke("follow", "--venue", "COLM", "--reader", reader.name, home=home)
        assert followed_venues(store, reader.id) == ("COLM",)
    found = new_acceptances(store, ada.id)
    assert note_acceptances(store, ada.id, found) == COLM_RECORDS
    assert (
        new_acceptances(store, ada.id) == [] and len(new_acceptances(store, bob.id)[0].papers) == COLM_RECORDS
    )
    invoke("follow", "--clear", "--reader", "bob", home=home)
    assert new_acceptances(store, bob.id) == []  # no longer followed
    store.close()


def test_a_venue_name_with_a_slash_is_refused_by_follow_and_the_form(home: Path) -> None:
    refused = invoke("follow", "--venue", "a/b", home=home, check=False)
    assert refused.returncode == 2 and "not a venue name: 'a/b'" in refused.stderr
    with app_client(home) as web:
        found = TOKEN.search(web.get("/library").text)
        assert found
        form = {"csrf": found[1], "categories": "cs.CL", "venues": "COLM, CoRL, colm"}
        assert web.post("/library/interests", data=form).status_code in (200, 303)
        assert web.get("/api/library").json()["interests"]["venues"] == ["COLM", "CoRL"]
        assert 'name="venues" value="COLM, CoRL"' in web.get("/library").text
        bad = web.post("/library/interests", data={**form, "venues": "COLM, a/b"})
        assert bad.status_code == 400 and "not a venue" in bad.text
