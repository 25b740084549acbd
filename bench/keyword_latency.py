"""Keyword search p50 of two codes on one store, in one run: this checkout's ``src`` against another's
(e.g. a worktree of the commit before query understanding), alternating round by round.

Each round starts one process per code (``--worker``) on the same store and the same queries (two-word
title queries as ``understand.py --latency-home``: the first two non-stop words of sampled titles); each
process warms up on the first 20 queries, then times ``search(indexes, q, mode="keyword")`` for every
query. The codes alternate which goes first each round, so the machine's noise falls on both. A third
process per round runs this code with ``exact=True`` (understanding skipped), to tell what understanding
costs from what the rest of the code since the baseline does.

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


def worker(home: Path, path: Path, exact: bool) -> None:
    try:  # where the opened indexes live now; before issue 28 they were in index/pipeline.py
        from papersift.index.indexes import open_indexes
    except ImportError:
        from papersift.index.pipeline import open_indexes  # type: ignore[attr-defined,no-redef]
    from papersift.ranking.search import search
    from papersift.settings import Settings
    from papersift.store import open_store

    qs = json.loads(path.read_text())
    settings = Settings(home=home)
    store = open_store(settings)
    try:
        indexes = open_indexes(store, settings)
        kw = {"exact": True} if exact else {}  # the code before understanding has no ``exact``
        for q in qs[:WARM]:
            search(indexes, q, mode="keyword", **kw)
        times = []
        for q in qs:
            t0 = time.perf_counter()
            search(indexes, q, mode="keyword", **kw)
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
    ap.add_argument("--exact", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.home, args.worker, args.exact)
        return
    here = Path(__file__).resolve().parents[1] / "src"
    path = args.home / "keyword-latency-queries.json"
    qs = queries(args.home, args.queries)
    path.write_text(json.dumps(qs))
    # "after, exact": this code with ``search(..., exact=True)``, understanding skipped: what the rest of
    # the code since the baseline costs, apart from understanding
    codes = {"before": args.other.resolve(), "after": here, "after, exact": here}
    times: dict[str, list[float]] = {name: [] for name in codes}
    for r in range(args.rounds):
        order = list(codes) if r % 2 == 0 else list(reversed(codes))
        medians = {}
        for name in order:
            env = {**os.environ, "PYTHONPATH": str(codes[name])}
            cmd = [sys.executable, __file__, "--home", str(args.home), "--other", "-", "--worker", str(path)]
            cmd += ["--exact"] if name == "after, exact" else []
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
            t = json.loads(out.strip().splitlines()[-1])
            times[name] += t
            medians[name] = statistics.median(t)
        line = ", ".join(f"{name} {medians[name]:.2f} ms" for name in codes)
        print(f"round {r + 1}: {line} (ratio {medians['after'] / medians['before']:.2f})", flush=True)
    p50 = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"keyword search p50, {len(qs)} two-word title queries x {args.rounds} rounds: "
        f"before ({codes['before']}) {p50['before']:.2f} ms, after ({here}) {p50['after']:.2f} ms "
        f"(ratio {p50['after'] / p50['before']:.2f}); after with exact=True {p50['after, exact']:.2f} ms "
        f"(understood / exact {p50['after'] / p50['after, exact']:.2f})"
    )


if __name__ == "__main__":
    main()
