"""Seen and read: a paper opened (its page visited by the reader), marked read (the rows' button, the API,
``papersift library read`` for any paper) or mailed is not in the reader's Daily Papers, recommend or
digests again; ``?seen=1`` and ``--show-seen`` bring it back, marked. The page says what is new since the
last visit, and on a day arXiv announces nothing, when the next listing comes (English and 中文)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import httpx
import pytest

from papersift.library.digest import digest_day
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore
from tests.support.data import as_papers, spread_records
from tests.support.inproc import app_client, invoke

DAY, NEXT = date(2026, 8, 21), date(2026, 8, 24)  # a Friday and the Monday after
TOKEN = re.compile(r'name="csrf" value="([^"]+)"')


@pytest.fixture(scope="module")
def two_listings(shared_data: Path) -> list[dict[str, object]]:
    """40 real papers: 30 announced in cs.LG on ``DAY``, 10 on ``NEXT``."""
    chosen = spread_records(shared_data, 450)[:40]
    return [
        {**r, "announced": (DAY if n < 30 else NEXT).isoformat(), "categories": ["cs.LG"]}
        for n, r in enumerate(chosen)
    ]


@pytest.fixture
def home(tmp_path: Path, two_listings: list[dict[str, object]]) -> Path:
    store = SqliteStore(tmp_path / "papersift.db")
    store.upsert(as_papers(two_listings[:30]))
    store.close()
    return tmp_path


def ids(data: dict[str, object]) -> list[str]:
    entries = data["entries"]
    assert isinstance(entries, list)
    return [str(e["id"]) for e in entries]


def csrf(client: httpx.Client, path: str) -> str:
    found = TOKEN.search(client.get(path).text)
    assert found, path
    return found.group(1)


def test_opened_and_read_papers_leave_the_daily_papers_and_come_back_marked(home: Path) -> None:
    with app_client(home) as web:
        day = f"/api/daily/{DAY}"
        first = ids(web.get(day).json())
        assert len(first) == 30
        assert web.get(f"/abs/{first[0]}").status_code == 200  # the reader opened it
        web.get(f"/api/abs/{first[1]}")  # a script reading the API opened nothing
        token = csrf(web, f"/daily/{DAY}")
        read = web.post(
            "/seen", data={"id": first[2], "csrf": token, "next": "/daily"}, follow_redirects=False
        )
        assert read.status_code == 303 and read.headers["location"] == "/daily"
        now = ids(web.get(day).json())
        assert now == [first[1], *first[3:]]
        shown = web.get(day, params={"seen": "1"}).json()["entries"]
        assert [e["seen"] for e in shown[:3]] == [["opened"], [], ["read"]]
        page = web.get(f"/daily/{DAY}?seen=1").text
        assert page.count('class="seen-as"') == 2 and "seen: opened" in page.replace("</span>", "")
        assert 'class="read"' in page and "hide the papers you have seen" in page
        assert "已读" in web.get(f"/daily/{DAY}?seen=1&lang=zh").text
        undo = web.post("/api/seen", json={"id": first[2], "read": False}, headers={"X-CSRF-Token": token})
        assert undo.json() == {"id": first[2], "read": False}
        assert len(ids(web.get(day).json())) == 29
        assert web.post("/seen", data={"id": first[3]}).status_code == 403  # no CSRF token: refused
    listed = invoke("recommend", "--date", DAY.isoformat(), "-k", "50", home=home).stdout
    assert first[0] not in listed and len(re.findall(r"^#\d\d ", listed, re.M)) == 29
    shown_cli = invoke("recommend", "--date", DAY.isoformat(), "-k", "50", "--show-seen", home=home).stdout
    assert f"{first[0]}" in shown_cli and "(seen: opened)" in shown_cli


def test_library_read_marks_any_paper_saved_or_not(home: Path, two_listings: list[dict[str, object]]) -> None:
    a, b = str(two_listings[0]["id"]), str(two_listings[1]["id"])
    invoke("library", "add", b, home=home)
    out = invoke("library", "read", a, f"https://arxiv.org/abs/{b}", home=home).stdout
    assert "marked 2 as read" in out
    listed = invoke("recommend", "--date", DAY.isoformat(), "-k", "50", "--format", "json", home=home).stdout
    assert a not in listed and b not in listed and listed.count("\n") == 28
    assert '"read":true' in invoke("library", "list", "--format", "json", home=home).stdout
    invoke("library", "read", "--unread", a, home=home)
    assert a in invoke("recommend", "--date", DAY.isoformat(), "-k", "50", home=home).stdout
    bad = invoke("library", "read", "not-a-paper", home=home, check=False)
    assert bad.returncode == 1 and "neither an arXiv id nor in your library" in bad.stderr


def test_mailed_papers_leave_the_next_digest_but_not_that_days_other_channels(home: Path) -> None:
    settings = Settings(home=home, digest_k=10)
    store = SqliteStore(home / "papersift.db")
    me = store.add_account("me", None, "t")
    today = digest_day(store, None, settings, me, DAY)
    store.mark_seen(me.id, [p.paper.id for p in today.picks], "mailed", DAY)
    again = digest_day(store, None, settings, me, DAY)
    assert [p.paper.id for p in again.picks] == [p.paper.id for p in today.picks]  # the day's push: the same
    store.mark_seen(me.id, [again.picks[0].paper.id], "read")
    after = digest_day(store, None, settings, me, DAY)
    assert after.picks[0].paper.id == today.picks[1].paper.id  # read: left out even from that day
    store.close()


def test_the_page_says_what_is_new_since_the_last_visit(
    home: Path, two_listings: list[dict[str, object]]
) -> None:
    with app_client(home) as web:
        assert web.get("/api/daily").json()["new"] is None  # the first visit
        store = SqliteStore(home / "papersift.db")
        store.upsert(as_papers(two_listings[30:]))
        store.close()
        new = web.get("/api/daily").json()["new"]
        assert new == {"since": DAY.isoformat(), "days": [NEXT.isoformat()], "papers": 10}
        assert web.get("/api/daily").json()["new"] == new  # kept until a newer listing comes
        page = web.get("/daily").text
        assert "New since your last visit (2026-08-21): 1 listing days, 10 papers" in page
        assert "自上次访问（2026-08-21）以来新增：1 个公布日，10 篇论文" in web.get("/daily?lang=zh").text


def test_a_weekend_page_and_digest_name_the_next_listing(home: Path) -> None:
    with app_client(home) as web:
        data = web.get("/api/daily/2026-08-22").json()
        assert data["quiet"]["reason"] == "weekend" and data["quiet"]["next"] == "2026-08-24"
        assert data["entries"] == [] and data["previous"] == DAY.isoformat()
        page = web.get("/daily/2026-08-22")
        assert page.status_code == 200
        assert "arXiv announces nothing for Saturday 2026-08-22" in page.text
        assert "The next listing is Monday 2026-08-24, announced 2026-08-23 20:00 US-Eastern" in page.text
        zh = web.get("/daily/2026-08-22?lang=zh").text
        assert "arXiv 在周六 2026-08-22 不公布论文" in zh and "下一次列表是周一 2026-08-24" in zh
        never = web.get("/api/daily/2026-08-19").json()["quiet"]  # never fetched: said as such, not a holiday
        assert never["reason"] == "not_stored" and "not stored here; run `papersift sync`" in never["line"]
    md = home / "weekend.md"
    ran = invoke("digest", "--markdown", str(md), "--date", "2026-08-23", home=home)
    assert "arXiv announces nothing for Sunday 2026-08-23" in ran.stderr
    assert "The next listing is Monday 2026-08-24" in ran.stderr
