"""A paper's venue badge, "COLM 2025 · Poster", in everything a reader is sent: the e-mail digest (text
and HTML), the Markdown digest, the Atom feed (a category and the summary's first line) and a push (its
Markdown and plain text), in English and 中文; a paper in no venue has none. The papers are COLM 2025's
real accepted papers linked to their arXiv versions (``colm_home``)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from apprise import Apprise
from lxml import etree

from papersift.library.digest import DigestDay, atom, compose, markdown
from papersift.library.push import Target, target
from papersift.library.push import compose as push_compose
from papersift.ranking.daily import DailyPick
from papersift.reading.shown import Texts, lookup
from papersift.records.paper import Paper
from papersift.records.venues import is_venue_id
from papersift.settings import Settings
from papersift.store.records import Account
from papersift.store.sqlite import SqliteStore
from tests.support.venues import BADGE

DAY = date(2026, 8, 21)
ME = Account(1, "me", None, "token")
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def shown(colm_home: Path) -> tuple[list[DailyPick], Texts]:
    """Three of COLM 2025's papers linked to arXiv, and one arXiv paper in no venue, as picks of a day,
    with the texts a digest shows of them."""
    store = SqliteStore(colm_home / "papersift.db")
    linked = [pid for pid in store.venue_papers("COLM", 2025) if not is_venue_id(pid)][:3]
    papers = store.get_many(linked)
    plain = Paper("2608.00001", "A paper of no venue", ["Ada Lovelace"], "Plain text.", ["cs.CL"])
    picks = [DailyPick(p, 0.9 - n / 10, ("close to liked paper 1",)) for n, p in enumerate([*papers, plain])]
    texts = lookup(Settings(home=colm_home), store, [p.paper for p in picks])
    store.close()
    assert len(papers) == 3 and all(texts.venues[p.id] for p in papers) and plain.id not in texts.venues
    return picks, texts


def one(url: str) -> Target:
    plugin = Apprise.instantiate(url)
    assert plugin is not None
    return target(url, plugin)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_email_and_markdown_digests_carry_each_papers_venue_badge(
    shown: tuple[list[DailyPick], Texts], lang: str
) -> None:
    picks, texts = shown
    made = compose(ME, DAY, picks, Settings(), texts=texts, lang=lang)
    assert made.text.count(f"\n    {BADGE}\n") == 3 and made.html.count(f" · <b>{BADGE}</b>") == 3
    last = made.text.split("#04 ")[1]
    assert BADGE not in last  # the paper of no venue
    text = markdown(ME, DAY, picks, texts=texts, lang=lang)
    assert text.count(f" · **{BADGE}**\n") == 3 and "A paper of no venue](" in text


def test_the_atom_feed_names_each_papers_venue(shown: tuple[list[DailyPick], Texts]) -> None:
    picks, texts = shown
    feed = etree.fromstring(atom(ME, DAY, picks, Settings(), texts))
    entries = feed.findall(f"{ATOM}entry")
    venues = [
        [c.get("term") for c in e.findall(f"{ATOM}category[@scheme='papersift:venue']")] for e in entries
    ]
    assert venues == [[BADGE], [BADGE], [BADGE], []]
    summaries = [e.findtext(f"{ATOM}summary") or "" for e in entries]
    assert all(s.startswith(BADGE + "\n") for s in summaries[:3]) and BADGE not in summaries[3]


@pytest.mark.parametrize("url", ["json://127.0.0.1:9/hook", "ntfy://127.0.0.1:9/papers"], ids=["md", "text"])
def test_a_push_carries_each_papers_venue_badge(shown: tuple[list[DailyPick], Texts], url: str) -> None:
    picks, texts = shown
    service = one(url)
    made = push_compose(service, ME, DigestDay(DAY, picks), Settings(), texts)
    body = "\n".join(made.parts)
    assert body.count(f"\n{BADGE}\n") == 3 and len(made.papers) == 4
    assert ("**1. [" in body) is service.markdown and ("#01 " in body) is not service.markdown
