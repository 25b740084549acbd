"""The approximate-nearest-neighbour index over the stored paper vectors (usearch HNSW, float16).

Why usearch: one pip wheel with no BLAS or OpenMP to configure, float16/int8 storage, a file that is
memory-mapped (``view``) so a CLI call opens a 300k-vector index in milliseconds, incremental ``add``, and an
exact (brute-force) mode over the same vectors, used below ``Settings.exact_below`` and to check recall.

The index is a cache of the store's ``vectors`` table: its metadata file records the model (and how many
resets the store had seen), the store's vector-change counter and the highest rowid it holds. New vectors
are added on the next ``sync_dense``; a missing, corrupt or stale file (another model, a reset, vectors
replaced or deleted) is rebuilt from the store.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from papersift.index.generations import link_from
from papersift.store import Store


def _usearch() -> Any:
    """usearch's ``Index``, imported when an index is first built or opened (a keyword search never pays
    for it), and always after ONNX Runtime: loaded after usearch's extension, ONNX Runtime's own (1.23 and
    later, with usearch 2.26) crashes the process while it sets up its C++ locale facets."""
    from papersift.index.onnx_encoder import onnx_runtime

    onnx_runtime()  # first (see above), with its telemetry off
    from usearch.index import Index

    return Index


_CONNECTIVITY = 16
_EXPANSION_ADD = 128
_EXPANSION_SEARCH = 96


@dataclass
class DenseIndex:
    """A loaded (or memory-mapped) usearch index and what it holds."""

    index: Any  # usearch.index.Index
    model: str
    exact: bool

    def __len__(self) -> int:
        return len(self.index)

    def search(self, vector: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The ``k`` nearest rowids and their cosine similarities, best first."""
        if len(self.index) == 0 or k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        matches = self.index.search(vector.astype(np.float32), min(k, len(self.index)), exact=self.exact)
        return matches.keys.astype(np.int64), (1.0 - matches.distances).astype(np.float32)

    def vectors(self, keys: np.ndarray) -> np.ndarray:
        """The stored vectors of ``keys`` (float32; rows of zeros for keys the index lacks)."""
        if len(keys) == 0:
            return np.zeros((0, self.index.ndim), dtype=np.float32)
        zero = np.zeros(self.index.ndim, dtype=np.float16)
        got = self.index.get(keys.astype(np.uint64))
        if isinstance(got, np.ndarray):  # a single key
            got = [got]
        return np.asarray([zero if row is None else row for row in got], dtype=np.float32)


def _paths(directory: Path) -> tuple[Path, Path]:
    return directory / "dense.usearch", directory / "dense.json"


def _new_index(ndim: int) -> Any:
    return _usearch()(
        ndim=ndim,
        metric="cos",
        dtype="f16",
        connectivity=_CONNECTIVITY,
        expansion_add=_EXPANSION_ADD,
        expansion_search=_EXPANSION_SEARCH,
    )


def _read_meta(directory: Path) -> dict[str, Any] | None:
    try:
        meta = json.loads(_paths(directory)[1].read_text())
        return meta if isinstance(meta, dict) else None
    except (OSError, ValueError):
        return None


def _signature(store: Store) -> str:
    """Which vectors an index file was built from: the model and how many resets the store has seen."""
    return f"{store.vector_model()}#{store.get_state('vector_epoch') or 0}"


def _changes(store: Store) -> str:
    """The store's count of vector changes: equal in the metadata means the file is current."""
    return store.get_state("vectors_changed") or "0"


def sync_dense(store: Store, directory: Path, source: Path | None = None) -> int:
    """Bring the index file up to date with the store's vectors; returns how many it holds.

    ``source`` (default ``directory``): where the previous file is, e.g. the last index generation; its
    index is extended with the new vectors (never rebuilt unless stale) and saved in ``directory``.
    """
    source = source or directory
    path, meta_path = _paths(directory)
    old_path = _paths(source)[0]
    directory.mkdir(parents=True, exist_ok=True)
    meta = _read_meta(source)
    expected = store.vector_count()
    index = None
    after = 0
    if meta and meta.get("model") == _signature(store) and old_path.exists():
        try:
            index = _usearch().restore(str(old_path))
        except Exception:  # a corrupt or truncated file: rebuilt below
            index = None
        if index is not None and len(index) == int(meta.get("count", -1)) and len(index) <= expected:
            after = int(meta.get("max_key", 0))
        else:
            index = None
    index, after, added = _add_from(store, index, after)
    if index is not None and len(index) != expected:  # vectors replaced or papers deleted: start over
        index, after, added = _add_from(store, None, 0)
    if index is None:
        path.unlink(missing_ok=True)
        meta_path.unlink(missing_ok=True)
        return 0
    fresh = {"model": _signature(store), "count": len(index), "max_key": after, "changes": _changes(store)}
    if not added and source != directory and (meta or {}).get("changes") == _changes(store):
        link_from(old_path, path)  # nothing new: the next generation shares the file
    elif added or not path.exists() or (meta or {}).get("changes") != _changes(store):
        tmp = path.with_suffix(".tmp")
        index.save(str(tmp))
        tmp.replace(path)
    else:
        return len(index)
    meta_tmp = meta_path.with_suffix(".tmp")
    meta_tmp.write_text(json.dumps(fresh))
    meta_tmp.replace(meta_path)
    return len(index)


def _add_from(store: Store, index: Any, after: int) -> tuple[Any, int, int]:
    added = 0
    for batch in store.iter_vectors(after=after):
        if index is None:
            index = _new_index(batch.vectors.shape[1])
        index.add(batch.keys.astype(np.uint64), batch.vectors.astype(np.float32))
        after = int(batch.keys[-1])
        added += len(batch.keys)
    return index, after, added


def open_dense(store: Store, directory: Path, exact_below: int, sync: bool = True) -> DenseIndex | None:
    """Memory-map the index; None: no vectors.

    ``sync``: bring a file that lags the store up to date first (rebuilding a corrupt one). Without it (an
    index generation, never written once published) a file of another model or reset is not served, and
    one that merely lags (vectors added since) is served as it is.
    """
    model = store.vector_model()
    if model is None:
        return None
    meta = _read_meta(directory) or {}
    path = _paths(directory)[0]
    if not sync:
        if meta.get("model") != _signature(store) or not path.exists():
            return None
        try:
            index = _usearch().restore(str(path), view=True)
        except Exception:
            return None
    else:
        current = meta.get("model") == _signature(store) and meta.get("changes") == _changes(store)
        if not (current and path.exists()) and sync_dense(store, directory) == 0:
            return None
        try:
            index = _usearch().restore(str(path), view=True)
        except Exception:
            path.unlink(missing_ok=True)
            sync_dense(store, directory)
            index = _usearch().restore(str(path), view=True)
    if index is None or len(index) == 0:
        return None
    index.expansion_search = _EXPANSION_SEARCH  # not kept in the file
    return DenseIndex(index=index, model=model, exact=len(index) < exact_below)
