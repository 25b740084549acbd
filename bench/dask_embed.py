"""Dask embedding throughput (``make bench-dask``): the local engine against LocalClusters of 1 and 2 workers.

The same N real abstracts (from the 20k file, no vector cache) are embedded by ``embed_missing`` into one
store, its vectors dropped before every run, with: the local engine (this process, torch on every core), a
1-worker LocalCluster, a 2-worker LocalCluster (1 thread per worker) and a 1-worker × 2-thread one. The
clusters start (and their workers load the model) once, before timing; runs alternate between the engines.
Prints papers/s per run, the medians, the 2-vs-1 worker speed-up, and the time to embed all of arXiv (2.7M
papers) on N machines at the best per-machine rate measured here (linear scaling assumed: the driver only
reads chunks and writes vectors, which this run also measures as part of every engine's time).
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import logging
import os
import statistics
import tempfile
import time
from pathlib import Path

from papersift.index.encoder import load_encoder, model_id
from papersift.index.engines import DaskEngine, Engine, LocalEngine
from papersift.index.pipeline import embed_missing
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store.sqlite import SqliteStore

ARXIV = 2_700_000
CLUSTERS = (("1 worker x 1 thread", 1, 1), ("2 workers x 1 thread", 2, 1), ("1 worker x 2 threads", 1, 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=Path("../shared/data/arxiv-20k.jsonl.gz"))
    parser.add_argument("-n", type=int, default=2000, help="abstracts per run")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with gzip.open(args.corpus, "rt", encoding="utf-8") as f:
        records = [json.loads(line) for line in itertools.islice(f, args.n)]
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home))
        store = SqliteStore(settings.db_path)
        store.upsert(paper_from_record(r, "bench") for r in records)
        local = LocalEngine(settings, load_encoder(settings))
        engines: dict[str, Engine] = {"local engine (in process)": local}
        for name, workers, threads in CLUSTERS:
            started = time.perf_counter()
            engines[name] = DaskEngine(settings, workers=workers, threads=threads)
            print(f"{name}: cluster up, model loaded in {time.perf_counter() - started:.1f} s", flush=True)
        logging.getLogger("distributed").setLevel(logging.WARNING)  # no INFO lines as the clusters close
        print(f"{store.count()} real papers, chunks of {settings.embed_chunk}, {os.cpu_count()} cores")
        rates: dict[str, list[float]] = {name: [] for name in engines}
        try:
            for run in range(args.runs):
                for name, engine in engines.items():
                    store.reset_vectors(model_id(settings))
                    started = time.perf_counter()
                    done = embed_missing(store, settings, engine=engine)
                    rates[name].append(done / (time.perf_counter() - started))
                    print(f"run {run + 1}: {name:<28} {rates[name][-1]:6.1f} papers/s", flush=True)
        finally:
            for engine in engines.values():
                engine.close()
            store.close()
    medians = {name: statistics.median(r) for name, r in rates.items()}
    for name, rate in medians.items():
        print(f"median {name:<28} {rate:6.1f} papers/s")
    one, two = medians["1 worker x 1 thread"], medians["2 workers x 1 thread"]
    print(f"speed-up 2 vs 1 worker: {two / one:.2f}x")
    best = max(medians.values())
    print(f"projected time for {ARXIV:,} papers at {best:.1f} papers/s per machine like this one:")
    for machines in (1, 4, 16, 64):
        hours = ARXIV / (best * machines) / 3600
        print(f"  {machines:>3} machines: {hours:7.1f} h")


if __name__ == "__main__":
    main()
