"""The store's vector side: float16 rows by paper rowid, what still needs a vector, the model, migration,
rowid lookups, and the (model, text) vector cache."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

import numpy as np

from papersift.records.paper import Deleted
from papersift.store import Store
from papersift.store.cache import VectorCache
from papersift.store.sqlite import MIGRATIONS, SqliteStore
from tests.support.data import as_papers
from tests.support.fixtures import reopen

SPREAD = 133  # `records`: 150 real papers spread over the 20k file (1990s archive to 2026 listings)


papers = as_papers


def unit_vectors(n: int, dim: int = 24, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def rowids(store: Store) -> list[int]:
    return [r for r, _ in store.iter_rows()]


def test_vectors_round_trip_as_float16_in_rowid_order(store: Store, records: list[dict[str, object]]) -> None:
    store.upsert(papers(records[:120]))
    keys = rowids(store)
    vecs = unit_vectors(len(keys))
    order = np.random.default_rng(1).permutation(len(keys))  # written in no particular order
    store.put_vectors([keys[i] for i in order], vecs[order])
    batches = list(store.iter_vectors(batch=50))
    assert [len(b.keys) for b in batches] == [50, 50, 20]
    got_keys = np.concatenate([b.keys for b in batches])
    got = np.concatenate([b.vectors for b in batches])
    assert got_keys.dtype == np.int64 and got.dtype == np.float16
    assert got_keys.tolist() == keys
    assert np.array_equal(got, vecs.astype(np.float16))
    later = list(store.iter_vectors(after=keys[59]))
    assert np.concatenate([b.keys for b in later]).tolist() == keys[60:]
    assert np.array_equal(np.concatenate([b.vectors for b in later]), vecs[60:].astype(np.float16))
    assert list(store.iter_vectors(after=keys[-1])) == []


def test_putting_a_vector_again_replaces_it(store: Store, records: list[dict[str, object]]) -> None:
    store.upsert(papers(records[:5]))
    keys = rowids(store)
    store.put_vectors(keys, unit_vectors(5))
    new = unit_vectors(1, seed=7)
    store.put_vectors([keys[2]], new)
    (batch,) = store.iter_vectors()
    assert store.vector_count() == 5
    assert np.array_equal(batch.vectors[2], new[0].astype(np.float16))


def test_missing_vectors_are_newest_first_and_shrink_as_vectors_arrive(
    store: Store, records: list[dict[str, object]]
) -> None:
    store.upsert(papers(records))
    stored = list(store.iter_rows())
    newest_first = sorted(
        stored, key=lambda rp: (rp[1].announced or rp[1].published or date.min, rp[0]), reverse=True
    )
    expected = [(r, p.title, p.abstract) for r, p in newest_first]
    days = {p.announced or p.published for _, p in stored}
    assert len(days) > 50  # the sample really spans many days, so the order is tested
    assert store.missing_vectors(len(stored) + 10) == expected
    assert store.missing_vectors(10) == expected[:10]
    store.put_vectors([r for r, _, _ in expected[:10]], unit_vectors(10))
    assert store.missing_vectors(len(stored)) == expected[10:]
    rest = [r for r, _, _ in expected[10:]]
    store.put_vectors(rest, unit_vectors(len(rest)))
    assert store.missing_vectors(len(stored)) == []


def test_deleted_papers_need_no_vector_and_are_not_iterated(
    store: Store, records: list[dict[str, object]]
) -> None:
    store.upsert(papers(records[:10]))
    keys = rowids(store)
    store.put_vectors(keys[:5], unit_vectors(5))
    gone = [str(records[0]["id"]), str(records[7]["id"])]  # one with a vector, one without
    store.upsert([Deleted(pid) for pid in gone])
    (batch,) = store.iter_vectors()
    assert batch.keys.tolist() == keys[1:5]
    assert sorted(r for r, _, _ in store.missing_vectors(100)) == [keys[5], keys[6], keys[8], keys[9]]


def test_vector_count_and_reset_record_the_model(store: Store, records: list[dict[str, object]]) -> None:
    assert store.vector_model() is None and store.vector_count() == 0
    store.upsert(papers(records[:20]))
    keys = rowids(store)
    store.reset_vectors("model-a")
    assert store.vector_model() == "model-a"
    store.put_vectors(keys[:8], unit_vectors(8))
    assert store.vector_count() == 8
    store.put_vectors(keys[8:], unit_vectors(12, seed=3))
    assert store.vector_count() == 20
    store.reset_vectors("model-b")
    assert (store.vector_model(), store.vector_count()) == ("model-b", 0)
    assert list(store.iter_vectors()) == []
    assert len(store.missing_vectors(100)) == 20


def test_a_version_1_file_migrates_to_hold_vectors(tmp_path: Path, records: list[dict[str, object]]) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    store = SqliteStore(path)
    try:
        version = store.db.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert version == len(MIGRATIONS) >= 2
        assert "vectors" in tables
        assert (store.vector_model(), store.vector_count()) == (None, 0)
        store.upsert(papers(records[:3]))
        store.reset_vectors("m")
        store.put_vectors(rowids(store), unit_vectors(3))
    finally:
        store.close()
    again = SqliteStore(path)  # reopening migrates nothing and keeps the vectors
    try:
        assert again.vector_count() == 3 and again.vector_model() == "m"
    finally:
        again.close()


def test_rowid_lookups_agree_with_get(store: Store, records: list[dict[str, object]]) -> None:
    store.upsert(papers(records[:30]))
    rows = list(store.iter_rows(batch=7))
    assert [r for r, _ in rows] == sorted(r for r, _ in rows) and len(rows) == 30
    for rowid, paper in rows:
        assert store.get(paper.id) == paper
        assert store.rowid(paper.id) == rowid
    keys = [r for r, _ in rows]
    unknown = max(keys) + 1000
    # more rowids than one query takes, most of them unknown
    asked = [*keys[::-1], unknown, *range(unknown + 1, unknown + 2500)]
    assert store.by_rowids(asked) == dict(rows)
    assert store.by_rowids([]) == {}
    assert store.rowid("9999.99999") is None
    assert [r for r, _ in store.iter_rows(after=keys[19])] == keys[20:]
    store.upsert([Deleted(rows[3][1].id)])
    assert store.rowid(rows[3][1].id) is None
    assert keys[3] not in store.by_rowids(keys)
    assert keys[3] not in [r for r, _ in store.iter_rows()]


def test_vector_cache_is_keyed_by_model_and_text(tmp_path: Path) -> None:
    texts = [f"paper {i}: a title | an abstract" for i in range(600)]  # more than one query's worth
    vecs = unit_vectors(len(texts), dim=8)
    path = tmp_path / "cache" / "vectors.db"
    cache = VectorCache(path)
    assert cache.get("model-a", texts[:3]) == {}
    cache.put("model-a", texts, vecs)
    got = cache.get("model-a", [texts[1], "never seen", texts[599], texts[0]])
    assert sorted(got) == [0, 2, 3]
    for at, i in ((0, 1), (2, 599), (3, 0)):
        assert got[at].dtype == np.float32
        assert np.array_equal(got[at], vecs[i].astype(np.float16).astype(np.float32))
    assert cache.get("model-b", texts) == {}  # another model's vector of the same text is a miss
    cache.put("model-a", [texts[1]], vecs[:1])  # putting again replaces
    assert np.array_equal(cache.get("model-a", [texts[1]])[0], vecs[0].astype(np.float16).astype(np.float32))
    cache.close()
    reopened = VectorCache(path)
    try:
        assert len(reopened.get("model-a", texts)) == 600
    finally:
        reopened.close()


def test_a_cache_takes_the_vectors_another_holds_and_keeps_its_own(tmp_path: Path) -> None:
    texts = [f"paper {i}" for i in range(4)]
    vecs = unit_vectors(len(texts), dim=8)
    other, mine = VectorCache(tmp_path / "other.db"), VectorCache(tmp_path / "mine.db")
    other.put("m", texts[:3], vecs[:3])
    other.close()  # a finished file
    mine.put("m", texts[2:], vecs[:2])  # texts[2] held already, with another vector
    mine.add_from(tmp_path / "other.db")
    got = mine.get("m", texts)
    mine.close()
    assert sorted(got) == [0, 1, 2, 3]
    assert np.array_equal(got[0], vecs[0].astype(np.float16).astype(np.float32))
    assert np.array_equal(got[2], vecs[0].astype(np.float16).astype(np.float32))  # its own kept


def test_a_new_abstract_drops_the_stale_vector(store: Store, records: list[dict[str, object]]) -> None:
    from dataclasses import replace

    ps = papers(records[:3])
    store.upsert(ps)
    store.reset_vectors("m")
    rowids = [store.rowid(p.id) for p in ps]
    store.put_vectors([r for r in rowids if r is not None], np.ones((3, 4), dtype=np.float32))
    before = store.get_state("vectors_changed")
    store.upsert([replace(ps[0], abstract=ps[0].abstract + " Revised.", version=(ps[0].version or 1) + 1)])
    assert store.vector_count() == 2
    assert [r for r, _, _ in store.missing_vectors(10)] == [rowids[0]]
    assert store.get_state("vectors_changed") != before


def test_data_version_moves_on_writes_from_any_connection(
    store: Store, records: list[dict[str, object]]
) -> None:
    start = store.data_version()
    assert store.data_version() == start  # reading changes nothing
    store.upsert(papers(records[:1]))
    mine = store.data_version()
    assert mine != start
    other = reopen(store)
    other.upsert(papers(records[1:2]))
    other.close()
    assert store.data_version() != mine
