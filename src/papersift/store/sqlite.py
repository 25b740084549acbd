"""The SQLite store (the default backend): one WAL database file with an FTS5 keyword index.

Layout: ``papers`` (one row per arXiv id, integer rowid shared with the FTS index), ``announcements``
(which listing a paper appeared in, how, and where), ``papers_fts`` (external-content FTS5 over title,
abstract and authors, written by this module in the same statements as ``papers`` rather than by
triggers, so bulk loads stay fast), ``state`` (harvest checkpoints, the vector model), ``vectors`` (one
float16 embedding per paper rowid), and the reader tables of ``sqlite_readers.py`` (accounts, libraries,
digests). ``PRAGMA user_version`` numbers the
schema; ``MIGRATIONS`` brings any older file up to date on open.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any, cast

import numpy as np
import orjson

from papersift.paper import (
    ANNOUNCE_KINDS,
    AnnounceKind,
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
from papersift.store.query import fts_query
from papersift.store.readers import fold_title
from papersift.store.rows import (
    COLUMN_NAMES,
    Row,
    merge,
    paper_from_row,
    paper_row,
    validate,
    validate_id,
    write_alone_on_failure,
)
from papersift.store.signals import SCHEMA as SIGNALS_SCHEMA
from papersift.store.sqlite_readers import LOGIN_SCHEMA, ReaderTables
from papersift.store.sqlite_readers import SCHEMA as READER_SCHEMA

MIGRATIONS: list[str] = [
    # 1: papers, announcements, FTS5 index, harvest state
    """
    CREATE TABLE papers (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
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
        published TEXT,
        updated TEXT,
        announced TEXT,
        source TEXT NOT NULL,
        deleted INTEGER NOT NULL DEFAULT 0
    );
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
    # 3: readers, sessions, libraries, tags, interests, queued digests (store/sqlite_readers.py)
    READER_SCHEMA,
    # 4: login failures per client address; indexes for pruning (store/*_readers.py)
    LOGIN_SCHEMA,
    # 5: readers may opt out of the lab's counts; entries found by paper (store/signals.py)
    SIGNALS_SCHEMA,
]

_COLUMNS = ", ".join(COLUMN_NAMES)
_P_COLUMNS = ", ".join(f"p.{c}" for c in COLUMN_NAMES)  # the same, from ``papers p`` in a join
_KIND_ORDER: dict[str, int] = {k: i for i, k in enumerate(ANNOUNCE_KINDS)}
_BATCH = 2000
_MMAP_BYTES = 1 << 30  # queries read pages straight from the OS page cache (cold CLI calls ~40% faster)
NO_FILTERS = Filters()


# A paper's announcement day in each of its categories: new in the primary (the first), cross in the
# rest; one statement for a whole batch (a JSON array of [rowid, [category, ...]] made by orjson, never by
# pasting strings together), and a listing row a source gave wins.
_DERIVED_ANNOUNCEMENTS = """
    INSERT INTO announcements (category, day, paper, kind, position)
    SELECT c.value, p.announced, p.rowid, CASE WHEN c.key = 0 THEN 'new' ELSE 'cross' END, NULL
    FROM json_each(?) d JOIN papers p ON p.rowid = json_extract(d.value, '$[0]'),
        json_each(d.value, '$[1]') c
    WHERE p.announced IS NOT NULL
    ON CONFLICT (category, day, paper) DO NOTHING
"""
# what the database says about a record's data (one record is then stored alone, or skipped), as opposed
# to the file or the disk (disk full, locked, I/O: the whole ingest stops)
_DATA_ERRORS = frozenset(
    {"SQLITE_ERROR", "SQLITE_TOOBIG", "SQLITE_MISMATCH", "SQLITE_CONSTRAINT", "SQLITE_RANGE"}
)


def _is_data_error(e: Exception) -> bool:
    if isinstance(e, ValueError | TypeError | OverflowError | sqlite3.IntegrityError | sqlite3.DataError):
        return True  # ValueError: a string that cannot be encoded (a lone surrogate) among others
    if isinstance(e, sqlite3.ProgrammingError):  # a value of a type SQLite cannot hold
        return str(e).startswith("Error binding parameter")
    return isinstance(e, sqlite3.OperationalError) and getattr(e, "sqlite_errorname", "") in _DATA_ERRORS


class SqliteStore(ReaderTables, SearchFromMatch):
    """The default ``Store``: a single SQLite file in WAL mode."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._writes = 0
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
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
            raise StoreError(f"{self.path}: not a usable papersift database ({e})") from e

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
                for statement in MIGRATIONS[number - 1].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version={number}")

    def _schema_version(self) -> int:
        current = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if current > len(MIGRATIONS):
            raise StoreError(
                f"{self.path}: schema version {current} is newer than this papersift "
                f"({len(MIGRATIONS)}); upgrade papersift"
            )
        return current

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One write transaction: committed whole or rolled back whole."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self._writes += 1  # PRAGMA data_version does not count this connection's own commits

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

    # -- writes ---------------------------------------------------------------------------------
    def upsert(self, items: Iterable[Parsed], *, state: Mapping[str, str] | None = None) -> IngestCounts:
        counts = IngestCounts()
        self.db.execute("PRAGMA mmap_size=0")  # writes go through the pager; keep bulk loads' RSS down
        try:
            with self._transaction():
                self._upsert(items, state, counts)
        finally:
            self.db.execute(f"PRAGMA mmap_size={_MMAP_BYTES}")
        return counts

    def _upsert(self, items: Iterable[Parsed], state: Mapping[str, str] | None, counts: IngestCounts) -> None:
        next_rowid = self.db.execute("SELECT COALESCE(MAX(rowid), 0) + 1 FROM papers").fetchone()[0]
        batch: list[Paper] = []
        for item in items:
            if isinstance(item, RecordError):
                counts.failed += 1
                counts.errors.append(item)
            elif isinstance(item, Deleted) and (problem := validate_id(item.id)):
                counts.failed += 1
                counts.errors.append(RecordError(item.source, "?", problem))
            elif isinstance(item, Deleted):
                gone = self.db.execute(
                    "UPDATE papers SET deleted = 1 WHERE id = ? AND deleted = 0", (item.id,)
                ).rowcount
                if gone:
                    counts.deleted += gone
                    self._vectors_changed()
            else:
                problem = validate(item)
                if problem:
                    counts.failed += 1
                    counts.errors.append(RecordError(item.source, item.id or "?", problem))
                    continue
                batch.append(item)
                if len(batch) >= _BATCH:
                    next_rowid = self._write_isolated(batch, next_rowid, counts)
                    batch = []
        if batch:
            self._write_isolated(batch, next_rowid, counts)
        for key, value in (state or {}).items():
            self._put_state(key, value)
        if counts.total > counts.failed:  # what listings and indexes depend on: see ``papers_version``
            self._bump(PAPERS_CHANGED)

    def _existing(self, ids: list[str]) -> dict[str, tuple[int, Paper]]:
        found: dict[str, tuple[int, Paper]] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(f"SELECT {_COLUMNS} FROM papers WHERE id IN ({marks})", chunk):
                found[row[1]] = (row[0], paper_from_row(row))
        return found

    def _write_isolated(self, batch: list[Paper], next_rowid: int, counts: IngestCounts) -> int:
        return write_alone_on_failure(
            batch, next_rowid, counts, self._write_batch, self._savepoint, _is_data_error
        )

    def _write_batch(self, batch: list[Paper], next_rowid: int, counts: IngestCounts) -> int:
        # one record per id within the batch: fold duplicates first
        unique: dict[str, Paper] = {}
        listings: dict[str, list[Announcement]] = {}
        for p in batch:
            p.announced = derive_announced(p)
            if p.listings:
                listings.setdefault(p.id, []).extend(p.listings)
            unique[p.id] = merge(unique[p.id], p) if p.id in unique else p
        existing = self._existing(list(unique))
        inserts: list[Row] = []
        updates: list[tuple[Row, Row]] = []  # (old row, new row)
        categories: dict[int, list[str]] = {}  # the stored categories of each rowid written
        for pid, paper in unique.items():
            if pid in existing:
                rowid, old = existing[pid]
                merged = merge(old, paper)
                categories[rowid] = merged.categories
                old_row, new_row = paper_row(rowid, old), paper_row(rowid, merged)
                if new_row != old_row:
                    updates.append((old_row, new_row))
                    counts.updated += 1
                else:
                    counts.skipped += 1
                rowid_of = rowid
            else:
                inserts.append(paper_row(next_rowid, paper))
                categories[next_rowid] = paper.categories
                rowid_of = next_rowid
                next_rowid += 1
                counts.new += 1
            existing[pid] = (rowid_of, paper)
        marks = ",".join("?" * len(COLUMN_NAMES))
        db = self.db
        if inserts:
            db.executemany(f"INSERT INTO papers ({_COLUMNS}) VALUES ({marks})", inserts)
            # one statement indexes the whole run of new rows (and releases the GIL meanwhile)
            db.execute(
                "INSERT INTO papers_fts (rowid, title, abstract, authors) "
                "SELECT rowid, title, abstract, authors FROM papers WHERE rowid BETWEEN ? AND ?",
                (inserts[0][0], inserts[-1][0]),
            )
        if updates:
            db.executemany(
                "INSERT INTO papers_fts (papers_fts, rowid, title, abstract, authors) "
                "VALUES ('delete', ?, ?, ?, ?)",
                [(o[0], o[3], o[5], o[4]) for o, _ in updates],
            )
            sets = ", ".join(f"{c} = ?" for c in COLUMN_NAMES[1:])
            db.executemany(
                f"UPDATE papers SET {sets}, deleted = 0 WHERE rowid = ?",
                [(*n[1:], n[0]) for _, n in updates],
            )
            db.executemany(
                "INSERT INTO papers_fts (rowid, title, abstract, authors) VALUES (?, ?, ?, ?)",
                [(n[0], n[3], n[5], n[4]) for _, n in updates],
            )
            # a new title or abstract makes the paper's vector stale: `embed` makes it again
            stale = [(n[0],) for o, n in updates if (o[3], o[5]) != (n[3], n[5])]
            if stale:
                db.executemany("DELETE FROM vectors WHERE paper = ?", stale)
                self._vectors_changed()
        rows = [
            (a.category, a.date.isoformat(), existing[pid][0], a.kind, a.position)
            for pid, announced in listings.items()
            for a in announced
        ]
        # papers known only by their announcement day: new in the primary, cross in the others
        rowids = [existing[pid][0] for pid, p in unique.items() if p.announced]
        derived = [[rowid, categories[rowid]] for rowid in rowids]
        if derived:
            db.execute(_DERIVED_ANNOUNCEMENTS, (orjson.dumps(derived).decode(),))
        if rows:
            db.executemany(
                "INSERT INTO announcements (category, day, paper, kind, position) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (category, day, paper) DO UPDATE SET "
                "kind = CASE WHEN excluded.position IS NOT NULL THEN excluded.kind ELSE kind END, "
                "position = COALESCE(excluded.position, position)",
                rows,
            )
        return next_rowid

    def _vectors_changed(self) -> None:
        """Count changes to the set of live vectors, so indexes built from them can tell they are stale."""
        self._bump("vectors_changed")

    def _bump(self, key: str) -> None:
        self.db.execute(
            "INSERT INTO state (key, value) VALUES (?, '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
            (key,),
        )

    def _put_state(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO state (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def set_state(self, key: str, value: str) -> None:
        self._put_state(key, value)
        self._writes += 1

    def get_state(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # -- reads ----------------------------------------------------------------------------------
    def get(self, paper_id: str) -> Paper | None:
        row = self.db.execute(
            f"SELECT {_COLUMNS} FROM papers WHERE id = ? AND deleted = 0", (paper_id,)
        ).fetchone()
        return paper_from_row(row) if row else None

    def get_many(self, paper_ids: list[str]) -> list[Paper]:
        found = self._existing(paper_ids)
        return [found[i][1] for i in paper_ids if i in found]

    def data_version(self) -> int:
        return int(self.db.execute("PRAGMA data_version").fetchone()[0]) + self._writes

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM papers WHERE deleted = 0").fetchone()[0])

    def _category_clause(self, category: str) -> tuple[str, list[str]]:
        if is_exact_category(category):
            return "a.category = ?", [category]
        return "(a.category = ? OR a.category LIKE ?)", [category, f"{category}.%"]

    def listing(self, category: str, day: date) -> list[ListingEntry]:
        clause, args = self._category_clause(category)
        rows = self.db.execute(
            f"SELECT {_P_COLUMNS}, a.kind, a.position "
            f"FROM announcements a JOIN papers p ON p.rowid = a.paper "
            f"WHERE {clause} AND a.day = ? AND p.deleted = 0",
            [*args, day.isoformat()],
        ).fetchall()

        def order(row: Row) -> tuple[int, int, str]:  # kind, published position, id
            return (_KIND_ORDER[row[17]], row[18] if row[18] is not None else 1 << 30, row[1])

        # an archive-wide listing meets a paper once per subject class: keep its best appearance
        best: dict[int, Row] = {}
        for row in rows:
            if row[0] not in best or order(row) < order(best[row[0]]):
                best[row[0]] = row
        return [
            ListingEntry(paper_from_row(r), _as_kind(r[17]), r[18]) for r in sorted(best.values(), key=order)
        ]

    def announcement_days(self, category: str) -> list[date]:
        clause, args = self._category_clause(category)
        rows = self.db.execute(f"SELECT DISTINCT day FROM announcements a WHERE {clause} ORDER BY day", args)
        return [date.fromisoformat(r[0]) for r in rows]

    def listed_categories(self, day: date | None = None) -> list[tuple[str, int]]:
        if day is None:
            sql = "SELECT category, COUNT(*) FROM announcements GROUP BY category ORDER BY category"
            return [(r[0], int(r[1])) for r in self.db.execute(sql)]
        # the distinct categories by skipping along the primary key, then one key lookup each (no scan)
        rows = self.db.execute(
            "WITH RECURSIVE c(category) AS (SELECT MIN(category) FROM announcements UNION ALL "
            "SELECT (SELECT MIN(category) FROM announcements WHERE category > c.category) "
            "FROM c WHERE c.category IS NOT NULL) "
            "SELECT category, (SELECT COUNT(*) FROM announcements a JOIN papers p ON p.rowid = a.paper "
            "WHERE a.category = c.category AND a.day = ? AND p.deleted = 0) "
            "FROM c WHERE category IS NOT NULL ORDER BY category",
            [day.isoformat()],
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
        match = fts_query(query, author=filters.author, any_terms=any_terms, common=common)
        if match is None:
            return []
        where = ["papers_fts MATCH ?", "p.deleted = 0"]
        args: list[Any] = [match]
        category, since, until = filters.category, filters.since, filters.until
        if category:
            if is_exact_category(category):
                where.append("(' ' || p.categories || ' ') LIKE ?")
                args.append(f"% {category} %")
            else:
                where.append("((' ' || p.categories || ' ') LIKE ? OR p.categories LIKE ?)")
                args += [f"% {category}.%", f"{category} %"]
        day = "COALESCE(p.announced, p.published)"
        if since:
            where.append(f"{day} >= ?")
            args.append(since.isoformat())
        if until:
            where.append(f"{day} <= ?")
            args.append(until.isoformat())
        sql = (
            f"SELECT p.rowid, bm25(papers_fts, 10.0, 1.0, 3.0) AS score FROM papers_fts "
            f"JOIN papers p ON p.rowid = papers_fts.rowid WHERE {' AND '.join(where)} "
            f"ORDER BY score LIMIT ? OFFSET ?"
        )
        try:
            rows = self.db.execute(sql, [*args, k, offset]).fetchall()
        except sqlite3.OperationalError as e:
            raise StoreError(f"search failed for {query!r}: {e}") from e
        return [(int(rowid), -float(score)) for rowid, score in rows]

    def paper_ids_by_title(self, title: str) -> list[str]:
        """Stored papers whose title equals ``title`` up to case, spacing, punctuation and LaTeX braces."""
        words = re.findall(r"\w+", title)
        if not words:
            return []
        every = " ".join(f'"{w}"' for w in words)
        rows = self.db.execute(
            "SELECT p.id, p.title FROM papers_fts JOIN papers p ON p.rowid = papers_fts.rowid "
            "WHERE papers_fts MATCH ? AND p.deleted = 0 LIMIT 50",
            (f"title : ({every})",),
        )
        wanted = fold_title(title)
        return [str(pid) for pid, t in rows if fold_title(t) == wanted]

    def iter_papers(self, batch: int = 5000) -> Iterator[Paper]:
        """Every stored paper in id order (for exports, indexing and evaluation)."""
        for _, paper in self.iter_rows(batch):
            yield paper

    def iter_rows(self, batch: int = 5000, after: int = 0) -> Iterator[tuple[int, Paper]]:
        cursor = self.db.execute(
            f"SELECT {_COLUMNS} FROM papers WHERE deleted = 0 AND rowid > ? ORDER BY rowid", (after,)
        )
        while rows := cursor.fetchmany(batch):
            for row in rows:
                yield row[0], paper_from_row(row)

    def rowid(self, paper_id: str) -> int | None:
        row = self.db.execute("SELECT rowid FROM papers WHERE id = ? AND deleted = 0", (paper_id,)).fetchone()
        return int(row[0]) if row else None

    def by_rowids(self, rowids: Sequence[int]) -> dict[int, Paper]:
        found: dict[int, Paper] = {}
        for start in range(0, len(rowids), _BATCH):
            chunk = [int(r) for r in rowids[start : start + _BATCH]]
            rows = self.db.execute(
                f"SELECT {_COLUMNS} FROM papers WHERE rowid IN (SELECT value FROM json_each(?)) "
                "AND deleted = 0",
                (orjson.dumps(chunk).decode(),),
            )
            found.update((row[0], paper_from_row(row)) for row in rows)
        return found

    # -- vectors --------------------------------------------------------------------------------
    def vector_model(self) -> str | None:
        return self.get_state("vector_model")

    def reset_vectors(self, model: str) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM vectors")
            self._vectors_changed()
            self._put_state("vector_model", model)
            epoch = int(self.get_state("vector_epoch") or 0) + 1
            self._put_state("vector_epoch", str(epoch))  # tells indexes built before the reset apart

    def vector_count(self) -> int:
        return int(
            self.db.execute(
                "SELECT COUNT(*) FROM vectors v JOIN papers p ON p.rowid = v.paper WHERE p.deleted = 0"
            ).fetchone()[0]
        )

    def missing_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        rows = self.db.execute(
            "SELECT rowid, title, abstract FROM papers p WHERE deleted = 0 "
            "AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.paper = p.rowid) "
            "ORDER BY COALESCE(announced, published, '') DESC, rowid DESC LIMIT ?",
            (limit,),
        )
        return [(int(r), t, a) for r, t, a in rows]

    def put_vectors(self, rowids: Sequence[int], vectors: np.ndarray) -> None:
        data = np.ascontiguousarray(vectors, dtype=np.float16)
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO vectors (paper, vec) VALUES (?, ?)",
                ((int(r), data[i].tobytes()) for i, r in enumerate(rowids)),
            )
            self._vectors_changed()

    def iter_vectors(self, batch: int = 20_000, after: int = 0) -> Iterator[VectorBatch]:
        cursor = self.db.execute(
            "SELECT v.paper, v.vec FROM vectors v JOIN papers p ON p.rowid = v.paper "
            "WHERE p.deleted = 0 AND v.paper > ? ORDER BY v.paper",
            (after,),
        )
        while rows := cursor.fetchmany(batch):
            keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            vecs = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float16).reshape(len(rows), -1)
            yield VectorBatch(keys, vecs)


def _as_kind(kind: str) -> AnnounceKind:
    if kind not in _KIND_ORDER:
        raise StoreError(f"unknown announcement kind {kind!r}")
    return cast(AnnounceKind, kind)
