"""Moving an install from SQLite to PostgreSQL without loss: every table copied row for row, then checked.

The PostgreSQL schema mirrors the SQLite one column for column, so each table is read from the SQLite file
in key order and streamed into the server with COPY, in one transaction (a failed run leaves the target as
it was). Deleted papers, rowids, announcements with their positions, every state key and every vector
travel as they are. At the end each table's rows are read back from both sides in one canonical form (the
SQLite one) and compared by count and by an order-independent checksum.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pgvector import HalfVector

from papersift.records.messages import say
from papersift.store import StoreError
from papersift.store.postgres import PostgresStore
from papersift.store.rows import COLUMN_NAMES, DIGEST_COLUMNS, ENTRY_COLUMNS
from papersift.store.sqlite import SqliteStore
from papersift.store.venue_rows import VENUE_COLUMNS

Row = tuple[Any, ...]
Progress = Callable[[str, int], None]  # (table, rows just copied)


def _day(column: str) -> str:
    return f"to_char({column}, 'YYYY-MM-DD')"


def _halfvec(row: Row) -> Row:
    return (row[0], HalfVector(np.frombuffer(row[1], dtype=np.float16)))


def _vector_bytes(row: Row) -> Row:
    return (row[0], row[1].to_numpy().astype("<f2").tobytes())


@dataclass(frozen=True)
class Table:
    """One table: its columns, how PostgreSQL gives them back in SQLite's form, and row conversions."""

    name: str
    columns: tuple[str, ...]
    order: str
    target: dict[str, str] = field(default_factory=dict)  # column -> PostgreSQL expression in SQLite form
    to_target: Callable[[Row], Row] | None = None  # a SQLite row -> the values COPY takes
    from_target: Callable[[Row], Row] | None = None  # a PostgreSQL row -> SQLite's form

    def source_sql(self) -> str:
        return f"SELECT {', '.join(self.columns)} FROM {self.name} ORDER BY {self.order}"

    def target_sql(self) -> str:
        return f"SELECT {', '.join(self.target.get(c, c) for c in self.columns)} FROM {self.name}"


TABLES: tuple[Table, ...] = (
    Table(
        "papers",
        (*COLUMN_NAMES, "deleted"),
        "rowid",
        {**{c: _day(c) for c in ("published", "updated", "announced")}, "deleted": "deleted::int"},
    ),
    Table(
        "announcements",
        ("category", "day", "paper", "kind", "position"),
        "paper, category, day",
        {"day": _day("day")},
    ),
    Table("state", ("key", "value"), "key"),
    Table("vectors", ("paper", "vec"), "paper", to_target=_halfvec, from_target=_vector_bytes),
    Table(
        "readers",
        ("id", "name", "password_hash", "feed_token", "email", "created", "interests", "counted"),
        "id",
    ),
    Table("sessions", ("token_hash", "reader", "expires"), "token_hash"),
    Table("login_failures", ("name", "address", "at"), "name, at"),
    Table("library", ("reader", *(c.strip() for c in ENTRY_COLUMNS.split(","))), "reader, key"),
    Table("tags", ("reader", "key", "tag"), "reader, key, tag"),
    Table("digests", tuple(c.strip() for c in DIGEST_COLUMNS.split(",")), "id"),
    Table("llm_usage", ("day", "model", "calls", "prompt_tokens", "completion_tokens"), "day, model"),
    Table("llm_failures", ("at", "model", "reason"), "at, model, reason"),
    Table(
        "readings",
        (
            "paper_id",
            "version",
            "model",
            "prompt",
            "lang",
            "kind",
            "state",
            "text",
            "error",
            "claimed",
            "made",
        ),
        "paper_id, version, model, prompt, lang, kind",
    ),
    Table(
        "fulltexts",
        ("paper_id", "version", "state", "source", "sections", "words", "size", "body", "error", "fetched"),
        "paper_id, version",
    ),
    Table(
        "paper_references",
        (
            "paper_id",
            "position",
            "version",
            "key",
            "text",
            "arxiv_id",
            "doi",
            "title",
            "year",
            "url",
            "resolved",
        ),
        "paper_id, position",
    ),
    Table("code_links", ("paper_id", "position", "url", "kind", "own"), "paper_id, position"),
    Table("citation_counts", ("paper_id", "citations", "refs", "s2_id", "day"), "paper_id"),
    Table("seen", ("reader", "paper_id", "how", "at", "day"), "reader, paper_id, how"),
    Table("reader_settings", ("reader", "name", "value"), "reader, name"),
    Table("venue_records", VENUE_COLUMNS, "slug, year, key"),
    Table("venue_imports", ("slug", "year", "venue", "file", "imported"), "slug, year"),
    Table(
        "listing_days",
        ("category", "day", "source", "papers", "fetched"),
        "day, category, source",
        {"day": _day("day")},
    ),
)
IDENTITIES = ("readers", "digests")  # tables whose ``id`` the server numbers: continue after the copied ones


@dataclass(frozen=True, slots=True)
class TableCheck:
    """One table's rows and checksum on each side after the copy."""

    table: str
    source_rows: int
    target_rows: int
    source_sum: str
    target_sum: str

    @property
    def ok(self) -> bool:
        return self.source_rows == self.target_rows and self.source_sum == self.target_sum


def row_hash(row: Row) -> int:
    """A 64-bit hash of one canonical row (its repr: str, int, float, None and bytes are exact)."""
    return int.from_bytes(hashlib.blake2b(repr(row).encode(), digest_size=8).digest(), "little")


def checksum(rows: Iterator[Row]) -> tuple[int, str]:
    """(count, order-independent checksum): the sum of the rows' hashes modulo 2**64, in hex."""
    n = total = 0
    for row in rows:
        n += 1
        total = (total + row_hash(row)) % (1 << 64)
    return n, f"{total:016x}"


def source_counts(source: SqliteStore) -> dict[str, int]:
    return {t.name: int(source.db.execute(f"SELECT COUNT(*) FROM {t.name}").fetchone()[0]) for t in TABLES}


def _source_rows(source: SqliteStore, table: Table, batch: int) -> Iterator[list[Row]]:
    cursor = source.db.execute(table.source_sql())
    while rows := cursor.fetchmany(batch):
        yield [tuple(r) for r in rows]


def _target_rows(target: PostgresStore, table: Table, batch: int) -> Iterator[Row]:
    with target.conn.transaction(), target.conn.cursor(name=f"check_{table.name}") as cur:
        cur.itersize = batch
        cur.execute(table.target_sql())
        for row in cur:
            yield table.from_target(row) if table.from_target else tuple(row)


def copy_store(
    source: SqliteStore,
    target: PostgresStore,
    *,
    force: bool = False,
    batch: int = 5000,
    progress: Progress | None = None,
) -> None:
    """Copy every table of ``source`` into ``target`` in one transaction.

    A target that already holds rows is refused (``StoreError``) unless ``force``, which empties it first.
    """
    names = ", ".join(t.name for t in TABLES)
    held = [
        t.name
        for t in TABLES
        if target.conn.execute(f"SELECT EXISTS (SELECT 1 FROM {t.name})").fetchone() == (True,)
    ]
    if held and not force:
        raise StoreError(say("store_target_full", held=", ".join(held)))
    with target.transaction() as cur:
        cur.execute(f"TRUNCATE {names}")
        cur.execute("ALTER TABLE vectors ALTER COLUMN vec TYPE halfvec")  # any dimension, fixed below
        for table in TABLES:
            columns = ", ".join(table.columns)
            for rows in _source_rows(source, table, batch):
                with cur.copy(f"COPY {table.name} ({columns}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(table.to_target(row) if table.to_target else row)
                if progress:
                    progress(table.name, len(rows))
        target.index_keywords(cur)  # written in Python from the copied papers (store/postgres.py)
        for name in IDENTITIES:
            cur.execute(
                f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), COALESCE(MAX(id), 0) + 1, false) "
                f"FROM {name}"
            )
    target.fix_vector_dimension()
    target.conn.execute("ANALYZE")


def verify(source: SqliteStore, target: PostgresStore, *, batch: int = 5000) -> list[TableCheck]:
    """Count and checksum every table on both sides, in SQLite's form."""
    checks = []
    for table in TABLES:
        n_source, sum_source = checksum(r for rows in _source_rows(source, table, batch) for r in rows)
        n_target, sum_target = checksum(_target_rows(target, table, batch))
        checks.append(TableCheck(table.name, n_source, n_target, sum_source, sum_target))
    return checks
