"""Keyword search p50 of two codes on one store, in one run: this checkout's ``src`` against another's
(e.g. a worktree of the commit before query understanding), alternating round by round.

Each round starts one process per code (``--worker``) on the same store and the same queries (two-word
title queries as ``understand.py --latency-home``: the first two non-stop words of sampled titles); each
process warms up on the first 20 queries, then times ``search(indexes, q, mode="keyword")`` for every
query. The codes alternate which goes first each round, so the machine's noise falls on both. A third
process per round runs this code with ``exact=True`` (understanding skipped), to tell what understanding
costs from what the rest of the code since the baseline does.

    PYTHONPATH=src python bench/keyword_latency.py --home HOME300K --other ../wt25-before/src

``--lockstep``: the three processes of a round run side by side instead, each query timed in one and then
the next (the order turning query by query), so a burst of another program's load falls on all three
codes' timings of that query, not on one code's whole round; it also prints the median over the queries
of the paired ratio after / before.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

WARM = 20


def queries(home: Path, n: int) -> list[str]:
    from papersift.records.analyzer import STOP_WORDS
    from papersift.settings import Settings
    from papersift.store import open_store

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


@contextmanager
def warmed(home: Path, path: Path, exact: bool) -> Iterator[tuple[list[str], Callable[[str], float]]]:
    """The queries of ``path`` and a function timing one keyword search (ms) on ``home``'s indexes,
    warmed up on the first ``WARM`` queries; the store closed after."""
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

        def timed(q: str) -> float:
            t0 = time.perf_counter()
            search(indexes, q, mode="keyword", **kw)
            return (time.perf_counter() - t0) * 1000

        for q in qs[:WARM]:
            timed(q)
        yield qs, timed
    finally:
        store.close()


def worker(home: Path, path: Path, exact: bool) -> None:
    with warmed(home, path, exact) as (qs, timed):
        times = [timed(q) for q in qs]
    print(json.dumps(times))


def serve(home: Path, path: Path, exact: bool) -> None:
    """``--lockstep``'s worker: warmed as ``worker``, then times the query whose index each stdin line
    gives and answers its milliseconds."""
    with warmed(home, path, exact) as (qs, timed):
        print("ready", flush=True)
        for line in sys.stdin:
            print(timed(qs[int(line)]), flush=True)


def lockstep(args: argparse.Namespace, codes: dict[str, Path], path: Path, n: int) -> None:
    """Each round: one process per code, side by side, each query timed in each in turn."""
    times: dict[str, list[float]] = {name: [] for name in codes}
    names = list(codes)
    for r in range(args.rounds):
        procs = {}
        for name in names:
            env = {**os.environ, "PYTHONPATH": str(codes[name])}
            cmd = [sys.executable, __file__, "--home", str(args.home), "--other", "-", "--serve", str(path)]
            cmd += ["--exact"] if name == "after, exact" else []
            pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
            procs[name] = subprocess.Popen(cmd, env=env, text=True, **pipes)
        for proc in procs.values():
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        mine: dict[str, list[float]] = {name: [] for name in names}
        for i in range(n):
            turn = (r * n + i) % len(names)
            for name in names[turn:] + names[:turn]:
                proc = procs[name]
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(f"{i}\n")
                proc.stdin.flush()
                mine[name].append(float(proc.stdout.readline()))
        for proc in procs.values():
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait()
        for name in names:
            times[name] += mine[name]
        medians = {name: statistics.median(mine[name]) for name in names}
        line = ", ".join(f"{name} {medians[name]:.2f} ms" for name in names)
        print(f"round {r + 1}: {line} (ratio {medians['after'] / medians['before']:.2f})", flush=True)
    p50 = {name: statistics.median(t) for name, t in times.items()}
    paired = statistics.median(a / b for a, b in zip(times["after"], times["before"], strict=True))
    print(
        f"keyword search p50, {n} two-word title queries x {args.rounds} rounds, lockstep: "
        f"before {p50['before']:.2f} ms, after {p50['after']:.2f} ms "
        f"(ratio {p50['after'] / p50['before']:.2f}; "
        f"median paired ratio {paired:.2f}); after with exact=True {p50['after, exact']:.2f} ms "
        f"(understood / exact {p50['after'] / p50['after, exact']:.2f})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="an indexed store")
    ap.add_argument("--other", type=Path, required=True, help="the baseline code's src directory")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--lockstep", action="store_true", help="processes side by side, query by query")
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--exact", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        worker(args.home, args.worker, args.exact)
        return
    if args.serve is not None:
        serve(args.home, args.serve, args.exact)
        return
    here = Path(__file__).resolve().parents[1] / "src"
    # the workers' queries in a file of this run's own: never written into the (perhaps shared) store's home
    path = Path(tempfile.mkdtemp(prefix="keyword-latency-")) / "queries.json"
    atexit.register(shutil.rmtree, path.parent, True)
    qs = queries(args.home, args.queries)
    path.write_text(json.dumps(qs))
    # "after, exact": this code with ``search(..., exact=True)``, understanding skipped: what the rest of
    # the code since the baseline costs, apart from understanding
    codes = {"before": args.other.resolve(), "after": here, "after, exact": here}
    if args.lockstep:
        lockstep(args, codes, path, len(qs))
        return
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
