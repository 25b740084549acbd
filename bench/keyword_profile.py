"""Where keyword search's time goes once queries are understood: one process, one store, each query timed
understood and ``exact`` in turn (the order alternating), the best of ``--rounds`` kept per query.

Per query it times the whole ``search(..., mode="keyword")`` both ways, ``understand`` alone and the FTS
match alone (``store.match``) of the text each way sends to the store (``Understood.keyword_text``, or the
query as typed). It prints the medians of each stage over the queries understanding leaves unchanged and
over those it rewrites (acronyms ORed with their long forms, corrections), and what the rewritten ones do
to the p50 of all: the p50 with every query exact, with only the rewritten ones understood, and understood.
A p50 is a rank: 26 of 300 queries going from below the median to above it move it as far as the queries'
spread around it says, however little ``understand`` costs.

The queries are ``keyword_latency.py``'s (two-word title queries, ``--queries`` of them).

    PYTHONPATH=src python bench/keyword_profile.py --home HOME300K
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from keyword_latency import queries

from papersift.index.indexes import open_indexes
from papersift.ranking.search import search
from papersift.ranking.understand import understand
from papersift.settings import Settings
from papersift.store import open_store


def _ms(run: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    run()
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="an indexed store")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    qs = queries(args.home, args.queries)
    settings = Settings(home=args.home)
    store = open_store(settings)
    try:
        indexes = open_indexes(store, settings)
        read = {q: understand(indexes, q) for q in qs}  # the vocabulary, speller and long forms built
        for q in qs:  # warm: each query both ways once
            search(indexes, q, mode="keyword")
            search(indexes, q, mode="keyword", exact=True)
        stages = ("understood", "exact", "understand", "match understood", "match exact")
        best = {stage: [float("inf")] * len(qs) for stage in stages}
        for r in range(args.rounds):
            for i, q in enumerate(qs):
                u = read[q]
                runs: dict[str, Callable[[], object]] = {
                    "understood": lambda q=q: search(indexes, q, mode="keyword"),
                    "exact": lambda q=q: search(indexes, q, mode="keyword", exact=True),
                    "understand": lambda q=q: understand(indexes, q),
                    "match understood": lambda u=u: store.match(
                        u.keyword_text or u.text_used, any_terms=u.loose
                    ),
                    "match exact": lambda q=q: store.match(q),
                }
                order = list(runs) if (r + i) % 2 == 0 else list(reversed(runs))
                for stage in order:
                    best[stage][i] = min(best[stage][i], _ms(runs[stage]))
    finally:
        store.close()
    rewritten = [i for i, q in enumerate(qs) if (read[q].keyword_text or read[q].text_used) != q]
    same = [i for i in range(len(qs)) if i not in set(rewritten)]
    print(f"{len(qs)} queries, best of {args.rounds} rounds each; {len(rewritten)} rewritten when understood")
    for name, group in (("unchanged", same), ("rewritten", rewritten)):
        if not group:
            continue
        line = ", ".join(f"{s} {statistics.median(best[s][i] for i in group):.3f}" for s in stages)
        print(f"  {name} ({len(group)}), medians in ms: {line}")
    mixed = [best["understood"][i] if i in set(rewritten) else best["exact"][i] for i in range(len(qs))]
    print(
        f"p50 of all, ms: every query exact {statistics.median(best['exact']):.3f}, only the rewritten "
        f"understood {statistics.median(mixed):.3f}, every query understood "
        f"{statistics.median(best['understood']):.3f}"
    )


if __name__ == "__main__":
    main()
