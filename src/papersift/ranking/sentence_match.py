"""Sentence scoring at query time: how a query's sentences match a candidate's stored sentence vectors.

``sentence_match`` compares a query's sentence vectors with each candidate's (``index/sentences.py``
stores them: int8 rows, roles, one generation's segments): the best cosine of each query sentence with
one of the candidate's, averaged (multi-vector matching, as in Mysore et al. 2022), and the mean cosine
with the candidate's abstract sentences. ``sentence_term`` turns the two into a re-ranker's term of a fused
score (``SentenceWeights``) for the best ``RERANK`` candidates; ``best_pair`` says which sentence matched
which, for a related paper's reasons.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from papersift.index.sentences import TITLE, Sentences


@dataclass(frozen=True, slots=True)
class SentenceWeights:
    """How the sentence match enters a fused score: ``best`` × the best cosine of each query sentence with
    one of the candidate's sentences (averaged over the query's sentences), ``mean`` × the mean cosine of
    the query's sentences with the candidate's abstract sentences (its title left out)."""

    best: float = 0.0
    mean: float = 0.0

    def __bool__(self) -> bool:
        return bool(self.best or self.mean)


def sentence_match(
    sentences: Sentences, keys: np.ndarray, query: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per key: the best match (the mean over ``query`` rows of the best cosine with one of the key's
    sentences), the mean match (the mean cosine of ``query`` rows with the key's abstract sentences, or its
    title when it has no other), and whether the key has sentences at all (both 0 where it has none)."""
    best = np.zeros(len(keys), np.float32)
    mean = np.zeros(len(keys), np.float32)
    rows, owners, codes, covered = sentences.gather(np.asarray(keys, np.int64))
    if not len(rows) or not len(query):
        return best, mean, covered
    sims = np.asarray(query, np.float32) @ rows.T  # query sentences × candidate sentences
    order = np.argsort(owners, kind="stable")
    owners, codes, sims = owners[order], codes[order], sims[:, order]
    firsts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    best[owners[firsts]] = np.maximum.reduceat(sims, firsts, axis=1).mean(axis=0)
    body = codes != TITLE
    counts = np.add.reduceat(body.astype(np.float32), firsts)
    sums = np.add.reduceat(np.where(body, sims, 0.0), firsts, axis=1).mean(axis=0)
    title_only = counts == 0  # a paper with no abstract sentences: its title stands for it
    alone = np.add.reduceat(sims, firsts, axis=1).mean(axis=0) / np.diff(np.r_[firsts, len(owners)])
    mean[owners[firsts]] = np.where(title_only, alone, sums / np.maximum(counts, 1.0))
    return best, mean, covered


RERANK = 100  # candidates re-scored sentence by sentence (the best by the other signals)


def sentence_term(
    sentences: Sentences,
    keys: np.ndarray,
    query: np.ndarray,
    base: np.ndarray,
    dense: np.ndarray,
    weights: SentenceWeights,
    top: int = RERANK,
) -> np.ndarray:
    """The weighted sentence match of each key as a re-ranker: ``sentence_match`` for the ``top`` keys by
    ``base`` (the fused score without it); the dense cosine ``dense`` stands in for both parts for the rest
    and for keys without sentences."""
    term = np.asarray(dense, np.float32) * (weights.best + weights.mean)
    best = np.argsort(-np.asarray(base), kind="stable")[:top]
    if len(best):
        matched, mean, covered = sentence_match(sentences, np.asarray(keys)[best], query)
        term[best[covered]] = weights.best * matched[covered] + weights.mean * mean[covered]
    return term


def best_pair(query: np.ndarray, theirs: np.ndarray) -> tuple[int, int, float]:
    """The (query sentence, their sentence, cosine) that match best."""
    sims = np.asarray(query, np.float32) @ np.asarray(theirs, np.float32).T
    i, j = np.unravel_index(int(np.argmax(sims)), sims.shape)
    return int(i), int(j), float(sims[i, j])
