"""The current index generation of one home, kept open: opened over a store on first use and opened again
when a new generation is published (the pointer's stamp changed), looked for at most every ``every``
seconds. The one place an open papersift (``opened``: the web state's, a command's, the resident
helper's) keeps its indexes open and reloads them; a generation replaced here stays pinned while a caller
still holds the ``Indexes`` that map it (a request keeps the generation it started with) and is released
when the last one is dropped.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from papersift.index.generations import current_name, pointer_stamp
from papersift.index.indexes import Indexes, open_indexes

if TYPE_CHECKING:
    from papersift.index.encoding import Encoder
    from papersift.settings import Settings
    from papersift.store import Store


class CurrentIndexes:
    """``get(store)``: the current generation's indexes on ``store`` (the caller's connection), with the
    model from ``model`` (loaded by the owner once, on first use)."""

    def __init__(
        self, settings: Settings, *, every: float = 0.0, model: Callable[[], Encoder] | None = None
    ) -> None:
        self.settings = settings
        self.every = every
        self.model = model
        self._shared: Indexes | None = None
        self._stamp: tuple[int, int] | None = None
        self._checked = -1.0
        self._lock = threading.Lock()

    def get(self, store: Store) -> Indexes:
        now = time.monotonic()
        if self._shared is None or now - self._checked > self.every:
            with self._lock:
                if self._shared is None or now - self._checked > self.every:
                    self._reload(store)
                    self._checked = now
        assert self._shared is not None
        return dataclasses.replace(self._shared, store=store, loader=self.model)

    def _reload(self, store: Store) -> None:
        directory = self.settings.index_dir
        stamp = pointer_stamp(directory)
        if self._shared is not None and stamp == self._stamp:
            return
        if self._shared is None or current_name(directory) != self._shared.name or not self._shared.name:
            self._shared = open_indexes(store, self.settings)
        self._stamp = stamp

    def close(self) -> None:
        """Release the generation now (callers still holding its ``Indexes`` must be done with them)."""
        with self._lock:
            if self._shared is not None:
                self._shared.close()
            self._shared = None
