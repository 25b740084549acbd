"""Ingest and query benchmark (``make bench-ingest``): medians of several runs, against a baseline.

1. ``papersift ingest SNAPSHOT`` into an empty store, end to end in a fresh process (FTS included):
   papers/s and peak RSS, against a plain ``json.loads`` + ``executemany`` load into one table measured
   in the same run (the floor any loader pays).
2. ``papersift list`` and ``papersift search`` on that store: wall time per command, Python start-up
   included.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one command in its own process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_maxrss / 1024


def baseline(snapshot: Path, db: Path) -> int:
    """json.loads each line, executemany into one plain table: no FTS, no checks."""
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE p (id TEXT, title TEXT, abstract TEXT, authors TEXT, categories TEXT)")
    n = 0
    with gzip.open(snapshot, "rt", encoding="utf-8") as f:
        batch = []
        for line in f:
            r = json.loads(line)
            batch.append(
                (r["id"], r["title"], r["abstract"], json.dumps(r["authors"]), " ".join(r["categories"]))
            )
            if len(batch) == 20_000:
                con.executemany("INSERT INTO p VALUES (?, ?, ?, ?, ?)", batch)
                n += len(batch)
                batch = []
        con.executemany("INSERT INTO p VALUES (?, ?, ?, ?, ?)", batch)
        n += len(batch)
    con.commit()
    con.close()
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/arxiv-300k.jsonl.gz"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--query-runs", type=int, default=10)
    args = ap.parse_args()
    with gzip.open(args.data, "rb") as f:
        papers = sum(1 for _ in f)
    work = Path(tempfile.mkdtemp(prefix="papersift-bench-"))
    cli = [sys.executable, "-m", "papersift.cli"]
    ingest_s, rss, base_s = [], [], []
    try:
        for i in range(args.runs):
            db = work / f"base{i}.db"
            start = time.perf_counter()
            baseline(args.data, db)
            base_s.append(time.perf_counter() - start)
            db.unlink()
            home = work / f"home{i}"
            env = {**os.environ, "PAPERSIFT_HOME": str(home)}
            wall, peak = _run([*cli, "ingest", str(args.data)], env)
            ingest_s.append(wall)
            rss.append(peak)
            print(
                f"run {i + 1}: papersift {papers / wall:,.0f} papers/s ({wall:.1f} s, {peak:.0f} MB); "
                f"baseline {papers / base_s[-1]:,.0f} papers/s",
                flush=True,
            )
            if i < args.runs - 1:
                shutil.rmtree(home)
        env = {**os.environ, "PAPERSIFT_HOME": str(work / f"home{args.runs - 1}")}
        size = sum(p.stat().st_size for p in (work / f"home{args.runs - 1}").iterdir()) / 2**20
        med, med_base = statistics.median(ingest_s), statistics.median(base_s)
        print(f"\ningest {args.data.name}: {papers:,} papers")
        print(
            f"  papersift ingest   median {med:.1f} s = {papers / med:,.0f} papers/s, "
            f"peak RSS {max(rss):.0f} MB, store {size:,.0f} MB"
        )
        print(
            f"  baseline (json.loads + executemany, no FTS) median {med_base:.1f} s = "
            f"{papers / med_base:,.0f} papers/s"
        )
        print(f"  ratio papersift/baseline throughput: {med_base / med:.2f}")
        queries = {
            "list cs.AI": ["list", "cs.AI"],
            "list astro-ph (archive)": ["list", "astro-ph"],
            "search 'graph neural network'": ["search", "graph neural network"],
            "search 'dark matter' --category astro-ph": ["search", "dark matter", "-c", "astro-ph"],
            "search 'learning' --since 2026-01-01": ["search", "learning", "--since", "2026-01-01"],
        }
        _run([*cli, "list", "cs.AI"], env)  # warm the page cache once
        print(f"\nquery commands (wall incl. Python start-up, median of {args.query_runs}):")
        for label, argv in queries.items():
            walls = [_run([*cli, *argv], env)[0] for _ in range(args.query_runs)]
            print(
                f"  {label:45s} median {statistics.median(walls) * 1000:5.0f} ms  "
                f"p90 {sorted(walls)[int(0.9 * len(walls)) - 1] * 1000:5.0f} ms"
            )
        start = [_run([sys.executable, "-c", "pass"], env)[0] for _ in range(args.query_runs)]
        print(f"  {'(bare python start-up)':45s} median {statistics.median(start) * 1000:5.0f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
