"""What the layers below the faces say to a reader (a day's listing and a paper's fixed words, why TL;DRs are
missing, Ask's refusals, the index build's and the evaluation's errors, a digest kept for a reader without
an address, a model's stored failure, an e-print that cannot be read, the home's config, a format not known)
are messages: English as it always was, 中文 from the catalog."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from papersift.index.engines import EngineError, TlsFiles
from papersift.library.digest import deliver
from papersift.llm.status import status
from papersift.reading import texts
from papersift.reading.checks import check
from papersift.reading.shown import TldrShape, missing_line
from papersift.reading.tldr_eval import read_cases
from papersift.records.catalogs import said
from papersift.records.messages import Message, reason, restored, say, stored
from papersift.records.paper import Paper, Version
from papersift.services.listing import listing_text, paper_text
from papersift.settings import Settings
from papersift.sources import UnknownFormatError, reader
from papersift.sources.eprint import extract
from papersift.sources.fulltext import ExtractError
from papersift.store import ListingEntry
from papersift.store.records import DigestText
from papersift.store.sqlite import SqliteStore
from tests.support.processes import run_cli

DAY = date(2026, 8, 21)  # a Friday


def _paper(pid: str, categories: list[str], **more: object) -> Paper:
    return Paper(pid, f"Title {pid}", ["A. B"], "An abstract.", categories, **more)  # type: ignore[arg-type]


def test_a_listing_says_its_fixed_words_in_chinese_and_english_as_it_was() -> None:
    entries = [
        ListingEntry(_paper("2608.00001", ["cs.LG"]), "new", 1),
        ListingEntry(_paper("2608.00002", ["stat.ML", "cs.LG"]), "cross", 2),
        ListingEntry(_paper("2608.00003", ["cs.LG"]), "replace", 3),
    ]
    en, zh = (listing_text("cs.LG", DAY, entries, lang).splitlines() for lang in ("en", "zh"))
    assert en[0] == "cs.LG — Fri, 21 Aug 2026: 1 new, 1 cross-lists, 1 replacements"
    assert zh[0] == "cs.LG — 2026-08-21（周五）：1 篇新论文，1 篇交叉列表，1 篇替换"
    assert en[8] == "#02  2026-08-21  stat.ML cs.LG  (cross-list from stat.ML)"
    assert zh[8] == "#02  2026-08-21  stat.ML cs.LG  （从 stat.ML 交叉列出）"
    assert (en[14:17], zh[14:17]) == (
        ["Replacements", "", "#03  2026-08-21  cs.LG  (replaced)"],
        ["替换版本", "", "#03  2026-08-21  cs.LG  （已替换）"],
    )
    assert [a for a, b in zip(en, zh, strict=True) if a != b] == [en[0], en[8], en[14], en[16]]  # paper text


def test_a_paper_says_its_fields_in_chinese_and_english_as_it_was() -> None:
    submitted = datetime(2026, 8, 3, 17, 5, tzinfo=UTC)
    paper = _paper(
        "2608.00001", ["cs.LG"], version=1, comments="9 pages", doi="10.1/x", versions=[Version(1, submitted)]
    )
    en, zh = (paper_text(paper, lang).splitlines()[3:7] for lang in ("en", "zh"))
    assert en == ["Categories: cs.LG", "Comments: 9 pages", "DOI: 10.1/x", "  v1: Mon, 03 Aug 2026 17:05 UTC"]
    assert zh == ["分类：cs.LG", "备注：9 pages", "DOI：10.1/x", "  v1：2026-08-03（周一）17:05 UTC"]


def test_the_missing_tldrs_are_counted_with_their_reasons_in_the_readers_language() -> None:
    copied = check("tldr", "This paper presents Graphs.", "en", title="Graphs").sentence()  # as it is stored
    tldrs = [
        TldrShape.of(Paper("2608.00009", "T", [], "", ["cs.LG"]), None),  # no abstract: no key sentence
        TldrShape.make(text=None, lang="en", by="m", error=say("model_timeout", seconds="30")),
        TldrShape.make(text=None, lang="en", by="m", error=say("model_timeout", seconds="30")),
        TldrShape.make(text=None, lang="en", by="m", error=copied),
        TldrShape.make(text="Fine.", lang="en", by="m", error=None),
    ]
    assert tldrs[0].error == "the abstract has no sentence to show"
    assert missing_line(tldrs) == (
        "4 of 5 TL;DRs are missing (2: timed out after 30 s; 1: the abstract has no sentence to show; "
        "1: the TL;DR repeats the title)"
    )
    assert missing_line(tldrs, "zh") == (
        "5 篇中有 4 篇缺少 TL;DR（2 篇：30 秒后超时；1 篇：摘要中没有可展示的句子；"
        "1 篇：TL;DR 只是重复了标题）"
    )
    assert missing_line(tldrs[4:], "zh") is None


def test_ask_refuses_an_empty_question_or_no_papers_in_the_readers_language(tmp_path: Path) -> None:
    settings, store = Settings(home=tmp_path), SqliteStore(tmp_path / "papersift.db")
    empty = texts.ask(settings, store, [_paper("2608.00001", ["cs.LG"])], "   ").error
    none = texts.ask(settings, store, [], "What?").error
    assert (empty, none) == ("the question is empty", "no papers to answer from")
    assert (said(empty, "zh"), said(none, "zh")) == ("问题为空", "没有可用来回答的论文")


def test_the_index_build_and_the_evaluation_raise_messages(tmp_path: Path) -> None:
    with pytest.raises(EngineError) as raised:
        TlsFiles(tmp_path / "ca.pem", tmp_path / "c.pem", tmp_path / "k.pem").security()
    assert str(raised.value) == f"TLS file not found: {tmp_path / 'ca.pem'}"
    assert said(raised.value, "zh") == f"找不到 TLS 文件：{tmp_path / 'ca.pem'}"
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "1", "abstract": "An abstract."}\n')
    with pytest.raises(ValueError) as refused:
        read_cases(cases)
    assert str(refused.value) == (
        f"{cases}, line 1: not {{id, title, abstract, targets: [str]}} nor SciTLDR's "
        "{paper_id, title, source, target} (no gold TL;DR (targets: [str]))"
    )
    assert said(reason(refused.value), "zh") == (
        f"{cases} 第 1 行：既不是 {{id, title, abstract, targets: [str]}}，也不是 SciTLDR 的 "
        "{paper_id, title, source, target}（没有参考 TL;DR（targets: [str]））"
    )


def test_a_digest_kept_for_a_reader_without_an_address_says_why_in_their_language(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "papersift.db")
    reader = store.add_account("ada", None, "token")
    kept = store.queue_digest(reader.id, DAY, "email", DigestText("s", "text", "<p>h</p>", ("2608.00001",)))
    sent, errors = deliver(store, Settings(home=tmp_path))
    assert (sent, errors) == (0, [f"digest {kept.id}: no e-mail address for reader {reader.id}"])
    assert said(errors[0], "zh") == f"摘要 {kept.id}：读者 {reader.id} 没有电子邮件地址"
    (shown,) = store.digests(reader.id)
    assert shown.error == "the reader has no e-mail address" and isinstance(shown.error, Message)
    assert said(shown.error, "zh") == "该读者没有电子邮件地址"


def test_a_models_stored_failure_is_said_in_the_readers_language(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "papersift.db")
    store.add_llm_failure("m", say("model_timeout", seconds="30"))
    store.add_llm_failure("m", "an older failure, kept as its text")
    (plain, failed) = status(Settings(home=tmp_path), store).failures  # newest first
    assert failed.reason == "timed out after 30 s" and said(failed.reason, "zh") == "30 秒后超时"
    assert said(plain.reason, "zh") == "an older failure, kept as its text"


def test_a_long_failure_is_kept_within_its_column_and_still_said_in_the_readers_language(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "papersift.db")
    answer = "Rate limit reached for requests. " * 150  # an endpoint's 4,950-character answer
    store.add_llm_failure("m", say("model_answered_saying", status="429", message=answer))
    (failed,) = status(Settings(home=tmp_path), store).failures
    assert isinstance(failed.reason, Message) and failed.reason.key == "model_answered_saying"
    assert failed.reason.startswith(
        "the endpoint answered 429: Rate limit reached"
    ) and failed.reason.endswith("…")
    assert said(failed.reason, "zh").startswith("端点返回 429：Rate limit reached")
    assert len(stored(failed.reason)) <= 1000


def test_an_e_print_that_cannot_be_read_says_why_in_the_readers_language() -> None:
    with pytest.raises(ExtractError) as unknown:
        extract(b"just some bytes", arxiv_id="2401.00001")
    english = "2401.00001: neither a TeX source (gzipped tar, gzipped .tex, tar) nor a PDF"
    assert str(unknown.value) == english  # as it always was
    assert (
        said(unknown.value, "zh")
        == "2401.00001：既不是 TeX 源文件（gzip 压缩的 tar、gzip 压缩的 .tex、tar），也不是 PDF"
    )
    with pytest.raises(ExtractError) as corrupt:
        extract(b"\x1f\x8b\x08\x00broken", arxiv_id="2401.00002")
    assert str(corrupt.value).startswith("2401.00002: corrupt gzip (")
    assert said(corrupt.value, "zh").startswith("2401.00002：gzip 已损坏（")
    kept = stored(
        say("fulltext_unreadable", problem=reason(unknown.value))
    )  # as put_fulltext_failure keeps it
    assert said(restored(kept), "zh") == "无法读取：" + said(unknown.value, "zh")


def test_a_home_config_the_cli_cannot_use_is_refused_in_the_readers_language(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{not json", encoding="utf-8")
    zh = run_cli("list", "cs.LG", home=tmp_path, check=False, env={"PAPERSIFT_LANG": "zh"})
    en = run_cli("list", "cs.LG", home=tmp_path, check=False, env={"PAPERSIFT_LANG": "en"})
    assert (zh.returncode, en.returncode) == (2, 2)
    assert f"{tmp_path / 'config.json'}：不是 JSON（" in zh.stderr and "；请修正或删除它" in zh.stderr
    assert f"{tmp_path / 'config.json'}: not JSON (" in en.stderr and "; fix it or remove it" in en.stderr


def test_the_index_and_the_sources_refuse_in_the_readers_language() -> None:
    with pytest.raises(UnknownFormatError) as unknown:
        reader("csv")
    assert str(unknown.value).startswith("unknown format 'csv'; one of snapshot, oai")
    assert said(unknown.value, "zh").startswith("未知格式 'csv'；可选：snapshot, oai")
    mismatch = say("model_mismatch_torch", stored="'m+int8'", wanted="'m+onnx-int8'")
    assert str(mismatch).endswith("(vectors made with torch: PAPERSIFT_RUNTIME=torch)")
    assert said(mismatch, "zh").endswith("（向量由 torch 生成：PAPERSIFT_RUNTIME=torch）")


def test_settings_refused_at_start_are_said_in_the_readers_language(tmp_path: Path) -> None:
    wrong = {"PAPERSIFT_EMBED_BATCH": "0", "PAPERSIFT_TIMEOUT": "abc", "PAPERSIFT_SMTP_SECURITY": "tls"}
    zh = run_cli("list", "cs.LG", home=tmp_path, check=False, env={**wrong, "PAPERSIFT_LANG": "zh"})
    en = run_cli("list", "cs.LG", home=tmp_path, check=False, env={**wrong, "PAPERSIFT_LANG": "en"})
    assert (zh.returncode, en.returncode) == (2, 2)
    assert zh.stderr.strip() == (
        "错误：设置：PAPERSIFT_TIMEOUT：不是数字：abc；PAPERSIFT_EMBED_BATCH：至少为 1（实际为 '0'）；"
        "PAPERSIFT_SMTP_SECURITY 必须是以下之一：'none', 'starttls' or 'ssl'（实际为 'tls'）"
    )
    assert en.stderr.strip() == (
        "error: settings: PAPERSIFT_TIMEOUT: not a number: abc; PAPERSIFT_EMBED_BATCH: at least 1 (got '0'); "
        "PAPERSIFT_SMTP_SECURITY must be one of 'none', 'starttls' or 'ssl' (got 'tls')"
    )
    plain = {"PAPERSIFT_SMTP_USER": "ada", "PAPERSIFT_SMTP_HOST": "mail.example.org", "PAPERSIFT_LANG": "zh"}
    refused = run_cli("list", "cs.LG", home=tmp_path, check=False, env=plain)
    assert "密码会以明文经网络发往 mail.example.org" in refused.stderr and "PASSWORD" not in refused.stderr


def test_a_long_author_list_is_shortened_in_the_readers_language() -> None:
    many = Paper(
        "2608.00009",
        "Title",
        ["A. One", "B. Two", "C. Three", "D. Four", "E. Five"],
        "An abstract.",
        ["cs.LG"],
    )
    entries = [ListingEntry(many, "new", 1)]
    en, zh = (listing_text("cs.LG", DAY, entries, lang).splitlines() for lang in ("en", "zh"))
    assert "A. One, B. Two, C. Three and 2 more" in en
    assert "A. One、B. Two、C. Three 等 5 人" in zh  # 中文 counts everyone, with its own comma
