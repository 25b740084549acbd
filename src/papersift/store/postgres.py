"""The PostgreSQL store: the same ``Store`` over a server (PostgreSQL >= 15 with pgvector) many can share.

Layout mirrors the SQLite store, so the two give the same answers and ``papersift migrate`` copies rows
as they are: ``papers`` (rowid = the key of vectors and indexes; authors and versions as JSON text,
categories space-separated, dates as DATE) with its keyword index, the ``search`` tsvector under a GIN index
and ``keyword_length`` (the row's tokens): both written here in Python from the keyword pipeline's tokens
(``records.analyzer.keyword_tokens``, ``keyword_entry``: title weight A, abstract C, authors B), the very
tokens SQLite's FTS5 index holds, and ranked by BM25 (``_bm25_term``), FTS5's ``bm25`` written in
SQL, so a keyword search finds and orders the same papers on both backends; ``announcements``; ``state``;
``vectors`` (pgvector ``halfvec``, its dimension fixed by the first vectors after a reset; no ANN index:
related papers come from the rankers' usearch file, docs/store.md); ``papersift_meta`` (schema version, and
the data version every write transaction bumps first, which also makes writers take turns).

What the store does is written once in the concern mixins (``papers``, ``vectors``, ``accounts``,
``library``, ``signals``); this module is the connection, the schema and ``PostgresDialect``.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import orjson
import psycopg
from pgvector import HalfVector
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

from papersift.records.analyzer import keyword_tokens
from papersift.records.messages import say
from papersift.records.paper import ANNOUNCE_KINDS, Paper, is_exact_category
from papersift.records.query import AnyOf, Clause, ParsedQuery, Term
from papersift.store import StoreBusy, StoreError, schema
from papersift.store.fts_query import match_expression, plain_words
from papersift.store.paper_rows import COLUMNS
from papersift.store.rows import COLUMN, Row
from papersift.store.sql import Dialect, FullText, NamedRow, Result, Tx
from papersift.store.tables import StoreTables

_KINDS = ", ".join(f"'{k}'" for k in ANNOUNCE_KINDS)
_KEYWORD_FIELDS = (COLUMN["title"], COLUMN["abstract"], COLUMN["authors"])  # a row's indexed columns
_INDEXED_CHARS = 100_000  # of migration 1's generated column (the keyword pipeline cuts fields alike)
_MIGRATION_LOCK = 0x70617065  # pg_advisory_xact_lock key: one process migrates at a time
COMMON_SHARE = 0.02  # any-word queries leave out words in more than this share of the papers
_AUTHORS_WEIGHT = "B"  # of the authors column in the keyword index (``_SEARCH``)
COMMON_AFTER = 50_000  # rows: below this every word is kept (few papers, short posting lists)
STATS_MAX_AGE = 600.0  # seconds between reads of the planner's word frequencies
_FTS_SOURCE = "papers p, CAST(? AS tsquery) q"
_ALL_COLUMNS = "ACB"  # the weights a phrase of no column may match in: title, abstract, authors
_MAX_POSITION = 16383  # a tsvector's last position (later tokens share it)


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

    def title_words(self, words: Sequence[str]) -> FullText:
        arg = " & ".join(f"{_lexeme(token)}:A" for word in words for token in keyword_tokens(word))
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


def _lexeme(token: str) -> str:
    """A token as a quoted lexeme of ``tsvector``/``tsquery`` text (taken as it is: no parser, no
    dictionary)."""
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def _ts_clause(clause: Clause, weight: str = "") -> str:
    """One clause as ``tsquery`` text: a phrase's words joined by ``<->`` (``:*`` after a prefix's last
    one, ``:weight`` restricting each to a column's weight), a group's options by ``|``."""
    if isinstance(clause, AnyOf):
        return "( " + " | ".join(_ts_clause(c) for c in clause.options) + " )"
    terms = [_lexeme(w) + (":" + weight if weight else "") for w in clause.words]
    if clause.prefix:
        terms[-1] = f"{_lexeme(clause.words[-1])}:*{weight}"
    return "(" + " <-> ".join(terms) + ")"


def ts_query(query: ParsedQuery) -> str | None:
    """The ``tsquery`` text of a parsed query (``fts_query.keyword_query``, already in the keyword index's
    tokens; None when nothing must match): what ``fts_query.fts5`` writes for SQLite, in PostgreSQL's
    syntax, the author's words a phrase in the authors' weight (B)."""
    return match_expression(
        query, _ts_clause, lambda author: _ts_clause(Term(author), _AUTHORS_WEIGHT), " & ", "( {0} ) & ! {1}"
    )


@dataclass(frozen=True, slots=True)
class KeywordEntry:
    """A paper's keyword index: its ``tsvector`` text (the keyword pipeline's tokens, ``keyword_tokens``:
    title weight A, abstract C, authors B, one position between fields so no phrase spans two), how many
    tokens it has (FTS5's row size, which BM25 reads) and its distinct tokens (``keyword_terms``)."""

    vector: str
    length: int
    terms: tuple[str, ...]


def keyword_entry(title: str, abstract: str, authors: str) -> KeywordEntry:
    """The keyword index of a paper's title, abstract and authors (as stored: authors as JSON text)."""
    positions: dict[str, list[str]] = {}
    at = 1
    for text, weight in ((title, "A"), (abstract, "C"), (authors, _AUTHORS_WEIGHT)):
        tokens = keyword_tokens(text)
        for i, token in enumerate(tokens):
            positions.setdefault(token, []).append(f"{min(at + i, _MAX_POSITION)}{weight}")
        at += len(tokens) + 1
    vector = " ".join(f"{_lexeme(token)}:{','.join(where)}" for token, where in positions.items())
    return KeywordEntry(vector, sum(len(where) for where in positions.values()), tuple(positions))


def _entries(rows: Sequence[Row]) -> list[KeywordEntry]:
    return [keyword_entry(*(row[i] for i in _KEYWORD_FIELDS)) for row in rows]


def _count(tx: Tx, entries: Sequence[KeywordEntry], sign: int) -> None:
    """Add (``sign`` 1) or take away (-1) ``entries`` in the keyword index's counts: the papers and tokens
    (``papersift_meta``), the papers holding each term (``keyword_terms``)."""
    tx.execute(
        "UPDATE papersift_meta SET keyword_papers = keyword_papers + ?, keyword_tokens = keyword_tokens + ?",
        (sign * len(entries), sign * sum(e.length for e in entries)),
    )
    terms = Counter(term for e in entries for term in e.terms)
    if terms:
        tx.execute(
            "INSERT INTO keyword_terms AS k (term, papers) "
            "SELECT key, CAST(value AS BIGINT) FROM json_each_text(CAST(? AS json)) "
            "ON CONFLICT (term) DO UPDATE SET papers = k.papers + excluded.papers",
            (orjson.dumps({term: sign * n for term, n in terms.items()}).decode(),),
        )


def _index_keywords(tx: Tx) -> None:
    """Write the keyword index of every paper that has none (after a migration or a bulk copy), then count
    the index afresh."""
    after = 0
    while rows := tx.execute(
        "SELECT rowid, title, abstract, authors FROM papers WHERE search IS NULL AND rowid > ? "
        "ORDER BY rowid LIMIT 5000",
        (after,),
    ).fetchall():
        entries = [keyword_entry(r["title"], r["abstract"], r["authors"]) for r in rows]
        tx.executemany(
            "UPDATE papers SET search = CAST(? AS tsvector), keyword_length = ? WHERE rowid = ?",
            [(e.vector, e.length, r["rowid"]) for e, r in zip(entries, rows, strict=True)],
        )
        after = rows[-1]["rowid"]
    tx.execute(
        "UPDATE papersift_meta SET keyword_papers = s.n, keyword_tokens = s.tokens FROM "
        "(SELECT count(*) AS n, COALESCE(sum(keyword_length), 0) AS tokens FROM papers) s"
    )
    tx.execute("TRUNCATE keyword_terms")
    tx.execute(
        "INSERT INTO keyword_terms (term, papers) SELECT word, ndoc FROM ts_stat('SELECT search FROM papers')"
    )


# BM25 as FTS5's bm25() computes it (fts5_aux.c), over the ``search`` column: the sum, over the query's
# phrases in order (``_phrases``), of the phrase's idf (from the papers holding it: FTS5's xQueryPhrase)
# times f·(k1 + 1) / (f + k1·(1 − b + b·D/avgdl)) (``_bm25_term``), where f sums the column weight of each
# place the phrase stands (title 10, authors 3, abstract 1: SQLite's bm25(papers_fts, 10.0, 1.0, 3.0)) and
# D is the row's tokens; the same float8 operations in the same order, so both backends give the same score
# to the last bit and ties fall to the rowid alike. f (``_frequency``): a word's is ``ts_rank_cd`` with no
# normalization (``_WORD_FREQUENCY``), which sums each place's weight in C; a phrase's, or a phrase held
# to one column, is read from the positions by ``papersift_phrase_frequency`` (``PHRASE_FREQUENCY``).
PHRASE_FREQUENCY = """
CREATE OR REPLACE FUNCTION papersift_phrase_frequency(doc tsvector, phrase text[], prefix boolean,
                                                      columns text)
RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH hit AS (
        SELECT i, x.pos, x.w
        FROM unnest(doc) AS u, unnest(u.positions, u.weights) AS x (pos, w),
             generate_subscripts(phrase, 1) AS i
        WHERE u.lexeme = phrase[i]
           OR (prefix AND i = cardinality(phrase) AND starts_with(u.lexeme, phrase[i]))
    )
    SELECT COALESCE(sum(CASE f.w WHEN 'A' THEN 10 WHEN 'B' THEN 3 ELSE 1 END), 0)::float8
    FROM hit AS f
    WHERE f.i = 1 AND strpos(columns, f.w) > 0
      AND (SELECT count(DISTINCT g.i) FROM hit AS g WHERE g.i > 1 AND g.pos = f.pos + g.i - 1)
          = cardinality(phrase) - 1
$$
"""
_K1 = 1.2  # FTS5's bm25 constants
_B = 0.75
# a word's f: ts_rank_cd sums the weight of each place (D, C abstract, B authors, A title: 1, 3, 10 over
# ten, as its weights may not pass 1), a float4 rounded back to the whole number it is
_WORD_FREQUENCY = "round(10 * CAST(ts_rank_cd('{{0, 0.1, 0.3, 1}}', r.doc, {query}, 0) AS float8))"
# the row's tsvector read (and decompressed) once for all of a query's phrases, not once per phrase: a
# copy in memory, behind an OFFSET 0 the planner does not fold away
_ROW_ONCE = "(SELECT p.search || ''::tsvector AS doc OFFSET 0) AS r"


def rebuild_keyword_index(tx: Tx) -> None:
    """Migration 14: the keyword index written from the keyword pipeline's tokens (it was generated by the
    ``papersift`` text search configuration: unaccent and Snowball, PostgreSQL's own tokens), ranked by
    BM25 (``_bm25_term``)."""
    tx.execute("ALTER TABLE papers DROP COLUMN IF EXISTS search, DROP COLUMN IF EXISTS keyword_length")
    tx.execute("DROP TEXT SEARCH CONFIGURATION IF EXISTS papersift")
    tx.execute("ALTER TABLE papers ADD COLUMN search tsvector, ADD COLUMN keyword_length INTEGER")
    tx.execute(
        "ALTER TABLE papersift_meta ADD COLUMN IF NOT EXISTS keyword_papers BIGINT NOT NULL DEFAULT 0, "
        "ADD COLUMN IF NOT EXISTS keyword_tokens BIGINT NOT NULL DEFAULT 0"
    )
    tx.execute(
        'CREATE TABLE IF NOT EXISTS keyword_terms (term TEXT COLLATE "C" PRIMARY KEY, papers BIGINT NOT NULL)'
    )
    tx.execute(PHRASE_FREQUENCY)
    _index_keywords(tx)
    tx.execute("CREATE INDEX papers_search ON papers USING gin (search)")


def _phrases(query: ParsedQuery) -> list[tuple[Term, str]]:
    """The phrases FTS5's ``bm25`` sums, in its order (as ``fts5`` writes them), each with the weights it
    may stand in; an excluded phrase is never in a row found, so adds nothing and is left out."""
    found: list[tuple[Term, str]] = []

    def visit(clause: Clause) -> None:
        if isinstance(clause, AnyOf):
            for option in clause.options:
                visit(option)
        else:
            found.append((clause, _ALL_COLUMNS))

    for clause in query.include:
        visit(clause)
    if query.author:
        found.append((Term(query.author), _AUTHORS_WEIGHT))
    return found


def _text(value: str) -> str:
    """An SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def _float(value: float) -> str:
    """An SQL float8 of exactly ``value`` (its shortest repr reads back as the same double)."""
    return f"CAST({_text(repr(value))} AS float8)"


def _bm25_term(f: str, idf: float, average: float) -> str:
    """The SQL of one phrase's part of the score, given the SQL of its f (see ``PHRASE_FREQUENCY``)."""
    k1, b = _float(_K1), _float(_B)
    return (
        f"{_float(idf)} * (({f} * ({k1} + 1.0::float8)) / ({f} + {k1} * (1.0::float8 - {b} + {b} * "
        f"p.keyword_length / {_float(average)})))"
    )


def _frequency(term: Term, columns: str) -> str:
    """The SQL of f, ``term``'s weighted count in the row (see ``PHRASE_FREQUENCY``)."""
    query = f"CAST({_text(_ts_clause(term))} AS tsquery)"
    if len(term.words) == 1 and columns == _ALL_COLUMNS:
        return _WORD_FREQUENCY.format(query=query)
    words = "ARRAY[" + ", ".join(_text(w) for w in term.words) + "]::text[]"
    return f"papersift_phrase_frequency(r.doc, {words}, {term.prefix}, {_text(columns)})"


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


# migration 1's keyword index (migration 14 replaces it): title weight A, authors B, abstract C
_SEARCH = f""",
    search tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('papersift', left(title, {_INDEXED_CHARS})), 'A')
        || setweight(to_tsvector('papersift', left(authors, {_INDEXED_CHARS})), 'B')
        || setweight(to_tsvector('papersift', left(abstract, {_INDEXED_CHARS})), 'C')
    ) STORED"""

MIGRATIONS: list[schema.Migration] = [
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
    # 6 onwards (the model's usage and failures, generated texts, citation fields, the keyword index): as
    # on SQLite
    *schema.shared_migrations(PostgresDialect.types, rebuild_keyword_index),
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
                step = MIGRATIONS[number - 1]
                try:
                    if isinstance(step, str):
                        self.conn.execute(step)
                    else:  # a step in Python (schema.Migration)
                        with self.conn.cursor(row_factory=dict_row) as cur:
                            step(_PgTx(cur))
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
        entries = _entries(rows)
        with tx.cur.copy(f"COPY papers ({COLUMNS}, search, keyword_length) FROM STDIN") as copy:
            for row, entry in zip(rows, entries, strict=True):
                copy.write_row((*row, entry.vector, entry.length))
        _count(tx, entries, 1)

    def _unindex(self, tx: Tx, rows: list[Row]) -> None:
        _count(tx, _entries(rows), -1)

    def _reindex(self, tx: Tx, rows: list[Row]) -> None:
        entries = _entries(rows)
        tx.executemany(
            "UPDATE papers SET search = CAST(? AS tsvector), keyword_length = ? WHERE rowid = ?",
            [(e.vector, e.length, r[COLUMN["rowid"]]) for e, r in zip(entries, rows, strict=True)],
        )
        _count(tx, entries, 1)

    def index_keywords(self, cur: psycopg.Cursor[Any]) -> None:
        """Write the keyword index of the papers that have none, in the transaction of ``cur`` (the rows
        ``papersift migrate`` copies in have none)."""
        _index_keywords(_PgTx(cur))

    def _full_text(self, query: ParsedQuery) -> FullText:
        """``query`` as PostgreSQL finds and ranks it (BM25, ``_bm25_term``): each phrase's idf from the
        papers holding it (a word's from ``keyword_terms``, a phrase's or a prefix's counted through the GIN
        index, as FTS5 counts them), the average tokens from the counts ``papersift_meta`` keeps."""
        arg = ts_query(query)
        if arg is None:
            raise StoreError("a keyword query with nothing that must match")
        phrases = _phrases(query)
        counts, args = [], []
        for i, (term, columns) in enumerate(phrases):
            if len(term.words) == 1 and not term.prefix and columns == _ALL_COLUMNS:
                counts.append(f"(SELECT papers FROM keyword_terms WHERE term = ?) AS n{i}")
                args.append(term.words[0])
            else:
                counts.append(f"(SELECT count(*) FROM papers WHERE search @@ CAST(? AS tsquery)) AS n{i}")
                args.append(_ts_clause(term, "" if columns == _ALL_COLUMNS else columns))
        rows = self._rows(
            f"SELECT keyword_papers, keyword_tokens, {', '.join(counts)} FROM papersift_meta", args
        )
        if not rows:
            raise StoreError("the database returned no row where one was expected")
        row = rows[0]
        papers = int(row["keyword_papers"])
        average = float(row["keyword_tokens"]) / float(papers) if papers else 0.0
        idf = []
        for i in range(len(phrases)):
            hits = int(row[f"n{i}"] or 0)
            value = math.log((papers - hits + 0.5) / (hits + 0.5))
            idf.append(value if value > 0.0 else 1e-6)
        frequencies = ", ".join(
            f"{_frequency(term, columns)} AS f{i}" for i, (term, columns) in enumerate(phrases)
        )
        terms = " + ".join(_bm25_term(f"f.f{i}", value, average) for i, value in enumerate(idf))
        score = f"(SELECT {terms} FROM (SELECT {frequencies} FROM {_ROW_ONCE} OFFSET 0) AS f)"
        return FullText(_FTS_SOURCE, "p.search @@ q", score, "score DESC, p.rowid", arg)

    def data_version(self) -> int:
        return int(_first(self._one("SELECT data_version FROM papersift_meta"), "data_version"))

    def _common_words(self, query: str) -> Callable[[str], bool] | None:
        """Which words of ``query`` are in more than ``COMMON_SHARE`` of the papers (None: not known).

        Ranking scores every matching row, so an any-word query with "learning" in it ranked every paper
        holding it, about one in seven (p50 2.9 s at 2.7M papers, when it ranked by ``ts_rank_cd``). The
        frequencies come free from the planner's statistics of the ``search`` column
        (``pg_stats.most_common_elems``, kept by ANALYZE and autovacuum), read at most every
        ``STATS_MAX_AGE`` seconds; a small table (under ``COMMON_AFTER`` rows) keeps every word, so there
        the two backends agree (SQLite has no such cut). This cut adds to the words a ranker passes as
        common (hybrid search: those in over 10% of the papers, by the lexical arrays).
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
        common = {
            word
            for word in plain_words(query)
            if (tokens := keyword_tokens(word)) and all(token in lexemes for token in tokens)
        }
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
