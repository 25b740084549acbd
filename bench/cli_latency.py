"""Wall time of the commands people type most, start-up included, on a 20k store with vectors.

Each command runs as a user runs it (a fresh ``python -m papersift.cli`` process) ``--runs`` times; the
script prints each run and the medians. Baselines in the same run: ``papersift --help`` (start-up alone)
and ``search --mode keyword`` (no model). With ``--old-src PATH`` (e.g. ``/work/main/src``, a checkout
of the code before the change) every command also runs with that code, alternating with this one.

The store is built once under ``--out``: the 20k real papers of ``--corpus``, with SYNTHETIC unit vectors
(Gaussian, seeded) labelled with each code's model id, then indexed by that code's ``papersift embed``
(which finds nothing to embed). Then a fresh ``papersift serve`` of each code: the time of its first
semantic search once it answers, and of the next five. A query's latency does not depend on what the
stored vectors hold (below 50k vectors the search is exact), and real vectors for 20k papers take minutes
to hours on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "graph neural networks for predicting molecular properties from their structure"
ABSTRACT = (
    "We study message passing neural networks on molecular graphs. Atoms are nodes and bonds are edges; "
    "each layer aggregates the features of neighbouring atoms. Trained on quantum chemistry data, the "
    "model predicts energies and dipole moments close to density functional theory at a fraction of its "
    "cost, and generalises to molecules larger than those seen in training."
)
COMMANDS = {
    "--help": ["--help"],
    "search --mode keyword": ["search", SENTENCE, "--mode", "keyword"],
    "search (hybrid)": ["search", SENTENCE],
    "related --text": ["related", "--text", ABSTRACT],
}


def cli(src: Path, home: Path, args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``papersift ARGS`` with the code in ``src``.

    The CPU time says what the command costs when the machine is shared (wall time then includes waiting
    for a core); fails loudly if the command fails.
    """
    env = {**os.environ, "PYTHONPATH": str(src), "PAPERSIFT_HOME": str(home), "COLUMNS": "200"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed papersift runs from bytecode
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "papersift.cli", *args], env=env, capture_output=True, text=True, cwd=ROOT
    )
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"papersift {' '.join(args[:2])} failed ({src}):\n{result.stderr[-2000:]}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def model_of(src: Path) -> str:
    """The model id that code records with vectors under the default settings."""
    code = "from papersift.index.encoder import model_id; from papersift.settings import Settings; "
    code += "print(model_id(Settings()))"
    env = {**os.environ, "PYTHONPATH": str(src)}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return result.stdout.strip()


_VECTORS = """
import sys
import numpy as np
from papersift.settings import Settings
from papersift.store import open_store

store = open_store(Settings())
try:
    store.reset_vectors(sys.argv[1])  # first: then every paper lacks a vector
    rowids = [rowid for rowid, _, _ in store.missing_vectors(10**9)]
    rng = np.random.default_rng(13)
    for start in range(0, len(rowids), 5000):
        part = rowids[start : start + 5000]
        vectors = rng.normal(size=(len(part), 384)).astype(np.float32)
        store.put_vectors(part, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
finally:
    store.close()
"""


def build(src: Path, home: Path, corpus: Path, ingested: Path | None) -> None:
    """A home with the corpus, synthetic vectors labelled for ``src``'s model, and its indexes."""
    if (home / "ready").exists():
        return
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    if ingested is not None and ingested.exists():
        shutil.copy(ingested, home / "papersift.db")
    else:
        print(f"ingesting {corpus} into {home}", flush=True)
        cli(src, home, ["ingest", str(corpus)])
    # the vectors are written by the code in ``src`` (its own schema), in a process of its own
    env = {**os.environ, "PYTHONPATH": str(src), "PAPERSIFT_HOME": str(home)}
    subprocess.run([sys.executable, "-c", _VECTORS, model_of(src)], env=env, check=True)
    print(f"indexing {home} with {src}", flush=True)
    cli(src, home, ["embed"])
    (home / "ready").touch()


def serve_first(src: Path, home: Path, searches: int = 6) -> list[float]:
    """Start ``papersift serve``, wait until it answers, then time ``searches`` semantic searches (ms)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(src), "PAPERSIFT_HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "papersift.cli", "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    times = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            for _ in range(1200):
                try:
                    client.get("/openapi.json")
                    break
                except httpx.TransportError:
                    time.sleep(0.05)
            for i in range(searches):
                start = time.perf_counter()
                # a new query each time: the server caches pages, so a repeated one would measure nothing
                params = {"q": f"{SENTENCE} {i}", "mode": "semantic"}
                response = client.get("/api/search", params=params)
                times.append((time.perf_counter() - start) * 1000)
                response.raise_for_status()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=Path("../shared/data/arxiv-20k.jsonl.gz"))
    parser.add_argument("--out", type=Path, default=Path("bench/out/latency20k"))
    parser.add_argument("--old-src", type=Path, help="the code before the change, e.g. /work/main/src")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sides = {"now": ROOT / "src"}
    if args.old_src:
        sides["before"] = args.old_src.resolve()
    homes = {name: (args.out / name).resolve() for name in sides}
    for src in sides.values():  # bytecode, as an install has it (this environment may forbid writing it)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(src)], check=True, capture_output=True)
    build(sides["now"], homes["now"], args.corpus, None)
    for name, src in sides.items():
        build(src, homes[name], args.corpus, None)  # its own ingest: another schema
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} ({os.cpu_count()} cores)")
    for run in range(args.runs):
        for label, command in COMMANDS.items():
            for name, src in sides.items():
                wall, cpu = cli(src, homes[name], command)
                times.setdefault((label, name), []).append((wall, cpu))
                line = f"run {run + 1}: {name:<6} {label:<22} {wall * 1000:7.0f} ms wall"
                print(f"{line} {cpu * 1000:6.0f} ms cpu", flush=True)
    for name, src in sides.items():
        first, *later = serve_first(src, homes[name])
        print(
            f"serve ({name}): first semantic search {first:.0f} ms once it answers; "
            f"the next {len(later)}: median {statistics.median(later):.0f} ms",
            flush=True,
        )
    print(f"\nmedians of {args.runs} runs (ms), 20k papers with vectors; wall / cpu (user + system):")
    print(f"{'command':<24}" + "".join(f"{name:>20}" for name in sides))
    for label in COMMANDS:
        cells = []
        for name in sides:
            wall = statistics.median(w for w, _ in times[(label, name)]) * 1000
            cpu = statistics.median(c for _, c in times[(label, name)]) * 1000
            cells.append(f"{wall:>9.0f} / {cpu:<8.0f}")
        print(f"{label:<24}" + "".join(f"{c:>20}" for c in cells))
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
