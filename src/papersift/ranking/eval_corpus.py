"""The corpus an offline evaluation ranks over (``evaluate.py``, ``simulated_readers.py``): the fresh store's
papers in rowid order with their texts, authors and vectors as arrays, so baselines and simulated readers
index one matrix by position."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from papersift.index.indexes import Indexes
from papersift.records.paper import Paper


@dataclass
class Corpus:
    """The papers by position: ids, ``position`` (id → position), title + abstract texts, authors, unit
    vectors (the store's; zeros for a paper without one), rowids and the records."""

    ids: list[str]
    position: dict[str, int]
    texts: list[str]  # title + abstract
    authors: list[str]
    vectors: np.ndarray  # unit rows, the store's vectors
    rowids: list[int] = field(default_factory=list)
    papers: list[Paper] = field(default_factory=list)


def corpus_of(indexes: Indexes) -> Corpus:
    store = indexes.store
    by_rowid = {rowid: p for rowid, p in store.iter_rows()}
    vectors: dict[int, np.ndarray] = {}
    for batch in store.iter_vectors():
        vectors.update(zip(batch.keys.tolist(), batch.vectors.astype(np.float32), strict=True))
    rowids = sorted(by_rowid)
    dims = next(iter(vectors.values())).shape[0] if vectors else 1
    matrix = np.stack([vectors.get(r, np.zeros(dims, np.float32)) for r in rowids])
    ids = [by_rowid[r].id for r in rowids]
    return Corpus(
        ids=ids,
        position={pid: i for i, pid in enumerate(ids)},
        texts=[f"{by_rowid[r].title} {by_rowid[r].abstract}" for r in rowids],
        authors=[", ".join(by_rowid[r].authors) for r in rowids],
        vectors=matrix,
        rowids=rowids,
        papers=[by_rowid[r] for r in rowids],
    )
