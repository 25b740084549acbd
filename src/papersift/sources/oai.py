"""Reader for arXiv's OAI-PMH responses: ``ListRecords``, ``GetRecord`` and ``ListIdentifiers``.

Owns the ``arXiv`` and ``arXivRaw`` metadata formats. ``parse_oai_page`` reads one HTTP response
into an ``OaiPage`` (records, resumption token, OAI error); ``iter_oai`` streams a large file from
disk. Elements are matched by local name, so records whose ``<arXiv>`` lost its xmlns still read.
Nothing here raises on bad input: OAI errors and malformed XML come back as ``OaiError`` /
``RecordError`` values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date
from email.utils import parsedate_to_datetime
from typing import IO

from lxml import etree

from papersift.records.paper import (
    Deleted,
    Paper,
    Parsed,
    RecordError,
    Version,
    clean_text,
    normalize_id,
    split_authors,
)
from papersift.sources import xml

_VERBS = frozenset({"ListRecords", "GetRecord", "ListIdentifiers"})
_OAI_ID_PREFIX = re.compile(r"^oai:arXiv\.org:", re.I)
_VERSION_LABEL = re.compile(r"^v(\d+)$")


@dataclass
class OaiError:
    """An OAI-PMH ``<error code=...>`` (e.g. ``noRecordsMatch``), or ``badXml`` for a bad body."""

    code: str
    message: str


@dataclass
class OaiPage:
    """One OAI-PMH response: its records and how to ask for the next page.

    ``resumption_token`` is None when the list is complete (no token, or ``<resumptionToken/>``).
    """

    items: list[Parsed]
    resumption_token: str | None
    complete_list_size: int | None
    cursor: int | None
    error: OaiError | None
    response_date: date | None = None  # the day of ``<responseDate>``: where an incremental run resumes


def parse_oai_page(data: bytes, source: str) -> OaiPage:
    """Read one OAI-PMH response body; a body that is not OAI-PMH gives ``OaiError("badXml")``."""
    root, problem = xml.parse_document(data)
    if root is None:
        return _failed_page("badXml", f"{source}: {problem}")
    if xml.local(root) != "OAI-PMH":
        return _failed_page("badXml", f"{source}: not an OAI-PMH response (root <{xml.local(root)}>)")
    page = OaiPage([], None, None, None, None)
    prefix: str | None = None
    index = 0
    for child in xml.elements(root):
        name = xml.local(child)
        if name == "responseDate":
            page.response_date = _day((child.text or "").strip()[:10])
        elif name == "request":
            prefix = child.get("metadataPrefix")
        elif name == "error" and page.error is None:
            page.error = _oai_error(child)
        elif name in _VERBS:
            for node in xml.elements(child):
                if xml.local(node) == "resumptionToken":
                    page.resumption_token = (node.text or "").strip() or None
                    page.complete_list_size = xml.to_int(node.get("completeListSize"))
                    page.cursor = xml.to_int(node.get("cursor"))
                elif xml.local(node) in ("record", "header"):
                    index += 1
                    item = _read_record(node, source, index, prefix)
                    if item is not None:
                        page.items.append(item)
    return page


def iter_oai(stream: IO[bytes], source: str) -> Iterator[Parsed]:
    """Stream the records of an OAI-PMH response file, freeing each record once read.

    OAI errors other than ``noRecordsMatch`` and malformed XML each yield one ``RecordError``; the
    records read before a break in the XML are yielded first.
    """
    prefix: str | None = None
    index = 0
    try:
        for name, el in xml.stream_ends(stream, "OAI-PMH"):
            parent = el.getparent()
            parent_name = xml.local(parent) if parent is not None else ""
            if name == "request":
                prefix = el.get("metadataPrefix")
            elif name == "error" and parent_name == "OAI-PMH":
                error = _oai_error(el)
                if error.code != "noRecordsMatch":
                    yield RecordError(source, "error", f"OAI error {error.code}: {error.message}")
            elif name == "record" or (name == "header" and parent_name == "ListIdentifiers"):
                index += 1
                item = _read_record(el, source, index, prefix)
                if item is not None:
                    yield item
                xml.release(el)
    except xml.WrongRootError as exc:
        yield RecordError(source, "line 1", f"not an OAI-PMH response (root <{exc.name}>)")
    except xml.MalformedXmlError as exc:
        yield RecordError(source, exc.where, f"malformed XML after {index} records: {exc.message}")


def _read_record(node: etree._Element, source: str, index: int, prefix: str | None) -> Parsed | None:
    """One ``<record>``, or a bare ``ListIdentifiers`` ``<header>`` (None unless deleted)."""
    header = node if xml.local(node) == "header" else xml.child(node, "header")
    identifier = clean_text(xml.text(header, "identifier")) if header is not None else ""
    locator = identifier or f"#{index}"
    if header is not None and header.get("status") == "deleted":
        try:
            return Deleted(normalize_id(_OAI_ID_PREFIX.sub("", identifier)), _tag(prefix))
        except ValueError as exc:
            return RecordError(source, locator, f"deleted record: {exc}")
    if node is header:
        return None
    metadata = xml.child(node, "metadata")
    body = next(iter(xml.elements(metadata)), None) if metadata is not None else None
    if body is None:
        return RecordError(source, locator, "record has no metadata")
    try:
        if xml.local(body) == "arXiv":
            return _read_arxiv(body)
        if xml.local(body) == "arXivRaw":
            return _read_arxiv_raw(body)
    except ValueError as exc:
        return RecordError(source, locator, str(exc))
    return RecordError(source, locator, f"unsupported metadata format <{xml.local(body)}>")


def _read_arxiv(meta: etree._Element) -> Paper:
    """``metadataPrefix=arXiv``: structured authors, ``created``/``updated`` dates."""
    created = _iso_date(meta, "created")
    updated = _iso_date(meta, "updated")
    authors = [_author_name(a) for a in xml.children(xml.child(meta, "authors"), "author")]
    paper = _paper(meta, "oai:arXiv")
    paper.authors = [a for a in authors if a]
    paper.published = created
    paper.updated = updated or created
    if created is not None and updated is None:  # arXiv gives <updated> only for papers with v2+
        paper.version = 1
        paper.versions = [Version(1)]
    return paper


def _read_arxiv_raw(meta: etree._Element) -> Paper:
    """``metadataPrefix=arXivRaw``: one-line authors, ``<version>`` history with RFC 2822 dates."""
    versions = sorted(map(_raw_version, xml.children(meta, "version")), key=lambda v: v.version)
    paper = _paper(meta, "oai:arXivRaw")
    paper.authors = split_authors(xml.text(meta, "authors") or "")
    paper.versions = versions
    if versions:
        paper.version = versions[-1].version
        first, last = versions[0].submitted, versions[-1].submitted
        paper.published = first.date() if first else None
        paper.updated = last.date() if last else None
    return paper


def _paper(meta: etree._Element, tag: str) -> Paper:
    """The fields both formats share."""
    raw_id = xml.text(meta, "id")
    if raw_id is None or not raw_id.strip():
        raise ValueError("record has no <id>")
    return Paper(
        id=normalize_id(raw_id),
        title=clean_text(xml.text(meta, "title")),
        authors=[],
        abstract=clean_text(xml.text(meta, "abstract")),
        categories=(xml.text(meta, "categories") or "").split(),
        comments=xml.optional(meta, "comments"),
        journal_ref=xml.optional(meta, "journal-ref"),
        doi=xml.optional(meta, "doi"),
        license=xml.optional(meta, "license"),
        source=tag,
    )


def _author_name(author: etree._Element) -> str:
    """``<keyname>``/``<forenames>``/``<suffix>`` → ``Forenames Keyname Suffix``."""
    parts = (clean_text(xml.text(author, part)) for part in ("forenames", "keyname", "suffix"))
    return " ".join(p for p in parts if p)


def _raw_version(node: etree._Element) -> Version:
    label = (node.get("version") or "").strip()
    m = _VERSION_LABEL.match(label)
    if not m:
        raise ValueError(f"bad version label {label!r}")
    stamp = clean_text(xml.text(node, "date"))
    submitted = None
    if stamp:
        try:
            submitted = parsedate_to_datetime(stamp)
        except (TypeError, ValueError):
            raise ValueError(f"bad date {stamp!r} for version {label}") from None
        submitted = submitted.replace(tzinfo=UTC) if submitted.tzinfo is None else submitted.astimezone(UTC)
    return Version(int(m[1]), submitted, clean_text(xml.text(node, "size")) or None)


def _iso_date(meta: etree._Element, name: str) -> date | None:
    text = clean_text(xml.text(meta, name))
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"bad <{name}> date {text!r}") from None


def _day(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def _oai_error(node: etree._Element) -> OaiError:
    message = "".join(t for t in node.itertext() if isinstance(t, str))
    return OaiError(node.get("code") or "unknown", clean_text(message))


def _failed_page(code: str, message: str) -> OaiPage:
    return OaiPage([], None, None, None, OaiError(code, message))


def _tag(prefix: str | None) -> str:
    return f"oai:{prefix}" if prefix else "oai"
