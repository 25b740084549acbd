"""What the SQL backends share: the dialect (all that differs between SQLite and PostgreSQL, kept small)
and the connection contract (``SqlBase``) that the concern mixins (``papers``, ``vectors``, ``accounts``,
``library``, ``signals``) are written against once.

SQL is written with ``?`` placeholders and read by column name (``sqlite3.Row`` / psycopg ``dict_row``);
the PostgreSQL connection turns ``?`` into ``%s``. A backend supplies the connection (``_rows``, ``_one``,
``_tx``, ``_savepoint``), its ``Dialect`` and the few hooks its storage needs (the SQLite FTS index is
written by hand, PostgreSQL copies rows in and keeps vectors as ``halfvec``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from papersift.records.paper import Paper
from papersift.records.query import ParsedQuery

NamedRow = Any  # a row read by name: ``sqlite3.Row`` or a psycopg ``dict_row``


class Result(Protocol):
    """What executing one statement gives back (a DB-API cursor)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> Any: ...


class Tx(Protocol):
    """The statements of one open write transaction (``?`` placeholders, rows by name)."""

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Result: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...


@dataclass(frozen=True, slots=True)
class FullText:
    """A keyword query in a dialect: the tables it reads (``papers p`` among them), its condition, its
    score expression (higher is better after ``sign``) and its ordering."""

    source: str
    where: str
    score: str
    order: str
    arg: str
    sign: float = 1.0


class Dialect:
    """What differs between the SQL backends, and nothing else."""

    name = "sql"
    integrity_errors: tuple[type[Exception], ...] = ()  # a UNIQUE key refused the row
    query_errors: tuple[type[Exception], ...] = ()  # the server refused a query (search syntax)
    types: ClassVar[dict[str, str]] = {}  # column types of the shared schema (``store/schema.py``)

    def one_of(self, column: str, values: Sequence[Any]) -> tuple[str, Any]:
        """``column`` is one of ``values``: the condition, and its one argument."""
        raise NotImplementedError

    def json_rows(self, types: Sequence[str]) -> str:
        """A query of the rows of one JSON argument (an array of arrays), their columns ``c0``, ``c1``…
        of SQL ``types``: many rows written by one statement."""
        raise NotImplementedError

    def json_list(self, expr: str, source: str, order: str) -> str:
        """A JSON text array of ``expr`` over the rows of ``source`` (``FROM … WHERE …``) in ``order``."""
        raise NotImplementedError

    def category_filter(self, column: str, category: str) -> tuple[str, list[Any]]:
        """Papers whose space-separated ``column`` holds ``category`` (a class, or a whole archive)."""
        raise NotImplementedError

    def full_text(self, query: ParsedQuery) -> FullText:
        """The keyword query of a parsed query (``fts_query.keyword_query``) that has something that must
        match (``searchable``), written in the backend's syntax."""
        raise NotImplementedError

    def title_words(self, words: Sequence[str]) -> FullText:
        """Papers with every one of ``words`` in their title."""
        raise NotImplementedError

    def storable(self, paper: Paper) -> Paper:
        """``paper`` as the backend can hold it (the same object when nothing needs changing)."""
        return paper

    def is_data_error(self, e: Exception) -> bool:
        """The database refused a record for its data (stored alone, or skipped), not for the disk or link."""
        return isinstance(e, ValueError | TypeError | OverflowError)


class SqlBase:
    """The connection contract every concern mixin uses; a backend class implements it."""

    dialect: Dialect

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[NamedRow]:
        raise NotImplementedError

    def _one(self, sql: str, args: Sequence[Any] = ()) -> NamedRow | None:
        rows = self._rows(sql, args)
        return rows[0] if rows else None

    def _tx(self) -> AbstractContextManager[Tx]:
        """One write transaction, committed or rolled back whole."""
        raise NotImplementedError

    def _savepoint(self) -> AbstractContextManager[object]:
        """A part of the open transaction that is undone alone when it fails."""
        raise NotImplementedError

    def _change(self, sql: str, args: Sequence[Any] = ()) -> int:
        """One statement in its own transaction; the rows it changed."""
        with self._tx() as tx:
            return tx.execute(sql, args).rowcount
