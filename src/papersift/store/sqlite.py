"""The SQLite store (the default backend): one WAL database file with an FTS5 keyword index.

Layout: ``papers`` (one row per arXiv id, integer rowid shared with the FTS index), ``announcements``
(which listing a paper appeared in, how, and where), ``papers_fts`` (a contentless FTS5 index over title,
abstract and authors as the keyword pipeline analyzes them, ``records.analyzer.keyword_text``: FTS5's
``ascii`` tokenizer only splits those tokens at the spaces, so it holds exactly the tokens PostgreSQL's
``search`` column holds; written by this module in the same transactions as ``papers`` rather than by
triggers, so bulk loads stay fast; ranked by FTS5's ``bm25``, which PostgreSQL computes alike), ``state``
(harvest checkpoints, the vector model), ``vectors`` (one float16 embedding per paper rowid), and the reader
tables of ``schema.py`` (accounts, libraries, digests). ``PRAGMA user_version`` numbers the schema;
``MIGRATIONS`` brings any older file up to date on open.

What the store does is written once in the concern mixins (``papers``, ``vectors``, ``accounts``,
``library``, ``signals``); this module is the connection, the schema and ``SqliteDialect``.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from papersift.records.analyzer import keyword_text, keyword_tokens
from papersift.records.messages import say
from papersift.records.paper import is_exact_category
from papersift.records.query import ParsedQuery
from papersift.store import StoreBusy, StoreError, schema
from papersift.store.fts_query import fts5
from papersift.store.rows import COLUMN, Row
from papersift.store.sql import Dialect, FullText, NamedRow, Result, Tx
from papersift.store.tables import StoreTables

_MMAP_BYTES = 1 << 30  # queries read pages straight from the OS page cache (cold CLI calls ~40% faster)
# what the database says about a record's data (one record is then stored alone, or skipped), as opposed
# to the file or the disk (disk full, locked, I/O: the whole ingest stops)
_DATA_ERRORS = frozenset(
    {"SQLITE_ERROR", "SQLITE_TOOBIG", "SQLITE_MISMATCH", "SQLITE_CONSTRAINT", "SQLITE_RANGE"}
)
_FTS = (COLUMN["rowid"], COLUMN["title"], COLUMN["abstract"], COLUMN["authors"])  # the indexed columns


class SqliteDialect(Dialect):
    """SQLite: arrays as JSON text (``json_each``), FTS5 with BM25, categories matched with LIKE."""

    name = "sqlite"
    integrity_errors = (sqlite3.IntegrityError,)
    query_errors = (sqlite3.OperationalError,)
    types = schema.SQLITE_TYPES

    def one_of(self, column: str, values: Sequence[Any]) -> tuple[str, Any]:
        return f"{column} IN (SELECT value FROM json_each(?))", orjson.dumps(list(values)).decode()

    def json_rows(self, types: Sequence[str]) -> str:
        columns = ", ".join(f"json_extract(value, '$[{i}]') AS c{i}" for i in range(len(types)))
        return f"SELECT {columns} FROM json_each(?)"

    def json_list(self, expr: str, source: str, order: str) -> str:
        return f"(SELECT json_group_array({expr}) FROM (SELECT {expr} {source} ORDER BY {order}))"

    def category_filter(self, column: str, category: str) -> tuple[str, list[Any]]:
        if is_exact_category(category):
            return f"(' ' || {column} || ' ') LIKE ?", [f"% {category} %"]
        return f"((' ' || {column} || ' ') LIKE ? OR {column} LIKE ?)", [f"% {category}.%", f"{category} %"]

    def full_text(self, query: ParsedQuery) -> FullText:
        match = fts5(query)
        if match is None:
            raise StoreError("a keyword query with nothing that must match")
        return FullText(_FTS_SOURCE, "papers_fts MATCH ?", _BM25, "score, p.rowid", match, -1.0)

    def title_words(self, words: Sequence[str]) -> FullText:
        every = " ".join(f'"{token}"' for word in words for token in keyword_tokens(word))
        return FullText(_FTS_SOURCE, "papers_fts MATCH ?", "0", "p.rowid", f"title : ({every})")

    def is_data_error(self, e: Exception) -> bool:
        if isinstance(e, ValueError | TypeError | OverflowError | sqlite3.IntegrityError | sqlite3.DataError):
            return True  # ValueError: a string that cannot be encoded (a lone surrogate) among others
        if isinstance(e, sqlite3.ProgrammingError):  # a value of a type SQLite cannot hold
            return str(e).startswith("Error binding parameter")
        return isinstance(e, sqlite3.OperationalError) and getattr(e, "sqlite_errorname", "") in _DATA_ERRORS


_FTS_SOURCE = "papers_fts JOIN papers p ON p.rowid = papers_fts.rowid"
_BM25 = "bm25(papers_fts, 10.0, 1.0, 3.0)"  # title, abstract, authors: postgres._bm25_term's weights
# the keyword index (migration 14): tokens analyzed in Python, split at spaces; no content kept
_FTS_TABLE = """CREATE VIRTUAL TABLE papers_fts USING fts5(
    title, abstract, authors, content='', tokenize='ascii'
)"""
_FTS_INSERT = "INSERT INTO papers_fts (rowid, title, abstract, authors) VALUES (?, ?, ?, ?)"


def _analyzed(rows: list[Row]) -> list[tuple[Any, ...]]:
    """The keyword index's values of ``rows`` (as stored): rowid, then each indexed column analyzed."""
    return [(r[_FTS[0]], *(keyword_text(r[i]) for i in _FTS[1:])) for r in rows]


def rebuild_keyword_index(tx: Tx) -> None:
    """Migration 14: the keyword index rebuilt over the keyword pipeline's tokens (it held FTS5's porter
    stems before), papers read in rowid order a batch at a time."""
    tx.execute("DROP TABLE IF EXISTS papers_fts")
    tx.execute(_FTS_TABLE)
    tx.execute("INSERT INTO papers_fts (papers_fts, rank) VALUES ('automerge', 8)")
    after = 0
    while rows := tx.execute(
        "SELECT rowid, title, abstract, authors FROM papers WHERE rowid > ? ORDER BY rowid LIMIT 5000",
        (after,),
    ).fetchall():
        tx.executemany(_FTS_INSERT, [(r[0], *(keyword_text(t) for t in r[1:])) for r in rows])
        after = rows[-1][0]


class _SqliteTx:
    """The statements of a write transaction on the store's connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Result:
        return self.db.execute(sql, tuple(args))

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.db.executemany(sql, rows)


MIGRATIONS: list[schema.Migration] = [
    # 1: papers, announcements, FTS5 index, harvest state
    schema.papers(schema.SQLITE_TYPES)
    + """;
    CREATE TABLE announcements (
        category TEXT NOT NULL,
        day TEXT NOT NULL,
        paper INTEGER NOT NULL REFERENCES papers(rowid),
        kind TEXT NOT NULL,
        position INTEGER,
        PRIMARY KEY (category, day, paper)
    ) WITHOUT ROWID;
    CREATE VIRTUAL TABLE papers_fts USING fts5(
        title, abstract, authors,
        content='papers', content_rowid='rowid',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    INSERT INTO papers_fts (papers_fts, rank) VALUES ('automerge', 8);
    CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # 2: one dense vector per paper (float16 bytes); which model made them is the state key 'vector_model'
    """
    CREATE TABLE vectors (paper INTEGER PRIMARY KEY, vec BLOB NOT NULL);
    """,
    # 3: readers, sessions, libraries, tags, interests, queued digests (store/schema.py)
    schema.accounts(SqliteDialect.types)
    + ";\nCREATE INDEX papers_doi ON papers(lower(doi)) WHERE doi IS NOT NULL",
    # 4: login failures per client address; indexes for pruning
    schema.LOGINS,
    # 5: readers may opt out of the lab's counts; entries found by paper (store/signals.py)
    schema.SIGNALS,
    # 6 onwards (the model's usage and failures, generated texts, citation fields, the keyword index): as
    # on PostgreSQL
    *schema.shared_migrations(SqliteDialect.types, rebuild_keyword_index),
]


@contextmanager
def _busy_is_store_busy() -> Iterator[None]:
    """SQLite's "interrupted" (past ``limit_queries``) and "locked" (past the busy timeout): ``StoreBusy``."""
    try:
        yield
    except sqlite3.OperationalError as e:
        if "interrupted" in str(e) or "locked" in str(e):
            raise StoreBusy(str(e)) from e
        raise


class SqliteStore(StoreTables):
    """The default ``Store``: a single SQLite file in WAL mode."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.dialect = SqliteDialect()
        self._writes = 0
        self._deadline: float | None = None  # limit_queries: when this connection's queries are stopped
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA busy_timeout=30000")  # first: another process may be creating the file
            self.db.execute("PRAGMA page_size=16384")  # takes effect only on a new file
            self._wal()
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA foreign_keys=OFF")
            self.db.execute("PRAGMA cache_size=-65536")
            self.db.execute("PRAGMA wal_autocheckpoint=16384")
            self.db.execute(f"PRAGMA mmap_size={_MMAP_BYTES}")
            self.db.execute("PRAGMA temp_store=MEMORY")
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise StoreError(say("store_unusable", path=str(self.path), problem=str(e))) from e

    def _wal(self) -> None:
        """Switch to WAL; the switch can answer "locked" without waiting while another process switches
        a fresh file at the same moment, so it is tried again for a few seconds."""
        for attempt in range(100):
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or attempt == 99:
                    raise
                time.sleep(0.05)

    # -- schema ---------------------------------------------------------------------------------
    def _migrate(self) -> None:
        """Bring the file to the current schema. The version is read again under the write lock (BEGIN
        IMMEDIATE), so of several processes opening a fresh file at once one migrates and the others, once
        it commits, find nothing left to do; a file already current takes no lock at all."""
        if self._schema_version() == len(MIGRATIONS):
            return
        with self._transaction():
            current = self._schema_version()
            for number in range(current + 1, len(MIGRATIONS) + 1):
                step = MIGRATIONS[number - 1]
                if isinstance(step, str):
                    for statement in step.split(";"):
                        if statement.strip():
                            self.db.execute(statement)
                else:  # a step in Python (schema.Migration)
                    step(_SqliteTx(self.db))
                self.db.execute(f"PRAGMA user_version={number}")

    def _schema_version(self) -> int:
        current = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if current > len(MIGRATIONS):
            raise StoreError(say("store_too_new", path=str(self.path), found=current, known=len(MIGRATIONS)))
        return current

    def close(self) -> None:
        self.db.close()

    def limit_queries(self, seconds: float) -> None:
        if self._deadline is None:  # SQLite asks the handler every 10,000 steps; non-zero interrupts
            self.db.set_progress_handler(self._past_deadline, 10_000)
        self._deadline = time.monotonic() + seconds

    def _past_deadline(self) -> int:
        return int(self._deadline is not None and time.monotonic() > self._deadline)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction: committed whole or rolled back whole."""
        with _busy_is_store_busy():
            self.db.execute("BEGIN IMMEDIATE")
        try:
            with _busy_is_store_busy():
                yield
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self._writes += 1  # PRAGMA data_version does not count this connection's own commits

    @contextmanager
    def _tx(self) -> Iterator[Tx]:
        with self._transaction():
            yield _SqliteTx(self.db)

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[NamedRow]:
        with _busy_is_store_busy():
            return self.db.execute(sql, tuple(args)).fetchall()

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        """A part of the open transaction that is undone alone when it fails."""
        self.db.execute("SAVEPOINT part")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK TO part")
            self.db.execute("RELEASE part")
            raise
        self.db.execute("RELEASE part")

    # -- what SQLite does its own way -----------------------------------------------------------
    def _writing(self) -> AbstractContextManager[object]:
        return self._no_mmap()

    @contextmanager
    def _no_mmap(self) -> Iterator[None]:
        """Writes go through the pager: keep bulk loads' RSS down."""
        self.db.execute("PRAGMA mmap_size=0")
        try:
            yield
        finally:
            self.db.execute(f"PRAGMA mmap_size={_MMAP_BYTES}")

    def _insert_papers(self, tx: Tx, rows: list[Row]) -> None:
        super()._insert_papers(tx, rows)
        self._reindex(tx, rows)

    def _unindex(self, tx: Tx, rows: list[Row]) -> None:
        # a contentless index forgets a row when told the tokens it was given
        tx.executemany(
            "INSERT INTO papers_fts (papers_fts, rowid, title, abstract, authors) "
            "VALUES ('delete', ?, ?, ?, ?)",
            _analyzed(rows),
        )

    def _reindex(self, tx: Tx, rows: list[Row]) -> None:
        tx.executemany(_FTS_INSERT, _analyzed(rows))

    def set_state(self, key: str, value: str) -> None:
        self._put_state(_SqliteTx(self.db), key, value)  # one statement: no transaction to open
        self._writes += 1

    def data_version(self) -> int:
        return int(self.db.execute("PRAGMA data_version").fetchone()[0]) + self._writes

    # -- vectors: float16 bytes -------------------------------------------------------------------
    def put_vectors(self, rowids: Sequence[int], vectors: np.ndarray) -> None:
        data = np.ascontiguousarray(vectors, dtype=np.float16)
        with self._tx() as tx:
            tx.executemany(
                "INSERT OR REPLACE INTO vectors (paper, vec) VALUES (?, ?)",
                [(int(r), data[i].tobytes()) for i, r in enumerate(rowids)],
            )
            self._bump(tx, "vectors_changed")

    def _decode_vectors(self, rows: Sequence[NamedRow]) -> np.ndarray:
        return np.frombuffer(b"".join(r["vec"] for r in rows), dtype=np.float16).reshape(len(rows), -1)
