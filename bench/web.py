"""Web load benchmark (``make bench-web``): a real ``papersift serve`` under loopback load from this process.

Over a store built by ``make bench-related`` (300k papers, vectors, indexes): for each page kind (a day's
listing, a paper page with its related papers, a hybrid search) N concurrent clients request random real
pages for S seconds. Prints requests/s, p50/p95 latency and errors per kind, and the server's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np

QUERIES = [
    "graph neural network",
    "dark matter halo",
    "quantum error correction",
    "large language model reasoning",
    "topological insulator",
    "gravitational waves from binary black holes",
    "diffusion models for image generation",
    "reinforcement learning from human feedback",
    "neutrino oscillation",
    "Bethe ansatz",
]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_rss_mb(pid: int) -> float:
    """Peak RSS of the server process and its workers, summed (shared mapped pages count in each)."""
    total = 0.0
    for child in [pid, *_children(pid)]:
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                total += int(line.split()[1]) / 1024
    return total


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found += [int(child), *_children(int(child))]
    return found


async def _load(base: str, paths: list[str], clients: int, seconds: float) -> tuple[list[float], int]:
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds
    rng = random.Random(1)

    async def client(http: httpx.AsyncClient) -> None:
        nonlocal errors
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            try:
                response = await http.get(rng.choice(paths))
                if response.status_code != 200:
                    errors += 1
            except httpx.HTTPError:
                errors += 1
            latencies.append(time.perf_counter() - start)

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    return latencies, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True, help="a store built by bench/related.py --keep")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="server processes")
    args = parser.parse_args()
    with gzip.open(args.data / "daily-listings.jsonl.gz", "rt") as f:
        days = [json.loads(line) for line in f]
    with gzip.open(args.data / "arxiv-20k.jsonl.gz", "rt") as f:
        ids = [json.loads(line)["id"] for line in f]
    rng = random.Random(2)
    port = _port()
    env = {**os.environ, "PAPERSIFT_HOME": str(args.home)}
    server = subprocess.Popen(
        [sys.executable, "-m", "papersift.cli", "serve", "--port", str(port), "--workers", str(args.workers)],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                httpx.get(f"{base}/openapi.json", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        listings = [
            f"/list/{c}/{d['date']}" for d in rng.sample(days, 200) for c in d["primary_categories_seen"][:3]
        ]
        listings = [p for p in listings if httpx.get(base + p, timeout=60).status_code == 200][:300]
        kinds = {
            "listing": listings,
            "paper + related": [f"/abs/{i}" for i in rng.sample(ids, 500)],
            "search (hybrid)": [f"/search?q={q.replace(' ', '+')}" for q in QUERIES],
        }
        for path in (kinds["paper + related"][0], kinds["search (hybrid)"][0]):  # load indexes and model
            httpx.get(base + path, timeout=120)
        print(f"{args.clients} clients, {args.seconds:.0f} s per page kind, {args.workers} server workers")
        for name, paths in kinds.items():
            latencies, errors = asyncio.run(_load(base, paths, args.clients, args.seconds))
            ms = np.array(latencies) * 1000
            print(
                f"{name:<16} {len(ms) / args.seconds:7.1f} req/s  p50 {np.percentile(ms, 50):7.1f} ms  "
                f"p95 {np.percentile(ms, 95):7.1f} ms  errors {errors}"
            )
        print(f"server peak RSS: {_server_rss_mb(server.pid):.0f} MB (all its processes)")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
