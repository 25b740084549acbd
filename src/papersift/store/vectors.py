"""Vectors, once for both SQL backends: which model made them, how many, which papers lack one, and every
live vector in rowid order (what the rankers' usearch index is built from).

``VectorTables`` is mixed into each backend's store; the backend writes vectors (``put_vectors``: float16
bytes in SQLite, ``halfvec`` in PostgreSQL) and decodes what it reads (``_decode_vectors``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from papersift.store import VectorBatch
from papersift.store.sql import NamedRow, SqlBase, Tx


class VectorTables(SqlBase):
    """The ``vectors`` table over a backend's connection."""

    def _bump(self, tx: Tx, key: str) -> None:
        raise NotImplementedError

    def _put_state(self, tx: Tx, key: str, value: str) -> None:
        raise NotImplementedError

    def get_state(self, key: str) -> str | None:
        raise NotImplementedError

    def _decode_vectors(self, rows: Sequence[NamedRow]) -> np.ndarray:
        """The ``vec`` column of ``rows`` as one float16 matrix."""
        raise NotImplementedError

    def _reset_vector_column(self, tx: Tx) -> None:
        """Let the next vectors have any dimension."""

    def vector_model(self) -> str | None:
        return self.get_state("vector_model")

    def reset_vectors(self, model: str) -> None:
        with self._tx() as tx:
            tx.execute("DELETE FROM vectors")
            self._reset_vector_column(tx)
            self._bump(tx, "vectors_changed")
            self._put_state(tx, "vector_model", model)
            epoch = int(self.get_state("vector_epoch") or 0) + 1
            self._put_state(tx, "vector_epoch", str(epoch))  # tells indexes built before the reset apart

    def vector_count(self) -> int:
        row = self._one(
            "SELECT COUNT(*) AS n FROM vectors v JOIN papers p ON p.rowid = v.paper WHERE NOT p.deleted"
        )
        return int(row["n"]) if row else 0

    def missing_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        rows = self._rows(
            "SELECT rowid, title, abstract FROM papers p WHERE NOT deleted "
            "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.paper = p.rowid) "
            "ORDER BY COALESCE(announced, published) DESC NULLS LAST, rowid DESC LIMIT ?",
            (limit,),
        )
        return [(int(r["rowid"]), r["title"], r["abstract"]) for r in rows]

    def iter_vectors(self, batch: int = 20_000, after: int = 0) -> Iterator[VectorBatch]:
        while rows := self._rows(
            "SELECT v.paper AS paper, v.vec AS vec FROM vectors v JOIN papers p ON p.rowid = v.paper "
            "WHERE NOT p.deleted AND v.paper > ? ORDER BY v.paper LIMIT ?",
            (after, batch),
        ):
            keys = np.fromiter((r["paper"] for r in rows), dtype=np.int64, count=len(rows))
            yield VectorBatch(keys, self._decode_vectors(rows))
            after = int(keys[-1])
