"""Full-arXiv scale on one machine, the SQLite path (``make bench-scale``): 2.7M papers, 300k of them real.

The papers and vectors are those of ``synthetic.py``: the 300k real file and 8 id-shifted copies, real
MiniLM vectors for the 20k-file papers, synthetic ones for the rest. Every step is what ``papersift`` runs:

1. ingest (``ingest_items``, chunked transactions, the same as ``papersift ingest``): time, papers/s;
2. vectors written to the store (not timed as papersift work: they stand in for ``papersift embed``);
3. the index build of ``papersift embed``: the lexical arrays (out of core) and the HNSW index, timed apart;
4. sizes: the store on disk, the lexical arrays, the vector index (float16) file and its memory;
5. ``related`` in process for 1,000 real query papers: p50/p95 ms, beside the bare ANN search (the floor);
6. recall@10 of the ANN index against exact search over all vectors, for the same 1,000 real queries;
7. keyword search in process (``Store.match``, FTS5 BM25) for two-word queries from real titles, the same
   queries as ``postgres.py``: all words (1,000 queries) and any word (``--any-queries``; leaving out
   the words in over 10% of the papers, as hybrid search does): p50/p95;
8. a real ``papersift serve`` (1 worker): 1,000 cold paper pages (each ranks its related papers) and 200
   searches over HTTP, p50/p95, then the server's peak RSS (anonymous and file-backed apart);
9. ``papersift related ID`` from the shell, start-up included: median of 10.

Each step is skipped when an earlier run finished it (rerun to go on after a stop); ``--fresh`` starts over.

    python bench/scale.py --data ../shared/data --home bench/out/store2700k --copies 9
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
from measure import TITLE_SAMPLE, exact_top10, free_port, keyword_times, recall
from related import time_related
from synthetic import base_vectors, papers, real_papers, vector_slices

from papersift.index.encoder import model_id
from papersift.index.indexes import open_indexes
from papersift.index.pipeline import refresh
from papersift.records.analyzer import STOP_WORDS
from papersift.services.ingest import ingest_items
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _gb(n: float) -> str:
    return f"{n / 1e9:.2f} GB"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--home", type=Path, default=Path("bench/out/store2700k"))
    parser.add_argument("--copies", type=int, default=9)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--any-queries", type=int, default=100)
    parser.add_argument("--cache", type=Path, default=Settings().cache_path)
    parser.add_argument("--base", type=int, help="only the first N real papers (a quick trial)")
    parser.add_argument("--fresh", action="store_true", help="delete the store and start over")
    args = parser.parse_args()
    if args.fresh:
        shutil.rmtree(args.home, ignore_errors=True)
    settings = Settings(home=args.home)
    settings.home.mkdir(parents=True, exist_ok=True)
    base = real_papers(args.data / "arxiv-300k.jsonl.gz")[: args.base]
    total = len(base) * args.copies
    print(f"papers: {len(base):,} real + {total - len(base):,} synthetic copies = {total:,}", flush=True)

    store = SqliteStore(settings.db_path)
    if store.count() < total:
        t0 = time.perf_counter()
        counts = ingest_items(store, papers(base, args.copies), chunk=settings.ingest_chunk)
        took = time.perf_counter() - t0
        print(
            f"1 ingest: {counts.new:,} new papers in {took:.0f} s ({counts.new / took:,.0f} papers/s)",
            flush=True,
        )
    else:
        print("1 ingest: done by an earlier run")
    assert store.count() == total, store.count()

    base_matrix, real_mask = base_vectors(base, args.cache, seed=1)
    if store.vector_count() < total:
        t0 = time.perf_counter()
        rowid = dict(store.db.execute("SELECT id, rowid FROM papers"))
        store.reset_vectors(model_id(settings))
        for ids, vectors in vector_slices(base, base_matrix, args.copies, seed=1):
            store.put_vectors([rowid[i] for i in ids], vectors)
        print(
            f"2 vectors written: {int(real_mask.sum()):,} real MiniLM, the rest synthetic "
            f"({time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
    store.close()

    store = SqliteStore(settings.db_path)
    t0 = time.perf_counter()
    refresh(store, settings)  # an index generation: lexical arrays + HNSW (nothing when already current)
    print(f"3 index generation (lexical arrays, HNSW): {time.perf_counter() - t0:.0f} s", flush=True)
    db_files = [p for p in settings.home.glob(settings.db_path.name + "*")]
    indexes = open_indexes(store, settings)
    assert indexes.dense is not None and indexes.lexical is not None and indexes.generation is not None
    directory = indexes.generation.path
    print(
        f"4 sizes: store {_gb(sum(_size(p) for p in db_files))} on disk; lexical arrays "
        f"{_gb(_size(directory / 'lexical'))}; vector index (float16 + HNSW graph) "
        f"{_gb(_size(directory / 'dense.usearch'))}, memory-mapped whole",
        flush=True,
    )

    real_ids = [p.id for p, real in zip(base, real_mask, strict=True) if real]
    queries = random.Random(3).sample(real_ids, min(args.queries, len(real_ids)))
    query_papers = [p for q in queries if (p := store.get(q)) is not None]
    full, floor, vectors, ann = time_related(indexes, query_papers)
    print(
        f"5 related in process ({len(full)} real queries, k=10): p50 {_ms(full, 50):.2f} ms, "
        f"p95 {_ms(full, 95):.2f} ms; bare ANN search p50 {_ms(floor, 50):.2f} ms, "
        f"p95 {_ms(floor, 95):.2f} ms",
        flush=True,
    )

    t0 = time.perf_counter()
    q = np.stack(vectors).astype(np.float32)
    found = recall(
        exact_top10(q / np.linalg.norm(q, axis=1, keepdims=True), store.iter_vectors(100_000)), ann
    )
    print(
        f"6 ANN recall@10 against exact search over {store.vector_count():,} vectors, {len(q)} real queries: "
        f"{found:.4f} (exact search took {time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    titles = [r[0] for r in store.db.execute(TITLE_SAMPLE)]
    for line in keyword_times(store, titles, args.queries, args.any_queries, indexes.lexical.common):
        print(f"7 {line}", flush=True)
    store.close()

    serve(settings, queries, [p.title for p in query_papers])
    env = {**os.environ, "PAPERSIFT_HOME": str(settings.home), "PAPERSIFT_RESIDENT_MINUTES": "0"}
    walls = []  # each command starts anew: no resident helper
    for paper_id in queries[:10]:
        t0 = time.perf_counter()
        cmd = [sys.executable, "-m", "papersift.cli", "related", paper_id, "-k", "10"]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
    print(
        f"9 `papersift related ID` wall, start-up included: median {statistics.median(walls) * 1000:.0f} ms"
    )


def _status(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in {"VmHWM", "VmRSS", "RssAnon", "RssFile"}:
            fields[name] = int(value.split()[0]) * 1024
    return fields


def serve(settings: Settings, paper_ids: list[str], titles: list[str]) -> None:
    """A real server: cold paper pages and searches over HTTP, then its memory."""
    port = free_port()
    env = {**os.environ, "PAPERSIFT_HOME": str(settings.home)}
    cmd = [sys.executable, "-m", "papersift.cli", "serve", "--port", str(port), "--workers", "1"]
    server = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            for _ in range(600):
                try:
                    if client.get("/").status_code < 500:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            idle = _status(server.pid)
            pages: list[float] = []
            for paper_id in paper_ids:
                t0 = time.perf_counter()
                client.get(f"/abs/{paper_id}").raise_for_status()
                pages.append(time.perf_counter() - t0)
            searches: list[float] = []
            for title in titles[:200]:
                words = [w for w in re.findall(r"[A-Za-z]{3,}", title) if w.lower() not in STOP_WORDS][:3]
                t0 = time.perf_counter()
                client.get("/search", params={"q": " ".join(words)}).raise_for_status()
                searches.append(time.perf_counter() - t0)
            after = _status(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    print(
        f"8 serve (1 worker, one client): {len(pages)} cold paper pages with related papers p50 "
        f"{_ms(pages, 50):.1f} ms, p95 {_ms(pages, 95):.1f} ms; {len(searches)} cold searches p50 "
        f"{_ms(searches, 50):.1f} ms, p95 {_ms(searches, 95):.1f} ms",
    )
    print(
        f"8 serve RSS: {_gb(idle['VmRSS'])} after start-up; after the requests {_gb(after['VmRSS'])} "
        f"(anonymous {_gb(after['RssAnon'])}, file-backed index pages {_gb(after['RssFile'])}), "
        f"peak {_gb(after['VmHWM'])}",
        flush=True,
    )


if __name__ == "__main__":
    main()
