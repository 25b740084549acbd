"""The Zotero Web API v3 as records: items (``GET …/items``, ``format=json``) as references with their Zotero
key, version, collections and trash flag; collections with their parents; ``GET …/deleted`` as the keys of
deleted items; the response headers a client acts on (``Last-Modified-Version``, ``Total-Results``,
``Backoff``, ``Retry-After``). Pure parsing: no network, no storage (the sync job is
``library/zotero_sync.py``).

An item is matched to arXiv by what Zotero keeps of it: ``archiveID`` (``arXiv:2106.09685``, preprints), a
line of ``extra`` (``arXiv: 2106.09685``), an arXiv URL, or an arXiv DOI (``10.48550/arXiv.2106.09685``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from papersift.records.messages import say
from papersift.records.paper import clean_text
from papersift.sources.references import (
    Reference,
    bare_arxiv_id,
    clean_pages,
    find_arxiv_id,
    first_year,
    normalize_doi,
    safe_url,
)

NOT_REFERENCES = frozenset({"attachment", "note", "annotation"})  # item types that are no paper of their own
VENUE_FIELDS = (
    "publicationTitle",
    "proceedingsTitle",
    "bookTitle",
    "conferenceName",
    "repository",
    "websiteTitle",
)


class ZoteroFormatError(ValueError):
    """A Zotero response that is not the JSON the API documents."""


@dataclass(frozen=True, slots=True)
class ZoteroItem:
    """One top-level Zotero item: its key and version, the collections it is in, whether it is in the trash,
    and its bibliographic fields as a ``Reference`` (``key`` the item key; ``kind`` its item type)."""

    key: str
    version: int
    item_type: str
    collections: tuple[str, ...]
    trashed: bool
    reference: Reference


@dataclass(frozen=True, slots=True)
class ZoteroCollection:
    """One collection: its key, name and parent collection's key (None at the top)."""

    key: str
    name: str
    parent: str | None
    version: int


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _load(body: bytes | str) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as e:
        raise ZoteroFormatError(say("zotero_format_not_json", problem=e.msg, line=e.lineno)) from e


def _objects(body: bytes | str, what: str) -> list[dict[str, Any]]:
    data = _load(body)
    if isinstance(data, dict):  # one object (GET …/items/{key})
        data = [data]
    if not isinstance(data, list):
        raise ZoteroFormatError(say("zotero_format_not_array", what=what))
    return [o for o in data if isinstance(o, dict) and isinstance(o.get("data"), dict)]


def _creator(person: Any) -> str:
    if not isinstance(person, dict) or person.get("creatorType", "author") not in ("author", "editor"):
        return ""
    name = _str(person.get("name")) or f"{_str(person.get('firstName'))} {_str(person.get('lastName'))}"
    return clean_text(name)


def _extra_fields(extra: str) -> dict[str, str]:
    """``extra``'s ``Key: value`` lines (Zotero's place for fields an item type lacks), keys lower-cased."""
    found: dict[str, str] = {}
    for line in extra.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip():
            found.setdefault(name.strip().lower(), value.strip())
    return found


def arxiv_id_of(data: Mapping[str, Any]) -> str | None:
    """The arXiv id a Zotero item names (``archiveID``, ``extra``, its URL or an arXiv DOI), versionless."""
    extra = _str(data.get("extra"))
    fields = _extra_fields(extra)
    return (
        bare_arxiv_id(_str(data.get("archiveID")) or None)
        or bare_arxiv_id(fields.get("arxiv") or fields.get("arxiv id"))
        or find_arxiv_id(_str(data.get("url")), _str(data.get("DOI")), fields.get("doi"), extra)
    )


def item_from_json(obj: Mapping[str, Any]) -> ZoteroItem | None:
    """One item of an ``/items`` answer; None for attachments, notes, annotations and child items."""
    data = obj.get("data")
    if not isinstance(data, dict):
        return None
    key = _str(data.get("key")) or _str(obj.get("key"))
    item_type = _str(data.get("itemType"))
    if not key or item_type in NOT_REFERENCES or data.get("parentItem"):
        return None
    extra = _str(data.get("extra"))
    people = data.get("creators")
    authors = tuple(a for a in map(_creator, people if isinstance(people, list) else []) if a)
    meta = obj.get("meta") if isinstance(obj.get("meta"), dict) else {}
    tags = data.get("tags")
    collections = data.get("collections")
    doi = normalize_doi(_str(data.get("DOI"))) or normalize_doi(_extra_fields(extra).get("doi"))
    reference = Reference(
        key=key,
        title=clean_text(_str(data.get("title"))),
        authors=authors,
        year=first_year(
            _str(meta.get("parsedDate") if isinstance(meta, dict) else ""), _str(data.get("date"))
        ),
        abstract=clean_text(_str(data.get("abstractNote"))),
        doi=doi,
        arxiv_id=arxiv_id_of(data),
        url=safe_url(_str(data.get("url"))),
        venue=next((v for f in VENUE_FIELDS if (v := clean_text(_str(data.get(f))))), None),
        tags=tuple(dict.fromkeys(t for x in (tags if isinstance(tags, list) else []) if (t := _tag(x)))),
        note="",
        line=0,
        kind=item_type,
        volume=clean_text(_str(data.get("volume"))),
        issue=clean_text(_str(data.get("issue"))),
        pages=clean_pages(_str(data.get("pages"))),
    )
    version = data.get("version", obj.get("version", 0))
    return ZoteroItem(
        key=key,
        version=version if isinstance(version, int) else 0,
        item_type=item_type,
        collections=tuple(
            c for c in (collections if isinstance(collections, list) else []) if isinstance(c, str)
        ),
        trashed=bool(data.get("deleted")),
        reference=reference,
    )


def _tag(value: Any) -> str:
    return clean_text(_str(value.get("tag"))) if isinstance(value, dict) else ""


def parse_items(body: bytes | str) -> list[ZoteroItem]:
    """The items of an ``/items`` (or ``/items/top``) answer in ``format=json``: references only."""
    return [item for obj in _objects(body, "items") if (item := item_from_json(obj)) is not None]


def parse_collections(body: bytes | str) -> list[ZoteroCollection]:
    """The collections of a ``/collections`` answer."""
    out = []
    for obj in _objects(body, "collections"):
        data = obj["data"]
        key, name = _str(data.get("key")) or _str(obj.get("key")), clean_text(_str(data.get("name")))
        if key and name:
            parent = data.get("parentCollection")
            version = data.get("version", 0)
            out.append(
                ZoteroCollection(
                    key,
                    name,
                    parent if isinstance(parent, str) else None,
                    version if isinstance(version, int) else 0,
                )
            )
    return out


def parse_deleted(body: bytes | str) -> tuple[str, ...]:
    """The keys of the items a ``/deleted?since=`` answer lists (``{"items": [...], "collections": …}``)."""
    data = _load(body)
    if not isinstance(data, dict):
        raise ZoteroFormatError(say("zotero_format_not_object"))
    items = data.get("items")
    return tuple(k for k in (items if isinstance(items, list) else []) if isinstance(k, str))


def within(chosen: Iterable[str], collections: Iterable[ZoteroCollection]) -> set[str]:
    """The keys of the ``chosen`` collections and of every collection below them."""
    children: dict[str, list[str]] = {}
    for c in collections:
        if c.parent:
            children.setdefault(c.parent, []).append(c.key)
    found: set[str] = set()
    todo = list(chosen)
    while todo:
        key = todo.pop()
        if key not in found:
            found.add(key)
            todo.extend(children.get(key, ()))
    return found


def header_int(headers: Mapping[str, str], name: str) -> int | None:
    """An integer header (``Last-Modified-Version``, ``Total-Results``, ``Backoff``); None if absent."""
    value = (headers.get(name) or "").strip()
    return int(value) if value.isdigit() else None
