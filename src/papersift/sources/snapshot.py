"""Metadata snapshots as JSON lines: Kaggle's ``arxiv-metadata-oai-snapshot.json`` layout and papersift's
own (``{id, title, abstract, authors: [..], categories: [..], published, updated, announced}``), told apart
per record. This is the bulk-load path, so it does the least work per line that keeps records exact.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from typing import IO, Any

import orjson

from papersift.paper import (
    InvalidIdError,
    Paper,
    Parsed,
    RecordError,
    Version,
    clean_text,
    parse_id,
    split_authors,
)


def _date(value: Any) -> date | None:
    if not value:
        return None
    return date.fromisoformat(str(value)[:10])


def _text(value: Any) -> str | None:
    return clean_text(value) or None if isinstance(value, str) else None


def _kaggle_versions(raw: list[dict[str, str]]) -> list[Version]:
    versions = []
    for v in raw:
        created = v.get("created")
        when: datetime | None = parsedate_to_datetime(created) if created else None
        versions.append(Version(int(v["version"].lstrip("v")), when))
    return versions


def _kaggle_authors(rec: dict[str, Any]) -> list[str]:
    parsed = rec.get("authors_parsed")
    if parsed:
        return [clean_text(" ".join(p for p in (f, k, s) if p)) for k, f, s, *_ in parsed]
    return split_authors(rec.get("authors") or "")


def paper_from_record(rec: dict[str, Any], source: str) -> Paper:
    """One snapshot record (either layout) as a Paper; raises ValueError/KeyError on bad records."""
    arxiv_id = parse_id(str(rec["id"]))
    title = _text(rec.get("title"))
    if not title:
        raise ValueError("no title")
    cats = rec.get("categories") or []
    if isinstance(cats, str):
        cats = cats.split()
    primary = rec.get("primary_category")
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
            abstract=clean_text(rec.get("abstract")),
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
    authors = rec.get("authors") or []
    if isinstance(authors, str):
        authors = split_authors(authors)
    return Paper(
        id=arxiv_id.id,
        title=title,
        authors=authors,
        abstract=clean_text(rec.get("abstract")),
        categories=list(cats),
        version=arxiv_id.version or rec.get("version"),
        comments=_text(rec.get("comments")),
        journal_ref=_text(rec.get("journal_ref")),
        doi=_text(rec.get("doi")),
        license=_text(rec.get("license")),
        published=_date(rec.get("published")),
        updated=_date(rec.get("updated")),
        announced=_date(rec.get("announced")),
        source=str(rec.get("source") or source),
    )


def iter_snapshot(stream: IO[bytes], source: str) -> Iterator[Parsed]:
    """Stream a JSON-lines snapshot; a bad line yields a RecordError naming its line number."""
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            rec = orjson.loads(line)
            if not isinstance(rec, dict):
                raise ValueError("not a JSON object")
            yield paper_from_record(rec, source)
        except orjson.JSONDecodeError as e:
            yield RecordError(source, f"line {number}", f"malformed JSON ({e})")
        except KeyError as e:
            yield RecordError(source, f"line {number}", f"missing field {e}")
        except (ValueError, TypeError, InvalidIdError) as e:
            rid = rec.get("id") if isinstance(rec, dict) else None
            where = f"line {number}" + (f" ({rid})" if rid else "")
            yield RecordError(source, where, str(e))
