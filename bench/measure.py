"""What the scale benchmarks measure the same way on both backends (``scale.py``, ``postgres.py``).

``exact_top10``: the exact 10 nearest stored vectors of each query, a batch of the store at a time (the
truth ANN recall is measured against). ``keyword_times``: keyword match latency for two-word queries taken
from real titles (every 97th paper's, a seeded sample), with all words and with any word.
"""

from __future__ import annotations

import random
import re
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from papersift.index.generations import open_current
from papersift.index.pipeline import refresh
from papersift.records.analyzer import STOP_WORDS
from papersift.settings import Settings
from papersift.store import Store, VectorBatch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the helpers shared with the tests
from tests.support.processes import free_port as free_port  # re-exported for the day benchmarks
from tests.support.processes import serving as serving


def exact_top10(queries: np.ndarray, batches: Iterable[VectorBatch]) -> np.ndarray:
    """Rowids of the 10 stored vectors of highest cosine to each (unit) query vector: (queries, 10)."""
    best_keys = np.zeros((len(queries), 0), np.int64)
    best_sims = np.zeros((len(queries), 0), np.float32)
    for batch in batches:
        vecs = batch.vectors.astype(np.float32)
        sims = queries @ (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).T
        keys = np.concatenate([best_keys, np.broadcast_to(batch.keys, sims.shape)], axis=1)
        sims = np.concatenate([best_sims, sims], axis=1)
        top = np.argpartition(-sims, 10, axis=1)[:, :10]
        best_keys, best_sims = np.take_along_axis(keys, top, 1), np.take_along_axis(sims, top, 1)
    return best_keys


def recall(exact: np.ndarray, found: Iterable[Iterable[int]]) -> float:
    """Mean share of the exact 10 nearest that the index found."""
    hits = [len(set(e.tolist()) & set(f)) / 10 for e, f in zip(exact, found, strict=True)]
    return float(np.mean(hits))


def keyword_times(
    store: Store,
    titles: list[str],
    n_all: int,
    n_any: int,
    common: Callable[[str], bool] | None = None,
) -> list[str]:
    """One line per kind (all words, any word): p50/p95 ms of ``store.match`` for title queries.

    ``common``: the words any-word queries leave out, as hybrid search passes them (``Lexical.common``);
    None leaves it to the store (PostgreSQL: its planner statistics; SQLite: none).
    """
    queries = []
    for title in random.Random(3).sample(titles, min(n_all, len(titles))):
        words = [w for w in re.findall(r"[A-Za-z]{3,}", title) if w.lower() not in STOP_WORDS]
        if words:
            queries.append(" ".join(words[:2]))
    for q in queries[:20]:  # warm the caches
        store.match(q, k=10)
    lines = []
    for label, any_terms, n in (("all words", False, n_all), ("any word", True, n_any)):
        times = []
        for q in queries[:n]:
            t0 = time.perf_counter()
            store.match(q, k=10, any_terms=any_terms, common=common if any_terms else None)
            times.append(time.perf_counter() - t0)
        ms = np.array(times) * 1000
        lines.append(
            f"keyword match ({label}, {len(times)} two-word title queries, k=10): "
            f"p50 {np.percentile(ms, 50):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms"
        )
    return lines


TITLE_SAMPLE = "SELECT title FROM papers WHERE rowid % 97 = 1 ORDER BY rowid"


def timed_refresh(store: Store, settings: Settings) -> dict[str, float]:
    """``refresh`` (a new index generation), timed, and its split as the generation's manifest records it."""
    t0 = time.perf_counter()
    refresh(store, settings)
    took = time.perf_counter() - t0
    generation = open_current(settings.index_dir)
    assert generation is not None
    seconds, delta = generation.manifest["seconds"], generation.manifest["delta"]
    generation.close()
    return {
        "refresh": took,
        "lexical (a delta, or the rebuild)": seconds["lexical"],
        "ANN insert": seconds["dense"],
        "publish (fsync, manifest, pointer)": took - seconds["lexical"] - seconds["dense"],
        "(a delta segment)": float(bool(delta)),
    }
