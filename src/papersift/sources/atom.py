"""Reader for the arXiv API's Atom feed (``export.arxiv.org/api/query``), current and pre-2025.

``parse_atom_page`` reads one HTTP response into an ``AtomPage`` (entries plus the OpenSearch
paging fields, or the API's error feed as ``ApiError``); ``iter_atom`` streams a large feed file
from disk. Elements are matched by local name, so ``<opensearch:*>`` reads with or without its
namespace declared. Nothing here raises on bad input: errors come back as ``ApiError`` /
``RecordError`` values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO

from lxml import etree

from papersift.records.paper import (
    ArxivId,
    Paper,
    Parsed,
    RecordError,
    Version,
    clean_text,
    parse_id,
)
from papersift.sources import xml

SOURCE_TAG = "api"
_ERROR_ID = "/api/errors"
_ID_PATH = re.compile(r"/(?:abs|api)/(?P<id>.+)$")


@dataclass
class ApiError:
    """The arXiv API's error feed (e.g. ``incorrect id format for abc``), or an unreadable body."""

    message: str


@dataclass
class AtomPage:
    """One API response: its entries and the OpenSearch paging fields."""

    items: list[Parsed]
    total_results: int | None
    start_index: int | None
    items_per_page: int | None
    error: ApiError | None


def parse_atom_page(data: bytes, source: str) -> AtomPage:
    """Read one API response body; an error feed or a non-Atom body gives ``error`` and no items."""
    root, problem = xml.parse_document(data)
    if root is None:
        return AtomPage([], None, None, None, ApiError(f"{source}: {problem}"))
    if xml.local(root) != "feed":
        return AtomPage(
            [], None, None, None, ApiError(f"{source}: not an Atom feed (root <{xml.local(root)}>)")
        )
    page = AtomPage([], None, None, None, None)
    index = 0
    for child in xml.elements(root):
        name = xml.local(child)
        if name == "totalResults":
            page.total_results = xml.to_int(child.text)
        elif name == "startIndex":
            page.start_index = xml.to_int(child.text)
        elif name == "itemsPerPage":
            page.items_per_page = xml.to_int(child.text)
        elif name == "entry":
            index += 1
            error = _entry_error(child)
            if error is None:
                page.items.append(_read_entry(child, source, index))
            elif page.error is None:
                page.error = error
    if page.error is not None:
        page.items = []
    return page


def iter_atom(stream: IO[bytes], source: str) -> Iterator[Parsed]:
    """Stream the entries of an API feed file, freeing each once read.

    An error entry and malformed XML each yield one ``RecordError``; entries read before a break in
    the XML are yielded first.
    """
    index = 0
    try:
        for name, el in xml.stream_ends(stream, "feed"):
            if name == "entry":
                index += 1
                error = _entry_error(el)
                if error is None:
                    yield _read_entry(el, source, index)
                else:
                    yield RecordError(source, f"entry {index}", f"arXiv API error: {error.message}")
                xml.release(el)
    except xml.WrongRootError as exc:
        yield RecordError(source, "line 1", f"not an Atom feed (root <{exc.name}>)")
    except xml.MalformedXmlError as exc:
        yield RecordError(source, exc.where, f"malformed XML after {index} entries: {exc.message}")


def _entry_error(entry: etree._Element) -> ApiError | None:
    """The API reports errors as an entry whose id is ``.../api/errors#...`` (title ``Error``)."""
    entry_id = clean_text(xml.text(entry, "id"))
    if _ERROR_ID not in entry_id:
        return None
    message = clean_text(xml.text(entry, "summary")) or entry_id.rpartition("#")[2].replace("_", " ")
    return ApiError(message)


def _read_entry(entry: etree._Element, source: str, index: int) -> Paper | RecordError:
    raw_id = clean_text(xml.text(entry, "id"))
    try:
        arxiv_id = _entry_id(raw_id)
        published = _timestamp(entry, "published")
        updated = _timestamp(entry, "updated")
    except ValueError as exc:
        return RecordError(source, raw_id or f"entry {index}", str(exc))
    versions = [Version(1, published)] if published is not None else []
    if arxiv_id.version is not None and arxiv_id.version > 1:
        versions.append(Version(arxiv_id.version, updated))
    primary = xml.child(entry, "primary_category")
    terms = [primary.get("term")] if primary is not None else []
    terms += [c.get("term") for c in xml.children(entry, "category")]
    authors = (clean_text(xml.text(a, "name")) for a in xml.children(entry, "author"))
    return Paper(
        id=arxiv_id.id,
        title=clean_text(xml.text(entry, "title")),
        authors=[a for a in authors if a],
        abstract=clean_text(xml.text(entry, "summary")),
        categories=list(dict.fromkeys(t.strip() for t in terms if t and t.strip())),
        version=arxiv_id.version,
        comments=xml.optional(entry, "comment"),
        journal_ref=xml.optional(entry, "journal_ref"),
        doi=xml.optional(entry, "doi"),
        versions=versions,
        published=published.date() if published else None,
        updated=updated.date() if updated else (published.date() if published else None),
        source=SOURCE_TAG,
    )


def _entry_id(raw: str) -> ArxivId:
    """``http://arxiv.org/abs/hep-ex/0406020v1`` (or an ``.../api/ID`` form) → id and version."""
    if not raw:
        raise ValueError("entry has no <id>")
    m = _ID_PATH.search(raw)
    return parse_id(m["id"] if m else raw)


def _timestamp(entry: etree._Element, name: str) -> datetime | None:
    text = clean_text(xml.text(entry, name))
    if not text:
        return None
    try:
        stamp = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"bad <{name}> timestamp {text!r}") from None
    return stamp.replace(tzinfo=UTC) if stamp.tzinfo is None else stamp.astimezone(UTC)
