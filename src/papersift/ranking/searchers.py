"""The searcher seam: each index answers a query as a whole, so the rankers never call its primitives.

A ``Probe`` is one query as the indexes read it: the keyword side's text (the user's syntax), the tf-idf
side's text, the query vector (encoded on first use), the query paper's authors. Each searcher answers

- ``candidates(probe, k, filters)``: its best ``k`` (key, score) pairs, best first;
- ``scores(probe, keys)``: its score of each of ``keys`` (an array aligned with them, in the index's own
  float type, so a fused sum adds what it always added; 0 for a key it does not hold).

``Keyword`` is BM25 over the store's full-text index; it alone applies ``filters`` at the source (in SQL),
so its keys come back admitted (``Keyword.prefiltered``). ``Lexical`` is the tf-idf cosine of the lexical
arrays, ``Dense`` the cosine of the paper vectors (the ANN index for candidates, the exact rows for
scores), ``Authors`` the author postings (how many of the probe's authors a paper shares). The others
leave ``filters`` to the candidate pool (``ranking/pool.py``), which applies them once to every key.
``searchers(indexes)`` makes the ones an index generation can serve.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from papersift.index.dense import DenseIndex
from papersift.index.indexes import Indexes
from papersift.index.lexical import Lexical as LexicalArrays
from papersift.index.lexical import author_slots
from papersift.store import Filters, Store

DEEPEST = 1_000_000  # BM25 matches ``Keyword.scores`` reads (every match of a store this size)


@dataclass
class Probe:
    """One query as the searchers read it; the vector and the tf-idf vector are made once, on first use."""

    keyword: str = ""  # BM25's text, in the user's syntax
    terms: str = ""  # what the tf-idf side sees
    vector: np.ndarray | Callable[[], np.ndarray] | None = None  # or a function that encodes it
    authors: Sequence[str] = ()
    any_terms: bool = False  # BM25 ranks papers with any of the words, not only with all
    skip_common: bool = False  # …but words in over 10% of the papers (with ``any_terms``)
    _tfidf: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _coauthors: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def dense(self) -> np.ndarray | None:
        """The query vector, encoded now if it has not been yet."""
        if callable(self.vector):
            self.vector = self.vector()
        return self.vector

    def tfidf(self, lexical: LexicalArrays) -> tuple[np.ndarray, np.ndarray]:
        """The tf-idf vector of ``terms`` (sorted slots and weights)."""
        if self._tfidf is None:
            self._tfidf = lexical.vectorize(self.terms)
        return self._tfidf

    def coauthors(self, lexical: LexicalArrays) -> tuple[np.ndarray, np.ndarray]:
        """The papers sharing one of ``authors``: sorted positions in ``lexical`` and how many they share."""
        if self._coauthors is None:
            self._coauthors = lexical.coauthors(author_slots(self.authors))
        return self._coauthors


class Searcher(Protocol):
    def candidates(self, probe: Probe, k: int, filters: Filters) -> list[tuple[int, float]]: ...

    def scores(self, probe: Probe, keys: np.ndarray) -> np.ndarray: ...


@dataclass
class Keyword:
    """BM25 over the store's full-text index; ``filters`` hold in SQL."""

    store: Store
    lexical: LexicalArrays | None = None  # which words are common (``Probe.skip_common``)
    prefiltered: bool = True

    def candidates(self, probe: Probe, k: int, filters: Filters) -> list[tuple[int, float]]:
        lex = self.lexical
        common = (
            lex.common if probe.any_terms and probe.skip_common and lex is not None and len(lex) else None
        )
        return self.store.match(probe.keyword, k=k, filters=filters, any_terms=probe.any_terms, common=common)

    def scores(self, probe: Probe, keys: np.ndarray) -> np.ndarray:
        """BM25 of ``keys`` (0 where they do not match), from one match as deep as the store."""
        found = dict(self.candidates(probe, DEEPEST, Filters()))
        return np.array([found.get(key, 0.0) for key in np.asarray(keys).tolist()])


@dataclass
class Lexical:
    """The tf-idf cosine of the lexical arrays."""

    lexical: LexicalArrays

    def candidates(self, probe: Probe, k: int, filters: Filters) -> list[tuple[int, float]]:
        """Up to ``k`` papers sharing the most weight in the probe's key terms, with their cosine."""
        lex = self.lexical
        if not len(lex):
            return []
        slots, weights = probe.tfidf(lex)
        positions = lex.candidates(slots, weights, k)
        cosine = lex.cosine(slots, weights, positions)
        return list(zip(lex.keys[positions].tolist(), cosine.tolist(), strict=True))

    def scores(self, probe: Probe, keys: np.ndarray) -> np.ndarray:
        lex = self.lexical
        out = np.zeros(len(keys), np.float32)
        if not len(lex) or not len(keys):
            return out
        slots, weights = probe.tfidf(lex)
        positions = lex.positions(np.asarray(keys))
        inside = positions >= 0
        out[inside] = lex.cosine(slots, weights, positions[inside])
        return out


@dataclass
class Authors:
    """The author postings: how many of the probe's authors (initial and surname) a paper shares."""

    lexical: LexicalArrays

    def candidates(self, probe: Probe, k: int, filters: Filters) -> list[tuple[int, float]]:
        rows, counts = probe.coauthors(self.lexical)
        most = np.argsort(-counts, kind="stable")[:k]
        return list(zip(self.lexical.keys[rows[most]].tolist(), counts[most].tolist(), strict=True))

    def scores(self, probe: Probe, keys: np.ndarray) -> np.ndarray:
        rows, counts = probe.coauthors(self.lexical)
        out = np.zeros(len(keys), np.float32)
        if not len(rows) or not len(keys):
            return out
        positions = self.lexical.positions(np.asarray(keys))
        at = np.minimum(np.searchsorted(rows, positions), len(rows) - 1)
        shared = (positions >= 0) & (rows[at] == positions)
        out[shared] = counts[at[shared]]
        return out


@dataclass
class Dense:
    """The cosine of the paper vectors: the ANN index's nearest for candidates, the exact rows for scores
    (0 for a paper with no vector yet)."""

    index: DenseIndex

    def candidates(self, probe: Probe, k: int, filters: Filters) -> list[tuple[int, float]]:
        vector = probe.dense()
        assert vector is not None
        keys, sims = self.index.search(vector, k)
        return list(zip(keys.tolist(), sims.tolist(), strict=True))

    def scores(self, probe: Probe, keys: np.ndarray) -> np.ndarray:
        vector = probe.dense()
        assert vector is not None
        return np.asarray(self.index.vectors(np.asarray(keys)) @ vector.astype(np.float32))


@dataclass
class Searchers:
    """The searchers one index generation can serve (None: not built yet)."""

    keyword: Keyword
    lexical: Lexical | None
    dense: Dense | None
    authors: Authors | None
    size: int  # papers in the largest index: a pool this deep holds them all


def searchers(indexes: Indexes) -> Searchers:
    lex, dense = indexes.lexical, indexes.dense
    return Searchers(
        keyword=Keyword(indexes.store, lex),
        lexical=Lexical(lex) if lex is not None else None,
        dense=Dense(dense) if dense is not None else None,
        authors=Authors(lex) if lex is not None else None,
        size=max(len(lex) if lex else 0, len(dense) if dense else 0),
    )


def keys_of(found: list[tuple[int, float]]) -> np.ndarray:
    """The keys of (key, score) pairs, as an array."""
    return np.fromiter((key for key, _ in found), dtype=np.int64, count=len(found))
