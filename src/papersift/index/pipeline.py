"""Keeping the indexes in step with the store, and opening them for queries.

``embed_missing`` embeds the papers that have no vector yet (newest first, in committed chunks, so a killed
run resumes where it stopped), ``refresh`` rebuilds the lexical arrays when the store has grown and adds new
vectors to the ANN index, and ``open_indexes`` memory-maps both for the rankers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from papersift.index.dense import DenseIndex, open_dense, sync_dense
from papersift.index.encoder import Encoder, load_encoder, model_id, paper_text
from papersift.index.lexical import Lexical, build_lexical, lexical_count, open_lexical
from papersift.store import Store, StoreError
from papersift.store.cache import VectorCache

if TYPE_CHECKING:
    from papersift.settings import Settings

EMBED_CHUNK = 256  # papers per committed write


class ModelMismatchError(StoreError):
    """The store's vectors come from another model than the settings name."""


def check_model(store: Store, settings: Settings) -> None:
    """Refuse to mix vector spaces: the store's model must be the configured one."""
    stored, wanted = store.vector_model(), model_id(settings)
    if stored is not None and stored != wanted and store.vector_count() > 0:
        raise ModelMismatchError(
            f"the store's vectors were made by {stored!r} but the settings name {wanted!r}; "
            f"run `papersift embed --reset` to re-embed every paper with {wanted!r}, "
            f"or set PAPERSIFT_MODEL/PAPERSIFT_QUANTIZE back"
        )


def embed_missing(
    store: Store,
    settings: Settings,
    *,
    limit: int | None = None,
    encoder: Encoder | None = None,
    cache: VectorCache | None = None,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Embed up to ``limit`` papers that have no vector (all when None); returns how many were embedded."""
    check_model(store, settings)
    model = model_id(settings)
    if store.vector_model() != model:
        store.reset_vectors(model)
    done = 0
    while limit is None or done < limit:
        chunk = store.missing_vectors(EMBED_CHUNK if limit is None else min(EMBED_CHUNK, limit - done))
        if not chunk:
            break
        texts = [paper_text(title, abstract) for _, title, abstract in chunk]
        cached = cache.get(model, texts) if cache else {}
        todo = [i for i in range(len(texts)) if i not in cached]
        if todo:
            encoder = encoder or load_encoder(settings)
            fresh = encoder.encode([texts[i] for i in todo])
            if cache:
                cache.put(model, [texts[i] for i in todo], fresh)
            cached.update(zip(todo, fresh, strict=True))
        vectors = np.stack([cached[i] for i in range(len(texts))])
        store.put_vectors([rowid for rowid, _, _ in chunk], vectors)
        done += len(chunk)
        if progress:
            progress(len(chunk))
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
