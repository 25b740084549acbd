"""One analyzer for both stores' keyword index: the keyword pipeline's tokens, the same papers in the same
order (and the same BM25 scores) on SQLite and PostgreSQL, forms of a word meeting, prefixes and phrases,
the index rebuilt for a store made before."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from papersift.records.analyzer import keyword_text, keyword_tokens
from papersift.records.paper import Paper
from papersift.store import Filters, Store, postgres
from papersift.store.postgres import PostgresStore
from papersift.store.sqlite import MIGRATIONS, SqliteStore
from tests.pg import PgServer
from tests.support.data import as_papers, spread_records
from tests.support.keyword import keyword_ids

# as typed and as an any-word query: words, phrases, prefixes, OR, exclusions, stop words, odd syntax
QUERIES = (
    "neural networks",
    "quantum field theory",
    '"dark matter" halo',
    "magnet*",
    "galaxy OR galaxies -cluster",
    "the spectrum of a random matrix",
    "We study the learning of sparse representations with graph neural networks",
    "Schrödinger équation",
    'AND( "unbalanced * NOT',
)


def paper(pid: str, title: str) -> Paper:
    return Paper(pid, title, ["Ada Lovelace"], "Nothing of note.", ["cs.LG"], announced=date(2026, 1, 21))


@pytest.fixture(scope="module")
def both(
    tmp_path_factory: pytest.TempPathFactory, shared_data: Path, pg_server: PgServer
) -> Iterator[tuple[SqliteStore, PostgresStore]]:
    """500 real papers in a SQLite store and in a PostgreSQL one."""
    papers = as_papers(spread_records(shared_data, 40))
    lite = SqliteStore(tmp_path_factory.mktemp("keyword") / "papers.db")
    dsn = pg_server.database()
    pg = PostgresStore(dsn)
    lite.upsert(papers)
    pg.upsert(papers)
    yield lite, pg
    lite.close()
    pg.close()
    pg_server.drop(dsn)


def test_the_keyword_pipeline_folds_splits_and_stems() -> None:
    assert keyword_tokens("Schrödinger's GRAPH_Networks, β-decay") == [
        "schroding",
        "s",
        "graph",
        "network",
        "β",
        "decai",  # Porter's stem, as FTS5's porter tokenizer made it
    ]
    assert keyword_tokens("learning networks", prefix=True) == ["learn", "networks"]  # a prefix: folded only
    assert keyword_text("The Studies") == "the studi"  # stop words kept: the index holds every word


@pytest.mark.parametrize("any_terms", [False, True], ids=["typed", "any-word"])
def test_both_stores_rank_the_same_papers_with_the_same_scores(
    both: tuple[SqliteStore, PostgresStore], any_terms: bool
) -> None:
    lite, pg = both
    found_some = 0
    for query in QUERIES:
        a = lite.match(query, k=10, any_terms=any_terms)
        b = pg.match(query, k=10, any_terms=any_terms)
        assert [r for r, _ in a] == [r for r, _ in b], query
        assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-12), query
        found_some += bool(a)
    assert found_some >= 4


def test_an_author_filter_ranks_alike_on_both_stores(both: tuple[SqliteStore, PostgresStore]) -> None:
    lite, pg = both
    author = lite.by_rowids([1])[1].authors[0]
    filters = Filters(author=author)
    a, b = (s.match("the", k=10, filters=filters) for s in (lite, pg))
    assert a and [r for r, _ in a] == [r for r, _ in b]
    assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-12)


def test_accents_case_and_plural_forms_meet(store: Store) -> None:
    store.upsert([paper("2601.00001", "Schrödinger equations on Graph Networks")])
    store.upsert([paper("2601.00002", "Unrelated things")])
    for query in ("schrodinger equation", "SCHRÖDINGER", "graph network", "networking graphs"):
        assert keyword_ids(store, query) == ["2601.00001"], query


def test_a_prefix_starts_words_and_a_phrase_keeps_its_order(store: Store) -> None:
    store.upsert(
        [
            paper("2601.00001", "Neural networks for vision"),
            paper("2601.00002", "Networks, neural and otherwise"),
        ]
    )
    assert keyword_ids(store, "netw*") == ["2601.00001", "2601.00002"]  # equal scores: rowid order
    assert keyword_ids(store, '"neural networks"') == ["2601.00001"]
    assert keyword_ids(store, '"vision for"') == []
    assert keyword_ids(store, "neur* -vision") == ["2601.00002"]


def test_odd_words_are_never_an_error(store: Store) -> None:
    store.upsert([paper("2601.00001", "Foo_bar and a word")])
    # the index splits it too: a phrase of "foo" and the prefix "bar"
    assert keyword_ids(store, "foo_bar*") == ["2601.00001"]
    assert keyword_ids(store, "___ " + "x" * 300) == []  # no token left, or one over the size: no match
    assert keyword_ids(store, "___") == []


def test_a_store_made_before_gets_its_keyword_index_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "papers.db"
    store = SqliteStore(db)
    store.upsert([paper("2601.00001", "Learning graph networks")])
    # as migration 1 left the index: FTS5's own porter tokens over the papers' text
    store.db.execute("DROP TABLE papers_fts")
    store.db.execute(
        "CREATE VIRTUAL TABLE papers_fts USING fts5(title, abstract, authors, content='papers', "
        "content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2')"
    )
    store.db.execute("INSERT INTO papers_fts (papers_fts) VALUES ('rebuild')")
    store.db.execute(f"PRAGMA user_version={len(MIGRATIONS) - 1}")
    store.close()
    again = SqliteStore(db)
    try:
        (table,) = again.db.execute("SELECT sql FROM sqlite_master WHERE name = 'papers_fts'").fetchone()
        assert "content=''" in table and "tokenize='ascii'" in table
        assert keyword_ids(again, "learned network") == ["2601.00001"]
        again.db.execute("INSERT INTO papers_fts (papers_fts) VALUES ('integrity-check')")
    finally:
        again.close()


def test_a_postgres_store_made_before_gets_its_keyword_index_rebuilt(pg_dsn: str) -> None:
    store = PostgresStore(pg_dsn)
    store.upsert([paper("2601.00001", "Learning graph networks"), paper("2601.00002", "Other things")])
    # as migration 1 left it: a column generated by PostgreSQL's own configuration, no counts
    store.conn.execute(
        """
        ALTER TABLE papers DROP COLUMN search, DROP COLUMN keyword_length;
        DROP TABLE keyword_terms;
        ALTER TABLE papersift_meta DROP COLUMN keyword_papers, DROP COLUMN keyword_tokens;
        CREATE TEXT SEARCH CONFIGURATION papersift (COPY = english);
        ALTER TABLE papers ADD COLUMN search tsvector
            GENERATED ALWAYS AS (to_tsvector('papersift', title)) STORED;
        CREATE INDEX papers_search ON papers USING gin (search);
        """
    )
    store.conn.execute("UPDATE papersift_meta SET schema_version = %s", (len(postgres.MIGRATIONS) - 1,))
    store.close()
    again = PostgresStore(pg_dsn)
    try:
        assert keyword_ids(again, "learned network") == ["2601.00001"]
        counts = again.conn.execute("SELECT keyword_papers, keyword_tokens FROM papersift_meta").fetchone()
        assert counts == (2, 3 + 3 + 2 + 2 + 3 + 2)  # title, abstract, authors ('["Ada Lovelace"]') of each
        learn = again.conn.execute("SELECT papers FROM keyword_terms WHERE term = 'learn'").fetchone()
        assert learn == (1,)
    finally:
        again.close()
