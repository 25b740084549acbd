"""Embedding throughput (``make bench-embed``): papersift's encoder against plain sentence-transformers.

On the same real abstracts, in one process, alternating runs: the baseline is ``SentenceTransformer.encode``
with the fp32 model and batch 32 (what a user gets out of the box); papersift's encoder is whatever the
settings configure (int8 dynamic quantisation, batch 16 by default). Prints texts/s for each run, the
medians, their ratio, and how close the two sets of vectors are (cosine per text).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import time
from pathlib import Path

import numpy as np

from papersift.index.encoder import _model_path, load_encoder, paper_text
from papersift.settings import Settings


def texts_from(corpus: Path, n: int, seed: int) -> list[str]:
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        papers = [json.loads(line) for line in f]
    random.Random(seed).shuffle(papers)
    return [paper_text(p["title"], p["abstract"]) for p in papers[:n]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=Path("../shared/data/arxiv-20k.jsonl.gz"))
    parser.add_argument("-n", type=int, default=2000, help="abstracts per run")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from sentence_transformers import SentenceTransformer

    texts = texts_from(args.corpus, args.n, seed=7)
    settings = Settings()
    plain = SentenceTransformer(_model_path(settings.model), device="cpu")
    ours = load_encoder(settings)
    print(f"{len(texts)} real abstracts; papersift encoder: {ours.name}, batch {ours.batch_size}")
    rates: dict[str, list[float]] = {"plain fp32 batch 32": [], "papersift": []}
    vectors: dict[str, np.ndarray] = {}
    for run in range(args.runs):
        for name in rates:
            start = time.perf_counter()
            if name == "papersift":
                out = ours.encode(texts)
            else:
                out = plain.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
            seconds = time.perf_counter() - start
            rates[name].append(len(texts) / seconds)
            vectors[name] = np.asarray(out, dtype=np.float32)
            print(f"run {run + 1}: {name:<20} {rates[name][-1]:6.1f} texts/s", flush=True)
    base = statistics.median(rates["plain fp32 batch 32"])
    mine = statistics.median(rates["papersift"])
    cosine = (vectors["papersift"] * vectors["plain fp32 batch 32"]).sum(axis=1)
    print(f"median: plain {base:.1f}/s, papersift {mine:.1f}/s, ratio {mine / base:.2f}x")
    print(f"cosine papersift vs fp32 vectors: mean {cosine.mean():.4f}, min {cosine.min():.4f}")


if __name__ == "__main__":
    main()
