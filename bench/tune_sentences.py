"""Choosing the sentence-match weights on the ``tune`` half of the dev data, reported on both halves.

Builds the eval store once (the 20k file, or a smaller ``--corpus``; then only the queries whose relevant
papers are all in it are asked) as ``papersift eval`` does (paper and sentence vectors from the install's
vector cache; on an empty cache about 15 min on 2 cores: 10 for the papers, 4 for their ~137k sentences),
or opens one built before (``--home``). Then, with papersift's rankers only (the baselines do not depend
on the weights):

- related papers on the dev citation pairs: nDCG@10 for each sentence weight of ``RELATED_GRID``;
- search by the dev citation sentences: hybrid Recall@10 for each pair of weights of ``SEARCH_GRID`` (the
  best-matching sentence, the mean over the abstract's sentences: ``SentenceWeights``).

The weights chosen are the best on ``tune`` (ties: the smaller weights); the ``heldout`` figures of every
weight are printed beside, never used to choose. One JSON line per (task, weights, split), then one line
per task with the weights chosen and their figures on both halves.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from papersift.index.pipeline import embed_missing, refresh, sentence_source
from papersift.index.runtime import Papersift, open_papersift
from papersift.ranking.evaluate import ScoreLine, read_contexts, read_relevance, related_score, search_score
from papersift.ranking.related import Weights
from papersift.ranking.sentence_match import SentenceWeights
from papersift.services.ingest import ingest_paths
from papersift.settings import Settings
from papersift.store.cache import VectorCache

RELATED_GRID = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
SEARCH_GRID = tuple(itertools.product((0.0, 0.25, 0.5, 1.0), (0.0, 0.5, 1.0, 1.5)))  # (best, mean)
DATA = Path("../shared/data")


def build(home: Path, corpus: Path) -> Papersift:
    """The eval store of ``corpus`` in ``home`` (built when it has no index yet), opened."""
    base = Settings()
    settings = base.model_copy(update={"home": home})
    opened = open_papersift(settings)
    store = opened.store
    if store.count() == 0:
        ingest_paths(store, [corpus], chunk=base.ingest_chunk)
    cache = VectorCache(base.cache_path)
    embed_missing(store, settings, cache=cache)
    refresh(store, settings, sentences=sentence_source(settings, cache))
    cache.close()
    return opened


def _print(line: dict[str, object], started: float) -> None:
    print(json.dumps({**line, "seconds": round(time.perf_counter() - started, 1)}), flush=True)


def _chosen(lines: list[dict[str, Any]], knob: str, figure: str) -> None:
    """The weights best on ``tune`` (of equals, the first in the grid: the smaller), on both halves."""
    best: dict[str, Any] | None = None
    for line in lines:
        if line["split"] == "tune" and (best is None or line[figure] > best[figure]):
            best = line
    assert best is not None
    both = {line["split"]: line[figure] for line in lines if line[knob] == best[knob]}
    print(json.dumps({"task": best["task"], "chosen": best[knob], figure: both}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="an eval store built before (else a temporary one)")
    parser.add_argument("--corpus", type=Path, default=DATA / "arxiv-20k.jsonl.gz")
    parser.add_argument("--task", choices=("related", "search", "both"), default="both")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="papersift-tune-") as tmp:
        opened = build(args.home or Path(tmp), args.corpus)
        indexes = opened.indexes()
        assert indexes.sentences is not None, "no sentence vectors were built"
        if args.task in ("related", "both"):
            gold = {  # queries whose relevant papers are all in the corpus (all of them in the 20k)
                q: relevant
                for q, relevant in read_relevance(DATA / "relevance-dev.jsonl.gz").items()
                if all(indexes.store.get(pid) is not None for pid in (q, *relevant))
            }
            lines = []
            for weight in RELATED_GRID:
                for split in ("tune", "heldout"):
                    started = time.perf_counter()
                    weights = Weights(sentence=SentenceWeights(best=weight))
                    score = related_score(indexes, gold, weights, split)
                    line = {"task": "related", "sentence_weight": weight, "split": split}
                    line.update(ScoreLine.made_of(score).dump())
                    lines.append(line)
                    _print(line, started)
            _chosen(lines, "sentence_weight", "nDCG@10")
        if args.task in ("search", "both"):
            contexts = [  # those whose cited paper is in the corpus (151 of the 157 cited are in the 20k)
                row
                for row in read_contexts(DATA / "citation-contexts-dev.jsonl.gz")
                if indexes.store.get(row[1]) is not None
            ]
            vectors = np.asarray(indexes.encoder().encode([text for text, _, _ in contexts]))
            lines = []
            for best, mean in SEARCH_GRID:
                for split in ("tune", "heldout"):
                    started = time.perf_counter()
                    weights = SentenceWeights(best=best, mean=mean)
                    score = search_score(indexes, contexts, vectors, weights, split)
                    line = {"task": "search", "sentence_weights": [best, mean], "split": split}
                    line.update(ScoreLine.made_of(score).dump())
                    lines.append(line)
                    _print(line, started)
            _chosen(lines, "sentence_weights", "Recall@10")
        opened.close()


if __name__ == "__main__":
    main()
