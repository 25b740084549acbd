"""Rows ↔ records, shared by the SQL backends: the papers table's columns, how a stored row (read by
column name) becomes a ``Paper`` and back, the merge rule for a paper seen twice, record validation, and
the reader rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import fields
from datetime import UTC, date, datetime
from typing import Any, TypeVar

import orjson

from papersift.records.messages import restored
from papersift.records.paper import ANNOUNCE_KINDS, Paper, RecordError, Version, clean_text
from papersift.records.venues import is_venue_id
from papersift.store import IngestCounts, StoreError
from papersift.store.records import RATINGS, Account, Digest, LibraryEntry
from papersift.store.sql import NamedRow

Row = tuple[Any, ...]  # a row to write, in ``COLUMN_NAMES`` order
R = TypeVar("R")

COLUMN_NAMES = [
    "rowid",
    "id",
    "version",
    "title",
    "authors",
    "abstract",
    "categories",
    "primary_category",
    "comments",
    "journal_ref",
    "doi",
    "license",
    "versions",
    "published",
    "updated",
    "announced",
    "source",
]
COLUMN = {name: i for i, name in enumerate(COLUMN_NAMES)}  # a written row's columns by name


def _iso(d: date | None) -> str | None:
    return d.isoformat() if d else None


def as_date(value: date | str | None) -> date | None:
    """A stored day: ISO text in SQLite, a DATE in PostgreSQL."""
    if value is None or isinstance(value, date):
        return value
    return date.fromisoformat(value) if value else None


def _versions_json(versions: Sequence[Version]) -> str:
    return orjson.dumps(
        [[v.version, v.submitted.isoformat() if v.submitted else None, v.size] for v in versions]
    ).decode()


def _versions(text: str) -> list[Version]:
    return [Version(v, datetime.fromisoformat(t) if t else None, s) for v, t, s in orjson.loads(text)]


def _record(kind: Callable[..., R], row: NamedRow, names: Iterable[str], **read: Callable[[Any], Any]) -> R:
    """A record of ``row``'s columns ``names`` (read by name), each the field of the same name, through
    ``read``'s function where it names one."""
    return kind(**{n: read[n](row[n]) if n in read else row[n] for n in names})


_PAPER_FIELDS = [n for n in COLUMN_NAMES if n not in ("rowid", "primary_category")]  # Paper's but listings


def paper_from_row(row: NamedRow) -> Paper:
    """Rebuild a Paper from a row of the papers table's columns, read by name."""
    return _record(
        Paper,
        row,
        _PAPER_FIELDS,
        authors=orjson.loads,
        categories=str.split,
        versions=_versions,
        published=as_date,
        updated=as_date,
        announced=as_date,
    )


def paper_row(rowid: int, p: Paper) -> Row:
    return (
        rowid,
        p.id,
        p.version,
        p.title,
        orjson.dumps(p.authors).decode(),
        p.abstract,
        " ".join(p.categories),
        p.primary_category,
        p.comments,
        p.journal_ref,
        p.doi,
        p.license,
        _versions_json(p.versions),
        _iso(p.published),
        _iso(p.updated),
        _iso(p.announced),
        p.source,
    )


def _min(a: date | None, b: date | None) -> date | None:
    return min(a, b) if a and b else a or b


def _max(a: date | None, b: date | None) -> date | None:
    return max(a, b) if a and b else a or b


def merge(old: Paper, new: Paper) -> Paper:
    """Combine two records of one paper: the newer version's metadata, the earliest announcement.

    The record of the higher version wins; at the same version, the one updated later; otherwise the
    stored one stays (so re-reading the same files is a no-op). Fields the winner lacks (an RSS item has
    no comments, say) are filled from the other.
    """

    def rank(p: Paper) -> tuple[int, date]:
        return (p.version or 0, p.updated or date.min)

    newer, other = (new, old) if rank(new) > rank(old) else (old, new)
    by_version = {v.version: v for v in other.versions}
    for v in newer.versions:
        if v.submitted is not None or v.version not in by_version:
            by_version[v.version] = v
    return Paper(
        id=old.id,
        title=newer.title or other.title,
        authors=newer.authors or other.authors,
        abstract=newer.abstract or other.abstract,
        categories=newer.categories or other.categories,
        version=newer.version or other.version,
        comments=newer.comments or other.comments,
        journal_ref=newer.journal_ref or other.journal_ref,
        doi=newer.doi or other.doi,
        license=newer.license or other.license,
        versions=[by_version[k] for k in sorted(by_version)],
        published=_min(old.published, new.published),
        updated=_max(old.updated, new.updated),
        announced=_min(old.announced, new.announced),
        source=newer.source or other.source,
    )


_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,63}")
_CATEGORY = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,39}")  # cs.LG, hep-th, cond-mat.stat-mech
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_TEXT = 5_000_000  # characters in one field: a megabyte abstract is fine, a runaway file is not
MAX_AUTHORS = 20_000  # the largest collaborations list a few thousand


def _text_problem(name: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        return f"{name} is a {type(value).__name__}, not text"
    if len(value) > MAX_TEXT:
        return f"{name} is {len(value):,} characters (at most {MAX_TEXT:,})"
    if not value.isascii() and _SURROGATE.search(value):
        return f"{name} holds a lone surrogate (not valid Unicode)"
    return None


def validate_id(pid: object) -> str | None:
    """Why ``pid`` cannot be a stored paper's id, or None."""
    if not pid or not isinstance(pid, str):
        return "no arXiv id"
    if not _ID.fullmatch(pid):
        return f"not an arXiv id: {pid[:40]!r}"
    return None


def validate(item: Paper) -> str | None:
    """Why a record cannot be stored (it is then reported and skipped alone), or None.

    Every field is checked for what the databases or the pages would choke on: types, lone surrogates,
    runaway sizes, and categories that are not ``archive[.class]`` words (they go into JSON, SQL arrays and
    URLs)."""
    problem = validate_id(item.id)
    if problem:
        return problem
    if not isinstance(item.title, str) or not clean_text(item.title):
        return f"{item.id}: no title"
    if not isinstance(item.categories, list) or (not item.categories and not is_venue_id(item.id)):
        return f"{item.id}: no categories"  # a venue paper (records/venues.py) has none
    for category in item.categories:
        if not isinstance(category, str) or not _CATEGORY.fullmatch(category):
            return f"{item.id}: malformed category {str(category)[:40]!r}"
    if not isinstance(item.authors, list) or len(item.authors) > MAX_AUTHORS:
        return f"{item.id}: authors must be a list of at most {MAX_AUTHORS:,} names"
    if item.version is not None and (type(item.version) is not int or not 0 < item.version < 100_000):
        return f"{item.id}: malformed version {str(item.version)[:20]!r}"
    for v in item.versions:
        if type(v.version) is not int or not 0 < v.version < 100_000:
            return f"{item.id}: malformed version {str(v.version)[:20]!r}"
        if not (v.submitted is None or isinstance(v.submitted, datetime)):
            return f"{item.id}: malformed date of version {v.version}"
        if (problem := _text_problem("a version's size", v.size)) is not None:
            return f"{item.id}: {problem}"
    fields = ("title", "abstract", "comments", "journal_ref", "doi", "license", "source")
    named = [(name, getattr(item, name)) for name in fields] + [("an author", a) for a in item.authors]
    for name, value in named:
        if (problem := _text_problem(name, value)) is not None:
            return f"{item.id}: {problem}"
    for day in (item.published, item.updated, item.announced):
        if not (day is None or isinstance(day, date)):
            return f"{item.id}: malformed date {str(day)[:20]!r}"
    for a in item.listings:
        if not isinstance(a.category, str) or not _CATEGORY.fullmatch(a.category):
            return f"{item.id}: malformed listing category {str(a.category)[:40]!r}"
        if a.kind not in ANNOUNCE_KINDS or not isinstance(a.date, date):
            return f"{item.id}: malformed listing ({str(a.kind)[:20]!r} on {str(a.date)[:20]!r})"
        if a.position is not None and (type(a.position) is not int or not 0 < a.position < 1_000_000):
            return f"{item.id}: malformed listing position {str(a.position)[:20]!r}"
    return None


def write_alone_on_failure(
    batch: list[Paper],
    next_rowid: int,
    counts: IngestCounts,
    write: Callable[[list[Paper], int, IngestCounts], int],
    savepoint: Callable[[], AbstractContextManager[object]],
    is_data_error: Callable[[Exception], bool],
) -> int:
    """Write ``batch`` (``write`` returns the next free rowid) inside a savepoint. When the database refuses
    it for its data (``is_data_error``), roll it back and write each record alone, each in its own savepoint:
    the record that fails is reported in ``counts`` and skipped, and the rest of the chunk is kept. Any other
    error (disk full, lost connection) is raised."""
    trial = IngestCounts()
    try:
        with savepoint():
            next_rowid = write(batch, next_rowid, trial)
    except Exception as e:
        if not is_data_error(e):
            raise
        if len(batch) > 1:
            for paper in batch:
                next_rowid = write_alone_on_failure(
                    [paper], next_rowid, counts, write, savepoint, is_data_error
                )
            return next_rowid
        reason = " ".join(str(e).split())[:200]
        counts.failed += 1
        counts.errors.append(RecordError(batch[0].source, batch[0].id, f"cannot be stored: {reason}"))
        return next_rowid
    counts.add(trial)
    return next_rowid


ENTRY_COLUMNS = (
    "key, paper_id, title, authors, abstract, year, doi, url, venue, note, rating, read, added, source, "
    "volume, issue, pages"
)
DIGEST_COLUMNS = "id, reader, day, channel, subject, text, html, sent, attempts, error, papers"


def now() -> datetime:
    return datetime.now(UTC)


def parse_ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


_ACCOUNT_FIELDS = [f.name for f in fields(Account)]


def _json_tuple(text: str) -> tuple[Any, ...]:
    return tuple(orjson.loads(text))


def account_from_row(row: NamedRow) -> Account:
    return _record(Account, row, _ACCOUNT_FIELDS, created=parse_ts)


def digest_from_row(row: NamedRow) -> Digest:
    return _record(
        Digest,
        row,
        DIGEST_COLUMNS.split(", "),
        day=date.fromisoformat,
        sent=parse_ts,
        papers=_json_tuple,
        error=lambda error: error and restored(error),  # kept as data (records/messages.stored)
    )


def entry_from_row(r: NamedRow) -> LibraryEntry:
    """A ``library`` row (``ENTRY_COLUMNS``, and ``tags`` as a JSON text array) as a record."""
    return _record(
        LibraryEntry,
        r,
        [*ENTRY_COLUMNS.split(", "), "tags"],
        authors=_json_tuple,
        read=bool,
        added=parse_ts,
        tags=_json_tuple,
    )


def check_rating(rating: int) -> int:
    if rating not in RATINGS:
        raise StoreError(f"a rating is -1, 0 or +1, not {rating!r}")
    return rating
