"""The connections of one open store: each thread's own connection (opened on its first use, its query clock
started again by each use when ``query_seconds`` is set: ``Store.limit_queries``, ``StoreBusy`` past it),
one writer taken under a lock for one write at a time, and any further connection a caller asks for; all
of them closed by ``close``, in the order they were opened (none is opened after it). ``index/runtime.py``
builds an open papersift on it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from papersift.store import Store, StoreError, open_store

if TYPE_CHECKING:
    from papersift.settings import Settings


class Connections:
    """``store``: the calling thread's connection; ``writing()``: the one writer, for one write;
    ``open()``: one more connection, closed with the others."""

    def __init__(self, settings: Settings, *, query_seconds: float | None = None) -> None:
        self.settings = settings
        self.query_seconds = query_seconds
        self.write_lock = threading.Lock()
        self._local = threading.local()
        self._lock = threading.Lock()
        self._opened: list[Store] = []
        self._writer: Store | None = None
        self._closed = False

    @property
    def store(self) -> Store:
        """This thread's connection (opened on first use); its query clock starts again now."""
        found: Store | None = getattr(self._local, "store", None)
        if found is None:
            found = self.open()
            self._local.store = found
        if self.query_seconds is not None:
            found.limit_queries(self.query_seconds)
        return found

    @property
    def writer(self) -> Store:
        """The one writer connection (opened on first use); take it with ``writing`` to write."""
        with self._lock:
            if self._writer is None:
                self._writer = self._open()
            return self._writer

    @contextmanager
    def writing(self) -> Iterator[Store]:
        """The writer connection, for one write; never around computation."""
        writer = self.writer
        with self.write_lock:
            yield writer

    def open(self) -> Store:
        """One more connection to the store, closed by ``close``."""
        self._check()
        store = open_store(self.settings)  # not under the lock: another thread's first read need not wait
        with self._lock:
            self._opened.append(store)
        return store

    def _open(self) -> Store:
        self._check()
        store = open_store(self.settings)
        self._opened.append(store)
        return store

    def _check(self) -> None:
        if self._closed:
            raise StoreError("the store was closed: open it again")

    def close(self) -> None:
        """Close every connection opened here, in the order they were opened (each one, even when one
        fails: the first failure is raised afterwards)."""
        with self._lock:
            opened, self._opened, self._closed = self._opened, [], True
        failure: BaseException | None = None
        for store in opened:
            try:
                store.close()
            except Exception as e:  # the rest are closed all the same
                failure = failure or e
        if failure is not None:
            raise failure
