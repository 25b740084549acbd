"""``embed``, ``related``, ``search --mode`` and ``eval`` on real papers: their output, exit codes and effects
in this process (``tests/support/inproc.invoke``), and ``related`` once as a user runs it, in a process of its
own (``papersift.cli.main``: no resident helper answers, so it runs the command line itself)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import pytest

from papersift.settings import Settings
from tests.support.data import write_jsonl
from tests.support.homes import seeded
from tests.support.inproc import invoke
from tests.support.processes import run_cli

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]


def test_embed_is_incremental_and_resumable(tmp_path: Path, citation_corpus: Corpus) -> None:
    records = citation_corpus[0][:60]
    invoke("ingest", str(write_jsonl(tmp_path / "c.jsonl", records)), home=tmp_path)
    first = invoke("embed", "--limit", "25", home=tmp_path).stdout
    assert "embed: 25 papers embedded" in first and "60 papers, 25 vectors" in first
    rest = invoke("embed", home=tmp_path).stdout
    assert "embed: 35 papers embedded" in rest and "60 papers, 60 vectors" in rest
    again = invoke("embed", home=tmp_path).stdout
    assert "embed: 0 papers embedded" in again
    mismatch = invoke("embed", home=tmp_path, check=False, env={"PAPERSIFT_QUANTIZE": "false"})
    assert mismatch.returncode == 1 and "papersift embed --reset" in mismatch.stderr


def test_related_batch_json_has_one_line_per_query(embedded_home: Path, citation_corpus: Corpus) -> None:
    ids = sorted(citation_corpus[1])[:3]
    listing = embedded_home / "ids.txt"
    listing.write_text("\n".join([*ids, "2501.99999", "# a comment", ""]))
    result = invoke("related", "--ids-from", str(listing), "-k", "4", home=embedded_home, check=False)
    assert result.returncode == 1  # one id is unknown
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["query"] for line in lines] == [*ids, "2501.99999"]
    for line in lines[:3]:
        assert len(line["results"]) == 4
        for hit in line["results"]:
            assert {"id", "score", "title", "why"} <= hit.keys() and hit["id"] != line["query"]
    assert lines[3]["results"] == [] and "not in the store" in lines[3]["error"]
    assert "2501.99999 is not in the store" in result.stderr


@pytest.mark.process  # `papersift related` as a user runs it, in its own process
def test_related_text_output_shows_snippets_and_reasons(embedded_home: Path, citation_corpus: Corpus) -> None:
    qid = sorted(citation_corpus[1])[0]
    out = run_cli("related", f"https://arxiv.org/abs/{qid}v2", "-k", "3", home=embedded_home).stdout
    assert out.startswith(f"Related to [{qid}]")
    assert out.count("     why: ") >= 1 and "  1. [" in out and "  3. [" in out


def test_related_bad_input_is_a_clear_error(embedded_home: Path) -> None:
    unknown = invoke("related", "2501.99999", home=embedded_home, check=False)
    assert unknown.returncode == 1 and "2501.99999 is not in the store" in unknown.stderr
    empty = invoke("related", "--text", "   ", home=embedded_home, check=False)
    assert empty.returncode == 2 and "empty" in empty.stderr
    both = invoke("related", home=embedded_home, check=False)
    assert both.returncode == 2
    text = invoke("related", "--text", "quark masses from lattice QCD", "-f", "json", home=embedded_home)
    assert len(json.loads(text.stdout)["results"]) == 10


def test_search_batch_and_modes(embedded_home: Path) -> None:
    queries = embedded_home / "queries.txt"
    queries.write_text('quark mass\n"unbalanced quote\nneutrino oscillations\n')
    out = invoke("search", "--queries-from", str(queries), "-k", "3", home=embedded_home).stdout
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["query"] for line in lines] == ["quark mass", '"unbalanced quote', "neutrino oscillations"]
    assert all(line["mode"] == "hybrid" and len(line["results"]) <= 3 for line in lines)
    assert lines[0]["results"]
    for mode in ("keyword", "semantic"):
        hits = invoke("search", "quark mass", "--mode", mode, "-f", "json", home=embedded_home).stdout
        assert hits.strip()
    bad = invoke("search", "x", "--mode", "fuzzy", home=embedded_home, check=False)
    assert bad.returncode == 2 and "--mode" in bad.stderr


def cached_vectors(home: Path) -> int:
    """How many vectors the install's vector cache holds."""
    with contextlib.closing(sqlite3.connect(Settings(home=home).cache_path)) as cache:
        return int(cache.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])


def test_eval_related_prints_papersift_and_baselines(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, embedded_home: Path, citation_corpus: Corpus
) -> None:
    records, gold = citation_corpus
    # the cache holds the corpus's vectors (embedded_home's) but one in eight: those are encoded by the run
    path = Settings(home=seeded(tmp_path, tmp_path_factory)).cache_path
    with contextlib.closing(sqlite3.connect(path)) as cache:
        cache.execute("DELETE FROM vectors WHERE rowid % 8 = 0")
        cache.commit()
    corpus = write_jsonl(tmp_path / "corpus.jsonl", records)
    pairs = [
        {"query_id": q, "candidate_id": c, "label": 1} for q in sorted(gold)[:8] for c in sorted(gold[q])
    ]
    relevance = write_jsonl(tmp_path / "rel.jsonl", pairs)
    before = cached_vectors(tmp_path)
    out = invoke(
        "eval", "related", "--relevance", str(relevance), "--corpus", str(corpus), "-f", "json", home=tmp_path
    ).stdout
    rows = {row["method"]: row for row in map(json.loads, out.splitlines())}
    assert {"papersift", "tfidf-arxiv-sanity", "bm25", "dense-cosine", "rrf-bm25-dense"} <= rows.keys()
    assert all(row["queries"] == 8 and 0 <= row["nDCG@10"] <= 1 for row in rows.values())
    embedded = cached_vectors(tmp_path)
    assert embedded > before  # the texts missing from the cache were encoded and kept there
    # the second run reuses the cached vectors: nothing to embed, same figures
    again = invoke(
        "eval", "related", "--relevance", str(relevance), "--corpus", str(corpus), "-f", "json", home=tmp_path
    ).stdout
    assert again == out and cached_vectors(tmp_path) == embedded
