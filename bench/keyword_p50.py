"""Keyword search latency at 300k papers, one revision against another in the same run
(``python bench/keyword_p50.py --src /path/to/old/src --src src``).

A SQLite store of the 300k real papers (``papersift ingest``'s ``ingest_items``) is built once in ``--home``
and reused. The queries are ``scale.py``'s: two words of real titles (every 97th paper's, a seeded sample),
all words (``--queries``) and any word (``--any-queries``, no ``common`` words left out). Each revision's
``Store.match`` answers them in a process of its own (``PYTHONPATH`` its ``src``), the revisions taking turns
for ``--rounds`` rounds; printed: each revision's median p50 and p95 over the rounds, and the ratio of each
revision's p50 to the first one's.
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
import tempfile
from pathlib import Path

from measure import TITLE_SAMPLE
from synthetic import real_papers

from papersift.services.ingest import ingest_items
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore

_WORKER = """
import json, sys, time
import numpy as np
from papersift.store.sqlite import SqliteStore
db, queries_file = sys.argv[1], sys.argv[2]
queries = json.load(open(queries_file))
store = SqliteStore(db)
for q in queries[:20]:
    store.match(q, k=10)
out = {}
for label, any_terms, n in (("all", False, int(sys.argv[3])), ("any", True, int(sys.argv[4]))):
    times = []
    for q in queries[:n]:
        t0 = time.perf_counter()
        store.match(q, k=10, any_terms=any_terms)
        times.append(time.perf_counter() - t0)
    ms = np.array(times) * 1000
    out[label] = [float(np.percentile(ms, 50)), float(np.percentile(ms, 95))]
store.close()
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--home", type=Path, default=Path("/tmp/papersift-bench-keyword"))
    parser.add_argument("--src", type=Path, action="append", required=True, help="a revision's src folder")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--any-queries", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    settings = Settings(home=args.home)
    settings.home.mkdir(parents=True, exist_ok=True)
    store = SqliteStore(settings.db_path)
    if store.count() == 0:
        base = real_papers(args.data / "arxiv-300k.jsonl.gz")
        counts = ingest_items(store, iter(base), chunk=settings.ingest_chunk)
        print(f"store: {counts.new:,} papers ingested", flush=True)
    titles = [r[0] for r in store.db.execute(TITLE_SAMPLE)]
    papers = store.count()
    store.close()
    queries = []
    for title in random.Random(3).sample(titles, min(args.queries, len(titles))):
        words = [w for w in re.findall(r"[A-Za-z]{3,}", title) if len(w) > 3]
        if words:
            queries.append(" ".join(words[:2]))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(queries, f)
    results: dict[Path, list[dict[str, list[float]]]] = {src: [] for src in args.src}
    for _ in range(args.rounds):
        for src in args.src:
            env = {**os.environ, "PYTHONPATH": str(src.resolve())}
            cmd = [sys.executable, "-c", _WORKER, str(settings.db_path), f.name]
            cmd += [str(args.queries), str(args.any_queries)]
            done = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
            results[src].append(json.loads(done.stdout))
    os.unlink(f.name)
    print(f"{papers:,} papers; {len(queries)} two-word title queries; median of {args.rounds} rounds")
    first: dict[str, float] = {}
    for src, runs in results.items():
        line = [str(src)]
        for label in ("all", "any"):
            p50 = statistics.median(r[label][0] for r in runs)
            p95 = statistics.median(r[label][1] for r in runs)
            first.setdefault(label, p50)
            line.append(f"{label} words p50 {p50:.2f} ms (x{p50 / first[label]:.2f}), p95 {p95:.2f} ms")
        print("  " + "; ".join(line))


if __name__ == "__main__":
    main()
