"""All persistence behind one interface: papers, announcements, keyword search, harvest state, vectors,
accounts, libraries and digests.

``open_store(settings)`` gives the configured backend (SQLite by default). Callers only ever see the
``Store`` protocol (``store/protocols.py``: one protocol per concern, ``PaperStore``, ``VectorStore``,
``AccountStore``, ``LibraryStore``…), the plain records below and the errors, so a PostgreSQL backend can
stand in without them changing. The SQL is written once per concern (``papers``, ``vectors``, ``accounts``,
``library``, ``signals``) over a small dialect (``sql.py``); ``docs/store.md`` has the map.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from papersift.records.messages import say
from papersift.records.paper import AnnounceKind, Paper, RecordError, in_category
from papersift.store.protocols import Store as Store  # re-exported: the face callers import it from

if TYPE_CHECKING:
    from papersift.settings import Settings


@dataclass(slots=True)
class IngestCounts:
    """What one ``upsert`` did: papers new, updated, unchanged (skipped), failed, and the errors."""

    new: int = 0
    updated: int = 0
    skipped: int = 0
    failed: int = 0
    deleted: int = 0
    errors: list[RecordError] = field(default_factory=list)

    def add(self, other: IngestCounts) -> None:
        self.new += other.new
        self.updated += other.updated
        self.skipped += other.skipped
        self.failed += other.failed
        self.deleted += other.deleted
        self.errors.extend(other.errors)

    @property
    def total(self) -> int:
        return self.new + self.updated + self.skipped + self.failed + self.deleted


@dataclass(frozen=True, slots=True)
class ListingEntry:
    """One row of a day's listing: the paper and how it appeared that day."""

    paper: Paper
    kind: AnnounceKind
    position: int | None


@dataclass(frozen=True, slots=True)
class VectorBatch:
    """Stored vectors: paper rowids (int64) and their float16 rows, in rowid order."""

    keys: np.ndarray
    vectors: np.ndarray


@dataclass(frozen=True, slots=True)
class Filters:
    """What keyword search (and the rankers after it) may return: category, announced dates, author, venue."""

    category: str | None = None
    since: date | None = None
    until: date | None = None
    author: str | None = None
    venue: str | None = None  # "COLM" (every year) or "COLM 2025": papers of that venue's accept lists
    venue_papers: frozenset[str] | None = None  # those papers' ids, looked up once (``ranking/pool.py``)

    def admit(self, paper: Paper) -> bool:
        """The same test in Python, for candidates that did not come through the store's filter."""
        if self.category and not in_category(paper.categories, self.category):
            return False
        if self.venue and (self.venue_papers is None or paper.id not in self.venue_papers):
            return False
        day = paper.announced or paper.published
        if (self.since or self.until) and day is None:
            return False
        if self.since and day is not None and day < self.since:
            return False
        if self.until and day is not None and day > self.until:
            return False
        if self.author:
            wanted = self.author.casefold()
            return any(wanted in a.casefold() for a in paper.authors)
        return True


PAPERS_CHANGED = "papers_changed"  # state key: a counter every ``upsert`` (papers, announcements) bumps


def papers_version(store: Store) -> str:
    """Changes when papers or announcements do, not on library, session or login writes (page cache keys)."""
    return store.get_state(PAPERS_CHANGED) or "0"


class StoreError(RuntimeError):
    """A store-level failure with a message fit for the user (bad query syntax, corrupt file…), the common
    ones a typed message (``records/messages.py``: ``reason(e)``)."""


class StoreBusy(StoreError):
    """A query ran past the time limit ``Store.limit_queries`` set, or the store stayed locked past its busy
    timeout: the same error from both backends (the web answers 503, try again in a moment)."""


def driver_errors() -> tuple[type[BaseException], ...]:
    """The database drivers' own errors (SQLite's, and PostgreSQL's once its store imported it), which a
    store's reads and writes may end with besides ``StoreError``: what a build catches to discard its
    half-written work without importing a driver itself."""
    import sqlite3
    import sys

    found: list[type[BaseException]] = [sqlite3.Error]
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None:
        found.append(psycopg.Error)
    return tuple(found)


def open_store(settings: Settings) -> Store:
    """Open (creating and migrating as needed) the store that ``settings`` names.

    ``settings.db`` (``PAPERSIFT_DB``) picks the backend: a ``postgresql://`` URL, or ``sqlite:///PATH``;
    unset, the SQLite file in ``settings.home``.
    """
    if settings.db:
        return open_url(settings.db)
    from papersift.store.sqlite import SqliteStore

    settings.home.mkdir(parents=True, exist_ok=True)
    return SqliteStore(settings.db_path)


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def sqlite_path(url: str) -> Path:
    """The file of ``sqlite:///PATH`` (``sqlite:////PATH`` too), or ``url`` itself when it is a plain path."""
    if url.startswith("sqlite:"):
        return Path("/" + url.removeprefix("sqlite:").lstrip("/"))
    if "://" in url:
        raise StoreError(say("store_not_a_url", url=repr(url)))
    return Path(url)


def open_url(url: str) -> Store:
    """The store a database URL names: ``postgresql://user@host/db``, ``sqlite:///PATH`` or a file path."""
    if is_postgres_url(url):
        try:
            from papersift.store.postgres import PostgresStore
        except ImportError as e:
            raise StoreError(say("store_needs_postgres", problem=str(e))) from e
        return PostgresStore(url)
    from papersift.store.sqlite import SqliteStore

    path = sqlite_path(url)
    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteStore(path)
