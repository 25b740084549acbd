"""Related-papers latency and ANN recall (``make bench-related``).

1. A store of the 300k real papers. Vectors: the real MiniLM vectors of the 20k-file papers (from the
   vector cache that ``papersift eval`` fills; run it first), and for every other paper a SYNTHETIC vector
   drawn from a Gaussian with the real vectors' mean and covariance (real vectors for 300k papers take hours
   on this machine). Then the lexical arrays and the HNSW index are built as ``papersift embed`` does.
2. In process: ``related`` for 1,000 real query papers (query vector lookup, candidates, fusion, fetch of
   the titles): p50 and p95 in ms, against the bare ANN search of the same queries (the floor).
3. The whole ``papersift related ID`` command, start-up included: median wall of 10 runs.
4. ANN recall@10 of the HNSW index against exact search, 1,000 queries over the 20k real vectors.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from papersift.index.encoder import model_id, paper_text
from papersift.index.pipeline import Indexes, open_indexes, refresh
from papersift.ingest import ingest_paths
from papersift.paper import Paper
from papersift.ranking.related import paper_query, related
from papersift.settings import Settings
from papersift.store import open_store
from papersift.store.cache import VectorCache


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def fill_vectors(store_settings: Settings, cache: VectorCache, real_ids: set[str], seed: int) -> int:
    store = open_store(store_settings)
    store.reset_vectors(model_id(store_settings))
    rows = [(rowid, p) for rowid, p in store.iter_rows()]
    real = [(r, p) for r, p in rows if p.id in real_ids]
    found = cache.get(model_id(store_settings), [paper_text(p.title, p.abstract) for _, p in real])
    if len(found) < len(real) // 2:
        raise SystemExit("the vector cache lacks the 20k papers: run `make eval` (papersift eval) first")
    keys = [real[i][0] for i in found]
    matrix = np.stack([found[i] for i in found])
    store.put_vectors(keys, matrix)
    rng = np.random.default_rng(seed)
    mean, cov = matrix.mean(axis=0), np.cov(matrix, rowvar=False)
    have = set(keys)
    synthetic = [r for r, _ in rows if r not in have]
    for start in range(0, len(synthetic), 50_000):
        chunk = synthetic[start : start + 50_000]
        vecs = rng.multivariate_normal(mean, cov, size=len(chunk)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.put_vectors(chunk, vecs)
    store.close()
    return len(keys)


def time_related(
    indexes: Indexes, papers: list[Paper]
) -> tuple[list[float], list[float], list[np.ndarray], list[np.ndarray]]:
    """``related`` (k=10) for each paper, after 20 to warm the page cache and the maps: its seconds,
    the bare ANN search's seconds (the floor), the query vectors and the ANN's 10 nearest rowids."""
    for p in papers[:20]:
        related(indexes, paper_query(indexes, p), k=10)
    full: list[float] = []
    floor: list[float] = []
    vectors: list[np.ndarray] = []
    nearest: list[np.ndarray] = []
    for p in papers:
        t0 = time.perf_counter()
        query = paper_query(indexes, p)
        related(indexes, query, k=10)
        t1 = time.perf_counter()
        assert query.vector is not None and indexes.dense is not None
        nearest.append(indexes.dense.search(query.vector, 10)[0])
        floor.append(time.perf_counter() - t1)
        full.append(t1 - t0)
        vectors.append(query.vector)
    return full, floor, vectors, nearest


def ann_recall(vectors: np.ndarray, queries: int, seed: int) -> float:
    from papersift.index.dense import _new_index

    index = _new_index(vectors.shape[1])
    index.add(np.arange(len(vectors), dtype=np.uint64), vectors)
    picks = np.random.default_rng(seed).choice(len(vectors), size=queries, replace=False)
    exact = np.argsort(-(vectors[picks] @ vectors.T), axis=1)[:, :10]
    found = index.search(vectors[picks], 10).keys
    return float(np.mean([len(set(a) & set(b.tolist())) / 10 for a, b in zip(exact, found, strict=True)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="build the store here and keep it")
    args = parser.parse_args()
    base = Settings()
    home = args.keep or Path(tempfile.mkdtemp(prefix="papersift-bench-"))
    settings = base.model_copy(update={"home": home})
    with gzip.open(args.data / "arxiv-20k.jsonl.gz", "rt") as f:
        real_ids = {json.loads(line)["id"] for line in f}
    store = open_store(settings)
    if store.count() == 0:
        start = time.perf_counter()
        ingest_paths(store, [args.data / "arxiv-300k.jsonl.gz"], chunk=settings.ingest_chunk)
        print(f"ingest 300k: {time.perf_counter() - start:.0f} s")
    missing = store.vector_count() < store.count()
    store.close()
    cache = VectorCache(base.cache_path)
    if missing:
        n_real = fill_vectors(settings, cache, real_ids, seed=1)
        print(f"vectors: {n_real} real (MiniLM) + synthetic for the rest (Gaussian fit to the real ones)")
    store = open_store(settings)
    start = time.perf_counter()
    papers, vectors = refresh(store, settings)
    print(f"index build: {papers} papers, {vectors} vectors in {time.perf_counter() - start:.0f} s")
    indexes = open_indexes(store, settings)
    assert indexes.dense is not None and indexes.lexical is not None
    print(f"ANN: {'exact' if indexes.dense.exact else 'HNSW'} over {len(indexes.dense)} vectors")
    queries = random.Random(3).sample(sorted(real_ids), args.queries)
    papers_q = [p for q in queries if (p := store.get(q)) is not None]
    full, floor, _, _ = time_related(indexes, papers_q)
    print(
        f"related in process ({len(full)} real queries, k=10): p50 {_ms(full, 50):.2f} ms, "
        f"p95 {_ms(full, 95):.2f} ms; bare ANN search p50 {_ms(floor, 50):.2f} ms"
    )
    store.close()
    env = {**os.environ, "PAPERSIFT_HOME": str(home), "PAPERSIFT_RESIDENT_MINUTES": "0"}
    walls = []  # each command starts anew: no resident helper
    for q in queries[:10]:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "papersift.cli", "related", q, "-k", "10"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        walls.append(time.perf_counter() - t0)
    print(f"`papersift related ID` wall, start-up included: median {statistics.median(walls) * 1000:.0f} ms")
    real_store = open_store(settings)
    keys = {real_store.rowid(i) for i in real_ids}
    vecs = [
        batch.vectors[np.isin(batch.keys, list(keys))].astype(np.float32)
        for batch in real_store.iter_vectors()
    ]
    real_store.close()
    matrix = np.concatenate(vecs)
    recall = ann_recall(matrix, min(args.queries, len(matrix)), seed=5)
    print(
        f"ANN recall@10 vs exact, {min(args.queries, len(matrix))} queries over {len(matrix)} real vectors: "
        f"{recall:.4f}"
    )
    cache.close()


if __name__ == "__main__":
    main()
