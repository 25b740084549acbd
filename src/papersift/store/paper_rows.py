"""Papers and listings, once for both SQL backends: ingest (``upsert``), harvest state, papers by id or
rowid, a day's listing, announcement days, listed categories and keyword ``match``.

``PaperTables`` is mixed into each backend's store. What the backends do differently stays behind hooks:
``_insert_papers`` (SQLite also writes its FTS5 index; PostgreSQL copies rows in), ``_unindex`` /
``_reindex`` around updates (each backend's keyword index), ``_writing`` (SQLite's mmap off during bulk
writes), ``_common_words`` (PostgreSQL's word statistics), ``_full_text`` (a keyword query found and ranked:
PostgreSQL's BM25 reads the store's counts) and the dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import date
from typing import Any, cast

import orjson

from papersift.records.analyzer import fold_title, words
from papersift.records.paper import (
    ANNOUNCE_KINDS,
    AnnounceKind,
    Announcement,
    Deleted,
    Paper,
    Parsed,
    RecordError,
    is_exact_category,
)
from papersift.records.query import ParsedQuery
from papersift.records.schedule import derive_announced
from papersift.records.venues import venue_filter
from papersift.store import PAPERS_CHANGED, Filters, IngestCounts, ListingEntry, StoreError
from papersift.store.fts_query import keyword_query
from papersift.store.rows import (
    COLUMN,
    COLUMN_NAMES,
    Row,
    as_date,
    merge,
    paper_from_row,
    paper_row,
    validate,
    validate_id,
    write_alone_on_failure,
)
from papersift.store.sql import FullText, NamedRow, SqlBase, Tx

COLUMNS = ", ".join(COLUMN_NAMES)
P_COLUMNS = ", ".join(f"p.{c}" for c in COLUMN_NAMES)  # the same, from ``papers p`` in a join
BATCH = 2000
_KIND_ORDER: dict[str, int] = {k: i for i, k in enumerate(ANNOUNCE_KINDS)}
_TEXT = (COLUMN["title"], COLUMN["abstract"])  # a change to these makes a paper's vector stale
NO_FILTERS = Filters()


def announced_in(category: str) -> tuple[str, list[Any]]:
    """Announcements in ``category``: a class, or every class of an archive (``category`` sorts bytewise:
    'cs.' <= any 'cs.*' < 'cs/')."""
    if is_exact_category(category):
        return "a.category = ?", [category]
    return "(a.category = ? OR (a.category >= ? AND a.category < ?))", [
        category,
        f"{category}.",
        f"{category}/",
    ]


def _as_kind(kind: str) -> AnnounceKind:
    if kind not in _KIND_ORDER:
        raise StoreError(f"unknown announcement kind {kind!r}")
    return cast(AnnounceKind, kind)


class PaperTables(SqlBase):
    """Papers, announcements and state over a backend's connection and dialect."""

    # -- backend hooks ----------------------------------------------------------------------------
    def _insert_papers(self, tx: Tx, rows: list[Row]) -> None:
        placeholders = ", ".join("?" * len(COLUMN_NAMES))
        tx.executemany(f"INSERT INTO papers ({COLUMNS}) VALUES ({placeholders})", rows)

    def _unindex(self, tx: Tx, rows: list[Row]) -> None:
        """Before ``rows`` (as stored) are overwritten."""

    def _reindex(self, tx: Tx, rows: list[Row]) -> None:
        """After ``rows`` were written over older ones."""

    def _writing(self) -> AbstractContextManager[object]:
        """Around a bulk write."""
        return nullcontext()

    def _common_words(self, query: str) -> Callable[[str], bool] | None:
        """Words of ``query`` the backend's ranking leaves out of any-word queries (None: none)."""
        return None

    def _full_text(self, query: ParsedQuery) -> FullText:
        """``query`` (searchable, in the keyword index's tokens) as the backend finds and ranks it: the
        dialect's ``full_text``, or, where ranking needs the store's counts (PostgreSQL's BM25), the
        store's own."""
        return self.dialect.full_text(query)

    def _link_arrivals(self, tx: Tx, papers: list[tuple[int, Paper]]) -> None:
        """After papers were written: link them to the venue records they are (``store/venue_rows.py``,
        which comes before this class in ``StoreTables``)."""

    # -- writes -----------------------------------------------------------------------------------
    def upsert(self, items: Iterable[Parsed], *, state: Mapping[str, str] | None = None) -> IngestCounts:
        counts = IngestCounts()
        with self._writing(), self._tx() as tx:
            next_rowid = int(
                tx.execute("SELECT COALESCE(MAX(rowid), 0) + 1 AS n FROM papers").fetchone()["n"]
            )
            batch: list[Paper] = []
            for item in items:
                if isinstance(item, RecordError):
                    counts.failed += 1
                    counts.errors.append(item)
                elif isinstance(item, Deleted) and (problem := validate_id(item.id)):
                    counts.failed += 1
                    counts.errors.append(RecordError(item.source, "?", problem))
                elif isinstance(item, Deleted):
                    gone = tx.execute(
                        "UPDATE papers SET deleted = TRUE WHERE id = ? AND NOT deleted", (item.id,)
                    ).rowcount
                    if gone:
                        counts.deleted += gone
                        self._bump(tx, "vectors_changed")
                else:
                    problem = validate(item)
                    if problem is None and (clean := self.dialect.storable(item)) is not item:
                        item, problem = clean, validate(clean)
                    if problem:
                        counts.failed += 1
                        counts.errors.append(RecordError(item.source, item.id or "?", problem))
                        continue
                    batch.append(item)
                    if len(batch) >= BATCH:
                        next_rowid = self._write_isolated(tx, batch, next_rowid, counts)
                        batch = []
            if batch:
                self._write_isolated(tx, batch, next_rowid, counts)
            for key, value in (state or {}).items():
                self._put_state(tx, key, value)
            if counts.total > counts.failed:  # what listings and indexes depend on: see ``papers_version``
                self._bump(tx, PAPERS_CHANGED)
        return counts

    def _existing(self, tx: Tx, ids: list[str]) -> dict[str, tuple[int, Paper]]:
        found: dict[str, tuple[int, Paper]] = {}
        for start in range(0, len(ids), BATCH):
            chunk = ids[start : start + BATCH]
            where, arg = self.dialect.one_of("id", chunk)
            rows = tx.execute(f"SELECT {COLUMNS} FROM papers WHERE {where}", (arg,)).fetchall()
            found.update((row["id"], (row["rowid"], paper_from_row(row))) for row in rows)
        return found

    def _write_isolated(self, tx: Tx, batch: list[Paper], next_rowid: int, counts: IngestCounts) -> int:
        return write_alone_on_failure(
            batch,
            next_rowid,
            counts,
            lambda part, rowid, c: self._write_batch(tx, part, rowid, c),
            self._savepoint,
            self.dialect.is_data_error,
        )

    def _write_batch(self, tx: Tx, batch: list[Paper], next_rowid: int, counts: IngestCounts) -> int:
        # one record per id within the batch: fold duplicates first
        unique: dict[str, Paper] = {}
        listings: dict[str, list[Announcement]] = {}
        for p in batch:
            p.announced = derive_announced(p)
            if p.listings:
                listings.setdefault(p.id, []).extend(p.listings)
            unique[p.id] = merge(unique[p.id], p) if p.id in unique else p
        existing = self._existing(tx, list(unique))
        inserts: list[Row] = []
        updates: list[tuple[Row, Row]] = []  # (old row, new row)
        written: dict[str, Row] = {}  # each paper's row as stored after this batch
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
                new_row = paper_row(next_rowid, paper)
                inserts.append(new_row)
                next_rowid += 1
                counts.new += 1
            written[pid] = new_row
        if inserts:
            self._insert_papers(tx, inserts)
        if updates:
            self._unindex(tx, [o for o, _ in updates])
            sets = ", ".join(f"{c} = ?" for c in COLUMN_NAMES[1:])
            tx.executemany(
                f"UPDATE papers SET {sets}, deleted = FALSE WHERE rowid = ?",
                [(*n[1:], n[0]) for _, n in updates],
            )
            self._reindex(tx, [n for _, n in updates])
            # a new title or abstract makes the paper's vector stale: `embed` makes it again
            stale = [n[0] for o, n in updates if [o[i] for i in _TEXT] != [n[i] for i in _TEXT]]
            if stale and self._delete_vectors(tx, stale):
                self._bump(tx, "vectors_changed")
        # papers known only by their announcement day: new in the primary, cross in the others, from the
        # categories and day as stored (a listing row a source gave wins over a derived one)
        derived = [
            (category, row[COLUMN["announced"]], row[0], "new" if n == 0 else "cross", None)
            for pid, row in written.items()
            if unique[pid].announced and row[COLUMN["announced"]]
            for n, category in enumerate(row[COLUMN["categories"]].split())
        ]
        if derived:  # one statement for the batch (orjson makes the JSON, never string pasting)
            source = self.dialect.json_rows(("text", "date", "bigint", "text", "integer"))
            tx.execute(
                "INSERT INTO announcements (category, day, paper, kind, position) "
                f"SELECT c0, c1, c2, c3, c4 FROM ({source}) r WHERE true "
                "ON CONFLICT (category, day, paper) DO NOTHING",
                (orjson.dumps(derived).decode(),),
            )
        rows = [
            (a.category, a.date.isoformat(), written[pid][0], a.kind, a.position)
            for pid, announced in listings.items()
            for a in announced
        ]
        if rows:
            tx.executemany(
                "INSERT INTO announcements AS a (category, day, paper, kind, position) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (category, day, paper) DO UPDATE SET "
                "kind = CASE WHEN excluded.position IS NOT NULL THEN excluded.kind ELSE a.kind END, "
                "position = COALESCE(excluded.position, a.position)",
                rows,
            )
        self._link_arrivals(tx, [(row[0], unique[pid]) for pid, row in written.items()])
        return next_rowid

    def _delete_vectors(self, tx: Tx, rowids: list[int]) -> int:
        where, arg = self.dialect.one_of("paper", rowids)
        return tx.execute(f"DELETE FROM vectors WHERE {where}", (arg,)).rowcount

    def _bump(self, tx: Tx, key: str) -> None:
        """Count a change (``papers_changed``, ``vectors_changed``: indexes built before can tell)."""
        tx.execute(
            "INSERT INTO state (key, value) VALUES (?, '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(state.value AS BIGINT) + 1 AS TEXT)",
            (key,),
        )

    def _put_state(self, tx: Tx, key: str, value: str) -> None:
        tx.execute(
            "INSERT INTO state (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def set_state(self, key: str, value: str) -> None:
        with self._tx() as tx:
            self._put_state(tx, key, value)

    def get_state(self, key: str) -> str | None:
        row = self._one("SELECT value FROM state WHERE key = ?", (key,))
        return str(row["value"]) if row else None

    # -- reads ------------------------------------------------------------------------------------
    def get(self, paper_id: str) -> Paper | None:
        row = self._one(f"SELECT {COLUMNS} FROM papers WHERE id = ? AND NOT deleted", (paper_id,))
        return paper_from_row(row) if row else None

    def _live(self, column: str, values: Sequence[Any]) -> Iterator[NamedRow]:
        """The papers not deleted whose ``column`` is one of ``values``, in chunks."""
        for start in range(0, len(values), BATCH):
            where, arg = self.dialect.one_of(column, values[start : start + BATCH])
            yield from self._rows(f"SELECT {COLUMNS} FROM papers WHERE {where} AND NOT deleted", (arg,))

    def get_many(self, paper_ids: list[str]) -> list[Paper]:
        found = {row["id"]: paper_from_row(row) for row in self._live("id", paper_ids)}
        return [found[i] for i in paper_ids if i in found]

    def count(self) -> int:
        row = self._one("SELECT COUNT(*) AS n FROM papers WHERE NOT deleted")
        return int(row["n"]) if row else 0

    def listing(self, category: str, day: date) -> list[ListingEntry]:
        clause, args = announced_in(category)
        rows = self._rows(
            f"SELECT {P_COLUMNS}, a.kind, a.position "
            f"FROM announcements a JOIN papers p ON p.rowid = a.paper "
            f"WHERE {clause} AND a.day = ? AND NOT p.deleted",
            [*args, day.isoformat()],
        )

        def order(row: NamedRow) -> tuple[int, int, str]:  # kind, published position, id
            position = row["position"]
            return (_KIND_ORDER[row["kind"]], position if position is not None else 1 << 30, row["id"])

        # an archive-wide listing meets a paper once per subject class: keep its best appearance
        best: dict[int, NamedRow] = {}
        for row in rows:
            rowid = row["rowid"]
            if rowid not in best or order(row) < order(best[rowid]):
                best[rowid] = row
        return [
            ListingEntry(paper_from_row(r), _as_kind(r["kind"]), r["position"])
            for r in sorted(best.values(), key=order)
        ]

    def announcement_days(self, category: str) -> list[date]:
        clause, args = announced_in(category)
        rows = self._rows(f"SELECT DISTINCT day FROM announcements a WHERE {clause} ORDER BY day", args)
        return [d for r in rows if (d := as_date(r["day"])) is not None]

    def latest_new_day(self, category: str) -> date | None:
        clause, args = announced_in(category)
        rows = self._rows(
            f"SELECT MAX(day) AS day FROM announcements a WHERE {clause} AND a.kind = 'new'", args
        )
        return as_date(rows[0]["day"]) if rows else None

    def listed_categories(self, day: date | None = None) -> list[tuple[str, int]]:
        if day is None:
            sql = "SELECT category, COUNT(*) AS n FROM announcements GROUP BY category ORDER BY category"
            return [(r["category"], int(r["n"])) for r in self._rows(sql)]
        # the distinct categories by skipping along the primary key, then one key lookup each (no scan)
        rows = self._rows(
            "WITH RECURSIVE c(category) AS (SELECT MIN(category) FROM announcements UNION ALL "
            "SELECT (SELECT MIN(category) FROM announcements WHERE category > c.category) "
            "FROM c WHERE c.category IS NOT NULL) "
            "SELECT category, (SELECT COUNT(*) FROM announcements a JOIN papers p ON p.rowid = a.paper "
            "WHERE a.category = c.category AND a.day = ? AND NOT p.deleted) AS n "
            "FROM c WHERE category IS NOT NULL ORDER BY category",
            [day.isoformat()],
        )
        return [(r["category"], int(r["n"])) for r in rows]

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
        if any_terms:
            own, given = self._common_words(query), common
            if own is not None:
                common = own if given is None else (lambda word: own(word) or given(word))
        parsed = keyword_query(query, author=filters.author, any_terms=any_terms, common=common)
        if not parsed.searchable:
            return []
        fts = self._full_text(parsed)
        where = [fts.where, "NOT p.deleted"]
        args: list[Any] = [fts.arg]
        if filters.category:
            clause, more = self.dialect.category_filter("p.categories", filters.category)
            where.append(clause)
            args += more
        if filters.venue:
            slug, year = venue_filter(filters.venue)
            where.append(
                "p.id IN (SELECT v.paper FROM venue_records v WHERE v.slug = ?"
                + (")" if year is None else " AND v.year = ?)")
            )
            args += [slug] if year is None else [slug, year]
        if filters.since:
            where.append("COALESCE(p.announced, p.published) >= ?")
            args.append(filters.since.isoformat())
        if filters.until:
            where.append("COALESCE(p.announced, p.published) <= ?")
            args.append(filters.until.isoformat())
        sql = (
            f"SELECT p.rowid AS rowid, {fts.score} AS score FROM {fts.source} "
            f"WHERE {' AND '.join(where)} ORDER BY {fts.order} LIMIT ? OFFSET ?"
        )
        try:
            rows = self._rows(sql, [*args, k, offset])
        except self.dialect.query_errors as e:
            raise StoreError(f"search failed for {query!r}: {e}") from e
        return [(int(r["rowid"]), fts.sign * float(r["score"])) for r in rows]

    def paper_ids_by_title(self, title: str) -> list[str]:
        """Stored papers whose title equals ``title`` up to case, accents, spacing, punctuation and LaTeX
        braces."""
        title_words = words(title)
        if not title_words:
            return []
        # every word in the title finds the candidates; the folded titles decide
        fts = self.dialect.title_words(title_words)
        rows = self._rows(
            f"SELECT p.id AS id, p.title AS title FROM {fts.source} WHERE {fts.where} AND NOT p.deleted "
            "LIMIT 200",
            (fts.arg,),
        )
        wanted = fold_title(title)
        return [str(r["id"]) for r in rows if fold_title(r["title"]) == wanted]

    def paper_id_by_doi(self, doi: str) -> str | None:
        row = self._one(
            "SELECT id FROM papers WHERE doi IS NOT NULL AND lower(doi) = ? AND NOT deleted "
            "ORDER BY rowid LIMIT 1",
            (doi.lower(),),
        )
        return str(row["id"]) if row else None

    def iter_papers(self, batch: int = 5000) -> Iterator[Paper]:
        """Every stored paper in rowid order (for exports, indexing and evaluation)."""
        for _, paper in self.iter_rows(batch):
            yield paper

    def iter_rows(self, batch: int = 5000, after: int = 0) -> Iterator[tuple[int, Paper]]:
        while rows := self._rows(
            f"SELECT {COLUMNS} FROM papers WHERE NOT deleted AND rowid > ? ORDER BY rowid LIMIT ?",
            (after, batch),
        ):
            for row in rows:
                yield row["rowid"], paper_from_row(row)
            after = rows[-1]["rowid"]

    def rowid(self, paper_id: str) -> int | None:
        row = self._one("SELECT rowid FROM papers WHERE id = ? AND NOT deleted", (paper_id,))
        return int(row["rowid"]) if row else None

    def by_rowids(self, rowids: Sequence[int]) -> dict[int, Paper]:
        return {row["rowid"]: paper_from_row(row) for row in self._live("rowid", [int(r) for r in rowids])}
