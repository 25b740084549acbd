"""New this week by followed authors beyond the Daily Papers page: ``recommend --format json`` ends with
the week's papers in the shape ``/api/daily`` gives them (``FollowedNew``), and every digest (the e-mail's
text and HTML, Markdown, Atom, a push) has the section, in English and 中文, each paper told once: not among
the day's picks, and left out of the digests of later days once a digest carried it
(``ranking/followed.reader_week`` on both store backends)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from email.message import EmailMessage
from pathlib import Path

import pytest
from lxml import etree

from papersift.library.saved import save_paper
from papersift.ranking.followed import reader_week
from papersift.store import Store
from papersift.store.records import Interests
from papersift.store.sqlite import SqliteStore
from tests.push_server import PushServer
from tests.support.data import as_papers, write_jsonl
from tests.support.inproc import app_client, invoke
from tests.support.smtp import Inbox, local_inbox

DAY, NEXT = "2026-05-19", "2026-05-20"  # two listing days of cs.LG
PICKED = "2605.10003"  # by Ada Lovelace, new in cs.LG on DAY: one of the day's picks
FOLLOWED = ["2605.10001", "2605.10002"]  # by her, this week, in categories not followed: newest first
HEADING = {"en": "New this week by authors you follow", "zh": "你关注的作者本周新论文"}
BY = {"en": "followed authors: Ada Lovelace", "zh": "关注的作者：Ada Lovelace"}
ATOM = "{http://www.w3.org/2005/Atom}"


def paper(
    pid: str, day: str, authors: list[str], category: str = "cs.LG", title: str = ""
) -> dict[str, object]:
    return {
        "id": pid,
        "title": title or f"Paper {pid}",
        "abstract": "An abstract about learning.",
        "authors": authors,
        "categories": [category],
        "primary_category": category,
        "published": None,
        "announced": day,
    }


RECORDS = [
    *(paper(f"2605.0000{i}", DAY, ["Someone Else"]) for i in range(1, 6)),
    *(paper(f"2605.2000{i}", NEXT, ["Someone Else"]) for i in range(1, 4)),
    paper(PICKED, DAY, ["Ada Lovelace"], title="Followed and picked"),
    paper(FOLLOWED[0], "2026-05-18", ["Ada Lovelace", "Alan Turing"], "cs.AI", "A followed paper"),
    paper(FOLLOWED[1], "2026-05-15", ["Ada Lovelace"], "math.CO", "Another {followed} paper"),
    paper("2605.10004", "2026-05-11", ["Ada Lovelace"], "cs.AI"),  # eight days before DAY: not new
]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Eight cs.LG papers over two days, and four by Ada Lovelace, whom the reader follows (with cs.LG)."""
    home = tmp_path / "home"
    home.mkdir()
    invoke("ingest", str(write_jsonl(tmp_path / "papers.jsonl", RECORDS)), home=home)
    invoke("follow", "--category", "cs.LG", "--author", "Ada Lovelace", home=home)
    return home


def test_recommend_json_ends_with_the_weeks_papers_by_followed_authors_in_the_apis_shape(home: Path) -> None:
    lines = [
        json.loads(line)
        for line in invoke("recommend", "--date", DAY, "--format", "json", home=home).stdout.splitlines()
    ]
    picks = [line for line in lines if "followed" not in line]
    followed = lines[len(picks) :]
    assert [p["rank"] for p in picks] == list(range(1, len(picks) + 1)) and PICKED in [p["id"] for p in picks]
    assert [f["id"] for f in followed] == [
        PICKED,
        *FOLLOWED,
    ]  # newest first, the picked one too (as on /daily)
    assert all(f["followed"] == ["Ada Lovelace"] and "rank" not in f and "why" not in f for f in followed)
    with app_client(home) as client:
        api = client.get(f"/api/daily/{DAY}").json()["followed_new"]
    assert [list(f) for f in followed] == [list(f) for f in api]  # one shape, the same fields in order
    assert [f["id"] for f in api] == [f["id"] for f in followed]
    text = invoke("recommend", "--date", DAY, home=home).stdout
    assert "New this week by authors you follow (3, the last 7 days)" in text


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, dict[str, str]]]:
    """A real SMTP server on 127.0.0.1, and the settings that mail to it."""
    with local_inbox() as (mailbox, port):
        yield mailbox, {"PAPERSIFT_SMTP_PORT": str(port), "PAPERSIFT_MAIL_FROM": "radar@lab.example"}


def parts(message: EmailMessage) -> tuple[str, str]:
    """The plain text and the HTML of a digest."""
    text, html = message.get_body(("plain",)), message.get_body(("html",))
    assert text is not None and html is not None
    return str(text.get_content()), str(html.get_content())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_digest_has_the_section_without_the_days_picks(
    home: Path, tmp_path: Path, inbox: tuple[Inbox, dict[str, str]], lang: str
) -> None:
    mailbox, mail = inbox
    env = {**mail, "PAPERSIFT_LANG": lang}
    md, feed = tmp_path / "day.md", tmp_path / "day.atom"
    with PushServer() as server:
        push = {"PAPERSIFT_PUSH": server.json_url()}
        outputs = ["--markdown", str(md), "--atom", str(feed), "--push", "--email", "ada@lab.example"]
        invoke("digest", *outputs, "--date", DAY, home=home, env=env | push)
        (pushed,) = server.messages()
    text, html = parts(mailbox.messages[0])
    markdown = md.read_text(encoding="utf-8")
    for body in (text, html, markdown, pushed["message"]):
        section = body.split(HEADING[lang], 1)[1]
        assert [i for i in (PICKED, *FOLLOWED) if i in section] == FOLLOWED, body  # a pick is not told twice
        assert BY[lang] in section and "Another followed paper" in section  # its title as plain text
        assert "2026-05-18" in section
    assert f"<h3>{HEADING[lang]}</h3>" in html and f"## {HEADING[lang]}" in markdown
    entries = etree.parse(str(feed)).getroot().findall(f"{ATOM}entry")
    marked = [e for e in entries if e.find(f"{ATOM}category[@term='followed']") is not None]
    assert [e.findtext(f"{ATOM}id") for e in marked] == [f"https://arxiv.org/abs/{i}" for i in FOLLOWED]
    label = marked[0].find(f"{ATOM}category[@term='followed']")
    assert label is not None and label.get("label") == HEADING[lang]
    assert BY[lang] in (marked[0].findtext(f"{ATOM}summary") or "")


def test_a_digest_tells_of_a_followed_authors_paper_once(
    home: Path, tmp_path: Path, inbox: tuple[Inbox, dict[str, str]]
) -> None:
    mailbox, env = inbox
    invoke("digest", "--email", "ada@lab.example", "--date", DAY, home=home, env=env)
    assert HEADING["en"] in parts(mailbox.messages[0])[0]
    again = tmp_path / "again.md"  # another channel of the same day carries the same papers
    invoke("digest", "--markdown", str(again), "--date", DAY, home=home)
    assert all(i in again.read_text(encoding="utf-8") for i in FOLLOWED)
    later = tmp_path / "later.md"  # the next day's: they were mailed, so not told again
    invoke("digest", "--markdown", str(later), "--date", NEXT, home=home)
    assert HEADING["en"] not in later.read_text(encoding="utf-8")
    status = json.loads(invoke("digest", "status", "--format", "json", home=home).stdout.splitlines()[0])
    assert set(FOLLOWED) <= set(status["ids"])  # the mailed digest carried them: seen, "mailed"


def test_the_private_feed_has_the_weeks_papers_by_followed_authors_after_its_picks(home: Path) -> None:
    store = SqliteStore(home / "papersift.db")
    (reader,) = store.accounts()
    store.close()
    with app_client(home) as client:
        feed = client.get(f"/feed/{reader.feed_token}.atom")
    assert feed.status_code == 200
    entries = etree.fromstring(feed.content).findall(f"{ATOM}entry")
    ids = [str(e.findtext(f"{ATOM}id")).rsplit("/", 1)[1] for e in entries]
    followed = [e.find(f"{ATOM}category[@term='followed']") is not None for e in entries]
    # the latest day's picks (NEXT), then the week's papers by Ada Lovelace up to it, each once
    assert ids == ["2605.20001", "2605.20002", "2605.20003", PICKED, *FOLLOWED]
    assert followed == [False] * 3 + [True] * 3


def test_the_week_for_a_digest_leaves_out_what_another_days_digest_carried(store: Store) -> None:
    store.upsert(as_papers([{**r, "announced": r["announced"]} for r in RECORDS]))
    reader = store.add_account("ada", None, "t-ada")
    store.set_interests(reader.id, Interests(categories=("cs.LG",), authors=("Ada Lovelace",)))
    day = date.fromisoformat(DAY)
    week = [f.paper.id for f in reader_week(store, reader, day)]
    assert week == [PICKED, *FOLLOWED]
    assert [f.paper.id for f in reader_week(store, reader, day, leave_out={PICKED})] == FOLLOWED
    store.mark_seen(reader.id, [FOLLOWED[0]], "mailed", day)  # today's e-mail carried it
    store.mark_seen(reader.id, [FOLLOWED[1]], "pushed", date(2026, 5, 18))  # yesterday's push did
    assert [f.paper.id for f in reader_week(store, reader, day, unseen=True)] == [PICKED, FOLLOWED[0]]
    assert [f.paper.id for f in reader_week(store, reader, day)] == [PICKED, *FOLLOWED]  # the page shows all
    save_paper(store, reader, PICKED)
    assert [f.paper.id for f in reader_week(store, reader, day)] == FOLLOWED  # saved: left out
    store.set_interests(reader.id, Interests(categories=("cs.LG",)))
    assert reader_week(store, reader, day) == []
