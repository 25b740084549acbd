"""Topic map quality and speed (``python bench/topics.py``).

1. A store of the month of real listing papers up to the busiest whole-archive day of the 300k file
   (2026-05-12: 809 papers), with MiniLM vectors for that day's papers only (``embed --limit``: the newest
   first). Built once in ``--home`` (default /tmp/papersift-bench-topics) and reused.
2. Quality on that day: normalised mutual information of the topics with the papers' arXiv primary
   categories, beside k-means on the papers' tf-idf rows with the same k (seeds 0..4, median) in the same
   run; the share of topics whose label terms are each in at least half of the topic's papers; the share
   of the day's other papers (unnamed) and of its largest named topic; whether a second run on the same
   papers (given in another order) gives the same map.
3. Speed: ``topic_map`` of 500 papers of that day (those of its busiest primary categories), cold: a fresh
   ``Indexes`` each time (the arrays memory-mapped again), median of 5; and the first (cold) ``/api/map``
   requests to a real server: the day's biggest category (cs.AI, 402 papers) and the whole archive (cs, 809).
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import numpy as np
import orjson

from papersift.index.runtime import open_papersift
from papersift.ranking.topics import map_json, topic_map
from papersift.ranking.topics.clusters import tfidf_matrix
from papersift.records.analyzer import fold, singular
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.store import open_store

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "arxiv-300k.jsonl.gz"
DAY = "2026-05-12"
FIRST = "2026-04-12"


def build(home: Path) -> None:
    """The month's papers ingested, the busiest day's embedded (skipped when ``home`` has them)."""
    env = {**os.environ, "PAPERSIFT_HOME": str(home)}
    if (home / "papersift.db").exists():
        return
    home.mkdir(parents=True, exist_ok=True)
    month = home / "month.jsonl"
    with gzip.open(DATA, "rb") as f, month.open("wb") as out:
        for line in f:
            record = orjson.loads(line)
            if FIRST <= (record.get("announced") or "") <= DAY:
                out.write(orjson.dumps(record) + b"\n")
    cli = [sys.executable, "-m", "papersift.cli"]
    subprocess.run([*cli, "ingest", str(month)], env=env, check=True)
    started = time.perf_counter()
    subprocess.run([*cli, "embed", "--limit", "809"], env=env, check=True)
    print(f"built {home} (embedding took {time.perf_counter() - started:.0f} s)")


def _folded(term: str) -> str:
    return " ".join(map(singular, fold(term).split()))


def day_papers(settings: Settings) -> list[Paper]:
    store = open_store(settings)
    papers = [p for _, p in store.iter_rows() if p.announced and p.announced.isoformat() == DAY]
    store.close()
    return papers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/papersift-bench-topics"))
    parser.add_argument("--no-server", action="store_true", help="skip the server's cold requests (3.)")
    args = parser.parse_args()
    build(args.home)
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score

    settings = Settings(home=args.home)
    papers = day_papers(settings)
    opened = open_papersift(settings)
    store, indexes = opened.store, opened.indexes()
    started = time.perf_counter()
    tmap = topic_map(indexes, papers)
    whole = time.perf_counter() - started
    primary = {p.id: p.primary_category for p in papers}
    ids = [pt.id for pt in tmap.points]
    truth = [primary[i] for i in ids]
    ours = [pt.cluster for pt in tmap.points]
    k = len(tmap.clusters)
    rowids = np.array([store.rowid(i) for i in ids], dtype=np.int64)
    by_id = {p.id: p for p in papers}
    tfidf = tfidf_matrix(indexes.lexical, rowids, [by_id[i] for i in ids])
    baseline = [
        normalized_mutual_info_score(truth, KMeans(k, n_init=1, random_state=seed).fit_predict(tfidf))
        for seed in range(5)
    ]
    print(
        f"day {DAY}: {len(papers)} papers, {len(set(truth))} primary categories; {k} topics in {whole:.2f} s"
    )
    print(f"NMI vs primary categories: topics {normalized_mutual_info_score(truth, ours):.4f}")
    print(
        f"NMI vs primary categories: k-means on tf-idf (k={k}, 5 seeds) "
        f"median {statistics.median(baseline):.4f}"
        f" (min {min(baseline):.4f}, max {max(baseline):.4f})"
    )
    bags = {p.id: f"{p.title} {p.abstract}" for p in papers}
    from papersift.index.lexical import terms

    held = 0
    for topic in tmap.clusters:
        sets = [{_folded(t) for t in terms(bags[i])} for i in topic.papers]  # plurals folded
        held += all(sum(_folded(term) in s for s in sets) * 2 >= len(sets) for term in topic.terms)
        print(f"  {len(topic.papers):4d}  {topic.label or '(no common terms)'}  [{'; '.join(topic.terms)}]")
    print(f"topics whose every label term is in >= half their papers: {held}/{k}")
    unnamed = sum(len(t.papers) for t in tmap.clusters if not t.label)
    largest = max((len(t.papers) for t in tmap.clusters if t.label), default=0)
    print(
        f"other papers (unnamed): {unnamed} ({unnamed / len(papers):.1%}); largest named topic: {largest} "
        f"({largest / len(papers):.1%} of the day)"
    )
    again = topic_map(indexes, list(reversed(papers)))
    same = map_json("", DAY, again)["clusters"] == map_json("", DAY, tmap)["clusters"] and sorted(
        again.points, key=lambda p: p.id
    ) == sorted(tmap.points, key=lambda p: p.id)
    print(f"same input (reversed order) -> same map: {same}")
    opened.close()

    # speed: a 500-paper set, cold indexes each time
    counts: dict[str, int] = {}
    for p in papers:
        counts[p.primary_category] = counts.get(p.primary_category, 0) + 1
    chosen = [p for p in papers if counts[p.primary_category] >= 20][:500]
    times, cpu = [], []
    for _ in range(5):
        opened = open_papersift(settings)
        started, used = time.perf_counter(), time.process_time()
        topic_map(opened.indexes(), chosen)
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
        opened.close()
    print(
        f"topic_map of {len(chosen)} papers, cold indexes: median {statistics.median(times) * 1000:.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}); CPU time median "
        f"{statistics.median(cpu) * 1000:.0f} ms (the machine's load shows in the gap; os.getloadavg() "
        f"{os.getloadavg()[0]:.1f})"
    )
    if not args.no_server:
        server_cold(args.home)


def server_cold(home: Path) -> None:
    """First (cold) requests to a fresh ``papersift serve``: the day's biggest category, then the whole
    archive (``cs``); the listing JSON first, so the map's time is the map's (plus opening the indexes)."""
    sys.path.insert(0, str(ROOT))  # the real-server helper shared with the tests
    from tests.support.processes import serving

    store = open_store(Settings(home=home))
    listed = sorted(store.listed_categories(date.fromisoformat(DAY)), key=lambda c: -c[1])
    biggest = listed[0][0]
    sizes = {c: len(store.listing(c, date.fromisoformat(DAY))) for c in (biggest, "cs")}
    store.close()
    with serving(home) as client:
        paths = [f"/api/list/{biggest}/{DAY}", f"/api/map/{biggest}/{DAY}", f"/api/map/cs/{DAY}"]
        paths += [f"/map/cs/{DAY}", f"/list/{biggest}/{DAY}"]
        timings = {}
        for path in paths:
            started = time.perf_counter()
            response = client.get(path)
            timings[path] = (time.perf_counter() - started) * 1000
            assert response.status_code == 200, (path, response.status_code)
        started = time.perf_counter()
        client.get(f"/api/map/cs/{DAY}")
        warm = (time.perf_counter() - started) * 1000
    print(f"server, first request of each (cold); {biggest}: {sizes[biggest]} papers, cs: {sizes['cs']}")
    for path, ms in timings.items():
        print(f"  {path}: {ms:.0f} ms")
    print(f"  /api/map/cs again (cached): {warm:.1f} ms")


if __name__ == "__main__":
    main()
