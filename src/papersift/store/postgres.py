"""The PostgreSQL store: the same ``Store`` over a server (PostgreSQL >= 15 with pgvector) many can share.

Layout mirrors the SQLite store, so the two give the same answers and ``papersift migrate`` copies rows
as they are: ``papers`` (rowid = the key of vectors and indexes; authors and versions as JSON text,
categories space-separated, dates as DATE) with a generated ``search`` tsvector (title weight A, authors
B, abstract C; ``papersift`` text search configuration = English stemming after unaccent) under a GIN
index; ``announcements``; ``state``; ``vectors`` (pgvector ``halfvec``, its dimension fixed by the first
vectors after a reset, under an HNSW cosine index); ``papersift_meta`` (schema version, and the data
version every write transaction bumps first, which also makes writers take turns).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import date
from typing import Any

import numpy as np
import psycopg
from pgvector import HalfVector
from pgvector.psycopg import register_vector

from papersift.paper import (
    ANNOUNCE_KINDS,
    Announcement,
    Deleted,
    Paper,
    Parsed,
    RecordError,
    is_exact_category,
)
from papersift.schedule import derive_announced
from papersift.store import (
    PAPERS_CHANGED,
    Filters,
    IngestCounts,
    ListingEntry,
    SearchFromMatch,
    StoreError,
    VectorBatch,
)
from papersift.store.postgres_readers import LOGIN_SCHEMA, ReaderTables
from papersift.store.postgres_readers import SCHEMA as READER_SCHEMA
from papersift.store.query import fts_query, plain_words
from papersift.store.readers import fold_title
from papersift.store.rows import (
    COLUMN_NAMES,
    merge,
    paper_from_row,
    paper_row,
    validate,
    validate_id,
    write_alone_on_failure,
)
from papersift.store.signals import SCHEMA as SIGNALS_SCHEMA

_KINDS = ", ".join(f"'{k}'" for k in ANNOUNCE_KINDS)
_WEIGHTS = "'{0.1, 0.1, 0.3, 1.0}'"  # D, C (abstract), B (authors), A (title): BM25's 10 : 3 : 1 in SQLite
_INDEXED_CHARS = 100_000  # a tsvector holds at most 1 MB: huge abstracts are stored whole, indexed in part

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
    CREATE TABLE papers (
        rowid BIGINT PRIMARY KEY,
        id TEXT COLLATE "C" NOT NULL UNIQUE,
        version INTEGER,
        title TEXT NOT NULL,
        authors TEXT NOT NULL,
        abstract TEXT NOT NULL,
        categories TEXT NOT NULL,
        primary_category TEXT NOT NULL,
        comments TEXT,
        journal_ref TEXT,
        doi TEXT,
        license TEXT,
        versions TEXT NOT NULL,
        published DATE,
        updated DATE,
        announced DATE,
        source TEXT NOT NULL,
        deleted BOOLEAN NOT NULL DEFAULT false,
        search tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('papersift', left(title, {_INDEXED_CHARS})), 'A')
            || setweight(to_tsvector('papersift', left(authors, {_INDEXED_CHARS})), 'B')
            || setweight(to_tsvector('papersift', left(abstract, {_INDEXED_CHARS})), 'C')
        ) STORED
    );
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
    # 2: readers, sessions, libraries, tags, interests, queued digests (store/postgres_readers.py)
    READER_SCHEMA,
    # 3: login failures per client address; indexes for pruning (store/*_readers.py)
    LOGIN_SCHEMA,
    # 4: readers may opt out of the lab's counts; entries found by paper (store/signals.py)
    SIGNALS_SCHEMA,
]

# the SQLite row shape (``paper_from_row``): dates back as ISO text whatever the server's DateStyle
_DATES = ("published", "updated", "announced")
_SELECT = ", ".join(f"to_char({c}, 'YYYY-MM-DD') AS {c}" if c in _DATES else c for c in COLUMN_NAMES)
_P_SELECT = ", ".join(
    f"to_char(p.{c}, 'YYYY-MM-DD') AS {c}" if c in _DATES else f"p.{c}" for c in COLUMN_NAMES
)
_COLUMNS = ", ".join(COLUMN_NAMES)
_BATCH = 2000
_MIGRATION_LOCK = 0x70617065  # pg_advisory_xact_lock key: one process migrates at a time
_HNSW = "vectors_hnsw"
COMMON_SHARE = 0.02  # any-word queries leave out words in more than this share of the papers
COMMON_AFTER = 50_000  # rows: below this every word is kept (few papers, short posting lists)
STATS_MAX_AGE = 600.0  # seconds between reads of the planner's word frequencies
NO_FILTERS = Filters()

# FTS5 (store/query.py's output) -> tsquery: the user syntax is parsed once, in one place
_FTS_TOKEN = re.compile(r'"((?:[^"]|"")*)"(\*?)|(\()|(\))|\b(AND|OR|NOT)\b|\b(title|authors)\s*:')
_TS_OPERATORS = {"AND": "&", "OR": "|", "NOT": "& !"}
_COLUMN_WEIGHTS = {"title": "A", "authors": "B"}


def ts_query(match: str) -> str:
    """The ``to_tsquery`` text of an FTS5 expression from ``fts_query``: phrases, prefixes, AND/OR/NOT.

    ``title : "…"`` and ``authors : "…"`` become phrases restricted to that column's weight (A, B).
    """
    out: list[str] = []
    weight = ""
    for m in _FTS_TOKEN.finditer(match):
        phrase, star, opening, closing, operator, column = m.groups()
        if column:
            weight = _COLUMN_WEIGHTS[column]
        elif phrase is not None:
            words = [w.replace("\\", "\\\\").replace("'", "''") for w in phrase.replace('""', '"').split()]
            terms = [f"'{w}'" + (":" + weight if weight else "") for w in words]
            if star and terms:
                terms[-1] = f"'{words[-1]}':*{weight}"
            out.append("(" + " <-> ".join(terms) + ")" if terms else "")
            weight = ""
        elif opening or closing:
            out.append(opening or closing)
        else:
            out.append(_TS_OPERATORS[operator])
    return " ".join(t for t in out if t)


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


def _is_data_error(e: Exception) -> bool:
    """The server (or the driver, before sending) refused a record's data: a value out of range, text it
    cannot encode, a row over an index's size limit. A record is then stored alone, or skipped."""
    driver = (ValueError, TypeError, OverflowError)
    server = (psycopg.errors.DataError, psycopg.errors.IntegrityError, psycopg.errors.ProgramLimitExceeded)
    return isinstance(e, driver + server)


def _category_filter(column: str, category: str) -> tuple[str, list[Any]]:
    """Papers in ``category`` (a class, or a whole archive) by their space-separated categories."""
    cats = f"string_to_array({column}, ' ')"
    if is_exact_category(category):
        return f"%s = ANY({cats})", [category]
    return f"EXISTS (SELECT 1 FROM unnest({cats}) c WHERE c = %s OR starts_with(c, %s))", [
        category,
        f"{category}.",
    ]


class PostgresStore(ReaderTables, SearchFromMatch):
    """A ``Store`` on PostgreSQL: one connection per store object; threads share it one call at a time."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._lock = threading.RLock()
        self._common: tuple[float, frozenset[str]] | None = None
        self.common_after = COMMON_AFTER
        self.conn = self._connect()
        try:
            self._migrate()
            register_vector(self.conn)
        except (psycopg.Error, StoreError) as e:
            self.conn.close()
            if isinstance(e, StoreError):
                raise
            raise StoreError(f"{_display(dsn)}: not a usable papersift database ({e})") from e

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self.dsn, autocommit=True, connect_timeout=15)
        except psycopg.Error as e:
            raise StoreError(f"{_display(self.dsn)}: cannot connect to PostgreSQL ({e})") from e

    def _ready(self) -> psycopg.Connection[Any]:
        """The connection, made again when the server dropped the last one (a restart, an idle timeout)."""
        if self.conn.broken:
            self.conn = self._connect()
            register_vector(self.conn)
        return self.conn

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
                raise StoreError(
                    f"{_display(self.dsn)}: schema version {current} is newer than this papersift "
                    f"({len(MIGRATIONS)}); upgrade papersift"
                )
            for number in range(current + 1, len(MIGRATIONS) + 1):
                try:
                    self.conn.execute(MIGRATIONS[number - 1])
                except psycopg.errors.InsufficientPrivilege as e:
                    raise StoreError(
                        f"{_display(self.dsn)}: the database needs the pgvector and unaccent extensions: "
                        "run CREATE EXTENSION vector; CREATE EXTENSION unaccent; in it as a superuser "
                        f"({e})"
                    ) from e
                self.conn.execute("UPDATE papersift_meta SET schema_version = %s", (number,))

    def schema_version(self) -> int:
        return int(_first(self._one("SELECT schema_version FROM papersift_meta")))

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Cursor[Any]]:
        """One write transaction, committed or rolled back whole.

        It bumps the data version first, and that row's lock makes writers from every connection take turns.
        """
        with self._lock, self._ready().transaction(), self.conn.cursor() as cur:
            cur.execute("UPDATE papersift_meta SET data_version = data_version + 1")
            yield cur

    def _read(self, sql: str, args: Sequence[Any]) -> psycopg.Cursor[Any]:
        """Run a read, once more on a new connection if the server dropped the old one."""
        try:
            return self._ready().execute(sql, args)
        except psycopg.OperationalError:
            if not self.conn.broken:
                raise
            return self._ready().execute(sql, args)

    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._read(sql, args).fetchall()

    def _one(self, sql: str, args: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        with self._lock:
            return self._read(sql, args).fetchone()

    # -- writes ---------------------------------------------------------------------------------
    def upsert(self, items: Iterable[Parsed], *, state: Mapping[str, str] | None = None) -> IngestCounts:
        counts = IngestCounts()
        with self.transaction() as cur:
            next_rowid = int(_first(cur.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM papers").fetchone()))
            batch: list[Paper] = []
            for item in items:
                if isinstance(item, RecordError):
                    counts.failed += 1
                    counts.errors.append(item)
                elif isinstance(item, Deleted) and (problem := validate_id(item.id)):
                    counts.failed += 1
                    counts.errors.append(RecordError(item.source, "?", problem))
                elif isinstance(item, Deleted):
                    gone = cur.execute(
                        "UPDATE papers SET deleted = true WHERE id = %s AND NOT deleted", (item.id,)
                    ).rowcount
                    if gone:
                        counts.deleted += gone
                        _vectors_changed(cur)
                else:
                    problem = validate(item)
                    if problem is None and (clean := _without_nul(item)) is not item:
                        item, problem = clean, validate(clean)
                    if problem:
                        counts.failed += 1
                        counts.errors.append(RecordError(item.source, item.id or "?", problem))
                        continue
                    batch.append(item)
                    if len(batch) >= _BATCH:
                        next_rowid = self._write_isolated(cur, batch, next_rowid, counts)
                        batch = []
            if batch:
                self._write_isolated(cur, batch, next_rowid, counts)
            for key, value in (state or {}).items():
                _put_state(cur, key, value)
            if counts.total > counts.failed:  # see ``papers_version``
                cur.execute(
                    "INSERT INTO state (key, value) VALUES (%s, '1') ON CONFLICT (key) "
                    "DO UPDATE SET value = (state.value::bigint + 1)::text",
                    (PAPERS_CHANGED,),
                )
        return counts

    def _existing(self, cur: psycopg.Cursor[Any], ids: list[str]) -> dict[str, tuple[int, Paper]]:
        rows = cur.execute(f"SELECT {_SELECT} FROM papers WHERE id = ANY(%s)", (ids,)).fetchall()
        return {row[1]: (row[0], paper_from_row(row)) for row in rows}

    def _write_isolated(
        self, cur: psycopg.Cursor[Any], batch: list[Paper], next_rowid: int, counts: IngestCounts
    ) -> int:
        return write_alone_on_failure(
            batch,
            next_rowid,
            counts,
            lambda part, rowid, c: self._write_batch(cur, part, rowid, c),
            self.conn.transaction,  # nested in the chunk's transaction: a savepoint
            _is_data_error,
        )

    def _write_batch(
        self, cur: psycopg.Cursor[Any], batch: list[Paper], next_rowid: int, counts: IngestCounts
    ) -> int:
        unique: dict[str, Paper] = {}
        listings: dict[str, list[Announcement]] = {}
        for p in batch:
            p.announced = derive_announced(p)
            if p.listings:
                listings.setdefault(p.id, []).extend(p.listings)
            unique[p.id] = merge(unique[p.id], p) if p.id in unique else p
        existing = self._existing(cur, list(unique))
        inserts: list[tuple[Any, ...]] = []
        updates: list[tuple[tuple[Any, ...], tuple[Any, ...]]] = []
        for pid, paper in unique.items():
            if pid in existing:
                rowid, old = existing[pid]
                old_row, new_row = paper_row(rowid, old), paper_row(rowid, merge(old, paper))
                if new_row != old_row:
                    updates.append((old_row, new_row))
                    counts.updated += 1
                else:
                    counts.skipped += 1
            else:
                inserts.append(paper_row(next_rowid, paper))
                existing[pid] = (next_rowid, paper)
                next_rowid += 1
                counts.new += 1
        if inserts:
            with cur.copy(f"COPY papers ({_COLUMNS}) FROM STDIN") as copy:
                for row in inserts:
                    copy.write_row(row)
        if updates:
            sets = ", ".join(f"{c} = %s" for c in COLUMN_NAMES[1:])
            cur.executemany(
                f"UPDATE papers SET {sets}, deleted = false WHERE rowid = %s",
                [(*n[1:], n[0]) for _, n in updates],
            )
            # a new title or abstract makes the paper's vector stale: `embed` makes it again
            stale = [n[0] for o, n in updates if (o[3], o[5]) != (n[3], n[5])]
            if stale and cur.execute("DELETE FROM vectors WHERE paper = ANY(%s)", (stale,)).rowcount:
                _vectors_changed(cur)
        derived = [existing[pid][0] for pid, p in unique.items() if p.announced]
        if derived:  # papers known only by their announcement day: new in the primary, cross in the rest
            cur.execute(
                "INSERT INTO announcements (category, day, paper, kind, position) "
                "SELECT c.cat, p.announced, p.rowid, CASE WHEN c.n = 1 THEN 'new' ELSE 'cross' END, NULL "
                "FROM papers p, unnest(string_to_array(p.categories, ' ')) WITH ORDINALITY AS c(cat, n) "
                "WHERE p.rowid = ANY(%s) AND p.announced IS NOT NULL "
                "ON CONFLICT (category, day, paper) DO NOTHING",
                (derived,),
            )
        rows = [
            (a.category, a.date, existing[pid][0], a.kind, a.position)
            for pid, announced in listings.items()
            for a in announced
        ]
        if rows:  # a listing row a source gave wins over a derived one
            cur.executemany(
                "INSERT INTO announcements AS a (category, day, paper, kind, position) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (category, day, paper) DO UPDATE SET "
                "kind = CASE WHEN excluded.position IS NOT NULL THEN excluded.kind ELSE a.kind END, "
                "position = COALESCE(excluded.position, a.position)",
                rows,
            )
        return next_rowid

    def set_state(self, key: str, value: str) -> None:
        with self.transaction() as cur:
            _put_state(cur, key, value)

    def get_state(self, key: str) -> str | None:
        row = self._one("SELECT value FROM state WHERE key = %s", (key,))
        return str(row[0]) if row else None

    # -- reads ----------------------------------------------------------------------------------
    def get(self, paper_id: str) -> Paper | None:
        row = self._one(f"SELECT {_SELECT} FROM papers WHERE id = %s AND NOT deleted", (paper_id,))
        return paper_from_row(row) if row else None

    def get_many(self, paper_ids: list[str]) -> list[Paper]:
        rows = self._rows(f"SELECT {_SELECT} FROM papers WHERE id = ANY(%s) AND NOT deleted", (paper_ids,))
        found = {row[1]: paper_from_row(row) for row in rows}
        return [found[i] for i in paper_ids if i in found]

    def data_version(self) -> int:
        return int(_first(self._one("SELECT data_version FROM papersift_meta")))

    def count(self) -> int:
        return int(_first(self._one("SELECT COUNT(*) FROM papers WHERE NOT deleted")))

    def _announced_in(self, category: str) -> tuple[str, list[Any]]:
        if is_exact_category(category):
            return "a.category = %s", [category]
        # announcements.category sorts bytewise (COLLATE "C"): 'cs.' <= a 'cs.*' class < 'cs/'
        return "(a.category = %s OR (a.category >= %s AND a.category < %s))", [
            category,
            f"{category}.",
            f"{category}/",
        ]

    def listing(self, category: str, day: date) -> list[ListingEntry]:
        clause, args = self._announced_in(category)
        # an archive-wide listing meets a paper once per subject class: keep its best appearance
        rows = self._rows(
            f"SELECT * FROM (SELECT DISTINCT ON (p.rowid) {_P_SELECT}, a.kind, a.position, "
            f"array_position(ARRAY[{_KINDS}], a.kind) AS k "
            f"FROM announcements a JOIN papers p ON p.rowid = a.paper "
            f"WHERE {clause} AND a.day = %s AND NOT p.deleted "
            f"ORDER BY p.rowid, k, a.position NULLS LAST) best "
            f"ORDER BY k, position NULLS LAST, id",
            [*args, day],
        )
        return [ListingEntry(paper_from_row(r), ANNOUNCE_KINDS[r[19] - 1], r[18]) for r in rows]

    def announcement_days(self, category: str) -> list[date]:
        clause, args = self._announced_in(category)
        rows = self._rows(f"SELECT DISTINCT day FROM announcements a WHERE {clause} ORDER BY day", args)
        return [r[0] for r in rows]

    def listed_categories(self, day: date | None = None) -> list[tuple[str, int]]:
        if day is None:
            sql = "SELECT category, COUNT(*) FROM announcements GROUP BY category ORDER BY category"
            return [(r[0], int(r[1])) for r in self._rows(sql)]
        # the distinct categories by skipping along the primary key, then one key lookup each (no scan)
        rows = self._rows(
            "WITH RECURSIVE c(category) AS (SELECT MIN(category) FROM announcements UNION ALL "
            "SELECT (SELECT MIN(category) FROM announcements WHERE category > c.category) "
            "FROM c WHERE c.category IS NOT NULL) "
            "SELECT category, (SELECT COUNT(*) FROM announcements a JOIN papers p ON p.rowid = a.paper "
            "WHERE a.category = c.category AND a.day = %s AND NOT p.deleted) "
            "FROM c WHERE category IS NOT NULL ORDER BY category",
            [day],
        )
        return [(r[0], int(r[1])) for r in rows]

    def match(
        self,
        query: str,
        *,
        k: int = 10,
        offset: int = 0,
        filters: Filters = NO_FILTERS,
        any_terms: bool = False,
        common: Callable[[str], bool] | None = None,
    ) -> list[tuple[int, float]]:
        if any_terms:  # ts_rank_cd has no idf: leave out what the statistics call common, whatever else
            own, given = self._common_words(query), common
            if own is not None:
                common = own if given is None else (lambda word: own(word) or given(word))
        match = fts_query(query, author=filters.author, any_terms=any_terms, common=common)
        if match is None:
            return []
        where = ["p.search @@ q", "NOT p.deleted"]
        args: list[Any] = [ts_query(match)]
        if filters.category:
            clause, more = _category_filter("p.categories", filters.category)
            where.append(clause)
            args += more
        if filters.since:
            where.append("COALESCE(p.announced, p.published) >= %s")
            args.append(filters.since)
        if filters.until:
            where.append("COALESCE(p.announced, p.published) <= %s")
            args.append(filters.until)
        sql = (
            f"SELECT p.rowid, ts_rank_cd({_WEIGHTS}, p.search, q, 1) AS score "
            f"FROM papers p, to_tsquery('papersift', %s) q WHERE {' AND '.join(where)} "
            f"ORDER BY score DESC, p.rowid LIMIT %s OFFSET %s"
        )
        try:
            rows = self._rows(sql, [*args, k, offset])
        except psycopg.Error as e:
            raise StoreError(f"search failed for {query!r}: {e}") from e
        return [(int(rowid), float(score)) for rowid, score in rows]

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
                "SELECT c.reltuples, s.most_common_elems::text::text[], s.most_common_elem_freqs "
                "FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() "
                "AND s.tablename = 'papers' AND s.attname = 'search' "
                "WHERE c.oid = to_regclass('papers')"
            )
            lexemes: frozenset[str] = frozenset()
            if row and row[1] and row[2] and float(row[0]) >= self.common_after:
                lexemes = frozenset(e for e, f in zip(row[1], row[2], strict=False) if f > COMMON_SHARE)
            self._common = (now, lexemes)
        lexemes = self._common[1]
        if not lexemes:
            return None
        words = plain_words(query)
        rows = self._rows(
            "SELECT w, tsvector_to_array(to_tsvector('papersift', w)) FROM unnest(%s::text[]) AS w", (words,)
        )
        common = {w for w, found in rows if found and all(lexeme in lexemes for lexeme in found)}
        return lambda word: word in common

    def paper_ids_by_title(self, title: str) -> list[str]:
        """Stored papers whose title equals ``title`` up to case, spacing, punctuation and LaTeX braces."""
        words = re.findall(r"\w+", title)
        if not words:
            return []
        # every word in the title (weight A) finds the candidates; the folded titles decide
        rows = self._rows(
            "SELECT id, title FROM papers p, to_tsquery('papersift', %s) q "
            "WHERE p.search @@ q AND NOT p.deleted LIMIT 200",
            (" & ".join(f"'{w}':A" for w in words),),
        )
        wanted = fold_title(title)
        return [str(pid) for pid, t in rows if fold_title(t) == wanted]

    def paper_id_by_doi(self, doi: str) -> str | None:
        row = self._one(
            "SELECT id FROM papers WHERE lower(doi) = %s AND NOT deleted ORDER BY rowid LIMIT 1",
            (doi.lower(),),
        )
        return str(row[0]) if row else None

    def iter_papers(self, batch: int = 5000) -> Iterator[Paper]:
        """Every stored paper in rowid order (for exports, indexing and evaluation)."""
        for _, paper in self.iter_rows(batch):
            yield paper

    def iter_rows(self, batch: int = 5000, after: int = 0) -> Iterator[tuple[int, Paper]]:
        while rows := self._rows(
            f"SELECT {_SELECT} FROM papers WHERE NOT deleted AND rowid > %s ORDER BY rowid LIMIT %s",
            (after, batch),
        ):
            for row in rows:
                yield row[0], paper_from_row(row)
            after = rows[-1][0]

    def rowid(self, paper_id: str) -> int | None:
        row = self._one("SELECT rowid FROM papers WHERE id = %s AND NOT deleted", (paper_id,))
        return int(row[0]) if row else None

    def by_rowids(self, rowids: Sequence[int]) -> dict[int, Paper]:
        if not rowids:
            return {}
        rows = self._rows(
            f"SELECT {_SELECT} FROM papers WHERE rowid = ANY(%s) AND NOT deleted", ([int(r) for r in rowids],)
        )
        return {row[0]: paper_from_row(row) for row in rows}

    # -- vectors --------------------------------------------------------------------------------
    def vector_model(self) -> str | None:
        return self.get_state("vector_model")

    def reset_vectors(self, model: str) -> None:
        with self.transaction() as cur:
            cur.execute("DELETE FROM vectors")
            cur.execute(f"DROP INDEX IF EXISTS {_HNSW}")
            cur.execute("ALTER TABLE vectors ALTER COLUMN vec TYPE halfvec")  # the next model's dimension
            _vectors_changed(cur)
            _put_state(cur, "vector_model", model)
            epoch = int(self.get_state("vector_epoch") or 0) + 1
            _put_state(cur, "vector_epoch", str(epoch))  # tells indexes built before the reset apart

    def vector_count(self) -> int:
        return int(
            _first(
                self._one(
                    "SELECT COUNT(*) FROM vectors v JOIN papers p ON p.rowid = v.paper WHERE NOT p.deleted"
                )
            )
        )

    def missing_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        rows = self._rows(
            "SELECT rowid, title, abstract FROM papers p WHERE NOT deleted "
            "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.paper = p.rowid) "
            "ORDER BY COALESCE(announced, published) DESC NULLS LAST, rowid DESC LIMIT %s",
            (limit,),
        )
        return [(int(r), t, a) for r, t, a in rows]

    def put_vectors(self, rowids: Sequence[int], vectors: np.ndarray, *, index: bool = True) -> None:
        """Store vectors by rowid; ``index=False`` leaves the HNSW index to ``index_vectors`` (bulk loads)."""
        data = np.ascontiguousarray(vectors, dtype=np.float16)
        if len(rowids) != len(data):
            raise StoreError(f"{len(rowids)} rowids but {len(data)} vectors")
        with self.transaction() as cur:
            if len(data):
                self._vector_dimension(cur, int(data.shape[1]), index=index)
                self._copy_vectors(cur, rowids, data)
            _vectors_changed(cur)

    def _vector_dimension(self, cur: psycopg.Cursor[Any], dim: int, index: bool = True) -> None:
        """Fix the vector column's dimension (the first vectors after a reset choose it) and index it."""
        row = cur.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'vectors'::regclass AND attname = 'vec'"
        ).fetchone()
        current = int(_first(row))
        if current == -1:
            try:
                cur.execute(f"ALTER TABLE vectors ALTER COLUMN vec TYPE halfvec({dim})")
            except psycopg.errors.DataException as e:
                raise StoreError(f"stored vectors differ from the new ones' {dim} dimensions ({e})") from e
        elif current != dim:
            raise StoreError(
                f"the stored vectors have {current} dimensions, not {dim}: reset the vectors first"
            )
        if index:
            cur.execute(f"CREATE INDEX IF NOT EXISTS {_HNSW} ON vectors USING hnsw (vec halfvec_cosine_ops)")

    def index_vectors(self, memory: str = "1GB") -> None:
        """Fix the vector column's dimension to the stored vectors' and build the HNSW index (bulk loads).

        ``memory`` is this build's ``maintenance_work_mem``: a graph that fits builds several times faster.
        """
        row = self._one("SELECT vector_dims(vec) FROM vectors LIMIT 1")
        if row is not None:
            with self.transaction() as cur:
                cur.execute("SELECT set_config('maintenance_work_mem', %s, true)", (memory,))
                self._vector_dimension(cur, int(row[0]))

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

    def iter_vectors(self, batch: int = 20_000, after: int = 0) -> Iterator[VectorBatch]:
        while rows := self._rows(
            "SELECT v.paper, v.vec FROM vectors v JOIN papers p ON p.rowid = v.paper "
            "WHERE NOT p.deleted AND v.paper > %s ORDER BY v.paper LIMIT %s",
            (after, batch),
        ):
            keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            vecs = np.stack([r[1].to_numpy() for r in rows]).astype(np.float16, copy=False)
            yield VectorBatch(keys, vecs)
            after = int(keys[-1])

    def nearest(self, vector: np.ndarray, k: int = 10, *, ef_search: int = 100) -> list[tuple[int, float]]:
        """The ``k`` stored vectors nearest ``vector`` by cosine (via the HNSW index): (rowid, similarity)."""
        query = HalfVector(np.asarray(vector, dtype=np.float16))
        with self._lock, self._ready().transaction():
            self.conn.execute(f"SET LOCAL hnsw.ef_search = {max(int(ef_search), k)}")
            self.conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")  # deleted papers filtered
            rows = self.conn.execute(
                "SELECT paper, d FROM (SELECT v.paper, v.vec <=> %s AS d FROM vectors v "
                "JOIN papers p ON p.rowid = v.paper WHERE NOT p.deleted ORDER BY d LIMIT %s) n ORDER BY d",
                (query, k),
            ).fetchall()
        return [(int(r), 1.0 - float(d)) for r, d in rows]


def _first(row: tuple[Any, ...] | None) -> Any:
    if row is None:
        raise StoreError("the database returned no row where one was expected")
    return row[0]


def _put_state(cur: psycopg.Cursor[Any], key: str, value: str) -> None:
    cur.execute(
        "INSERT INTO state (key, value) VALUES (%s, %s) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def _vectors_changed(cur: psycopg.Cursor[Any]) -> None:
    """Count changes to the set of live vectors, so indexes built from them can tell they are stale."""
    cur.execute(
        "INSERT INTO state (key, value) VALUES ('vectors_changed', '1') "
        "ON CONFLICT (key) DO UPDATE SET value = (state.value::bigint + 1)::text"
    )
