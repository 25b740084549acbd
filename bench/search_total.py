"""What a ``/search`` miss costs in ranking: the page and then a second, k=101 search to count the results
(as ``web/search_pages.py`` did), against one search that counts its total from its own pool (``count=101``).
Medians over the snapshot's queries (``bench/ranking_snapshot.py``), hybrid, both measured in one run.

    PAPERSIFT_HOME=/tmp/home PYTHONPATH=src .venv/bin/python bench/search_total.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from papersift.index.indexes import open_indexes
from papersift.ranking.search import search
from papersift.settings import Settings
from papersift.store import open_store

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the snapshot's queries
from bench.ranking_snapshot import QUERIES

ROUNDS = 3
CAP = 101  # web/search_pages.py: TOTAL_CAP + 1


def main() -> None:
    settings = Settings()
    store = open_store(settings)
    indexes = open_indexes(store, settings)
    queries = [q for q in QUERIES if len(q) > 2]
    for q in queries:  # warm: the model, the vocabulary
        search(indexes, q, k=10)
    two, one = [], []
    for _ in range(ROUNDS):
        for q in queries:
            start = time.perf_counter()
            search(indexes, q, k=10)
            search(indexes, q, k=CAP)
            two.append(time.perf_counter() - start)
            start = time.perf_counter()
            search(indexes, q, k=10, count=CAP)
            one.append(time.perf_counter() - start)
    base, new = statistics.median(two), statistics.median(one)
    print(
        f"{len(queries)} queries x {ROUNDS}, hybrid: page + k={CAP} search {base * 1000:.1f} ms (median); "
        f"one search counting {new * 1000:.1f} ms; ratio {new / base:.2f}"
    )
    indexes.close()
    store.close()


if __name__ == "__main__":
    main()
