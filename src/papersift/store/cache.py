"""A cache of vectors by (model, text) in its own SQLite file, shared by every store of one install.

Rebuilding a store (``papersift eval`` builds a fresh one per run) or re-ingesting papers then costs no
re-embedding: a text the model has seen is looked up by its hash instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from pathlib import Path

import numpy as np


def _key(model: str, text: str) -> bytes:
    return hashlib.blake2b(f"{model}\x00{text}".encode(), digest_size=16).digest()


class VectorCache:
    """Get and put float16 vectors keyed by the hash of model name and text."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vec BLOB NOT NULL)")

    def get(self, model: str, texts: list[str]) -> dict[int, np.ndarray]:
        """Cached vectors by position in ``texts``."""
        keys = [_key(model, t) for t in texts]
        found: dict[bytes, bytes] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(self.db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk))
        return {
            i: np.frombuffer(found[k], dtype=np.float16).astype(np.float32)
            for i, k in enumerate(keys)
            if k in found
        }

    def put(self, model: str, texts: list[str], vectors: np.ndarray) -> None:
        data = np.asarray(vectors, dtype=np.float16)
        self.db.execute("BEGIN")
        self.db.executemany(
            "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
            ((_key(model, t), data[i].tobytes()) for i, t in enumerate(texts)),
        )
        self.db.execute("COMMIT")

    def add_from(self, path: Path) -> None:
        """Every vector the cache file ``path`` holds that this one lacks, ``path`` read as the finished
        file it is (``immutable``: no lock taken, no file written beside it)."""
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)) as source:
            rows = source.execute("SELECT key, vec FROM vectors")
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR IGNORE INTO vectors (key, vec) VALUES (?, ?)", rows)
            self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()
