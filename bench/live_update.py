"""A new day, live (``python bench/live_update.py``): from ``ingest`` to "the running server answers with it".

1. A store of the first ``--papers`` papers of the 300k file, with SYNTHETIC unit vectors (random; real
   vectors for 300k papers take hours here), and its first index generation (full lexical build + HNSW).
2. ``papersift serve`` starts over it.
3. A new day: the next ``--day`` papers of the file, as ``papersift daily`` adds them: ingest, embed (the real
   MiniLM model, in process), ``refresh`` (a lexical delta with frozen idf, the HNSW of the last generation
   extended, a new generation published), then the server's reload: the time until ``/api/search``
   (semantic) and ``/api/related`` answer with the day's papers. Each step is timed, ``--repeat`` days.
4. Baseline, same run and store: today's full lexical rebuild of the grown store (what every update cost
   before delta segments), and a full HNSW build of all its vectors.

Prints the medians of each step over the days.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import itertools
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import orjson
from measure import serving, timed_refresh
from synthetic import shifted_id

from papersift.index import pipeline
from papersift.index.dense import sync_dense
from papersift.index.encoder import model_id
from papersift.index.lexical_build import build_lexical
from papersift.index.pipeline import embed_missing, refresh
from papersift.services.ingest import ingest_items
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store import Store, open_store

ROOT = Path(__file__).resolve().parents[1]


def _records(path: Path, start: int, n: int) -> list[dict[str, object]]:
    """Records ``start`` … ``start + n`` of the file; past its end, id-shifted copies of its first records
    (their real text under invented ids, as ``bench/synthetic.py`` makes them), so a store of the whole
    300k file still gets new days."""
    with gzip.open(path, "rb") as f:
        out = [orjson.loads(line) for line in itertools.islice(f, start, start + n)]
    if len(out) < n:
        total = _lines(path)
        first = max(start - total, 0)
        with gzip.open(path, "rb") as f:
            for index, line in enumerate(itertools.islice(f, first, first + n - len(out)), first):
                record = orjson.loads(line)
                record["id"] = shifted_id(1, index, total)
                out.append(record)
    return out


@functools.cache
def _lines(path: Path) -> int:
    """Records in the file (read once per run)."""
    with gzip.open(path, "rb") as f:
        return sum(1 for _ in f)


def _found(client: httpx.Client, pid: str, title: str) -> bool:
    semantic = client.get("/api/search", params={"q": title, "mode": "semantic", "k": 5}).json()
    text = client.get("/api/related", params={"text": title, "k": 5}).json()
    return pid in {r["id"] for r in semantic["results"]} and pid in {r["id"] for r in text["results"]}


def days(
    store: Store, settings: Settings, client: httpx.Client, source: Path, args: argparse.Namespace
) -> dict[str, list[float]]:
    """``--repeat`` new days, each timed from ingest until the running server answers with it."""
    steps: dict[str, list[float]] = {}
    for day in range(args.repeat):
        records = _records(source, args.papers + (day + args.skip_days) * args.day, args.day)
        times: dict[str, float] = {}
        t0 = time.perf_counter()
        ingest_items(store, (paper_from_record(r, "bench") for r in records))
        times["ingest"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        embed_missing(store, settings)
        times["embed"] = time.perf_counter() - t1
        times.update(timed_refresh(store, settings))
        t1 = time.perf_counter()
        probe = records[len(records) // 2]
        while not _found(client, str(probe["id"]), str(probe["title"])):
            time.sleep(0.05)
        times["reload (until the server answers)"] = time.perf_counter() - t1
        times["total, ingest to answer"] = time.perf_counter() - t0
        for name, value in times.items():
            steps.setdefault(name, []).append(value)
        print(f"3 day {day + 1}: " + json.dumps({k: round(v, 2) for k, v in times.items()}), flush=True)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--papers", type=int, default=300_000)
    parser.add_argument("--day", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--skip-days", type=int, default=0, help="days of a reused --home already added")
    parser.add_argument(
        "--delta-share",
        type=float,
        default=None,
        help="DELTA_MAX_SHARE for a small --papers (a day is 0.7%% of 300k but 7%% of 30k)",
    )
    parser.add_argument(
        "--hnsw-baseline",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time a full HNSW build of the grown store (long at 300k: minutes to an hour here)",
    )
    args = parser.parse_args()
    if args.delta_share is not None:
        pipeline.DELTA_MAX_SHARE = args.delta_share
    print(
        f"delta merged past {pipeline.DELTA_MAX_ROWS:,} rows or {pipeline.DELTA_MAX_SHARE:.0%} of the store"
    )
    source = args.data / "arxiv-300k.jsonl.gz"
    home = args.home or Path(tempfile.mkdtemp(prefix="papersift-live-"))
    settings = Settings(home=home)
    os.environ["PAPERSIFT_HOME"] = str(home)
    store = open_store(settings)

    t0 = time.perf_counter()
    if store.count() < args.papers:
        with gzip.open(source, "rb") as f:
            lines = itertools.islice(f, args.papers)
            ingest_items(store, (paper_from_record(orjson.loads(line), "bench") for line in lines))
        store.reset_vectors(model_id(settings))
        rng = np.random.default_rng(1)
        rows = [rowid for rowid, _ in store.iter_rows()]
        for start in range(0, len(rows), 50_000):
            chunk = rows[start : start + 50_000]
            vecs = rng.standard_normal((len(chunk), 384)).astype(np.float32)
            store.put_vectors(chunk, vecs / np.linalg.norm(vecs, axis=1, keepdims=True))
        print(f"1 store: {store.count():,} papers + synthetic vectors ({time.perf_counter() - t0:.0f} s)")
    t0 = time.perf_counter()
    refresh(store, settings)
    print(f"1 first generation (full lexical build + HNSW): {time.perf_counter() - t0:.1f} s", flush=True)

    with serving(home, args=("--workers", "1"), ready=True, timeout=120) as client:
        t0 = time.perf_counter()
        _found(client, "-", "warm up the query encoder")  # the model loads on a server's first text query
        print(f"2 server up, query encoder loaded ({time.perf_counter() - t0:.1f} s)", flush=True)
        steps = days(store, settings, client, source, args)
    for name, values in steps.items():
        print(f"  {name}: median {statistics.median(values):.2f} s")
    with tempfile.TemporaryDirectory(dir=home) as scratch:
        t0 = time.perf_counter()
        build_lexical(store, Path(scratch) / "lexical")
        print(
            f"4 baseline, full lexical rebuild of {store.count():,} papers: {time.perf_counter() - t0:.1f} s"
        )
        if not args.hnsw_baseline:
            store.close()
            return
        t0 = time.perf_counter()
        sync_dense(store, Path(scratch) / "dense")
        print(
            f"4 baseline, full HNSW build of {store.vector_count():,} vectors: "
            f"{time.perf_counter() - t0:.1f} s"
        )
    store.close()


if __name__ == "__main__":
    main()
