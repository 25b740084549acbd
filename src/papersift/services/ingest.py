"""Loading files into the store: any reader's records, in transactions of bounded size.

Each chunk of records is one transaction, so a killed ingest leaves a consistent store holding whole
chunks, and rerunning the same command completes it (upserts are idempotent: nothing is duplicated).
Records are parsed in a second thread while this one writes, so both cores of a small machine work.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path

from papersift.records.paper import Parsed
from papersift.sources import read_path
from papersift.store import IngestCounts, Store

CHUNK = 20_000
Progress = Callable[[IngestCounts], None]


def chunked(items: Iterable[Parsed], size: int = CHUNK) -> Iterator[list[Parsed]]:
    """Lists of at most ``size`` items."""
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def prefetch(chunks: Iterator[list[Parsed]], depth: int = 2) -> Iterator[list[Parsed]]:
    """Produce chunks in a background thread while the caller stores the previous ones.

    SQLite releases the GIL while a statement runs, and the store indexes each chunk in single
    statements, so parsing the next chunk overlaps with indexing this one on a second core.
    """
    slots: queue.Queue[list[Parsed] | BaseException | None] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for chunk in chunks:
                while not stop.is_set():
                    try:
                        slots.put(chunk, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            slots.put(None)
        except BaseException as e:  # re-raised in the consumer
            slots.put(e)

    worker = threading.Thread(target=produce, name="papersift-reader", daemon=True)
    worker.start()
    try:
        while (item := slots.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()


def ingest_chunks(
    store: Store, chunks: Iterable[list[Parsed]], *, progress: Progress | None = None
) -> IngestCounts:
    """Upsert each chunk in its own transaction; ``progress`` gets each chunk's counts."""
    total = IngestCounts()
    for chunk in chunks:
        counts = store.upsert(chunk)
        total.add(counts)
        if progress:
            progress(counts)
    return total


def ingest_items(
    store: Store,
    items: Iterable[Parsed],
    *,
    progress: Progress | None = None,
    chunk: int = CHUNK,
) -> IngestCounts:
    """Upsert any stream of records, chunk by chunk, parsing ahead in a second thread."""
    return ingest_chunks(store, prefetch(chunked(items, chunk)), progress=progress)


def ingest_paths(
    store: Store,
    paths: Iterable[Path],
    *,
    fmt: str | None = None,
    progress: Progress | None = None,
    chunk: int = CHUNK,
) -> IngestCounts:
    """Read every file under ``paths`` (format detected per file) into ``store``."""
    records = (item for path in paths for item in read_path(path, fmt))
    return ingest_items(store, records, progress=progress, chunk=chunk)
