"""How far a content-only ranking can go on ``papersift eval recommend``'s simulated readers: the candidates
ranked by their closeness to the citing paper itself (the paper whose hidden references they must find, which
no reader's library holds), by dense cosine, by arxiv-sanity-lite's tf-idf cosine and by both (standardised,
summed), beside the SVM baseline; nDCG@10 per half, with how many hidden references a reader has.

    python bench/recommend_ceiling.py [--corpus bench/out/recommend-corpus.jsonl.gz] [--home DIR]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

from papersift.ranking import evaluate as ev
from papersift.ranking import recommend as rec
from papersift.ranking import simulated_readers as sr
from papersift.ranking.harness import fresh_indexes
from papersift.settings import Settings


def _ndcg(scores: np.ndarray, labels: np.ndarray) -> float:
    top = np.argsort(-scores, kind="stable")[:10]
    dcg = float((labels[top] / np.log2(np.arange(2, len(top) + 2))).sum())
    ideal = float((1 / np.log2(np.arange(2, min(int(labels.sum()), 10) + 2))).sum())
    return dcg / ideal if ideal else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("bench/out/recommend-corpus.jsonl.gz"))
    parser.add_argument("--relevance", type=Path, default=Path("../shared/data/relevance-dev.jsonl.gz"))
    parser.add_argument("--home", type=Path, default=Path("bench/out/rhome"))
    args = parser.parse_args()
    gold = ev.read_relevance(args.relevance)
    with (
        tempfile.TemporaryDirectory(prefix="papersift-ceiling-") as tmp,
        fresh_indexes(Settings(home=args.home), args.corpus, Path(tmp)) as ix,
    ):
        c = ev.corpus_of(ix)
        tfidf = ev._tfidf_asl(c).tocsr()
        for half in ("tune", "heldout"):
            readers = sr.simulate_readers(c, gold, 0, half)[1]  # the candidates are the same at every size
            rows: dict[str, list[float]] = {"citing-dense": [], "citing-tfidf": [], "citing-both": []}
            hidden = []
            for reader in readers:
                candidates = np.array(reader.candidates)
                labels = np.array([i in reader.hidden for i in reader.candidates])
                dense = c.vectors[candidates] @ c.vectors[reader.query]
                lexical = np.asarray((tfidf[candidates] @ tfidf[reader.query].T).todense()).ravel()
                rows["citing-dense"].append(_ndcg(dense, labels))
                rows["citing-tfidf"].append(_ndcg(lexical, labels))
                rows["citing-both"].append(_ndcg(rec._z(dense) + rec._z(lexical), labels))
                hidden.append(int(labels.sum()))
            print(f"{half}: {len(readers)} readers, hidden references median {np.median(hidden):g}")
            for name, values in rows.items():
                print(f"  {name:<14} nDCG@10 {np.mean(values):.4f}")


if __name__ == "__main__":
    main()
