"""Related-papers latency and ANN recall (``make bench-related``).

1. A store of the 300k real papers. Vectors: the real MiniLM vectors of the 20k-file papers (from the
   vector cache that ``papersift eval`` fills; run it first), and for every other paper a SYNTHETIC vector
   drawn from a Gaussian with the real vectors' mean and covariance (real vectors for 300k papers take hours
   on this machine). Then the lexical arrays and the HNSW index are built as ``papersift embed`` does.
2. In process: ``related`` for 1,000 real query papers (query vector lookup, candidates, fusion, fetch of
   the titles): p50 and p95 in ms, against the bare ANN search of the same queries (the floor).
3. The whole ``papersift related ID`` command, start-up included: median wall of 10 runs.
4. ANN recall@10 of the HNSW index against exact search, 1,000 queries over the 20k real vectors.
5. With ``--sentences``: sentence vectors for the whole store (the real ones of the 20k-file papers from the
   vector cache, a SYNTHETIC Gaussian fit to them for the rest, as for the paper vectors), published as a
   new generation; then, interleaved over ``--rounds`` rounds, ``related`` (the same 1,000 queries) and
   hybrid search by the dev citation sentences, each without sentence vectors (the generation as before)
   and with them (the sentence match and the explanations they feed): p50/p95 and the ratio.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from papersift.index.encoder import model_id, paper_text
from papersift.index.indexes import Indexes
from papersift.index.pipeline import refresh
from papersift.index.runtime import open_papersift
from papersift.index.sentences import SentenceSource, paper_sentences
from papersift.ranking.evaluate import read_contexts
from papersift.ranking.related import paper_query, related
from papersift.ranking.search import search
from papersift.records.paper import Paper
from papersift.services.ingest import ingest_paths
from papersift.settings import Settings
from papersift.store import Store, open_store
from papersift.store.cache import VectorCache


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values) * 1000, q))


def fill_vectors(store_settings: Settings, cache: VectorCache, real_ids: set[str], seed: int) -> int:
    store = open_store(store_settings)
    store.reset_vectors(model_id(store_settings))
    rows = [(rowid, p) for rowid, p in store.iter_rows()]
    real = [(r, p) for r, p in rows if p.id in real_ids]
    found = cache.get(model_id(store_settings), [paper_text(p.title, p.abstract) for _, p in real])
    if len(found) < len(real) // 2:
        raise SystemExit("the vector cache lacks the 20k papers: run `make eval` (papersift eval) first")
    keys = [real[i][0] for i in found]
    matrix = np.stack([found[i] for i in found])
    store.put_vectors(keys, matrix)
    rng = np.random.default_rng(seed)
    mean, cov = matrix.mean(axis=0), np.cov(matrix, rowvar=False)
    have = set(keys)
    synthetic = [r for r, _ in rows if r not in have]
    for start in range(0, len(synthetic), 50_000):
        chunk = synthetic[start : start + 50_000]
        vecs = rng.multivariate_normal(mean, cov, size=len(chunk)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.put_vectors(chunk, vecs)
    store.close()
    return len(keys)


def time_related(
    indexes: Indexes, papers: list[Paper]
) -> tuple[list[float], list[float], list[np.ndarray], list[np.ndarray]]:
    """``related`` (k=10) for each paper, after 20 to warm the page cache and the maps: its seconds,
    the bare ANN search's seconds (the floor), the query vectors and the ANN's 10 nearest rowids."""
    for p in papers[:20]:
        related(indexes, paper_query(indexes, p), k=10)
    full: list[float] = []
    floor: list[float] = []
    vectors: list[np.ndarray] = []
    nearest: list[np.ndarray] = []
    for p in papers:
        t0 = time.perf_counter()
        query = paper_query(indexes, p)
        related(indexes, query, k=10)
        t1 = time.perf_counter()
        assert query.vector is not None and indexes.dense is not None
        nearest.append(indexes.dense.search(query.vector, 10)[0])
        floor.append(time.perf_counter() - t1)
        full.append(t1 - t0)
        vectors.append(query.vector)
    return full, floor, vectors, nearest


def ann_recall(vectors: np.ndarray, queries: int, seed: int) -> float:
    from papersift.index.dense import _new_index

    index = _new_index(vectors.shape[1])
    index.add(np.arange(len(vectors), dtype=np.uint64), vectors)
    picks = np.random.default_rng(seed).choice(len(vectors), size=queries, replace=False)
    exact = np.argsort(-(vectors[picks] @ vectors.T), axis=1)[:, :10]
    found = index.search(vectors[picks], 10).keys
    return float(np.mean([len(set(a) & set(b.tolist())) / 10 for a, b in zip(exact, found, strict=True)]))


def synthetic_sentences(
    store: Store, cache: VectorCache, model: str, real_ids: set[str], seed: int
) -> SentenceSource:
    """Sentence vectors from the cache (the real ones), else drawn from a Gaussian fit to the real ones."""
    texts = [
        s for _, p in store.iter_rows() if p.id in real_ids for s in paper_sentences(p.title, p.abstract)
    ]
    found = cache.get(model, texts)
    if len(found) < len(texts) // 2:
        raise SystemExit(
            "the vector cache lacks the 20k papers' sentences: run bench/tune_sentences.py first"
        )
    known = {texts[i]: vector for i, vector in found.items()}  # looked up once, here
    real = np.stack(list(known.values()))
    mean = real.mean(axis=0)
    factor = np.linalg.cholesky(np.cov(real, rowvar=False) + 1e-6 * np.eye(real.shape[1]))
    rng = np.random.default_rng(seed)

    def encode(batch: list[str]) -> np.ndarray:
        out = (mean + rng.standard_normal((len(batch), len(mean))) @ factor.T).astype(np.float32)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        for i, text in enumerate(batch):
            if text in known:
                out[i] = known[text]
        return out

    return SentenceSource(model, encode)


def interleaved(runs: dict[str, Callable[[], list[float]]], rounds: int) -> dict[str, list[float]]:
    """Each run once untimed, then ``rounds`` rounds, the order turned each round: every run's seconds."""
    for run in runs.values():
        run()
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for i in range(rounds):
        for name in names if i % 2 == 0 else names[::-1]:
            seconds[name] += runs[name]()
    return seconds


def sentence_costs(
    settings: Settings, cache: VectorCache, real_ids: set[str], papers: list[Paper], args: argparse.Namespace
) -> None:
    """Step 5: sentence vectors for the store, then related and search without and with them."""
    opened = open_papersift(settings)
    store = opened.store
    start = time.perf_counter()
    source = synthetic_sentences(store, cache, model_id(settings), real_ids, seed=2)
    refresh(store, settings, sentences=source)
    print(f"sentence vectors for {store.count():,} papers: {time.perf_counter() - start:.0f} s")
    indexes = opened.indexes()
    assert indexes.sentences is not None and indexes.generation is not None
    without = dataclasses.replace(indexes, sentences=None)
    rows = sum(int(segment.offsets[-1]) for segment in indexes.sentences.segments)
    print(f"sentence rows: {rows:,} for {len(indexes.sentences):,} papers")
    contexts = read_contexts(args.data / "citation-contexts-dev.jsonl.gz")
    vectors = indexes.encoder().encode([text for text, _, _ in contexts])

    def related_run(ix: Indexes) -> Callable[[], list[float]]:
        def run() -> list[float]:
            out = []
            for p in papers:
                t0 = time.perf_counter()
                related(ix, paper_query(ix, p), k=10)
                out.append(time.perf_counter() - t0)
            return out

        return run

    def search_run(ix: Indexes) -> Callable[[], list[float]]:
        def run() -> list[float]:
            out = []
            for (text, _, _), vector in zip(contexts, vectors, strict=True):
                t0 = time.perf_counter()
                search(ix, text, k=10, vector=vector)
                out.append(time.perf_counter() - t0)
            return out

        return run

    for task, make in (("related", related_run), ("search", search_run)):
        seconds = interleaved({"without": make(without), "with": make(indexes)}, args.rounds)
        a, b = (statistics.median(seconds[n]) for n in ("without", "with"))
        print(
            f"{task} at {store.count():,} papers, in process ({len(seconds['with'])} timings each): "
            f"p50 {a * 1000:.2f} ms without sentence vectors, {b * 1000:.2f} ms with them "
            f"(ratio {b / a:.2f}); p95 {_ms(seconds['without'], 95):.2f} / {_ms(seconds['with'], 95):.2f} ms",
            flush=True,
        )
    opened.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--keep", type=Path, help="build the store here and keep it")
    parser.add_argument("--sentences", action="store_true", help="step 5: the cost of sentence vectors")
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds of step 5")
    args = parser.parse_args()
    base = Settings()
    home = args.keep or Path(tempfile.mkdtemp(prefix="papersift-bench-"))
    settings = base.model_copy(update={"home": home})
    with gzip.open(args.data / "arxiv-20k.jsonl.gz", "rt") as f:
        real_ids = {json.loads(line)["id"] for line in f}
    store = open_store(settings)
    if store.count() == 0:
        start = time.perf_counter()
        ingest_paths(store, [args.data / "arxiv-300k.jsonl.gz"], chunk=settings.ingest_chunk)
        print(f"ingest 300k: {time.perf_counter() - start:.0f} s")
    missing = store.vector_count() < store.count()
    store.close()
    cache = VectorCache(base.cache_path)
    if missing:
        n_real = fill_vectors(settings, cache, real_ids, seed=1)
        print(f"vectors: {n_real} real (MiniLM) + synthetic for the rest (Gaussian fit to the real ones)")
    opened = open_papersift(settings)
    store = opened.store
    start = time.perf_counter()
    papers, vectors = refresh(store, settings)
    print(f"index build: {papers} papers, {vectors} vectors in {time.perf_counter() - start:.0f} s")
    indexes = opened.indexes()
    assert indexes.dense is not None and indexes.lexical is not None
    print(f"ANN: {'exact' if indexes.dense.exact else 'HNSW'} over {len(indexes.dense)} vectors")
    queries = random.Random(3).sample(sorted(real_ids), args.queries)
    papers_q = [p for q in queries if (p := store.get(q)) is not None]
    full, floor, _, _ = time_related(indexes, papers_q)
    print(
        f"related in process ({len(full)} real queries, k=10): p50 {_ms(full, 50):.2f} ms, "
        f"p95 {_ms(full, 95):.2f} ms; bare ANN search p50 {_ms(floor, 50):.2f} ms"
    )
    opened.close()
    env = {**os.environ, "PAPERSIFT_HOME": str(home), "PAPERSIFT_RESIDENT_MINUTES": "0"}
    walls = []  # each command starts anew: no resident helper
    for q in queries[:10]:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "papersift.cli", "related", q, "-k", "10"],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        walls.append(time.perf_counter() - t0)
    print(f"`papersift related ID` wall, start-up included: median {statistics.median(walls) * 1000:.0f} ms")
    real_store = open_store(settings)
    keys = {real_store.rowid(i) for i in real_ids}
    vecs = [
        batch.vectors[np.isin(batch.keys, list(keys))].astype(np.float32)
        for batch in real_store.iter_vectors()
    ]
    real_store.close()
    matrix = np.concatenate(vecs)
    recall = ann_recall(matrix, min(args.queries, len(matrix)), seed=5)
    print(
        f"ANN recall@10 vs exact, {min(args.queries, len(matrix))} queries over {len(matrix)} real vectors: "
        f"{recall:.4f}"
    )
    if args.sentences:
        sentence_costs(settings, cache, real_ids, papers_q, args)
    cache.close()


if __name__ == "__main__":
    main()
