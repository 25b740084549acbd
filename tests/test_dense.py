"""The dense index: a usearch file kept in step with the store's vectors, exact or HNSW search over it,
and rebuilt when it is corrupt or made by another model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from papersift.index.dense import open_dense, sync_dense
from papersift.sources.snapshot import paper_from_record
from papersift.store.sqlite import SqliteStore

DIM = 32
EXACT = 10**9  # exact_below: brute force at any size


SPREAD, SPREAD_COUNT = 66, 300  # `records`: 300 real papers spread over the 20k file


def unit_vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def ingest(store: SqliteStore, records: list[dict[str, object]]) -> list[int]:
    """Store the papers; their rowids in order."""
    store.upsert([paper_from_record(r, "test") for r in records])
    ids = {r["id"] for r in records}
    return [rowid for rowid, paper in store.iter_rows() if paper.id in ids]


def embedded(
    store: SqliteStore, records: list[dict[str, object]], seed: int = 0
) -> tuple[list[int], np.ndarray]:
    """The papers stored with random unit vectors from ``test-model``: (rowids, vectors)."""
    keys = ingest(store, records)
    vecs = unit_vectors(len(keys), seed)
    if store.vector_model() != "test-model":
        store.reset_vectors("test-model")
    store.put_vectors(keys, vecs)
    return keys, vecs


def meta(directory: Path) -> dict[str, object]:
    """The index metadata, less the store's change counter (which every write moves)."""
    found = dict(json.loads((directory / "dense.json").read_text()))
    assert isinstance(found.pop("changes"), str)
    return found


def brute_force(keys: list[int], vecs: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    stored = vecs.astype(np.float16).astype(np.float32)
    sims = stored @ query / np.linalg.norm(stored, axis=1) / np.linalg.norm(query)
    return [keys[i] for i in np.argsort(-sims)[:k]]


def test_exact_search_finds_each_stored_vector_first(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    keys, vecs = embedded(store, records)
    directory = tmp_path / "index"
    assert sync_dense(store, directory) == 300
    assert meta(directory) == {"model": "test-model#1", "count": 300, "max_key": max(keys)}
    dense = open_dense(store, directory, exact_below=EXACT)
    assert dense is not None and dense.exact and len(dense) == 300 and dense.model == "test-model"
    for i in range(0, 300, 15):
        found, sims = dense.search(vecs[i], 10)
        assert found.dtype == np.int64 and sims.dtype == np.float32
        assert found[0] == keys[i] and sims[0] == pytest.approx(1.0, abs=2e-3)
        assert np.all(np.diff(sims) <= 1e-6)  # best first
        assert found.tolist() == brute_force(keys, vecs, vecs[i], 10)
    assert len(dense.search(vecs[0], 1000)[0]) == 300
    assert len(dense.search(vecs[0], 0)[0]) == 0


def test_hnsw_recall_at_10_matches_exact_search(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    embedded(store, records)
    exact = open_dense(store, tmp_path / "index", exact_below=EXACT)
    approx = open_dense(store, tmp_path / "index", exact_below=0)
    assert exact is not None and approx is not None
    assert exact.exact and not approx.exact
    queries = unit_vectors(50, seed=99)  # not stored: real neighbour searches
    hits = sum(
        len(set(exact.search(q, 10)[0].tolist()) & set(approx.search(q, 10)[0].tolist())) for q in queries
    )
    assert hits / (50 * 10) >= 0.9


def test_new_vectors_are_added_on_the_next_sync(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    directory = tmp_path / "index"
    first, _ = embedded(store, records[:200], seed=1)
    assert sync_dense(store, directory) == 200
    assert meta(directory) == {"model": "test-model#1", "count": 200, "max_key": max(first)}
    later, later_vecs = embedded(store, records[200:], seed=2)
    assert sync_dense(store, directory) == 300
    assert meta(directory) == {"model": "test-model#1", "count": 300, "max_key": max(later)}
    assert max(later) > max(first)
    dense = open_dense(store, directory, exact_below=EXACT)
    assert dense is not None and len(dense) == 300
    assert dense.search(later_vecs[42], 1)[0].tolist() == [later[42]]
    # nothing new: the file is left as it is
    path = directory / "dense.usearch"
    before = (path.stat().st_mtime_ns, path.read_bytes())
    assert sync_dense(store, directory) == 300
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_corrupt_index_file_is_rebuilt(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]], damage: str
) -> None:
    keys, vecs = embedded(store, records)
    directory = tmp_path / "index"
    sync_dense(store, directory)
    path = directory / "dense.usearch"
    data = path.read_bytes()
    path.write_bytes(b"\x00garbage\xff" * 500 if damage == "garbage" else data[: len(data) // 2])
    dense = open_dense(store, directory, exact_below=EXACT)
    assert dense is not None and len(dense) == 300
    assert dense.search(vecs[7], 1)[0].tolist() == [keys[7]]
    path.write_bytes(data[:100])
    assert sync_dense(store, directory) == 300  # syncing alone rebuilds it too
    approx = open_dense(store, directory, exact_below=0)
    assert approx is not None and approx.search(vecs[9], 1)[0].tolist() == [keys[9]]


def test_another_model_rebuilds_the_index(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    keys, old = embedded(store, records, seed=1)
    directory = tmp_path / "index"
    assert sync_dense(store, directory) == 300
    store.reset_vectors("other")
    new = unit_vectors(300, seed=5)
    store.put_vectors(keys, new)  # same papers, same count, another model's vectors
    dense = open_dense(store, directory, exact_below=EXACT)
    assert dense is not None and dense.model == "other" and len(dense) == 300
    assert meta(directory)["model"] == "other#2"
    found, sims = dense.search(new[3], 1)
    assert found.tolist() == [keys[3]] and sims[0] == pytest.approx(1.0, abs=2e-3)
    assert np.allclose(dense.vectors(np.array(keys[:5])), new[:5], atol=1e-3)
    assert not np.allclose(dense.vectors(np.array(keys[:5])), old[:5], atol=1e-1)


def test_vectors_returns_the_stored_rows_and_zeros_for_unknown_keys(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    keys, vecs = embedded(store, records[:50])
    dense = open_dense(store, tmp_path / "index", exact_below=EXACT)
    assert dense is not None
    unknown = max(keys) + 1000
    got = dense.vectors(np.array([keys[4], unknown, keys[0]]))
    assert got.dtype == np.float32 and got.shape == (3, DIM)
    assert np.array_equal(got[0], vecs[4].astype(np.float16).astype(np.float32))
    assert np.array_equal(got[2], vecs[0].astype(np.float16).astype(np.float32))
    assert not got[1].any()
    assert dense.vectors(np.array([], dtype=np.int64)).shape == (0, DIM)


def test_no_vectors_no_index(store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]) -> None:
    directory = tmp_path / "index"
    ingest(store, records[:20])
    assert open_dense(store, directory, exact_below=EXACT) is None  # no model yet
    store.reset_vectors("test-model")
    assert open_dense(store, directory, exact_below=EXACT) is None  # a model, no vectors yet
    assert sync_dense(store, directory) == 0
    assert list(directory.iterdir()) == []
    embedded(store, records[:20])
    assert sync_dense(store, directory) == 20
    store.reset_vectors("next-model")  # every vector forgotten: the stale file goes too
    assert sync_dense(store, directory) == 0
    assert list(directory.iterdir()) == []
    assert open_dense(store, directory, exact_below=EXACT) is None


def test_re_embedding_with_the_same_model_rebuilds_the_index(
    store: SqliteStore, records: list[dict[str, object]], tmp_path: Path
) -> None:
    keys, _ = embedded(store, records)
    directory = tmp_path / "index"
    sync_dense(store, directory)
    store.reset_vectors("test-model")  # `papersift embed --reset`: same name, new vectors
    new = unit_vectors(len(keys), seed=9)
    store.put_vectors(keys, new)
    dense = open_dense(store, directory, exact_below=EXACT)
    assert dense is not None
    assert np.allclose(dense.vectors(np.array(keys[:3])), new[:3], atol=1e-3)


def test_a_deleted_paper_leaves_the_index(
    store: SqliteStore, records: list[dict[str, object]], tmp_path: Path
) -> None:
    from papersift.records.paper import Deleted

    keys, vecs = embedded(store, records)
    directory = tmp_path / "index"
    assert sync_dense(store, directory) == len(keys)
    gone = str(records[0]["id"])
    store.upsert([Deleted(gone)])
    assert store.vector_count() == len(keys) - 1
    dense = open_dense(store, directory, exact_below=EXACT)
    assert dense is not None and len(dense) == len(keys) - 1
    assert keys[0] not in dense.search(vecs[0], 5)[0].tolist()
