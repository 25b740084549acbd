"""One open papersift, and the one owner of what it holds open: ``with open_papersift(settings) as ps:``
gives the store's connections (``ps.store``, each thread's own; ``ps.writing()``, the one writer:
``store/connections.py``), the current index generation over the caller's connection (``ps.indexes()``,
opened again when a newer one is published: ``current``) and the model (``ps.encoder()``, loaded once, on
first use). Leaving it closes what it opened, in order: the generation, then the connections.

The web state (``web/state.py``), the CLI's commands (``cli/common.py``), the resident helper
(``cli/resident.py``), the evaluation harness (``ranking/harness.py``), the benches and the tests' shared
fixtures all hold their store, indexes and model through one of these.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

from papersift.index.current import CurrentIndexes
from papersift.index.encoder import load_encoder
from papersift.index.generations import current_name
from papersift.store.connections import Connections

if TYPE_CHECKING:
    from papersift.index.encoding import Encoder
    from papersift.index.indexes import Indexes
    from papersift.settings import Settings
    from papersift.store import Store


class Model:
    """The model ``load`` loads, loaded once, on first use, and shared by every thread; ``start`` begins
    the load in a thread now (a command about to encode a text maps its indexes meanwhile). The thread is
    not a daemon: a process never exits while ONNX Runtime is mid-load."""

    def __init__(self, load: Callable[[], Encoder]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._encoder: Encoder | None = None
        self._thread: threading.Thread | None = None
        self._failed: BaseException | None = None

    def start(self) -> None:
        """Load the model in the background now (nothing when it is loaded or loading)."""
        with self._lock:
            if self._encoder is None and self._thread is None:
                self._thread = threading.Thread(target=self._background, name="papersift-encoder-load")
                self._thread.start()

    def _background(self) -> None:
        try:
            self._encoder = self._load()
        except BaseException as e:  # handed to the caller by __call__
            self._failed = e

    def __call__(self) -> Encoder:
        """The model (waiting for a background load; raising what it raised)."""
        with self._lock:
            thread = self._thread
            if thread is None and self._encoder is None:
                self._encoder = self._load()
        if thread is not None:
            thread.join()
            if self._failed is not None:
                raise self._failed
        assert self._encoder is not None
        return self._encoder


class Papersift:
    """What one open papersift holds: its store's connections, the current generation, the model."""

    def __init__(
        self,
        settings: Settings,
        *,
        every: float = 0.0,
        query_seconds: float | None = None,
        warm: bool = False,
        model: Callable[[], Encoder] | None = None,
    ) -> None:
        """Open the papersift ``settings`` name: its store now (the calling thread's connection, so a store
        that cannot be opened fails here, a ``StoreError``), the rest on first use. ``every``: seconds
        between looks for a newer generation (0: at each ``indexes()``); ``query_seconds``: each
        connection's query time limit, started again at each use of ``store``; ``warm``: load the model
        beside the first ``indexes()``; ``model``: how to load the model (default: the one ``settings``
        name). Use it as a context manager, or ``close`` it."""
        self.settings = settings
        self.connections = Connections(settings, query_seconds=query_seconds)
        self.model = Model(model or (partial(load_encoder, settings)))
        self.current = CurrentIndexes(settings, every=every, model=self.model)
        self._warm = warm
        try:
            _ = self.store  # the store opens now: one that cannot fails here
        except BaseException:
            self.close()
            raise

    @property
    def store(self) -> Store:
        """The calling thread's connection (``Connections.store``)."""
        return self.connections.store

    @property
    def writer(self) -> Store:
        """The one writer connection (``Connections.writer``); write through ``writing``."""
        return self.connections.writer

    @contextmanager
    def writing(self) -> Iterator[Store]:
        """The writer connection, for one write (a library save, a logout…); never around computation."""
        with self.connections.writing() as writer:
            yield writer

    def indexes(self) -> Indexes:
        """The current generation's indexes on the calling thread's connection (a newer generation is
        switched to, looked for at most every ``every`` seconds: ``current``). Opened ``warm``, the first
        call starts loading the model beside the mapping when there are vectors to compare a text with."""
        store = self.store
        if self._warm:
            self._warm = False
            if store.vector_model() is not None and current_name(self.settings.index_dir) is not None:
                self.model.start()
        return self.current.get(store)

    def encoder(self) -> Encoder:
        """The model, loaded once on first use, shared by every thread."""
        return self.model()

    def close(self) -> None:
        """Close what was opened, in order: the generation (callers must be done with its ``Indexes``),
        then every store connection."""
        try:
            self.current.close()
        finally:
            self.connections.close()

    def __enter__(self) -> Papersift:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


open_papersift = Papersift  # ``with open_papersift(settings) as ps:``: the name every holder opens one by
