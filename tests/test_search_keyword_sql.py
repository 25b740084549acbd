"""Keyword search's hot path once a query is understood (issue 25's latency bound at 300k): a query
understanding leaves as it is runs exactly the SQL of ``exact`` mode (the same statements, the same
values, no extra round trip), an acronym's expansion is one FTS match, not a second query, and a query
matching nothing is offered near words, never category codes."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import orjson
import pytest

from papersift.index.indexes import Indexes
from papersift.index.pipeline import refresh
from papersift.ranking.search import NO_GOOD_MATCHES, search
from papersift.settings import Settings
from papersift.store import open_store
from papersift.store.sqlite import SqliteStore
from tests.support.data import write_jsonl
from tests.support.inproc import invoke

GNN = re.compile(r"graph neural network|\bGNNs?\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """Real papers of the 20k file: 30 about graph neural networks (some defining GNN) and 150 others,
    with the lexical index and vocabulary built (no vectors: keyword search needs none)."""
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        records = list(map(orjson.loads, f))
    gnn = [r for r in records if GNN.search(f"{r['title']} {r['abstract']}")][:30]
    ids = {r["id"] for r in gnn}
    home = tmp_path_factory.mktemp("keyword-sql")
    chosen = gnn + [r for r in records[::97] if r["id"] not in ids][:150]
    invoke("ingest", str(write_jsonl(home / "papers.jsonl", chosen)), home=home)
    settings = Settings(home=home)
    store = open_store(settings)
    try:
        refresh(store, settings)
    finally:
        store.close()
    return home


INDEXES_HOME = "home"  # the home the shared `indexes` fixture opens (tests/support/fixtures.py)


def _statements(indexes: Indexes, query: str, exact: bool) -> list[str]:
    """The SQL statements (values bound in) one keyword search runs, in order, without those FTS5 runs
    inside them (traced as ``-- …``)."""
    store = indexes.store
    assert isinstance(store, SqliteStore)
    seen: list[str] = []
    store.db.set_trace_callback(seen.append)
    try:
        search(indexes, query, mode="keyword", exact=exact)
    finally:
        store.db.set_trace_callback(None)
    return [sql for sql in seen if not sql.startswith("--")]


@pytest.mark.parametrize("query", ["neural message passing", "Graph Networks", "convolution -spectral"])
def test_a_query_understanding_leaves_unchanged_runs_the_sql_of_exact_mode(
    indexes: Indexes, query: str
) -> None:
    understood = search(indexes, query, mode="keyword").understood
    assert understood is not None and not understood.rewritten and understood.keyword_text == query
    understood_sql = _statements(indexes, query, exact=False)
    assert understood_sql == _statements(indexes, query, exact=True)
    assert any("MATCH" in sql for sql in understood_sql)


def test_an_expanded_acronym_is_one_fts_match_not_another_query(indexes: Indexes) -> None:
    understood = search(indexes, "GNN", mode="keyword").understood
    assert understood is not None and understood.acronyms  # GNN OR "graph neural network"
    understood_sql = _statements(indexes, "GNN", exact=False)
    exact_sql = _statements(indexes, "GNN", exact=True)
    assert len(understood_sql) == len(exact_sql)
    matches = [sql for sql in understood_sql if "MATCH" in sql]
    assert len(matches) == 1 and "graph neural network" in matches[0]


def test_a_query_matching_nothing_is_offered_no_category_codes_as_terms(indexes: Indexes) -> None:
    result = search(indexes, "qwxzvplork blorptangle", mode="keyword")
    assert result.hits == [] and NO_GOOD_MATCHES in result.notes and result.understood is not None
    categories = {p.primary_category for p in indexes.store.by_rowids(list(range(1, 50))).values()}
    assert categories and not set(result.understood.suggestions) & categories
