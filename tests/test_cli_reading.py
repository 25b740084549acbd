"""``papersift summarize``, ``ask`` and the TL;DR in ``list`` / ``show``, in process (Typer's CliRunner),
against a real local OpenAI-compatible server (tests/reading_server.py) and with no model at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reading_server import LlmServer, llm_env, one_day_home
from tests.support.inproc import invoke

DAY = "2026-08-21"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """Six real papers announced in cs.LG on one day."""
    return one_day_home(tmp_path_factory.mktemp("reading"), shared_data, DAY, 6)


def ids_of(home: Path) -> list[str]:
    out = invoke("list", "cs.LG", "--date", DAY, "--format", "json", home=home).stdout
    return [json.loads(line)["id"] for line in out.splitlines()]


def test_without_a_model_every_row_has_the_extractive_tldr(home: Path) -> None:
    out = invoke("list", "cs.LG", "--date", DAY, "--format", "json", home=home).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 6
    for row in rows:
        assert (
            row["tldr"]["by"] == "extractive" and row["tldr"]["lang"] == "en" and row["tldr"]["error"] is None
        )
        assert row["tldr"]["text"] and row["tldr"]["text"] in " ".join(row["abstract"].split())
    refused = invoke("summarize", rows[0]["id"], home=home, check=False)
    assert refused.returncode == 1 and "no model is configured: set PAPERSIFT_LLM_URL" in refused.stderr


def test_summarize_ids_then_a_day_makes_each_text_once(home: Path, llm: LlmServer) -> None:
    ids = ids_of(home)
    first = invoke("summarize", *ids[:2], home=home, env=llm_env(llm))
    assert "summarize: 2 made, 0 already stored, 0 failed" in first.stderr
    assert first.stdout.count("TL;DR: The paper proposes a method and improves results.") == 2
    day = invoke("summarize", "--date", DAY, "--category", "cs.LG", home=home, env=llm_env(llm))
    assert "summarize: 4 made, 2 already stored, 0 failed" in day.stderr  # resumed: the two are kept
    shown = json.loads(invoke("show", ids[0], "--format", "json", home=home, env=llm_env(llm)).stdout)
    assert shown["tldr"] == {
        "text": "The paper proposes a method and improves results.",
        "lang": "en",
        "by": "fake-7b",
        "error": None,
    }
    assert "zh" not in shown
    text = invoke("show", ids[0], home=home, env=llm_env(llm)).stdout
    assert "TL;DR (fake-7b): The paper proposes a method" in text


def test_summarize_in_chinese_gives_the_zh_fields(home: Path, llm: LlmServer) -> None:
    pid = ids_of(home)[0]
    invoke("summarize", pid, "--lang", "zh", home=home, env=llm_env(llm))
    shown = json.loads(
        invoke("show", pid, "--format", "json", "--lang", "zh", home=home, env=llm_env(llm)).stdout
    )
    assert shown["tldr"] == {
        "text": "本文提出一种方法并显著提升结果。",
        "lang": "zh",
        "by": "fake-7b",
        "error": None,
    }
    assert shown["zh"]["title"] == "一个关于 $x<y$ 的 Transformer 标题" and "LoRA" in shown["zh"]["abstract"]
    assert shown["zh"]["by"] == "fake-7b" and shown["zh"]["error"] is None
    assert invoke("summarize", pid, "--lang", "fr", home=home, check=False).returncode == 2


def test_a_failed_tldr_is_a_failure_everywhere(home: Path, llm: LlmServer) -> None:
    pid = ids_of(home)[5]
    failing = {**llm_env(llm, "fail"), "PAPERSIFT_LLM_MODEL": "flaky-1"}
    result = invoke("summarize", pid, home=home, env=failing, check=False)
    assert (
        result.returncode == 1 and "TL;DR unavailable: the endpoint answered 429 three times" in result.stdout
    )
    assert f"failed: {pid} tldr (en): the endpoint answered 429 three times" in result.stderr
    shown = json.loads(invoke("show", pid, "--format", "json", home=home, env=failing).stdout)
    assert shown["tldr"] == {
        "text": None,
        "lang": "en",
        "by": "flaky-1",
        "error": "the endpoint answered 429 three times: Rate limit reached",
    }
    again = invoke("summarize", pid, home=home, env=failing, check=False)
    assert "0 made, 1 already stored, 1 failed" in again.stderr  # stored: not called again without --retry


def test_ask_prints_the_answer_with_its_marks(home: Path, llm: LlmServer) -> None:
    ids = ids_of(home)[:2]
    out = invoke("ask", *ids, "What do these papers do?", home=home, env=llm_env(llm)).stdout
    assert "[1]" in out and "[2]" in out and f"[1] arXiv:{ids[0]}" in out and f"[2] arXiv:{ids[1]}" in out
    data = json.loads(invoke("ask", *ids, "What?", "--format", "json", home=home, env=llm_env(llm)).stdout)
    assert data["marks"] == [1, 2] and data["papers"][1]["id"] == ids[1] and data["error"] is None
    assert invoke("ask", "What?", home=home, env=llm_env(llm), check=False).returncode == 2


def test_texts_that_fail_their_checks_are_failures_counted_by_reason(home: Path, llm: LlmServer) -> None:
    pid = ids_of(home)[4]
    bad = llm_env(llm, "bad", "newcomer-1")  # answers as the newcomer's local model did (issue 37)
    result = invoke("summarize", pid, "--lang", "zh", home=home, env=bad, check=False)
    assert result.returncode == 1 and "summarize: 0 made, 0 already stored, 3 failed" in result.stderr
    assert f"failed: {pid} tldr (zh): the model answered in English where 中文 was asked\n" in result.stderr
    assert (
        f"failed: {pid} title (zh): the model's text carries markup or a prompt tag: <paper>" in result.stderr
    )
    assert f"failed: {pid} abstract (zh): the 中文 text mixes in English" in result.stderr
    shown = json.loads(invoke("show", pid, "--format", "json", "--lang", "zh", home=home, env=bad).stdout)
    assert shown["tldr"]["text"] is None
    assert shown["tldr"]["error"] == "the model answered in English where 中文 was asked"
    assert shown["zh"]["title"] is None and shown["zh"]["abstract"] is None and shown["zh"]["error"]
    status = json.loads(invoke("llm", "status", "--format", "json", home=home, env=bad).stdout)
    assert status["checks"]["reasons"] == {"markup": 1, "mixed_language": 1, "wrong_language": 1}
    text = invoke("llm", "status", home=home, env=bad).stdout
    assert "texts that failed their checks: 3 (markup 1, mixed_language 1, wrong_language 1)" in text
    text = invoke("llm", "status", home=home, env={**bad, "PAPERSIFT_LANG": "zh"}).stdout
    assert "未通过检查的文本：3（含标记 1、中英混杂 1、语言不对 1）" in text  # the reasons named, not coded
