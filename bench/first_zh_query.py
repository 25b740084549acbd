"""The first 中文 query of a fresh process: how long understanding it takes (the dictionary and segmenter
loaded), cold (the caches removed: what the first query on a machine costs) and warm (made by an earlier
process: every later first query).

Each run is a fresh ``python`` that opens an indexed store and times ``understand(indexes, QUERY)`` alone
with ``time.perf_counter`` (what ``papersift search QUERY`` does before searching); the script prints each
run and the median seconds over ``--runs`` processes, per code and state, and the process's whole wall time
beside it. With ``--old-src PATH`` (a checkout of the code before the change, e.g. made by ``git archive``)
that code runs too, alternating with this one, on the same store. Every run must read the query the same way.

Cold removes what a code keeps between processes: this code's compact dictionary (in its own temporary
``PAPERSIFT_MODEL_CACHE``), and the home's ``jieba.cache`` (the segmenter's prefix dictionary, which code
before the compact dictionary kept there).

The store is built once under ``--out`` (the real papers of ``--corpus``, synthetic vectors, indexed), as
``cli_latency.py`` builds it.

    PYTHONPATH=src python bench/first_zh_query.py [--old-src /tmp/old/src] [--runs 5] [--query 图神经网络]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_latency import ROOT, build

CHILD = """
import sys
import time

from papersift.index.runtime import open_papersift
from papersift.ranking.understand import understand
from papersift.settings import Settings

with open_papersift(Settings()) as opened:
    indexes = opened.indexes()
    start = time.perf_counter()
    understood = understand(indexes, sys.argv[1])
    seconds = time.perf_counter() - start
print(seconds)
print(understood.text_used)
"""


def once(src: Path, home: Path, cache: Path, query: str) -> tuple[float, float, str]:
    """Seconds understanding ``query`` took in a fresh process of the code in ``src``, the process's wall
    seconds, and what the query was read as."""
    env = {
        **os.environ,
        "PYTHONPATH": str(src),
        "PAPERSIFT_HOME": str(home),
        "PAPERSIFT_MODEL_CACHE": str(cache),
    }
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed papersift runs from bytecode
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", CHILD, query], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"understanding {query!r} failed ({src}):\n{result.stderr[-2000:]}")
    seconds, reading = result.stdout.splitlines()[-2:]
    return float(seconds), wall, reading


def cold(home: Path, cache: Path) -> None:
    """Remove what either code keeps between processes."""
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)
    (home / "jieba.cache").unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "data" / "arxiv-20k.jsonl.gz")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "zh20k")
    parser.add_argument("--old-src", type=Path, help="the code before the change (its src folder)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--query", default="图神经网络")
    args = parser.parse_args()
    codes = {"now": ROOT / "src"}
    if args.old_src:
        codes["before"] = args.old_src.resolve()
    for src in codes.values():  # bytecode, as an install has it
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True, capture_output=True)
    home = args.out.resolve()
    build(codes["now"], home, args.corpus, None)
    caches = {name: Path(tempfile.mkdtemp(prefix=f"ps-zh-{name}-")) for name in codes}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    readings: set[str] = set()
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    try:
        for run in range(args.runs):
            for name, src in codes.items():
                for state in ("cold", "warm"):  # the cold run leaves the caches the warm one reads
                    if state == "cold":
                        cold(home, caches[name])
                    seconds, wall, reading = once(src, home, caches[name], args.query)
                    times.setdefault((name, state), []).append((seconds, wall))
                    readings.add(reading)
                    print(f"run {run + 1} {name:6} {state}: understand {seconds:.3f} s, process {wall:.2f} s")
    finally:
        for cache in caches.values():
            shutil.rmtree(cache, ignore_errors=True)
    print(f"\n{args.query} read as: {' | '.join(sorted(readings))}")
    print(f"median of {args.runs} fresh processes (seconds)      understand   process")
    for (name, state), runs in times.items():
        understand_s = statistics.median(s for s, _ in runs)
        wall_s = statistics.median(w for _, w in runs)
        print(f"  {name:6} {state:4}                                {understand_s:9.3f} {wall_s:9.2f}")
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if len(readings) != 1:
        raise SystemExit("the codes read the query differently")


if __name__ == "__main__":
    main()
