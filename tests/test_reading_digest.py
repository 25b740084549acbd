"""Digests carry each paper's TL;DR and say how many are missing and why (e-mail, Markdown, Atom); the TL;DRs
are made before a digest is queued when a model is available; against a real local OpenAI-compatible
server (tests/reading_server.py), on both backends."""

from __future__ import annotations

from datetime import date

from lxml import etree

from papersift.ranking.daily import DailyPick
from papersift.reader.digest import atom, compose, digest_texts, markdown, queue_email
from papersift.reading import texts
from papersift.reading.texts import reading_key
from papersift.records.paper import Paper
from papersift.services.accounts import create_account
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.records import Interests
from tests.reading_server import LlmServer

DAY = date(2026, 8, 21)
GOOD = Paper(
    "2608.00001", "Good paper", ["A. B"], "We propose X. We show that X beats Y by 5 points.", ["cs.LG"]
)
BAD = Paper(
    "2608.00002",
    "Unlucky paper",
    ["C. D"],
    "We study the Z problem here. Results show that Z helps a lot.",
    ["cs.LG"],
)


def test_a_digest_shows_tldrs_and_counts_the_missing(store: Store, llm: LlmServer, tmp_path: object) -> None:
    ok = Settings(llm_url=llm.url("ok"), llm_model="fake-7b")  # type: ignore[call-arg]
    failing = Settings(llm_url=llm.url("fail"), llm_model="fake-7b", llm_retries=2)  # type: ignore[call-arg]
    texts.make(ok, store, GOOD, "tldr", "en")
    texts.make(failing, store, BAD, "tldr", "en")
    reader = create_account(store, "ada", None, "ada@example.org")
    picks = [DailyPick(GOOD, 0.9), DailyPick(BAD, 0.5)]
    shown = digest_texts(store, failing, picks)  # the failure is stored: not made again
    made = compose(reader, DAY, picks, failing, (), shown)
    missing = "1 of 2 TL;DRs are missing (1: the endpoint answered 429 three times: Rate limit reached)"
    for body in (made.text, made.html, markdown(reader, DAY, picks, (), shown)):
        assert missing in body and "TL;DR unavailable: the endpoint answered 429 three times" in body
        assert "TL;DR (fake-7b): The paper proposes a method and improves results." in body
    assert (
        f"    TL;DR unavailable: the endpoint answered 429 three times: Rate limit reached\n    https://arxiv.org/abs/{BAD.id}"
        in made.text
    )
    feed = etree.fromstring(atom(reader, DAY, picks, failing, shown))
    summaries = [e.text for e in feed.iter("{http://www.w3.org/2005/Atom}summary")]
    assert summaries[0].startswith("TL;DR: The paper proposes") and summaries[1].startswith(
        "TL;DR unavailable"
    )


def test_queueing_a_digest_makes_the_missing_tldrs_first(store: Store, llm: LlmServer) -> None:
    ok = Settings(llm_url=llm.url("ok"), llm_model="fake-7b")  # type: ignore[call-arg]
    reader = create_account(store, "bo", None, "bo@example.org")
    queued = queue_email(store, ok, reader, DAY, [DailyPick(GOOD, 0.9), DailyPick(BAD, 0.5)])
    assert queued.text.count("TL;DR (fake-7b): The paper proposes a method") == 2
    assert "missing" not in queued.text
    offline = compose(reader, DAY, [DailyPick(BAD, 0.5)], Settings())
    assert "TL;DR (key sentence): We study the Z problem here." in offline.text


def test_a_reader_who_reads_chinese_gets_the_chinese_texts_made_before_the_digest(
    store: Store, llm: LlmServer
) -> None:
    ok = Settings(llm_url=llm.url("ok"), llm_model="fake-7b")  # type: ignore[call-arg]
    reader = create_account(store, "mei", None, "mei@example.org")
    store.set_interests(reader.id, Interests(categories=("cs.LG",), languages=("zh",)))
    queue_email(store, ok, reader, DAY, [DailyPick(GOOD, 0.9)])
    made = {kind: store.reading(reading_key(ok, GOOD, kind, "zh")) for kind in ("tldr", "title", "abstract")}
    assert all(r is not None and r.state == "done" for r in made.values()), made
    assert "本文提出" in (made["tldr"].text or "")  # type: ignore[union-attr]
    english = create_account(store, "leo", None, "leo@example.org")
    queue_email(store, ok, english, DAY, [DailyPick(BAD, 0.5)])
    assert store.reading(reading_key(ok, BAD, "title", "zh")) is None
