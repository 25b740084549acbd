"""A new day at full scale (``make bench-scale-day``, after ``bench/scale.py`` built its 2.7M store).

1. The store of ``bench/scale.py`` (2.7M papers with vectors, its index generation) and a real
   ``papersift serve`` over it (the query encoder loaded).
2. A new day of ``--day`` papers: id-shifted copies (a 10th copy, ids no real paper has) of real papers,
   with vectors near theirs (the same noise as the copies of ``synthetic.py``). Timed: ``ingest``;
   ``refresh`` (the lexical delta with frozen idf, the HNSW of the last generation extended, a new generation
   published); the reload, until the running server's related papers of one of the day's source papers list
   its new copy. ``--merged-baseline``: first a day whose lexical arrays are rebuilt whole (what every
   update cost before delta segments), so that the related timings compare generations with and without
   a delta. Not timed: writing the day's vectors, which stands in for ``papersift embed`` (its time is
   measured at 300k by ``live_update.py``).
3. ``related`` in process for ``--queries`` real papers on the generation before the day (no delta) and on
   the new one (with its delta): one untimed pass over each, then interleaved rounds (each generation first
   in half of them): p50/p95 of each.
4. Baseline, same run: the full lexical rebuild of the grown store (what every update cost before deltas).

    python bench/scale_day.py --home bench/out/store2700k
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
from measure import serving, timed_refresh
from related import time_related
from synthetic import NOISE, shifted_id

from papersift.index import pipeline
from papersift.index.indexes import Indexes, open_indexes
from papersift.index.lexical_build import build_lexical
from papersift.services.ingest import ingest_items
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore

COPY = 10  # the day's copy number: no paper of the store has its ids


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def _related(client: httpx.Client, paper_id: str) -> set[str]:
    """The ids on the running server's page of ``paper_id``'s related papers."""
    response = client.get(f"/api/abs/{paper_id}")
    response.raise_for_status()
    return {h["id"] for h in response.json()["related"]}


def add_day(
    store: SqliteStore, settings: Settings, client: httpx.Client, before: Indexes, args: argparse.Namespace
) -> dict[str, float]:
    """A day of copies of real papers not copied for an earlier day, added as ``papersift daily`` would
    (its vectors written untimed); each step's seconds until the running server answers with it."""
    total = store.count()
    assert before.dense is not None
    first = (total - args.base * 9) if total > args.base * 9 else 0
    rows = list(range(first + 1, first + args.day + 1))  # the real papers' rowids are 1 … base
    found = store.by_rowids(rows)
    sources = [found[r] for r in rows]
    day = [
        dataclasses.replace(p, id=shifted_id(COPY, first + i, args.base), listings=[], source="bench-day")
        for i, p in enumerate(sources)
    ]
    probe_source, probe = sources[len(sources) // 2].id, day[len(day) // 2].id
    assert probe not in _related(client, probe_source)
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    ingest_items(store, iter(day))
    times["ingest"] = time.perf_counter() - t0

    # not timed: the day's vectors, standing in for `papersift embed`
    rng = np.random.default_rng(first)
    base_vectors = before.dense.vectors(np.array(rows, dtype=np.uint64)).astype(np.float32)
    moved = base_vectors + rng.normal(0.0, NOISE, size=base_vectors.shape).astype(np.float32)
    rowid = dict(store.db.execute(f"SELECT id, rowid FROM papers WHERE rowid > {total}"))
    store.put_vectors([rowid[p.id] for p in day], moved / np.linalg.norm(moved, axis=1, keepdims=True))

    times.update(timed_refresh(store, settings))
    t0 = time.perf_counter()
    while probe not in _related(client, probe_source):
        time.sleep(0.05)
    times["reload (until the server answers)"] = time.perf_counter() - t0
    times["total without embedding"] = (
        times["ingest"] + times["refresh"] + times["reload (until the server answers)"]
    )
    return times


def _report(title: str, times: dict[str, float]) -> None:
    print(f"{title}:", flush=True)
    for name, value in times.items():
        print(f"  {name}: {value:.2f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, default=Path("bench/out/store2700k"))
    parser.add_argument("--base", type=int, default=300_000, help="scale.py's real papers (its --base)")
    parser.add_argument("--day", type=int, default=2_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=8, help="alternations of the two generations")
    parser.add_argument("--rebuild-baseline", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument(
        "--merged-baseline",
        action="store_true",
        help="first a day merged into the main arrays (a full rebuild): the related baseline has no delta",
    )
    args = parser.parse_args()
    settings = Settings(home=args.home)
    store = SqliteStore(settings.db_path)
    total = store.count()
    print(f"1 store: {total:,} papers, {store.vector_count():,} vectors", flush=True)
    before = open_indexes(store, settings)
    assert before.dense is not None and before.generation is not None, "run bench/scale.py first"
    if before.lexical is not None and before.lexical.delta is not None and not args.merged_baseline:
        print("note: the current generation has a delta already: --merged-baseline gives one without")
    share = pipeline.DELTA_MAX_SHARE

    t0 = time.perf_counter()
    with serving(args.home, args=("--workers", "1"), ready=True, timeout=300) as client:
        print(f"1 server ready ({time.perf_counter() - t0:.1f} s)", flush=True)
        if args.merged_baseline:  # the same update before delta segments: the lexical arrays rebuilt whole
            pipeline.DELTA_MAX_SHARE = 0.0
            try:
                merged = add_day(store, settings, client, before, args)
            finally:
                pipeline.DELTA_MAX_SHARE = share
            _report("2a a day, merged (a full lexical rebuild)", merged)
            if before.generation is not None:
                before.generation.close()
            before = open_indexes(store, settings)  # no delta: the baseline of the related timings
        _report("2 a day", add_day(store, settings, client, before, args))

    after = open_indexes(store, settings)
    assert after.name != before.name
    picks = random.Random(3).sample(range(1, args.base + 1), args.queries)
    by_rowid = store.by_rowids(picks)
    queries = [by_rowid[r] for r in picks]
    runs: dict[str, list[float]] = {"before the day (no delta)": [], "with the day's delta": []}
    for indexes in (before, after):  # one untimed pass each: both generations' pages in memory alike
        time_related(indexes, queries)
    size = len(queries) // args.rounds
    for r in range(args.rounds):
        part = queries[r * size : (r + 1) * size]
        first, second = (before, after) if r % 2 == 0 else (after, before)  # each goes first half the time
        for indexes in (first, second):
            name = "before the day (no delta)" if indexes is before else "with the day's delta"
            runs[name] += time_related(indexes, part)[0]
    print(f"3 related in process, {len(queries)} real papers, k=10, {args.rounds} interleaved rounds:")
    for name, values in runs.items():
        print(f"  {name}: p50 {_ms(values, 50):.2f} ms, p95 {_ms(values, 95):.2f} ms")
    ratio = statistics.median(runs["with the day's delta"]) / statistics.median(
        runs["before the day (no delta)"]
    )
    print(f"  ratio of the p50s: {ratio:.3f}", flush=True)
    for indexes in (before, after):
        if indexes.generation is not None:
            indexes.generation.close()

    if args.rebuild_baseline and not args.merged_baseline:
        with tempfile.TemporaryDirectory(dir=args.home) as scratch:
            t0 = time.perf_counter()
            build_lexical(store, Path(scratch) / "lexical")
            took = time.perf_counter() - t0
            print(f"4 baseline, full lexical rebuild of {store.count():,} papers: {took:.1f} s")
    store.close()


if __name__ == "__main__":
    main()
