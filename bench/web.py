"""Web load benchmark (``make bench-web``): a real ``papersift serve`` under loopback load from wrk.

Over a store built by ``make bench-related`` (300k papers, vectors, indexes), each page kind is requested
by N concurrent clients for S seconds, drawing random real pages from a pool:

- ``listing``: 300 real listing days of real categories;
- ``paper + related`` (warm): 500 paper pages, each requested before timing (popular papers);
- ``paper + related`` (cold): 20,000 papers, so nearly every request ranks related papers anew;
- ``search`` (popular): 10 queries; ``search`` (cold): 2,000 distinct 2–4-word phrases from real titles.

The listing, warm and popular pools are requested before timing (the steady state of a server whose pages
are cached per store version); the cold pools are not, so nearly every timed request computes its page.

With ``--login-flood`` the server runs with accounts (``PAPERSIFT_ACCOUNTS=true``) and the cold paper pages
are timed twice more, alternating: alone, and while one more client (its own process, with
``--flood-connections`` connections, 8 by default) posts wrong passwords to ``/login`` as fast as the server
answers (a real form post: CSRF token, Origin), as a password-guessing script would. Prints both p95s,
their ratio and what the flood's posts got (401, 429…).

The load comes from ``wrk`` (C, closed loop, one connection per client) when it is installed — ``make
bench-web`` installs it — else from an asyncio httpx loop in this process. Prints requests/s, p50/p95
latency and errors per kind, and the server's peak RSS over all its processes.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote_plus

import httpx
import numpy as np

POPULAR = [
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

WRK_SCRIPT = """
local paths = {%s}
local id = 0
setup = function(thread) id = id + 1; thread:set("id", id) end
init = function(args) math.randomseed(id * 7919 + os.time()) end
request = function() return wrk.format("GET", paths[math.random(#paths)]) end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %%d %%d %%.3f %%.3f %%.3f\\n", summary.requests,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, summary.duration / 1e6))
end
"""


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


def _wrk(base: str, paths: list[str], clients: int, seconds: float) -> tuple[float, float, float, int]:
    """(requests/s, p50 ms, p95 ms, errors) from wrk."""
    lua = WRK_SCRIPT % ", ".join(json.dumps(p) for p in paths)
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(lua)
    try:
        out = subprocess.run(
            ["wrk", "-t2", f"-c{clients}", f"-d{seconds:.0f}s", "--timeout", "30s", "-s", f.name, base],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        os.unlink(f.name)
    match = re.search(r"RESULT (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+)", out)
    assert match, out
    requests, errors, p50, p95, duration = match.groups()
    return int(requests) / float(duration), float(p50), float(p95), int(errors)


async def _httpx(
    base: str, paths: list[str], clients: int, seconds: float
) -> tuple[float, float, float, int]:
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
                errors += response.status_code != 200
            except httpx.HTTPError:
                errors += 1
            latencies.append(time.perf_counter() - start)

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    ms = np.array(latencies) * 1000
    return len(ms) / seconds, float(np.percentile(ms, 50)), float(np.percentile(ms, 95)), errors


async def _touch(base: str, paths: list[str], clients: int) -> None:
    """Request every path (so each worker has computed the pages of a warm pool before timing)."""
    queue = list(paths)

    async def client(http: httpx.AsyncClient) -> None:
        while queue:
            await http.get(queue.pop())

    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))


FLOOD = """
import re, sys, threading, time
import httpx
base, seconds, connections = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
statuses = {}
lock = threading.Lock()
deadline = time.perf_counter() + seconds


def guess(k):
    with httpx.Client(base_url=base, timeout=60, headers={"Origin": base}) as http:
        token = re.search(r'name="csrf" value="([^"]+)"', http.get("/login").text).group(1)
        n = 0
        while time.perf_counter() < deadline:
            data = {"csrf": token, "name": f"guess{k}-{n % 50}", "password": f"wrong-{n}", "next": "/daily"}
            code = http.post("/login", data=data).status_code
            with lock:
                statuses[code] = statuses.get(code, 0) + 1
            n += 1


threads = [threading.Thread(target=guess, args=(k,)) for k in range(connections)]
for t in threads:
    t.start()
for t in threads:
    t.join()
total = sum(statuses.values())
print(" ".join(f"{k}:{v}" for k, v in sorted(statuses.items())), f"({total / seconds:.0f} posts/s)")
"""


def _flooded(base: str, paths: list[str], args: argparse.Namespace) -> None:
    """Cold paper pages alone and under a /login flood, alternating, ``args.flood_rounds`` times each."""
    alone: list[float] = []
    flooded: list[float] = []
    for round_ in range(args.flood_rounds):
        _, _, p95, errors = _wrk(base, paths, args.clients, args.seconds)
        alone.append(p95)
        print(f"round {round_ + 1}: cold paper pages alone        p95 {p95:7.1f} ms  errors {errors}")
        flood = subprocess.Popen(
            [sys.executable, "-c", FLOOD, base, str(args.seconds + 2), str(args.flood_connections)],
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(1)  # the flood is under way before timing starts
        _, _, p95, errors = _wrk(base, paths, args.clients, args.seconds)
        flooded.append(p95)
        got, _ = flood.communicate(timeout=120)
        line = f"round {round_ + 1}: cold paper pages, /login flood p95 {p95:7.1f} ms  errors {errors}"
        print(f"{line}  (flood's posts: {got.strip()})")
    a, f = float(np.median(alone)), float(np.median(flooded))
    print(f"login flood: cold paper-page p95 median {f:.1f} ms vs {a:.1f} ms alone: {f / a:.2f}x")


def _phrases(titles: list[str], n: int, rng: random.Random) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]+", rng.choice(titles)) if len(w) > 2]
        if len(words) >= 2:
            size = min(len(words), rng.randint(2, 4))
            start = rng.randint(0, len(words) - size)
            out.append(" ".join(words[start : start + size]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True, help="a store built by bench/related.py --keep")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="server processes")
    parser.add_argument("--only", default="", help="comma-separated page kinds to run (default: all)")
    parser.add_argument("--login-flood", action="store_true", help="cold paper pages with and without")
    parser.add_argument("--flood-rounds", type=int, default=3)
    parser.add_argument("--flood-connections", type=int, default=8, help="the flooding client's connections")
    args = parser.parse_args()
    with gzip.open(args.data / "daily-listings.jsonl.gz", "rt") as f:
        days = [json.loads(line) for line in f]
    with gzip.open(args.data / "arxiv-20k.jsonl.gz", "rt") as f:
        records = [json.loads(line) for line in f]
    ids = [r["id"] for r in records]
    rng = random.Random(2)
    port = _port()
    env = {**os.environ, "PAPERSIFT_HOME": str(args.home)}
    if args.login_flood:
        env["PAPERSIFT_ACCOUNTS"] = "true"
    server = subprocess.Popen(
        [sys.executable, "-m", "papersift.cli", "serve", "--port", str(port), "--workers", str(args.workers)],
        env=env,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    load = "wrk" if shutil.which("wrk") else "httpx"
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
        wanted = {k.strip() for k in args.only.split(",") if k.strip()}
        kinds = {
            "listing": listings,
            "paper + related (warm)": [f"/abs/{i}" for i in rng.sample(ids, 500)],
            "paper + related (cold)": [f"/abs/{i}" for i in rng.sample(ids, 20_000)],
            "search (popular)": [f"/search?q={quote_plus(q)}" for q in POPULAR],
            "search (cold)": [
                f"/search?q={quote_plus(q)}" for q in _phrases([r["title"] for r in records], 2000, rng)
            ],
        }
        for paths in kinds.values():  # every worker maps its indexes and loads the model before timing
            for _ in range(4 * args.workers):
                httpx.get(base + paths[0], timeout=120)
        print(
            f"{args.clients} clients, {args.seconds:.0f} s per page kind, "
            f"{args.workers} server workers, load: {load}"
        )
        for name, paths in kinds.items():
            if wanted and not any(w in name for w in wanted):
                continue
            if "cold" not in name:  # steady state: every page of a warm pool is seen just before timing
                asyncio.run(_touch(base, paths * 3 * args.workers, args.clients))
            if load == "wrk":
                rate, p50, p95, errors = _wrk(base, paths, args.clients, args.seconds)
            else:
                rate, p50, p95, errors = asyncio.run(_httpx(base, paths, args.clients, args.seconds))
            print(f"{name:<24} {rate:7.1f} req/s  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  errors {errors}")
        if args.login_flood:
            if load != "wrk":
                raise SystemExit("--login-flood needs wrk (make bench-web installs it)")
            _flooded(base, kinds["paper + related (cold)"], args)
        print(f"server peak RSS: {_server_rss_mb(server.pid):.0f} MB (all its processes)")
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
