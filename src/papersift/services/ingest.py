"""Loading files into the store: any reader's records, in transactions of bounded size.

Each chunk of records is one transaction, so a killed ingest leaves a consistent store holding whole
chunks, and rerunning the same command completes it (upserts are idempotent: nothing is duplicated).
Records are parsed in a second thread while this one writes, so both cores of a small machine work.
The listing days the records hold are kept too (``ListedDays``, ``store.record_fetched``: by category, day
and source), so a day no file or feed brought is said to be not stored here, never a holiday.
"""

from __future__ import annotations

import queue
import re
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from itertools import islice
from pathlib import Path

from papersift.records.paper import Paper, Parsed
from papersift.records.schedule import derive_announced
from papersift.sources import (
    FORMATS,
    UnknownFormatError,
    detect,
    iter_files,
    open_bytes,
    read_file,
    read_path,
)
from papersift.store import IngestCounts, Store
from papersift.store.records import FetchedDay

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


# the source a listing day is kept under, by the format of the file it came in
SOURCE_OF_FORMAT = {"atom": "api"}
CATEGORY = re.compile(
    r"[a-z][a-z-]{0,15}(?:\.[A-Za-z-]{1,16})?"
)  # as arXiv writes one: a record's own may not


@dataclass
class ListedDays:
    """The listing days of the records that go by (``seen``): announcements by category, day and source,
    as the store keeps them (a paper a source gives no listing of: its categories on its derived day)."""

    counts: Counter[tuple[str, date, str]] = field(default_factory=Counter)

    def seen(self, items: Iterable[Parsed], source: str) -> Iterator[Parsed]:
        for item in items:
            if isinstance(item, Paper):
                if item.listings:
                    for a in item.listings:
                        self._count(a.category, a.date, source)
                elif (day := derive_announced(item)) is not None:
                    for category in item.categories:
                        self._count(category, day, source)
            yield item

    def _count(self, category: object, day: date, source: str) -> None:
        if isinstance(category, str) and CATEGORY.fullmatch(
            category
        ):  # a malformed one is its record's error
            self.counts[(category, day, source)] += 1

    def days(self) -> list[FetchedDay]:
        return [FetchedDay(c, d, s, n) for (c, d, s), n in sorted(self.counts.items())]


def ingest_listed(
    store: Store,
    items: Iterable[Parsed],
    source: str,
    *,
    progress: Progress | None = None,
    chunk: int = CHUNK,
) -> IngestCounts:
    """``ingest_items``, then the listing days the records held kept as fetched from ``source``."""
    listed = ListedDays()
    counts = ingest_items(store, listed.seen(items, source), progress=progress, chunk=chunk)
    store.record_fetched(listed.days())
    return counts


def file_source(path: Path, fmt: str | None = None) -> str:
    """The source a file's listing days are kept under: its format (given, else detected), the API's for
    its Atom."""
    if fmt is None:
        try:
            with open_bytes(path) as stream:
                fmt = detect(stream.peek(8192) if hasattr(stream, "peek") else stream.read(8192), path.name)
        except (OSError, EOFError, zlib.error, UnknownFormatError):  # its records are errors: no day
            return "snapshot"
    return SOURCE_OF_FORMAT.get(fmt, fmt) if fmt in FORMATS else "snapshot"


def ingest_paths(
    store: Store,
    paths: Iterable[Path],
    *,
    fmt: str | None = None,
    progress: Progress | None = None,
    chunk: int = CHUNK,
) -> IngestCounts:
    """Read every file under ``paths`` (format detected per file) into ``store``, and keep the listing days
    they held (``ListedDays``)."""
    listed = ListedDays()

    def records() -> Iterator[Parsed]:
        for path in paths:
            if not path.exists():
                yield from read_path(path, fmt)  # its one error
                continue
            for file in iter_files(path):
                yield from listed.seen(read_file(file, fmt), file_source(file, fmt))

    counts = ingest_items(store, records(), progress=progress, chunk=chunk)
    store.record_fetched(listed.days())
    return counts
