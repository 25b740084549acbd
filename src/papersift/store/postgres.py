"""The PostgreSQL store: the same ``Store`` over a server (PostgreSQL >= 15 with pgvector) many can share.

Layout mirrors the SQLite store, so the two give the same answers and ``papersift migrate`` copies rows
as they are: ``papers`` (rowid = the key of vectors and indexes; authors and versions as JSON text,
categories space-separated, dates as DATE) with a generated ``search`` tsvector (title weight A, authors
B, abstract C; ``papersift`` text search configuration = English stemming after unaccent) under a GIN
index; ``announcements``; ``state``; ``vectors`` (pgvector ``halfvec``, its dimension fixed by the first
vectors after a reset; no ANN index: related papers come from the rankers' usearch file, docs/store.md);
``papersift_meta`` (schema version, and the data version every write transaction bumps first, which also
makes writers take turns).

What the store does is written once in the concern mixins (``papers``, ``vectors``, ``accounts``,
``library``, ``signals``); this module is the connection, the schema and ``PostgresDialect``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np
import psycopg
from pgvector import HalfVector
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

from papersift.records.messages import say
from papersift.records.paper import ANNOUNCE_KINDS, Paper, is_exact_category
from papersift.records.query import AnyOf, Clause, ParsedQuery, Term
from papersift.store import StoreBusy, StoreError, schema
from papersift.store.fts_query import match_expression, plain_words
from papersift.store.paper_rows import COLUMNS
from papersift.store.rows import Row
from papersift.store.sql import Dialect, FullText, NamedRow, Result, Tx
from papersift.store.tables import StoreTables

_KINDS = ", ".join(f"'{k}'" for k in ANNOUNCE_KINDS)
_WEIGHTS = "'{0.1, 0.1, 0.3, 1.0}'"  # D, C (abstract), B (authors), A (title): BM25's 10 : 3 : 1 in SQLite
_INDEXED_CHARS = 100_000  # a tsvector holds at most 1 MB: huge abstracts are stored whole, indexed in part
_MIGRATION_LOCK = 0x70617065  # pg_advisory_xact_lock key: one process migrates at a time
COMMON_SHARE = 0.02  # any-word queries leave out words in more than this share of the papers
_AUTHORS_WEIGHT = "B"  # of the authors column in the keyword index (``_SEARCH``)
COMMON_AFTER = 50_000  # rows: below this every word is kept (few papers, short posting lists)
STATS_MAX_AGE = 600.0  # seconds between reads of the planner's word frequencies
_FTS_SOURCE = "papers p, to_tsquery('papersift', ?) q"


class PostgresDialect(Dialect):
    """PostgreSQL: arrays as arrays (``= ANY``), tsvector ranked by ``ts_rank_cd``, ``json_agg``."""

    name = "postgres"
    integrity_errors = (psycopg.errors.UniqueViolation,)
    query_errors = (psycopg.Error,)
    types = schema.POSTGRES_TYPES

    def one_of(self, column: str, values: Sequence[Any]) -> tuple[str, Any]:
        return f"{column} = ANY(?)", list(values)

    def json_rows(self, types: Sequence[str]) -> str:
        columns = ", ".join(f"(e->>{i})::{t} AS c{i}" for i, t in enumerate(types))
        return f"SELECT {columns} FROM json_array_elements(?::json) e"

    def json_list(self, expr: str, source: str, order: str) -> str:
        return f"(SELECT COALESCE(json_agg({expr} ORDER BY {order}), '[]')::text {source})"

    def category_filter(self, column: str, category: str) -> tuple[str, list[Any]]:
        cats = f"string_to_array({column}, ' ')"
        if is_exact_category(category):
            return f"? = ANY({cats})", [category]
        return f"EXISTS (SELECT 1 FROM unnest({cats}) c WHERE c = ? OR starts_with(c, ?))", [
            category,
            f"{category}.",
        ]

    def full_text(self, query: ParsedQuery) -> FullText:
        arg = ts_query(query)
        if arg is None:
            raise StoreError("a keyword query with nothing that must match")
        score = f"ts_rank_cd({_WEIGHTS}, p.search, q, 1)"
        return FullText(_FTS_SOURCE, "p.search @@ q", score, "score DESC, p.rowid", arg)

    def title_words(self, words: Sequence[str]) -> FullText:
        arg = " & ".join(f"'{w}':A" for w in words)
        return FullText(_FTS_SOURCE, "p.search @@ q", "0", "p.rowid", arg)

    def storable(self, paper: Paper) -> Paper:
        return _without_nul(paper)

    def is_data_error(self, e: Exception) -> bool:
        """The server (or the driver, before sending) refused a record's data: a value out of range, text
        it cannot encode, a row over an index's size limit."""
        server = (
            psycopg.errors.DataError,
            psycopg.errors.IntegrityError,
            psycopg.errors.ProgramLimitExceeded,
        )
        return super().is_data_error(e) or isinstance(e, server)


@lru_cache(maxsize=512)
def _pg(sql: str) -> str:
    """``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return sql.replace("%", "%%").replace("?", "%s")


class _PgTx:
    """The statements of a write transaction on one cursor (rows as dicts)."""

    def __init__(self, cur: psycopg.Cursor[Any]) -> None:
        self.cur = cur

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Result:
        return self.cur.execute(_pg(sql), args)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self.cur.executemany(_pg(sql), list(rows))


def _ts_clause(clause: Clause, weight: str = "") -> str:
    """One clause as ``to_tsquery`` text: a phrase's words joined by ``<->`` (``:*`` after a prefix's last
    one, ``:weight`` restricting each to a column's weight), a group's options by ``|``."""
    if isinstance(clause, AnyOf):
        return "( " + " | ".join(_ts_clause(c) for c in clause.options) + " )"
    quoted = [w.replace("\\", "\\\\").replace("'", "''") for w in clause.words]
    terms = [f"'{w}'" + (":" + weight if weight else "") for w in quoted]
    if clause.prefix:
        terms[-1] = f"'{quoted[-1]}':*{weight}"
    return "(" + " <-> ".join(terms) + ")"


def ts_query(query: ParsedQuery) -> str | None:
    """The ``to_tsquery`` text of a parsed query (``fts_query.keyword_query``; None when nothing must
    match): what ``fts_query.fts5`` writes for SQLite, in PostgreSQL's syntax, the author's words a phrase
    in the authors' weight (B)."""
    return match_expression(
        query, _ts_clause, lambda author: _ts_clause(Term(author), _AUTHORS_WEIGHT), " & ", "( {0} ) & ! {1}"
    )


def _display(dsn: str) -> str:
    """The connection string without its password, for messages."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", re.sub(r"password=\S+", "password=***", dsn))


def _without_nul(p: Paper) -> Paper:
    """PostgreSQL text cannot hold NUL: drop it (a record carrying one would otherwise fail whole)."""
    texts = (p.title, p.abstract, p.comments, p.journal_ref, p.doi, p.license, p.source, *p.authors)
    if not any(t and "\x00" in t for t in texts):
        return p

    def clean(t: str | None) -> str | None:
        return t.replace("\x00", "") if t else t

    return replace(
        p,
        title=p.title.replace("\x00", ""),
        abstract=p.abstract.replace("\x00", ""),
        authors=[a.replace("\x00", "") for a in p.authors],
        comments=clean(p.comments),
        journal_ref=clean(p.journal_ref),
        doi=clean(p.doi),
        license=clean(p.license),
        source=p.source.replace("\x00", ""),
    )


# the keyword index: title weight A, authors B, abstract C
_SEARCH = f""",
    search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('papersift', left(title, {_INDEXED_CHARS})), 'A')
        || setweight(to_tsvector('papersift', left(authors, {_INDEXED_CHARS})), 'B')
        || setweight(to_tsvector('papersift', left(abstract, {_INDEXED_CHARS})), 'C')
    ) STORED"""

MIGRATIONS: list[str] = [
    # 1: papers with their keyword index, announcements, state, vectors, the data version
    f"""
    CREATE EXTENSION IF NOT EXISTS vector;
    CREATE EXTENSION IF NOT EXISTS unaccent;
    CREATE TEXT SEARCH CONFIGURATION papersift (COPY = english);
    ALTER TEXT SEARCH CONFIGURATION papersift
        ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
    CREATE TABLE papersift_meta (schema_version INTEGER NOT NULL, data_version BIGINT NOT NULL);
    INSERT INTO papersift_meta VALUES (0, 0);
    {schema.papers(schema.POSTGRES_TYPES, _SEARCH)};
    CREATE INDEX papers_search ON papers USING gin (search);
    CREATE INDEX papers_doi ON papers (lower(doi)) WHERE doi IS NOT NULL;
    CREATE TABLE announcements (
        category TEXT COLLATE "C" NOT NULL,
        day DATE NOT NULL,
        paper BIGINT NOT NULL REFERENCES papers (rowid),
        kind TEXT NOT NULL CHECK (kind IN ({_KINDS})),
        position INTEGER,
        PRIMARY KEY (category, day, paper)
    );
    CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE vectors (paper BIGINT PRIMARY KEY, vec halfvec NOT NULL);
    """,
    # 2: readers, sessions, libraries, tags, interests, queued digests (store/schema.py)
    schema.accounts(PostgresDialect.types),
    # 3: login failures per client address; indexes for pruning
    schema.LOGINS,
    # 4: readers may opt out of the lab's counts; entries found by paper (store/signals.py)
    schema.SIGNALS,
    # 5: related papers come from the rankers' usearch file alone (docs/store.md): no second ANN index
    "DROP INDEX IF EXISTS vectors_hnsw",
    # 6 onwards (the model's usage and failures, generated texts, citation fields): as on SQLite
    *schema.shared_migrations(PostgresDialect.types),
]


@contextmanager
def _busy_is_store_busy() -> Iterator[None]:
    """A statement past ``limit_queries`` (cancelled) or a lock not had in time, as ``StoreBusy``."""
    try:
        yield
    except (psycopg.errors.QueryCanceled, psycopg.errors.LockNotAvailable) as e:
        raise StoreBusy(str(e).strip()) from e


class PostgresStore(StoreTables):
    """A ``Store`` on PostgreSQL: one connection per store object; threads share it one call at a time."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.dialect = PostgresDialect()
        self._lock = threading.RLock()
        self._common: tuple[float, frozenset[str]] | None = None
        self.common_after = COMMON_AFTER
        self._timeout_ms = 0  # limit_queries: the connection's statement_timeout (0: none)
        self.conn = self._connect()
        try:
            self._migrate()
            register_vector(self.conn)
        except (psycopg.Error, StoreError) as e:
            self.conn.close()
            if isinstance(e, StoreError):
                raise
            raise StoreError(say("store_unusable", path=_display(dsn), problem=str(e))) from e

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self.dsn, autocommit=True, connect_timeout=15)
        except psycopg.Error as e:
            raise StoreError(say("store_cannot_connect", path=_display(self.dsn), problem=str(e))) from e

    def _ready(self) -> psycopg.Connection[Any]:
        """The connection, made again when the server dropped the last one (a restart, an idle timeout)."""
        if self.conn.broken:
            self.conn = self._connect()
            register_vector(self.conn)
            if self._timeout_ms:
                self.conn.execute(f"SET statement_timeout = {self._timeout_ms}")
        return self.conn

    def limit_queries(self, seconds: float) -> None:
        ms = max(1, round(seconds * 1000))
        if ms != self._timeout_ms:
            with self._lock:
                self._ready().execute(f"SET statement_timeout = {ms}")
                self._timeout_ms = ms

    # -- schema ---------------------------------------------------------------------------------
    def _migrate(self) -> None:
        with self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            exists = self.conn.execute("SELECT to_regclass('papersift_meta')").fetchone()
            current = 0
            if exists and exists[0] is not None:
                row = self.conn.execute("SELECT schema_version FROM papersift_meta").fetchone()
                current = int(row[0]) if row else 0
            if current > len(MIGRATIONS):
                too_new = say("store_too_new", path=_display(self.dsn), found=current, known=len(MIGRATIONS))
                raise StoreError(too_new)
            for number in range(current + 1, len(MIGRATIONS) + 1):
                try:
                    self.conn.execute(MIGRATIONS[number - 1])
                except psycopg.errors.InsufficientPrivilege as e:
                    needs = say("store_needs_extensions", path=_display(self.dsn), problem=str(e))
                    raise StoreError(needs) from e
                self.conn.execute("UPDATE papersift_meta SET schema_version = %s", (number,))

    def schema_version(self) -> int:
        return int(_first(self._one("SELECT schema_version FROM papersift_meta"), "schema_version"))

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Cursor[Any]]:
        """One write transaction, committed or rolled back whole.

        It bumps the data version first, and that row's lock makes writers from every connection take turns.
        """
        with (
            _busy_is_store_busy(),
            self._lock,
            self._ready().transaction(),
            self.conn.cursor(row_factory=dict_row) as cur,
        ):
            cur.execute("UPDATE papersift_meta SET data_version = data_version + 1")
            yield cur

    # -- connection ---------------------------------------------------------------------------------
    @contextmanager
    def _tx(self) -> Iterator[Tx]:
        with self.transaction() as cur:
            yield _PgTx(cur)

    def _savepoint(self) -> AbstractContextManager[object]:
        return self.conn.transaction()  # nested in the open transaction: a savepoint

    def _read(self, sql: str, args: Sequence[Any]) -> list[NamedRow]:
        with self._ready().cursor(row_factory=dict_row) as cur:
            return cur.execute(sql, args).fetchall()

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[NamedRow]:
        """Run a read, once more on a new connection if the server dropped the old one."""
        with self._lock, _busy_is_store_busy():
            try:
                return self._read(_pg(sql), args)
            except psycopg.OperationalError:
                if not self.conn.broken:
                    raise
                return self._read(_pg(sql), args)

    # -- what PostgreSQL does its own way -----------------------------------------------------------
    def _insert_papers(self, tx: Tx, rows: list[Row]) -> None:
        assert isinstance(tx, _PgTx)
        with tx.cur.copy(f"COPY papers ({COLUMNS}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def data_version(self) -> int:
        return int(_first(self._one("SELECT data_version FROM papersift_meta"), "data_version"))

    def _common_words(self, query: str) -> Callable[[str], bool] | None:
        """Which words of ``query`` are in more than ``COMMON_SHARE`` of the papers (None: not known).

        ``ts_rank_cd`` weighs every matched word alike and ranks every matching row, so an any-word query
        with "learning" in it ranked every paper holding it, about one in seven (p50 2.9 s at 2.7M
        papers). The frequencies come free from the planner's statistics of the ``search`` column
        (``pg_stats.most_common_elems``, kept by ANALYZE and autovacuum), read at most every
        ``STATS_MAX_AGE`` seconds; a small table (under ``COMMON_AFTER`` rows) keeps every word. This
        cut adds to the words a ranker passes as common (hybrid search: those in over 10% of the papers,
        by the lexical arrays), a cut that suits BM25's idf more than ``ts_rank_cd``.
        """
        now = time.monotonic()
        if self._common is None or now - self._common[0] > STATS_MAX_AGE:
            row = self._one(
                "SELECT c.reltuples AS n, s.most_common_elems::text::text[] AS words, "
                "s.most_common_elem_freqs AS shares "
                "FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() "
                "AND s.tablename = 'papers' AND s.attname = 'search' "
                "WHERE c.oid = to_regclass('papers')"
            )
            lexemes: frozenset[str] = frozenset()
            if row and row["words"] and row["shares"] and float(row["n"]) >= self.common_after:
                pairs = zip(row["words"], row["shares"], strict=False)
                lexemes = frozenset(e for e, f in pairs if f > COMMON_SHARE)
            self._common = (now, lexemes)
        lexemes = self._common[1]
        if not lexemes:
            return None
        words = plain_words(query)
        rows = self._rows(
            "SELECT w, tsvector_to_array(to_tsvector('papersift', w)) AS found FROM unnest(?::text[]) AS w",
            (words,),
        )
        common = {r["w"] for r in rows if r["found"] and all(lexeme in lexemes for lexeme in r["found"])}
        return lambda word: word in common

    # -- vectors: halfvec ---------------------------------------------------------------------------
    def _reset_vector_column(self, tx: Tx) -> None:
        tx.execute("ALTER TABLE vectors ALTER COLUMN vec TYPE halfvec")  # the next model's dimension

    def put_vectors(self, rowids: Sequence[int], vectors: np.ndarray) -> None:
        """Store vectors by rowid (the first vectors after a reset fix the column's dimension)."""
        data = np.ascontiguousarray(vectors, dtype=np.float16)
        if len(rowids) != len(data):
            raise StoreError(f"{len(rowids)} rowids but {len(data)} vectors")
        with self.transaction() as cur:
            if len(data):
                self._vector_dimension(cur, int(data.shape[1]))
                self._copy_vectors(cur, rowids, data)
            self._bump(_PgTx(cur), "vectors_changed")

    def _vector_dimension(self, cur: psycopg.Cursor[Any], dim: int) -> None:
        """Fix the vector column's dimension (the first vectors after a reset choose it)."""
        row = cur.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'vectors'::regclass AND attname = 'vec'"
        ).fetchone()
        current = int(_first(row, "atttypmod"))
        if current == -1:
            try:
                cur.execute(f"ALTER TABLE vectors ALTER COLUMN vec TYPE halfvec({dim})")
            except psycopg.errors.DataException as e:
                raise StoreError(f"stored vectors differ from the new ones' {dim} dimensions ({e})") from e
        elif current != dim:
            raise StoreError(
                f"the stored vectors have {current} dimensions, not {dim}: reset the vectors first"
            )

    def fix_vector_dimension(self) -> None:
        """Fix the vector column's dimension to the stored vectors' (after a bulk copy)."""
        row = self._one("SELECT vector_dims(vec) AS dim FROM vectors LIMIT 1")
        if row is not None:
            with self.transaction() as cur:
                self._vector_dimension(cur, int(row["dim"]))

    def _copy_vectors(self, cur: psycopg.Cursor[Any], rowids: Sequence[int], data: np.ndarray) -> None:
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS incoming_vectors (paper BIGINT, vec halfvec)")
        cur.execute("TRUNCATE incoming_vectors")
        with cur.copy("COPY incoming_vectors (paper, vec) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "halfvec"])
            for i, r in enumerate(rowids):
                copy.write_row((int(r), HalfVector(data[i])))
        cur.execute(
            "INSERT INTO vectors (paper, vec) SELECT DISTINCT ON (paper) paper, vec FROM incoming_vectors "
            "ORDER BY paper ON CONFLICT (paper) DO UPDATE SET vec = excluded.vec"
        )

    def _decode_vectors(self, rows: Sequence[NamedRow]) -> np.ndarray:
        return np.stack([r["vec"].to_numpy() for r in rows]).astype(np.float16, copy=False)


def _first(row: NamedRow | None, column: str) -> Any:
    if row is None:
        raise StoreError("the database returned no row where one was expected")
    return row[column]
