"""Pseudo-relevance feedback: a query vector moved toward the papers its words find (Rocchio).

A dictionary's word-by-word translation of a 中文 query (``Understood.loose``) is a bag of likely English
words in no order: it keyword-matches well (each word is one the store's papers use) but embeds worse than
a phrase, since the model reads the bag as a sentence. ``rocchio`` takes the best keyword matches of the
same words (BM25 over any of them, as keyword mode ranks a loose query) as relevant without asking, and
moves the query vector toward the mean of their vectors:

    q' = q + FEEDBACK_WEIGHT · mean(vectors of the best FEEDBACK_DOCS matches), normalised,

Rocchio's classic update with the relevant set taken from the first-pass ranking and no negative set. The
vectors are the store's own (no encoding), so it costs one BM25 match and a few rows' reads.
"""

from __future__ import annotations

import numpy as np

from papersift.ranking.searchers import Probe, Searchers, keys_of
from papersift.store import Filters

FEEDBACK_DOCS = 5  # keyword matches taken as relevant
FEEDBACK_WEIGHT = 0.75  # their mean vector's weight against the query's (Rocchio's β over α = 1)


def rocchio(
    found: Searchers,
    vector: np.ndarray,
    keyword: str,
    filters: Filters,
    docs: int = FEEDBACK_DOCS,
    weight: float = FEEDBACK_WEIGHT,
) -> np.ndarray:
    """``vector`` moved toward the mean vector of the best ``docs`` BM25 matches of any word of
    ``keyword`` (under ``filters``), unit length; ``vector`` itself when nothing matches or there are no
    paper vectors."""
    if found.dense is None or docs <= 0 or weight <= 0:
        return vector
    rows = found.keyword.candidates(Probe(keyword=keyword, any_terms=True), docs, filters)
    if not rows:
        return vector
    vectors = np.asarray(found.dense.index.vectors(keys_of(rows)), np.float32)
    vectors = vectors[np.linalg.norm(vectors, axis=1) > 0]  # a paper with no vector yet reads as zeros
    if not len(vectors):
        return vector
    query = np.asarray(vector, np.float32)
    moved = query / max(float(np.linalg.norm(query)), 1e-12) + weight * vectors.mean(axis=0)
    return np.asarray(moved / max(float(np.linalg.norm(moved)), 1e-12), np.float32)
