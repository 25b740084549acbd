"""Query understanding, before and after, in one run: 中文 vs English Recall@10, misspelled vs correct top-10
overlap, per mode; and keyword search p50 with and without it.

The sets are ``bench/understand_sets.json`` (queries we wrote for papers of the 20k file: an English topic
query, the same in 中文, the English with one or two misspellings). "before" is ``search(..., exact=True)``
(no translation, correction or acronyms: the query as typed, as search was before understanding), "after"
the default; both on the same open indexes, alternating query by query.

- Recall@10: the share of papers found in the top 10 of their English / 中文 query.
- Overlap: |top 10 of the misspelled query ∩ top 10 of the correct one| / |top 10 of the correct one|,
  averaged (the correct one searched under the same condition).
- ``--latency-home``: a store (e.g. of the 300k file, indexed): p50 of keyword search for two-word title
  queries, exact vs understood, alternating.

    PYTHONPATH=src python bench/understand.py --home HOME [--latency-home HOME300K]
        [--sets bench/understand_heldout.json] [--show] [--feedback-latency]

``understand_heldout.json`` is a second set, of papers drawn by a fixed seed, its 中文 written before the
translator was run on it: the check that the dictionary is not fitted to the first;
``understand_heldout2.json`` a third, drawn by another seed and written the same way. ``--show`` prints each
中文 query that misses a paper its English finds, with what it was translated to. For keyword search p50
against the code before understanding (another checkout), see ``keyword_latency.py``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from papersift.index.indexes import Indexes
from papersift.index.runtime import open_papersift
from papersift.ranking.search import MODES, Mode, search
from papersift.records.analyzer import STOP_WORDS
from papersift.settings import Settings

SETS = Path(__file__).with_name("understand_sets.json")


def top(indexes: Indexes, query: str, mode: Mode, exact: bool) -> list[str]:
    return [h.paper.id for h in search(indexes, query, mode=mode, k=10, exact=exact).hits]


def quality(indexes: Indexes, modes: list[Mode], sets: Path = SETS, show: bool = False) -> None:
    papers = json.loads(sets.read_text())["papers"]
    stored = {p["id"] for p in papers if indexes.store.get(p["id"]) is not None}
    papers = [p for p in papers if p["id"] in stored]
    print(f"{len(papers)} papers of the sets in the store ({indexes.store.count()} papers)")
    for mode in modes:
        found = {(lang, cond): 0 for lang in ("en", "zh") for cond in ("before", "after")}
        overlap: dict[str, list[float]] = {"before": [], "after": []}
        start = time.perf_counter()
        for p in papers:
            for cond, exact in (("before", True), ("after", False)):
                right = top(indexes, p["en"], mode, exact)
                found["en", cond] += p["id"] in right
                zh = top(indexes, p["zh"], mode, exact)
                found["zh", cond] += p["id"] in zh
                if show and not exact and p["id"] in right and p["id"] not in zh:
                    used = search(indexes, p["zh"], mode=mode, exact=False).understood
                    print(f"  中文 missed {p['id']}: {p['zh']} → {used.text_used if used else ''!r}")
                wrong = top(indexes, p["typo"], mode, exact)
                if right:
                    overlap[cond].append(len(set(wrong) & set(right)) / len(right))
        n = len(papers)
        print(f"{mode} ({time.perf_counter() - start:.0f} s):")
        for cond in ("before", "after"):
            en, zh = found["en", cond] / n, found["zh", cond] / n
            ratio = f"{zh / en:.2f}" if en else "n/a"
            mean = statistics.mean(overlap[cond]) if overlap[cond] else 0.0
            print(
                f"  {cond:6}: Recall@10 English {en:.3f}, 中文 {zh:.3f} (中文/English {ratio}); "
                f"misspelled top-10 overlap {mean:.3f} (n={len(overlap[cond])})"
            )


def contexts(indexes: Indexes, path: Path, mode: Mode) -> None:
    """Recall@10 and MRR of the cited paper for the dev citation sentences, exact vs understood: what
    correcting, translating and expanding does to long natural-language queries."""
    with gzip.open(path, "rt") as f:
        rows = [json.loads(line) for line in f]
    rows = [r for r in rows if indexes.store.get(r["cited_id"]) is not None]
    score = {True: [0, 0.0], False: [0, 0.0]}
    changed = 0
    for r in rows:
        for exact in (True, False):
            result = search(indexes, r["context"], mode=mode, k=10, exact=exact)
            ids = [h.paper.id for h in result.hits]
            if r["cited_id"] in ids:
                score[exact][0] += 1
                score[exact][1] += 1 / (ids.index(r["cited_id"]) + 1)
            if not exact and result.understood is not None and result.understood.corrections:
                changed += 1
    n = len(rows)
    served = search(indexes, "x", mode=mode).mode
    for exact, label in ((True, "exact"), (False, "understood")):
        print(
            f"citation sentences ({n}, {mode} as served: {served}{'' if indexes.dense else ', no vectors'}) "
            f"{label}: Recall@10 {score[exact][0] / n:.4f}, MRR@10 {score[exact][1] / n:.4f}"
        )
    print(f"  sentences with a correction: {changed}")


def latency(indexes: Indexes, n: int) -> None:
    rows = indexes.store.by_rowids(list(range(1, indexes.store.count() + 1, 97)))
    titles = [p.title for p in rows.values()]
    queries = []
    for title in random.Random(3).sample(titles, min(n, len(titles))):
        words = [w for w in re.findall(r"[A-Za-z]{3,}", title) if w.lower() not in STOP_WORDS]
        if len(words) >= 2:
            queries.append(" ".join(words[:2]))
    for q in queries[:20]:  # warm the caches (and load the vocabulary once)
        search(indexes, q, mode="keyword", exact=False)
        search(indexes, q, mode="keyword", exact=True)
    times: dict[bool, list[float]] = {True: [], False: []}
    for q in queries:
        for exact in (True, False):
            t0 = time.perf_counter()
            search(indexes, q, mode="keyword", exact=exact)
            times[exact].append((time.perf_counter() - t0) * 1000)
    before, after = statistics.median(times[True]), statistics.median(times[False])
    print(
        f"keyword search p50, {len(queries)} two-word title queries, {indexes.store.count()} papers: "
        f"exact {before:.2f} ms, understood {after:.2f} ms (ratio {after / before:.2f})"
    )


def feedback_latency(indexes: Indexes, sets: Path, rounds: int = 3) -> None:
    """p50 of semantic search of the sets' 中文 queries with the dictionary translation's feedback
    (``ranking/feedback.py``) and without it (the same translation's own vector, encoded inside the timing
    too, given to search), alternating."""
    queries = [p["zh"] for p in json.loads(sets.read_text())["papers"]]
    used = {q: search(indexes, q, mode="semantic").understood for q in queries}  # warms the caches too
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds):
        for q in queries:
            u = used[q]
            for moved in (True, False):
                t0 = time.perf_counter()
                if moved or u is None:
                    search(indexes, q, mode="semantic")
                else:
                    search(indexes, q, mode="semantic", vector=indexes.encoder().encode([u.text_used])[0])
                times[moved].append((time.perf_counter() - t0) * 1000)
    with_, without = statistics.median(times[True]), statistics.median(times[False])
    print(
        f"semantic search p50, {len(queries)} 中文 queries × {rounds}, {indexes.store.count()} papers: "
        f"with feedback {with_:.1f} ms, without {without:.1f} ms (ratio {with_ / without:.2f})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="an indexed store holding the sets' papers")
    ap.add_argument("--corpus", type=Path, help="ingest and embed this file into --home first if it is empty")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--latency-home", type=Path, help="an indexed store to time keyword search on")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--contexts", type=Path, help="citation sentences: Recall@10 exact vs understood")
    ap.add_argument(
        "--sets", type=Path, default=SETS, help="the query sets (understand_heldout.json: held out)"
    )
    ap.add_argument("--show", action="store_true", help="print each 中文 query missed that English finds")
    ap.add_argument(
        "--feedback-latency", action="store_true", help="semantic p50 of 中文 queries, feedback or not"
    )
    args = ap.parse_args()
    if args.corpus is not None and not (args.home / "papersift.db").exists():
        for command in (["ingest", str(args.corpus)], ["embed"]):
            subprocess.run(
                [sys.executable, "-m", "papersift.cli", "--home", str(args.home), *command], check=True
            )
    for home, run in ((args.home, "quality"), (args.latency_home, "latency")):
        if home is None:
            continue
        with open_papersift(Settings(home=home)) as opened:
            indexes = opened.indexes()
            if run == "quality" and args.contexts is not None:
                contexts(indexes, args.contexts, "hybrid")
            if run == "quality" and args.feedback_latency:
                feedback_latency(indexes, args.sets)
            elif run == "quality":
                quality(indexes, [m for m in MODES if m in args.modes.split(",")], args.sets, args.show)
            else:
                latency(indexes, args.queries)


if __name__ == "__main__":
    main()
