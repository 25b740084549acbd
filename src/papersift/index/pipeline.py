"""Keeping the indexes in step with the store, and opening them for queries.

``embed_missing`` embeds the papers that have no vector yet (newest first, in committed chunks, so a killed
run resumes where it stopped) in this process or on a Dask cluster (``engines``), ``refresh`` rebuilds the
lexical arrays when the store has grown and adds new vectors to the ANN index, and ``open_indexes``
memory-maps both for the rankers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from papersift.index.dense import DenseIndex, open_dense, sync_dense
from papersift.index.encoder import Encoder, load_encoder, model_id, paper_text
from papersift.index.engines import Engine, LocalEngine
from papersift.index.lexical import Lexical, build_lexical, lexical_count, open_lexical
from papersift.store import Store, StoreError
from papersift.store.cache import VectorCache

if TYPE_CHECKING:
    from papersift.settings import Settings


class ModelMismatchError(StoreError):
    """The store's vectors come from another model than the settings name."""


def check_model(store: Store, settings: Settings) -> None:
    """Refuse to mix vector spaces: the store's model must be the configured one."""
    stored, wanted = store.vector_model(), model_id(settings)
    if stored is not None and stored != wanted and store.vector_count() > 0:
        raise ModelMismatchError(
            f"the store's vectors were made by {stored!r} but the settings name {wanted!r}; "
            f"run `papersift embed --reset` to re-embed every paper with {wanted!r}, "
            f"or set PAPERSIFT_MODEL/PAPERSIFT_QUANTIZE/PAPERSIFT_RUNTIME back"
            + (" (vectors made with torch: PAPERSIFT_RUNTIME=torch)" if stored.endswith("+int8") else "")
        )


@dataclass
class _Chunk:
    """Papers handed to the engine: their rowids and texts, the vectors the cache had, the texts it lacked."""

    rowids: list[int]
    texts: list[str]
    cached: dict[int, np.ndarray]
    todo: list[int]


def _chunks(
    store: Store,
    settings: Settings,
    cache: VectorCache | None,
    limit: int | None,
    ahead: int,
    pending: dict[int, _Chunk],
) -> Iterator[list[str]]:
    """The uncached texts of each next chunk of papers without vectors, recording each chunk in ``pending``.

    Papers in ``pending`` (handed out, not yet written) are skipped, so chunks are the consecutive
    ``embed_chunk``-sized runs of the newest-first order, whatever engine runs them; ``ahead`` chunks are read
    in one query.
    """
    size, model, taken, position = settings.embed_chunk, model_id(settings), 0, 0
    while limit is None or taken < limit:
        busy = {rowid for chunk in pending.values() for rowid in chunk.rowids}
        wanted = ahead * size if limit is None else min(ahead * size, limit - taken)
        rows = [row for row in store.missing_vectors(wanted + len(busy)) if row[0] not in busy][:wanted]
        if not rows:
            return
        taken += len(rows)
        for start in range(0, len(rows), size):
            part = rows[start : start + size]
            texts = [paper_text(title, abstract) for _, title, abstract in part]
            cached = cache.get(model, texts) if cache else {}
            todo = [i for i in range(len(texts)) if i not in cached]
            pending[position] = _Chunk([rowid for rowid, _, _ in part], texts, cached, todo)
            position += 1
            yield [texts[i] for i in todo]


def embed_missing(
    store: Store,
    settings: Settings,
    *,
    limit: int | None = None,
    encoder: Encoder | None = None,
    cache: VectorCache | None = None,
    progress: Callable[[int], None] | None = None,
    engine: Engine | None = None,
) -> int:
    """Embed up to ``limit`` papers that have no vector (all when None); returns how many were embedded.

    ``engine`` encodes the chunks (default: ``LocalEngine`` with ``encoder``, loaded when first needed); only
    this function writes the store, one transaction per finished chunk.
    """
    check_model(store, settings)
    model = model_id(settings)
    if store.vector_model() != model:
        store.reset_vectors(model)
    engine = engine or LocalEngine(settings, encoder)
    pending: dict[int, _Chunk] = {}
    done = 0
    chunks = _chunks(store, settings, cache, limit, engine.window, pending)
    for position, fresh in engine.encode_chunks(chunks):
        chunk = pending.pop(position)
        vectors = dict(chunk.cached)
        if chunk.todo:
            if cache:
                cache.put(model, [chunk.texts[i] for i in chunk.todo], fresh)
            vectors.update(zip(chunk.todo, fresh, strict=True))
        store.put_vectors(chunk.rowids, np.stack([vectors[i] for i in range(len(chunk.texts))]))
        done += len(chunk.rowids)
        if progress:
            progress(len(chunk.rowids))
    return done


def refresh(
    store: Store, settings: Settings, progress: Callable[[int], None] | None = None
) -> tuple[int, int]:
    """Rebuild the lexical arrays if the store changed, sync the ANN index: (papers, vectors) indexed."""
    directory = settings.index_dir
    directory.mkdir(parents=True, exist_ok=True)
    papers = lexical_count(directory / "lexical")
    if papers != store.count():
        papers = build_lexical(store, directory / "lexical", progress)
    vectors = sync_dense(store, directory) if store.vector_model() else 0
    return papers, vectors


@dataclass
class Indexes:
    """What the rankers read: the store, the ANN index, the lexical arrays, and (on demand) the encoder."""

    store: Store
    settings: Settings
    dense: DenseIndex | None
    lexical: Lexical | None
    _encoder: Encoder | None = field(default=None, repr=False)

    def encoder(self) -> Encoder:
        """The model, loaded on first use (only text queries and unembedded papers need it)."""
        if self._encoder is None:
            check_model(self.store, self.settings)
            self._encoder = load_encoder(self.settings)
        return self._encoder


def open_indexes(store: Store, settings: Settings) -> Indexes:
    """Open what exists (None for what `papersift embed` has not built yet); corrupt files are rebuilt."""
    directory = settings.index_dir
    lexical = open_lexical(directory / "lexical")
    if lexical is None and (directory / "lexical").exists():  # there, but unreadable
        build_lexical(store, directory / "lexical")
        lexical = open_lexical(directory / "lexical")
    dense = open_dense(store, directory, settings.exact_below) if store.vector_model() else None
    return Indexes(store=store, settings=settings, dense=dense, lexical=lexical)
