"""Choosing papersift's Daily Papers weights on the ``tune`` half of ``papersift eval recommend``'s simulated
readers, reported on both halves.

Reads the signals that ``bench/recommend_features.py`` saved per reader and library size
(``bench/out/recommend-features-{tune,heldout}.pkl``; the corpus is ``bench/recommend_corpus.py``'s: the
2,538 papers the dev citation pairs name + 1,462 filler of the 20k file). Coordinate ascent over the weights
of ``ranking/recommend.py``'s ``combine`` (standardised signals, the raw ``RAW`` ones as they are), one
weight set for libraries below ``SVM_MIN_LIKED`` liked papers and one from it on, each maximising the mean
nDCG@10 over its library sizes on ``tune`` only; then nDCG@10 per size on both halves beside the baselines
(arxiv-sanity-lite's SVM, zotero-arxiv-daily's weighted cosine) of the same readers.

    python bench/tune_recommend.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import numpy as np

from papersift.ranking import recommend as rec

STEPS = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
Readers = list[tuple[dict[str, np.ndarray], np.ndarray, list[float]]]


def _ndcg(scores: np.ndarray, labels: np.ndarray) -> float:
    top = np.argsort(-scores, kind="stable")[:10]
    dcg = float((labels[top] / np.log2(np.arange(2, len(top) + 2))).sum())
    ideal = float((1 / np.log2(np.arange(2, min(int(labels.sum()), 10) + 2))).sum())
    return dcg / ideal if ideal else 0.0


def _mean(readers: Readers, weights: dict[str, float], liked: int) -> float:
    rec.WEIGHTS = rec.WEIGHTS_LARGE = weights  # the bench's own process: both regimes get the trial
    return float(np.mean([_ndcg(rec.combine(f, liked), y) for f, y, _ in readers]))


def _ascend(by_size: dict[int, Readers], start: dict[str, float], rounds: int) -> dict[str, float]:
    names = sorted({k for readers in by_size.values() for f, _, _ in readers for k in f})
    best = {n: start.get(n, 0.0) for n in names}

    def objective(w: dict[str, float]) -> float:
        return float(np.mean([_mean(r, w, n) for n, r in by_size.items()]))

    value = objective(best)
    for _ in range(rounds):
        moved = False
        for name in names:
            for step in STEPS:
                trial = {**best, name: step}
                v = objective(trial)
                if v > value + 1e-4:
                    best, value, moved = trial, v, True
        print(f"  {value:.4f} {best}", flush=True)
        if not moved:
            break
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    halves: dict[str, dict[int, Readers]] = {}
    for half in ("tune", "heldout"):
        path = Path(f"bench/out/recommend-features-{half}.pkl")
        if path.exists():
            with path.open("rb") as f:
                halves[half] = pickle.load(f)
    tune = halves["tune"]
    today, today_large = dict(rec.WEIGHTS), dict(rec.WEIGHTS_LARGE)
    small = {n: r for n, r in tune.items() if n < rec.SVM_MIN_LIKED}
    large = {n: r for n, r in tune.items() if n >= rec.SVM_MIN_LIKED}
    print("small libraries:", sorted(small))
    w_small = _ascend(small, today, args.rounds) if small else today
    print("large libraries:", sorted(large))
    w_large = _ascend(large, today_large, args.rounds) if large else today_large
    for half, by_size in halves.items():
        rows: dict[str, list[float]] = {"papersift-today": [], "papersift-tuned": [], "svm": [], "zotero": []}
        for n, readers in by_size.items():
            rows["papersift-today"].append(_mean(readers, today if n < rec.SVM_MIN_LIKED else today_large, n))
            rows["papersift-tuned"].append(_mean(readers, w_small if n < rec.SVM_MIN_LIKED else w_large, n))
            rows["svm"].append(float(np.mean([b[0] for _, _, b in readers])))
            rows["zotero"].append(float(np.mean([b[1] for _, _, b in readers])))
        sizes = list(by_size)
        print(f"{half} ({len(by_size[sizes[0]])} readers) sizes {sizes}")
        for name, values in rows.items():
            print(f"  {name:<18} " + " ".join(f"{v:.4f}" for v in values) + f"  mean {np.mean(values):.4f}")
    print("small:", w_small)
    print("large:", w_large)


if __name__ == "__main__":
    main()
