"""Read-only keyed files: entries (kind, key) → value (text or an integer) in one SQLite file, made once by
``write_keyed`` (under a temporary name, fsynced, renamed: a reader never sees half a file) and read one
entry at a time by ``Keyed``, from any thread, each entry once per process. What a ranker keeps derived
from a package's data files (the 中文 dictionary: ``ranking.cedict``), so a process reads only what it asks.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from papersift.records.files import atomic_path

Value = str | int
KEPT = 200_000  # entries kept per process once read (then forgotten, and read again when asked)
_READ = "SELECT value FROM entry WHERE kind = ? AND key = ?"
_TABLE = "CREATE TABLE entry (kind TEXT, key TEXT, value NOT NULL, PRIMARY KEY (kind, key)) WITHOUT ROWID"


class Keyed:
    """A keyed file open for reading; ``get`` reads an entry from it the first time it is asked."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self._lock = threading.Lock()  # one connection, shared by a server's threads
        self._read: dict[tuple[str, str], Value | None] = {}

    def get(self, kind: str, key: str) -> Value | None:
        """The value of (``kind``, ``key``), None when the file has no such entry."""
        with contextlib.suppress(KeyError):  # (not ``in`` then ``[]``: another thread may clear between)
            return self._read[(kind, key)]
        with self._lock:
            row = self._db.execute(_READ, (kind, key)).fetchone()
        value: Value | None = row[0] if row else None
        if len(self._read) >= KEPT:
            self._read.clear()
        self._read[(kind, key)] = value
        return value


def open_keyed(path: Path) -> Keyed:
    """The keyed file at ``path``, read-only."""
    return Keyed(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False))


def keyed_in_memory(entries: Iterable[tuple[str, str, Value]]) -> Keyed:
    """``entries`` as a keyed file in memory, for this process alone (where none can be written)."""
    db = sqlite3.connect(":memory:", check_same_thread=False)
    _fill(db, entries)
    return Keyed(db)


def write_keyed(path: Path, entries: Iterable[tuple[str, str, Value]]) -> None:
    """``entries`` (kind, key, value; each (kind, key) once) as the keyed file at ``path``, made whole under
    a temporary name in its folder and renamed onto ``path``; ``OSError`` where the folder is not writable."""
    with atomic_path(path) as partial:
        db = sqlite3.connect(partial)
        try:
            db.execute("PRAGMA journal_mode = OFF")  # a file no one reads until it is renamed
            _fill(db, entries)
        finally:
            db.close()


def _fill(db: sqlite3.Connection, entries: Iterable[tuple[str, str, Value]]) -> None:
    with db:
        db.execute(_TABLE)
        db.executemany("INSERT INTO entry VALUES (?, ?, ?)", entries)
