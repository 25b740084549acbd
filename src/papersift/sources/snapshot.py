"""Metadata snapshots as JSON lines: Kaggle's ``arxiv-metadata-oai-snapshot.json`` layout and papersift's
own (``{id, title, abstract, authors: [..], categories: [..], published, updated, announced}``), told apart
per record. This is the bulk-load path, so it does the least work per line that keeps records exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import IO, Any

import orjson

from papersift.records import paper
from papersift.records.paper import InvalidIdError, Paper, Parsed, RecordError, Version


def _date(value: Any) -> date | None:
    if not value:
        return None
    if not isinstance(value, str):
        raise ValueError(f"a date must be text, not {type(value).__name__}")
    return date.fromisoformat(value[:10])


def _text(value: Any) -> str | None:
    return paper.clean_text(value) or None if isinstance(value, str) else None


def _strings(value: Any, name: str) -> list[str]:
    """A JSON list of strings (``name`` says which field in the error)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name} must be a list of strings")
    return value


def _kaggle_versions(raw: Any) -> list[Version]:
    if not isinstance(raw, list):
        raise ValueError("versions must be a list")
    versions = []
    for v in raw:
        label, created = (v.get("version"), v.get("created")) if isinstance(v, dict) else (None, None)
        if not isinstance(label, str) or not label.lstrip("v").isdecimal() or len(label) > 6:
            raise ValueError(f"malformed version {str(label)[:20]!r}")
        if created is not None and not isinstance(created, str):
            raise ValueError("a version's date must be text")
        when: datetime | None = parsedate_to_datetime(created) if created else None
        versions.append(Version(int(label.lstrip("v")), when))
    return versions


def _kaggle_authors(rec: dict[str, Any]) -> list[str]:
    parsed = rec.get("authors_parsed")
    if parsed:
        if not isinstance(parsed, list) or not all(
            isinstance(p, list) and len(p) >= 3 and all(isinstance(x, str) for x in p) for p in parsed
        ):
            raise ValueError("authors_parsed must be a list of [last, first, suffix] lists")
        return [paper.clean_text(" ".join(p for p in (f, k, s) if p)) for k, f, s, *_ in parsed]
    return _authors(rec.get("authors"))


def _authors(value: Any) -> list[str]:
    """A list of names, or arXiv's one-line author field."""
    if not value:
        return []
    return paper.split_authors(value) if isinstance(value, str) else _strings(value, "authors")


def _version(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 < value < 100_000:
        raise ValueError(f"malformed version {str(value)[:20]!r}")
    return value


def paper_from_record(rec: dict[str, Any], source: str) -> Paper:
    """One snapshot record (either layout) as a Paper; raises ValueError/KeyError on bad records (a field
    of the wrong JSON type included)."""
    if not isinstance(rec["id"], str):
        raise ValueError("id must be text")
    arxiv_id = paper.parse_id(rec["id"])
    title = _text(rec.get("title"))
    if not title:
        raise ValueError("no title")
    cats = rec.get("categories") or []
    cats = cats.split() if isinstance(cats, str) else _strings(cats, "categories")
    primary = rec.get("primary_category")
    if primary is not None and not isinstance(primary, str):
        raise ValueError("primary_category must be text")
    if primary and primary in cats:
        cats = [primary, *(c for c in cats if c != primary)]
    elif primary:
        cats = [primary, *cats]
    if "versions" in rec:  # Kaggle layout
        versions = _kaggle_versions(rec["versions"] or [])
        submitted = [v.submitted for v in versions if v.submitted]
        return Paper(
            id=arxiv_id.id,
            title=title,
            authors=_kaggle_authors(rec),
            abstract=paper.clean_text(rec.get("abstract") if isinstance(rec.get("abstract"), str) else ""),
            categories=list(cats),
            version=max((v.version for v in versions), default=arxiv_id.version),
            comments=_text(rec.get("comments")),
            journal_ref=_text(rec.get("journal-ref")),
            doi=_text(rec.get("doi")),
            license=_text(rec.get("license")),
            versions=versions,
            published=submitted[0].date() if submitted else None,
            updated=submitted[-1].date() if submitted else _date(rec.get("update_date")),
            source=source,
        )
    return Paper(
        id=arxiv_id.id,
        title=title,
        authors=_authors(rec.get("authors")),
        abstract=paper.clean_text(rec.get("abstract") if isinstance(rec.get("abstract"), str) else ""),
        categories=list(cats),
        version=arxiv_id.version or _version(rec.get("version")),
        comments=_text(rec.get("comments")),
        journal_ref=_text(rec.get("journal_ref")),
        doi=_text(rec.get("doi")),
        license=_text(rec.get("license")),
        published=_date(rec.get("published")),
        updated=_date(rec.get("updated")),
        announced=_date(rec.get("announced")),
        source=rec["source"] if isinstance(rec.get("source"), str) and rec["source"] else source,
    )


def _json_object(line: bytes) -> dict[str, Any]:
    """One line of a JSON-lines file as the object it must be: raises ``orjson.JSONDecodeError`` (malformed
    JSON), or ValueError when it is another JSON value."""
    rec = orjson.loads(line)
    if not isinstance(rec, dict):
        raise ValueError("not a JSON object")
    return rec


def iter_snapshot(stream: IO[bytes], source: str) -> Iterator[Parsed]:
    """Stream a JSON-lines snapshot; a bad line yields a RecordError naming its line number."""
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        rec: dict[str, Any] | None = None
        try:
            rec = _json_object(line)
            yield paper_from_record(rec, source)
        except orjson.JSONDecodeError as e:
            yield RecordError(source, f"line {number}", f"malformed JSON ({e})")
        except KeyError as e:
            yield RecordError(source, f"line {number}", f"missing field {e}")
        except (ValueError, TypeError, InvalidIdError) as e:
            rid = rec.get("id") if rec is not None else None
            where = f"line {number}" + (f" ({rid})" if rid else "")
            yield RecordError(source, where, str(e))


@dataclass(frozen=True, slots=True)
class DayListing:
    """One category's listing of one announcement day as a daily-digest file holds it:
    ``{date, category, source, n, ids[]}``, the ids in the listing's order (``n`` is their count)."""

    day: date
    category: str
    ids: tuple[str, ...]
    source: str = ""


def iter_day_listings(stream: IO[bytes], name: str = "") -> Iterator[DayListing]:
    """The day listings of a JSON-lines file; raises ValueError naming the line of a malformed one (a
    listing without its category, as the whole-archive ``daily-listings.jsonl.gz`` is, included)."""
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            rec = _json_object(line)
            category = rec.get("category")
            if not isinstance(category, str) or not category:
                raise ValueError("no category")
            ids = tuple(paper.parse_id(i).id for i in _strings(rec.get("ids"), "ids"))
            day = _date(rec.get("date"))
            if day is None:
                raise ValueError("no date")
            source = rec.get("source")
            yield DayListing(day, category, ids, source if isinstance(source, str) else "")
        except (orjson.JSONDecodeError, ValueError, TypeError, InvalidIdError) as e:
            raise ValueError(f"{name or 'listings'}: line {number}: {e}") from e
