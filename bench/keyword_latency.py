"""Keyword search p50 of two codes on one store, in one run: this checkout's ``src`` against another's
(e.g. a worktree of the commit before query understanding), alternating round by round.

Each round starts one process per code (``--worker``) on the same store and the same queries (two-word
title queries as ``understand.py --latency-home``: the first two non-stop words of sampled titles); each
process warms up on the first 20 queries, then times ``search(indexes, q, mode="keyword")`` for every
query. The codes alternate which goes first each round, so the machine's noise falls on both.

    PYTHONPATH=src python bench/keyword_latency.py --home HOME300K --other ../wt25-before/src
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

WARM = 20


def queries(home: Path, n: int) -> list[str]:
    from papersift.settings import Settings
    from papersift.store import open_store
    from papersift.text import STOP_WORDS

    store = open_store(Settings(home=home))
    try:
        rows = store.by_rowids(list(range(1, store.count() + 1, 97)))
    finally:
        store.close()
    out = []
    for title in random.Random(3).sample([p.title for p in rows.values()], min(n, len(rows))):
        words = [w for w in re.findall(r"[A-Za-z]{3,}", title) if w.lower() not in STOP_WORDS]
        if len(words) >= 2:
            out.append(" ".join(words[:2]))
    return out


def worker(home: Path, path: Path) -> None:
    from papersift.index.pipeline import open_indexes
    from papersift.ranking.search import search
    from papersift.settings import Settings
    from papersift.store import open_store

    qs = json.loads(path.read_text())
    settings = Settings(home=home)
    store = open_store(settings)
    try:
        indexes = open_indexes(store, settings)
        for q in qs[:WARM]:
            search(indexes, q, mode="keyword")
        times = []
        for q in qs:
            t0 = time.perf_counter()
            search(indexes, q, mode="keyword")
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        store.close()
    print(json.dumps(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="an indexed store")
    ap.add_argument("--other", type=Path, required=True, help="the baseline code's src directory")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.home, args.worker)
        return
    here = Path(__file__).resolve().parents[1] / "src"
    path = args.home / "keyword-latency-queries.json"
    qs = queries(args.home, args.queries)
    path.write_text(json.dumps(qs))
    codes = {"before": args.other.resolve(), "after": here}
    times: dict[str, list[float]] = {"before": [], "after": []}
    for r in range(args.rounds):
        order = ["before", "after"] if r % 2 == 0 else ["after", "before"]
        medians = {}
        for name in order:
            env = {**os.environ, "PYTHONPATH": str(codes[name])}
            cmd = [sys.executable, __file__, "--home", str(args.home), "--other", "-", "--worker", str(path)]
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            t = json.loads(out.strip().splitlines()[-1])
            times[name] += t
            medians[name] = statistics.median(t)
        print(
            f"round {r + 1}: before {medians['before']:.2f} ms, after {medians['after']:.2f} ms "
            f"(ratio {medians['after'] / medians['before']:.2f})",
            flush=True,
        )
    before, after = statistics.median(times["before"]), statistics.median(times["after"])
    print(
        f"keyword search p50, {len(qs)} two-word title queries x {args.rounds} rounds: "
        f"before ({codes['before']}) {before:.2f} ms, after ({codes['after']}) {after:.2f} ms "
        f"(ratio {after / before:.2f})"
    )


if __name__ == "__main__":
    main()
