"""Choosing papersift's Daily Papers weights on the ``tune`` half of ``papersift eval recommend``'s simulated
readers, reported on both halves.

Reads the signals that ``bench/recommend_features.py`` saved per reader and library size
(``bench/out/recommend-features-{tune,heldout}.pkl``; the corpus is ``bench/recommend_corpus.py``'s: the
2,538 papers the dev citation pairs name + 1,462 filler of the 20k file). The weights of
``ranking/recommend.py``'s ``combine`` are the coefficients of a logistic regression (scikit-learn, balanced
classes, C ``--c``) of "hidden reference or not" on each candidate's signals as ``combine`` sees them
(standardised over the reader's candidates, the ``RAW`` ones as they are), none negative: one fit for
libraries below ``SVM_MIN_LIKED`` liked papers and one from it on, on ``tune`` readers only. A likelihood
fit of a few weights, where a grid search of nDCG@10 chased the tune half's noise (rounds 30-34: tune
.695, held-out .666). Then nDCG@10 per size on both halves, today's weights beside the fitted ones and the
baselines (arxiv-sanity-lite's SVM, zotero-arxiv-daily's weighted cosine) of the same readers.

    python bench/tune_recommend.py [--c 1.0]
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from papersift.ranking import recommend as rec

Readers = list[tuple[dict[str, np.ndarray], np.ndarray, list[float]]]


def _ndcg(scores: np.ndarray, labels: np.ndarray) -> float:
    top = np.argsort(-scores, kind="stable")[:10]
    dcg = float((labels[top] / np.log2(np.arange(2, len(top) + 2))).sum())
    ideal = float((1 / np.log2(np.arange(2, min(int(labels.sum()), 10) + 2))).sum())
    return dcg / ideal if ideal else 0.0


def _signals(features: dict[str, np.ndarray], names: list[str]) -> np.ndarray:
    """The signals as ``combine`` weighs them: standardised, the raw ones as they are."""
    return np.column_stack([features[n] if n in rec.RAW else rec._z(features[n]) for n in names])


def _fit(readers: Readers, c: float) -> dict[str, float]:
    """The coefficients, none negative: a signal fitted below zero (a copy of others, as the dense
    similarity beside the SVM that holds the dense vectors) is dropped and the rest fitted again."""
    names = sorted(readers[0][0])
    y = np.concatenate([labels for _, labels, _ in readers])
    while True:
        x = np.vstack([_signals(f, names) for f, _, _ in readers])
        model = LogisticRegression(C=c, class_weight="balanced", max_iter=5000).fit(x, y)
        weights = dict(zip(names, model.coef_[0].tolist(), strict=True))
        if min(weights.values()) >= 0:
            return {n: round(w, 3) for n, w in weights.items()}
        names = [n for n in names if weights[n] >= 0]


def _mean(readers: Readers, weights: dict[str, float], liked: int) -> float:
    rec.WEIGHTS = rec.WEIGHTS_LARGE = weights  # the bench's own process: both regimes get the trial
    return float(np.mean([_ndcg(rec.combine(f, liked), y) for f, y, _ in readers]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--c", type=float, default=1.0, help="the logistic regression's inverse L2 strength")
    args = parser.parse_args()
    halves: dict[str, dict[int, Readers]] = {}
    for half in ("tune", "heldout"):
        path = Path(f"bench/out/recommend-features-{half}.pkl")
        if path.exists():
            with path.open("rb") as f:
                halves[half] = pickle.load(f)
    tune = halves["tune"]
    today, today_large = dict(rec.WEIGHTS), dict(rec.WEIGHTS_LARGE)
    small = [r for n, readers in tune.items() if n < rec.SVM_MIN_LIKED for r in readers]
    large = [r for n, readers in tune.items() if n >= rec.SVM_MIN_LIKED for r in readers]
    w_small = _fit(small, args.c) if small else today
    w_large = _fit(large, args.c) if large else today_large
    for half, by_size in halves.items():
        methods = ("papersift-today", "papersift-fitted", "svm", "zotero")
        rows: dict[str, list[float]] = {m: [] for m in methods}
        for n, readers in by_size.items():
            rows["papersift-today"].append(_mean(readers, today if n < rec.SVM_MIN_LIKED else today_large, n))
            rows["papersift-fitted"].append(_mean(readers, w_small if n < rec.SVM_MIN_LIKED else w_large, n))
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
