"""Digests carry each paper's TL;DR and say how many are missing and why (e-mail, Markdown, Atom); the TL;DRs
are made before a digest is queued when a model is available; a reader who reads 中文 gets their e-mail and
push in 中文 (a stored failure of the model too); against a real local OpenAI-compatible server
(tests/reading_server.py), on both backends."""

from __future__ import annotations

from datetime import date

from apprise import Apprise
from lxml import etree

from papersift.library.digest import (
    DigestDay,
    atom,
    compose,
    digest_texts,
    markdown,
    queue_email,
    reader_texts,
)
from papersift.library.push import compose as push_compose
from papersift.library.push import target
from papersift.library.words import digest_lang
from papersift.ranking.daily import DailyPick
from papersift.reading import texts
from papersift.reading.texts import reading_key
from papersift.records.messages import Message, say
from papersift.records.paper import Paper
from papersift.services.accounts import create_account
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.records import Account, Interests
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


def test_a_stored_model_failure_is_its_message_said_in_a_chinese_digest_and_feed(
    store: Store, llm: LlmServer
) -> None:
    failing = Settings(llm_url=llm.url("fail"), llm_model="fake-7b", llm_retries=2)  # type: ignore[call-arg]
    made = texts.make(failing, store, BAD, "tldr", "zh")
    assert made.error == "the endpoint answered 429 three times: Rate limit reached"  # its English as before
    assert isinstance(made.error, Message) and made.error.key == "model_answered_times_saying"
    reader = create_account(store, "wen", None, "wen@example.org")
    picks = [DailyPick(BAD, 0.5)]
    shown = digest_texts(store, failing, picks, "zh")
    said = "TL;DR 不可用：端点返回 429（共 3 次）：Rate limit reached"
    assert said in markdown(reader, DAY, picks, (), shown, "zh")
    feed = etree.fromstring(atom(reader, DAY, picks, failing, shown, lang="zh"))
    (summary,) = [e.text for e in feed.iter("{http://www.w3.org/2005/Atom}summary")]
    assert summary.startswith(said)


def test_queueing_a_digest_makes_the_missing_tldrs_first(store: Store, llm: LlmServer) -> None:
    ok = Settings(llm_url=llm.url("ok"), llm_model="fake-7b")  # type: ignore[call-arg]
    reader = create_account(store, "bo", None, "bo@example.org")
    queued = queue_email(store, ok, reader, DAY, [DailyPick(GOOD, 0.9), DailyPick(BAD, 0.5)])
    assert queued.text.count("TL;DR (fake-7b): The paper proposes a method") == 2
    assert "missing" not in queued.text
    offline = compose(reader, DAY, [DailyPick(BAD, 0.5)], Settings())
    assert "TL;DR (key sentence): We study the Z problem here." in offline.text


def _chinese_reader(store: Store, llm: LlmServer, name: str) -> tuple[Settings, Account]:
    """A model that answers, and a reader who follows cs.LG with ``--lang zh``."""
    ok = Settings(llm_url=llm.url("ok"), llm_model="fake-7b")  # type: ignore[call-arg]
    reader = create_account(store, name, None, f"{name}@example.org")
    store.set_interests(reader.id, Interests(categories=("cs.LG",), languages=("zh",)))
    return ok, reader


def test_a_reader_who_reads_chinese_gets_the_chinese_texts_made_before_the_digest(
    store: Store, llm: LlmServer
) -> None:
    ok, reader = _chinese_reader(store, llm, "mei")
    queue_email(store, ok, reader, DAY, [DailyPick(GOOD, 0.9)])
    made = {kind: store.reading(reading_key(ok, GOOD, kind, "zh")) for kind in ("tldr", "title", "abstract")}
    assert all(r is not None and r.state == "done" for r in made.values()), made
    assert "本文提出" in (made["tldr"].text or "")  # type: ignore[union-attr]
    english = create_account(store, "leo", None, "leo@example.org")
    queue_email(store, ok, english, DAY, [DailyPick(BAD, 0.5)])
    assert store.reading(reading_key(ok, BAD, "title", "zh")) is None


def test_a_reader_who_follows_in_chinese_gets_the_email_and_push_in_chinese(
    store: Store, llm: LlmServer
) -> None:
    ok, reader = _chinese_reader(store, llm, "mei2")
    pick = DailyPick(GOOD, 0.9, (say("followed_category", category="cs.LG"),))
    mail = queue_email(store, ok, reader, DAY, [pick])
    assert mail.subject == "papersift：mei2 的 1 篇论文，2026-08-21（周五）"
    assert "原因：关注的分类" in mail.text and "本文提出" in mail.text  # the reasons and the 中文 TL;DR
    assert "今天的全部论文：" in mail.text and "why" not in mail.text and "All of" not in mail.text
    empty = DigestDay(DAY, [], below=2, threshold=0.5)
    quiet = compose(reader, DAY, [], ok, note=empty.note, lang=digest_lang(store, ok, reader))
    assert "2026-08-21（周五） 没有你的新论文：尚未看过的 2 篇都低于你的阈值（0.5）。" in quiet.text
    hook = target("json://127.0.0.1:9/hook", Apprise.instantiate("json://127.0.0.1:9/hook"))
    pushed = push_compose(
        hook, reader, DigestDay(DAY, [pick]), ok, reader_texts(store, ok, reader, [pick], "zh"), "zh"
    )
    assert pushed.title == mail.subject and "本文提出" in pushed.parts[0]
    assert (
        "_原因_: 关注的分类（cs.LG） · 得分 0.90" in pushed.parts[0]
        and "[这一天的全部论文](" in pushed.parts[-1]
    )
    english = push_compose(hook, reader, DigestDay(DAY, [pick]), ok)
    assert english.title == "papersift: 1 papers for mei2, Fri 21 Aug 2026"
