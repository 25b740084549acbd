"""The opened indexes every ranker reads: ``Indexes`` (the store, the current generation's lexical arrays,
ANN index, sentence vectors and vocabulary, and the model on demand) and ``open_indexes``, which
memory-maps the current generation and builds nothing; the model check that keeps vector spaces apart.
Building the indexes is ``pipeline``'s; keeping the current generation open and reloading it is
``current``'s; owning everything one open papersift holds is ``opened``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from papersift.index.dense import DenseIndex, open_dense
from papersift.index.encoder import Encoder, load_encoder, model_id
from papersift.index.generations import Generation, open_current
from papersift.index.lexical import Lexical, open_lexical
from papersift.index.sentences import Sentences, open_sentences
from papersift.index.vocabulary import Vocabulary, open_vocabulary
from papersift.records.messages import say
from papersift.store import Store, StoreError

if TYPE_CHECKING:
    from papersift.settings import Settings


class ModelMismatchError(StoreError):
    """The store's vectors come from another model than the settings name."""


def check_model(store: Store, settings: Settings) -> None:
    """Refuse to mix vector spaces: the store's model must be the configured one."""
    stored, wanted = store.vector_model(), model_id(settings)
    if stored is not None and stored != wanted and store.vector_count() > 0:
        hint = "_torch" if stored.endswith("+int8") else "_shipped" if stored.endswith("+onnx-int8") else ""
        raise ModelMismatchError(say("model_mismatch" + hint, stored=repr(stored), wanted=repr(wanted)))


@dataclass
class Indexes:
    """What the rankers read: the store, the ANN index, the lexical arrays, and (on demand) the encoder.

    ``generation`` is the index generation they map (pinned while this object lives).
    """

    store: Store
    settings: Settings
    dense: DenseIndex | None
    lexical: Lexical | None
    sentences: Sentences | None = None
    _encoder: Encoder | None = field(default=None, repr=False)
    generation: Generation | None = None
    loader: Callable[[], Encoder] | None = field(default=None, repr=False)
    vocabulary: Vocabulary | None = None

    def encoder(self) -> Encoder:
        """The model, loaded on first use (only text queries and unembedded papers need it)."""
        if self._encoder is None:
            check_model(self.store, self.settings)
            self._encoder = self.loader() if self.loader else load_encoder(self.settings)
        return self._encoder

    @property
    def name(self) -> str:
        """The generation's name ('' when none): what cached rankings depend on."""
        return self.generation.name if self.generation else ""

    def close(self) -> None:
        """Release the generation these indexes map (the store is its opener's to close)."""
        if self.generation is not None:
            self.generation.close()


def open_indexes(store: Store, settings: Settings) -> Indexes:
    """Map the current generation (None parts for what `papersift embed` has not built yet); builds nothing.

    A damaged or half-written generation is not opened (keyword evidence only until ``embed`` runs).
    The model is loaded by ``Indexes.encoder`` on first use (``opened.Papersift`` gives it its own).
    """
    generation = open_current(settings.index_dir)
    if generation is None:
        return Indexes(store=store, settings=settings, dense=None, lexical=None)
    path = generation.path
    vectors = store.vector_model() is not None
    lexical = open_lexical(path / "lexical", path / "delta")
    dense = open_dense(store, path, settings.exact_below, sync=False) if vectors else None
    sentences = open_sentences(path / "sentences") if dense is not None else None
    return Indexes(
        store=store,
        settings=settings,
        dense=dense,
        lexical=lexical,
        sentences=sentences,
        generation=generation,
        vocabulary=open_vocabulary(path / "vocabulary"),
    )


def current_vocabulary(settings: Settings) -> Vocabulary | None:
    """The current generation's vocabulary (None when there is none): what keyword search, which opens no
    other index, needs to understand a query."""
    generation = open_current(settings.index_dir)
    if generation is None:
        return None
    try:
        return open_vocabulary(generation.path / "vocabulary")
    finally:
        generation.close()
