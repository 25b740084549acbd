"""What only the PostgreSQL backend has: its query translation, schema checks, connections, pgvector."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import psycopg
import pytest

from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.store import StoreError, open_store
from papersift.store.fts_query import keyword_query
from papersift.store.postgres import MIGRATIONS, PostgresStore, ts_query
from papersift.store.sqlite import SqliteStore
from tests.support.data import as_papers, spread_records
from tests.support.keyword import keyword_ids


def paper(pid: str, title: str = "Sparse attention for long context", **kw: object) -> Paper:
    fields: dict[str, object] = {
        "authors": ["Ada Lovelace"],
        "abstract": "We study sparse attention.",
        "categories": ["cs.LG"],
        "source": "test",
    }
    fields.update(kw)
    return Paper(pid, title, **fields)  # type: ignore[arg-type]


@pytest.fixture
def pg(pg_dsn: str) -> PostgresStore:
    return PostgresStore(pg_dsn)


def test_user_syntax_becomes_tsquery_syntax() -> None:
    def tsq(query: str, **kw: object) -> str:
        match = ts_query(keyword_query(query, **kw))  # type: ignore[arg-type]
        assert match is not None
        return match

    assert tsq("graph nets*") == "('graph') & ('nets':*)"
    assert tsq('"neural net" OR gnn') == "( ('neural' <-> 'net') | ('gnn') )"
    assert tsq("graph -vision") == "( ('graph') ) & ! ('vision')"
    assert tsq("graph", author="Grace Hopper") == "('graph') & ('grace':B <-> 'hopper':B)"
    assert tsq("quasi-one-dimensional the Bose", any_terms=True) == "( ('quasi') | ('dimension') | ('bose') )"


def test_queries_rank_title_matches_first(pg: PostgresStore) -> None:
    pg.upsert(
        [
            paper("2601.00001", "Graph neural networks", abstract="Message passing."),
            paper("2601.00002", "Vision", abstract="We use graph features and graph ideas here."),
            paper("2601.00003", "Nothing here", authors=["Graph Person"]),
        ]
    )
    assert keyword_ids(pg, "graph") == ["2601.00001", "2601.00003", "2601.00002"]
    assert pg.match("graphs networking", any_terms=True)[0][0] == pg.rowid("2601.00001")
    assert keyword_ids(pg, "", author="graph person")[0] == "2601.00003"


def test_nul_characters_are_dropped_and_reingesting_changes_nothing(pg: PostgresStore) -> None:
    bad = paper("2601.00001", "Nul\x00 title", abstract="a\x00b", authors=["A\x00"])
    assert pg.upsert([bad]).new == 1
    got = pg.get("2601.00001")
    assert got is not None and (got.title, got.abstract, got.authors) == ("Nul title", "ab", ["A"])
    again = pg.upsert([paper("2601.00001", "Nul\x00 title", abstract="a\x00b", authors=["A\x00"])])
    assert (again.new, again.updated, again.skipped) == (0, 0, 1)


def test_any_word_queries_leave_out_words_the_statistics_call_common(pg: PostgresStore) -> None:
    common = "We study a model of it."  # "model" in all 61 papers; "spin", "anyon" in one each (1.6%)
    pg.upsert(
        [paper(f"2601.{i:05d}", f"Paper {i}", abstract=common) for i in range(1, 60)]
        + [
            paper("2601.00100", "Spin glass model", abstract=common),
            paper("2601.00101", "Anyon braiding model", abstract=common),
        ]
    )
    pg.conn.execute("ANALYZE papers")
    assert len(pg.match("spin anyon model", any_terms=True, k=100)) == 61  # a small table keeps every word
    pg.common_after = 0
    pg._common = None  # read the statistics again
    found = {pg.by_rowids([r])[r].id for r, _ in pg.match("spin anyon model", any_terms=True, k=100)}
    assert found == {"2601.00100", "2601.00101"}
    given = {"spin"}.__contains__  # what a ranker calls common adds to what the statistics do
    assert [r for r, _ in pg.match("spin anyon model", any_terms=True, common=given)] == [
        pg.rowid("2601.00101")
    ]
    assert len(pg.match("the model", any_terms=True, k=100)) == 61  # nothing but common words: kept


def test_newer_schema_unreachable_servers_and_missing_extensions_are_clear_errors(pg_dsn: str) -> None:
    PostgresStore(pg_dsn).close()
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("UPDATE papersift_meta SET schema_version = 99")
    with pytest.raises(StoreError, match="newer than this papersift"):
        PostgresStore(pg_dsn)
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL") as e:
        PostgresStore("postgresql://me:hunter2@127.0.0.1:1/none")
    assert "hunter2" not in str(e.value)
    server = pg_dsn.split("@")[1].rsplit("/", 1)[0]
    with psycopg.connect(f"postgresql://postgres@{server}/postgres", autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS plain_db")
        conn.execute("DROP ROLE IF EXISTS plain")
        conn.execute("CREATE ROLE plain LOGIN")
        conn.execute("CREATE DATABASE plain_db OWNER plain TEMPLATE template0")
    # a database without pgvector, opened by a user who may not install it
    with pytest.raises(StoreError, match="CREATE EXTENSION vector"):
        PostgresStore(f"postgresql://plain@{server}/plain_db")


def test_reopening_keeps_data_and_open_store_follows_settings(pg_dsn: str, tmp_path: Path) -> None:
    s = open_store(Settings(home=tmp_path, db=pg_dsn))
    assert isinstance(s, PostgresStore)
    s.upsert([paper("2601.00001")])
    s.close()
    again = open_store(Settings(home=tmp_path, db=pg_dsn))
    assert again.count() == 1 and keyword_ids(again, "sparse")
    again.close()
    lite = open_store(Settings(home=tmp_path, db=f"sqlite://{tmp_path}/other/x.db"))
    assert isinstance(lite, SqliteStore) and lite.path == tmp_path / "other" / "x.db"
    lite.close()
    with pytest.raises(StoreError, match="not a database URL"):
        open_store(Settings(home=tmp_path, db="mysql://h/db"))


def test_concurrent_writers_take_turns(pg_dsn: str, shared_data: Path) -> None:
    papers = as_papers(spread_records(shared_data, 100))
    stores = [PostgresStore(pg_dsn) for _ in range(3)]
    halves = [papers[i::3] for i in range(3)]
    threads = [threading.Thread(target=s.upsert, args=(h,)) for s, h in zip(stores, halves, strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = list(stores[0].iter_rows())
    assert len(rows) == len({r for r, _ in rows}) == len(papers)
    for s in stores:
        s.close()


def test_vectors_keep_no_ann_index_and_skip_deleted_papers(pg: PostgresStore, shared_data: Path) -> None:
    """Related papers come from the rankers' usearch file (docs/store.md): writes keep no pgvector index."""
    from papersift.records.paper import Deleted

    pg.upsert(as_papers(spread_records(shared_data, 100)))
    rows = list(pg.iter_rows())
    vecs = np.random.default_rng(5).standard_normal((len(rows), 16)).astype(np.float32)
    pg.put_vectors([r for r, _ in rows], vecs)
    indexes = [r[0] for r in pg.conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'vectors'")]
    assert indexes == ["vectors_pkey"]
    (stored,) = pg.iter_vectors()
    assert np.array_equal(stored.vectors, vecs.astype(np.float16))
    pg.upsert([Deleted(rows[7][1].id)])
    assert rows[7][0] not in list(next(pg.iter_vectors()).keys)
    with pytest.raises(StoreError, match="16 dimensions, not 8"):
        pg.put_vectors([rows[0][0]], np.ones((1, 8), dtype=np.float32))
    pg.reset_vectors("another model")  # a new model may have another dimension
    pg.put_vectors([rows[0][0]], np.ones((1, 8), dtype=np.float32))
    assert pg.vector_count() == 1


def test_a_dropped_connection_is_made_again_for_the_next_read(pg: PostgresStore) -> None:
    pg.upsert([paper("2601.00001")])
    with psycopg.connect(pg.dsn, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pg.conn.info.backend_pid,))
    assert pg.count() == 1  # the read that finds the connection gone runs again on a new one
    pg.upsert([paper("2601.00002")])
    assert pg.count() == 2


def test_the_migration_drops_the_old_hnsw_index(pg: PostgresStore, shared_data: Path) -> None:
    """A database from before migration 5 loses the pgvector HNSW index, and keeps its vectors."""
    pg.upsert(as_papers(spread_records(shared_data, 10)))
    rows = list(pg.iter_rows())
    pg.put_vectors([r for r, _ in rows], np.ones((len(rows), 4), dtype=np.float32))
    pg.conn.execute("CREATE INDEX vectors_hnsw ON vectors USING hnsw (vec halfvec_cosine_ops)")
    pg.conn.execute("UPDATE papersift_meta SET schema_version = 4")
    again = PostgresStore(pg.dsn)
    try:
        assert again.schema_version() == len(MIGRATIONS) and again.vector_count() == len(rows)
        assert again.conn.execute("SELECT to_regclass('vectors_hnsw')").fetchone() == (None,)
    finally:
        again.close()
