"""Embedding throughput (``make bench-embed``): papersift's encoders against plain sentence-transformers.

On the same real abstracts, in one process, alternating runs: the baseline is ``SentenceTransformer.encode``
with the fp32 model and batch 32 (what a user gets out of the box); then papersift's two runtimes with the
configured batch (16 by default): torch with int8 dynamic quantisation (``PAPERSIFT_RUNTIME=torch``, the
default before ONNX Runtime), ONNX Runtime on the ONNX model as shipped (int8 weights, fp32 compute) and
on its int8-compute form (the default; texts encoded one at a time). Prints texts/s
for each run, the medians, their ratios, and how close each set of vectors is to the fp32 ones (cosine).
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
    parser.add_argument("--agree", type=int, default=1000, help="texts encoded alone too, as queries are")
    args = parser.parse_args()
    from sentence_transformers import SentenceTransformer

    texts = texts_from(args.corpus, args.n, seed=7)
    settings = Settings()
    plain = SentenceTransformer(_model_path(settings.model), device="cpu")
    encoders = {
        "torch int8": load_encoder(Settings(runtime="torch")),
        "onnx as shipped": load_encoder(Settings(quantize=False)),
        "onnx int8 (default)": load_encoder(settings),
    }
    base_name = "plain fp32 batch 32"
    print(f"{len(texts)} real abstracts; batch {settings.embed_batch}; default runtime {settings.runtime}")
    rates: dict[str, list[float]] = {base_name: [], **{name: [] for name in encoders}}
    vectors: dict[str, np.ndarray] = {}
    for run in range(args.runs):
        for name in rates:
            start = time.perf_counter()
            if name == base_name:
                out = plain.encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
            else:
                out = encoders[name].encode(texts)
            seconds = time.perf_counter() - start
            rates[name].append(len(texts) / seconds)
            vectors[name] = np.asarray(out, dtype=np.float32)
            print(f"run {run + 1}: {name:<20} {rates[name][-1]:6.1f} texts/s", flush=True)
    base = statistics.median(rates[base_name])
    print(f"median: {base_name} {base:.1f}/s")
    for name in encoders:
        mine = statistics.median(rates[name])
        cosine = (vectors[name] * vectors[base_name]).sum(axis=1)
        print(
            f"median: {name:<16} {mine:6.1f}/s ({mine / base:.2f}x fp32); "
            f"cosine to fp32: mean {cosine.mean():.4f}, min {cosine.min():.4f}"
        )
    torch_rate = statistics.median(rates["torch int8"])
    ratio = statistics.median(rates["onnx int8 (default)"]) / torch_rate
    print(f"onnx int8 (default) / torch int8: {ratio:.2f}x")
    # a query is encoded alone; a stored paper in a batch of its chunk: how close are the two vectors?
    default = encoders["onnx int8 (default)"]
    alone = np.stack([default.encode([text])[0] for text in texts[: args.agree]])
    cosine = (alone * vectors["onnx int8 (default)"][: args.agree]).sum(axis=1)
    print(f"query path vs batch path, {len(alone)} texts: cosine mean {cosine.mean():.6f}", end="")
    print(f", min {cosine.min():.6f}")


if __name__ == "__main__":
    main()
