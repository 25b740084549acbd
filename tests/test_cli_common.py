"""What every command shares (``papersift.cli.common``): ``opened`` closes the store however a command ends
and turns a ``StoreError`` into one ``error:`` line; the evaluation table (``ranking/harness.py``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import typer

from papersift.cli.common import opened
from papersift.ranking.evaluate import Score
from papersift.ranking.harness import score_table
from papersift.settings import Settings
from papersift.store import StoreError
from papersift.store.sqlite import SqliteStore


def _connection_closed(store: object) -> bool:
    assert isinstance(store, SqliteStore)
    try:
        store.count()
    except sqlite3.ProgrammingError:  # "Cannot operate on a closed database."
        return True
    return False


def test_opened_closes_the_store_after_the_command(tmp_path: Path) -> None:
    with opened(Settings(home=tmp_path)) as o:
        assert o.store.count() == 0
    assert _connection_closed(o.store)


def test_a_store_error_becomes_one_line_and_the_store_is_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(typer.Exit) as exit_, opened(Settings(home=tmp_path)) as o:
        raise StoreError("bad query syntax")
    assert exit_.value.exit_code == 1
    assert capsys.readouterr().err == "error: bad query syntax\n"
    assert _connection_closed(o.store)


def test_an_exit_inside_a_command_closes_the_store(tmp_path: Path) -> None:
    with pytest.raises(typer.Exit), opened(Settings(home=tmp_path)) as o:
        raise typer.Exit(2)
    assert _connection_closed(o.store)


def test_a_store_that_cannot_open_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(home=tmp_path, db="mysql://nowhere/db")
    with pytest.raises(typer.Exit), opened(settings):
        pytest.fail("the body runs without a store")
    assert capsys.readouterr().err.startswith("error: not a database URL papersift knows")


def test_indexes_open_on_first_use_and_say_when_nothing_is_embedded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with opened(Settings(home=tmp_path)) as o:
        assert capsys.readouterr().err == ""
        assert o.indexes is o.indexes and o.indexes.dense is None
    assert "note: no vectors yet" in capsys.readouterr().err


def test_the_score_table_compares_with_the_best_reference() -> None:
    scores = [
        Score("bm25", 0.2, 0.3, 0.25, 40),
        Score("svm", 0.4, 0.5, 0.45, 40),
        Score("ours", 0.5, 0.6, 0.55, 40),
    ]
    lines = score_table(scores, ("bm25", "svm"), "readers")
    assert lines[0].split() == ["method", "nDCG@10", "Recall@10", "MRR", "readers", "vs", "svm"]
    assert [line.split()[-1] for line in lines[1:]] == ["0.50x", "1.00x", "1.25x"]
    assert lines[3].split()[:5] == ["ours", "0.5000", "0.6000", "0.5500", "40"]
    unknown = score_table(scores, "none")
    assert unknown[0].endswith("vs none") and all(line.endswith("-") for line in unknown[1:])


def test_evaluation_tables_say_their_words_in_the_readers_language_in_aligned_columns() -> None:
    from papersift.ranking.harness import recommend_table
    from papersift.reading.tldr_eval import TldrScore
    from papersift.reading.tldr_eval import score_table as tldr_table

    scores = [Score("bm25", 0.2, 0.3, 0.25, 40), Score("ours", 0.5, 0.6, 0.55, 40)]
    en, zh = score_table(scores, "bm25"), score_table(scores, "bm25", lang="zh")
    assert en[0] == "method                  nDCG@10  Recall@10     MRR  queries  vs bm25"  # as it was
    assert (
        zh[0] == "方法                    nDCG@10  Recall@10     MRR   查询数  对比 bm25"
    )  # 中文: 2 columns each
    assert en[1:] == zh[1:]
    sized = [
        Score("arxiv-sanity-svm", 0.2, 0.3, 0.25, 7, library_size=1),
        Score("ours", 0.3, 0.4, 0.35, 7, library_size=1),
    ]
    assert recommend_table(sized)[1] == "method                        size 1     mean  vs arxiv-sanity-svm"
    assert recommend_table(sized, "zh")[:2] == [
        "各文库规模的 nDCG@10（Recall@10）；每种规模的读者数 1: 7",
        "方法                          规模 1     平均  对比 arxiv-sanity-svm",
    ]
    rouge = [TldrScore("lead-1", 30.0, 10.0, 25.0, 5)]
    assert tldr_table(rouge, "zh")[0].startswith(
        "方法                      ROUGE-1  ROUGE-2  ROUGE-L  论文数  对比"
    )
