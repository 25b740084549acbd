"""The CSL-JSON reader (what Zotero exports as "CSL JSON"): items as ``Reference`` records.

Tags are ``keyword`` split at commas and semicolons, a double-quoted tag whole (``"graphs, sparse"``, a
doubled quote in it one quote), as ``export.py`` writes a tag holding either; the note is ``note``.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from papersift.records.messages import say
from papersift.records.paper import clean_text
from papersift.sources import references as ref
from papersift.sources.references import EntryError, Read, Reference


def _str(value: Any) -> str:
    return value if isinstance(value, str) else str(value) if isinstance(value, int | float) else ""


_CSL_TAG = re.compile(r'\s*(?:"((?:[^"]|"")*)"|([^,;]*))\s*(?:[,;]|$)')


def _csl_tags(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):  # not CSL's own shape, but some tools write a list
        return tuple(dict.fromkeys(t for t in (clean_text(_str(v)) for v in value) if t))
    tags = (
        clean_text(m[1].replace('""', '"') if m[1] is not None else m[2])
        for m in _CSL_TAG.finditer(_str(value))
    )
    return tuple(dict.fromkeys(t for t in tags if t))


def _csl_name(person: Any) -> str:
    if not isinstance(person, dict):
        return clean_text(_str(person))
    if person.get("literal"):
        return clean_text(_str(person["literal"]))
    keys = ("given", "dropping-particle", "non-dropping-particle", "family", "suffix")
    return clean_text(" ".join(_str(person.get(k)) for k in keys))


def _csl_year(issued: Any) -> int | None:
    if not isinstance(issued, dict):
        return ref.first_year(_str(issued))
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        return ref.first_year(parts[0][0])
    return ref.first_year(_str(issued.get("raw")), _str(issued.get("literal")))


def _csl_reference(item: Any, index: int) -> Reference | EntryError:
    if not isinstance(item, dict):
        return EntryError(0, say("csl_not_object", index=index))
    title = clean_text(_str(item.get("title")))
    ident = _str(item.get("citation-key")) or _str(item.get("id"))
    if not title:
        where = say("csl_item_id", index=index, id=repr(ident)) if ident else say("csl_item", index=index)
        return EntryError(0, say("csl_no_title", where=where))
    people = item.get("author")
    authors = tuple(n for n in map(_csl_name, people if isinstance(people, list) else []) if n)
    year = _csl_year(item.get("issued"))
    number = _str(item.get("number"))
    is_preprint = "arxiv" in " ".join(_str(item.get(k)).lower() for k in ("publisher", "archive", "source"))
    texts = [_str(item.get(k)) for k in ("URL", "DOI", "note", "container-title", "archive_location")]
    return Reference(
        key=ident
        if ident and "://" not in ident
        else ref.make_key(authors, year, title),  # not Zotero's URIs
        title=title,
        authors=authors,
        year=year,
        abstract=clean_text(_str(item.get("abstract"))),
        doi=ref.normalize_doi(_str(item.get("DOI"))),
        arxiv_id=ref.find_arxiv_id(number, *texts) or (ref.bare_arxiv_id(number) if is_preprint else None),
        url=ref.safe_url(_str(item.get("URL"))),
        venue=clean_text(_str(item.get("container-title"))) or None,
        tags=_csl_tags(item.get("keyword")),
        note=_str(item.get("note")).strip(),
        line=0,
        volume=clean_text(_str(item.get("volume"))),
        issue=clean_text(_str(item.get("issue"))),
        pages=ref.clean_pages(_str(item.get("page"))),
    )


def read_csl_json(text: str) -> Read:
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        yield EntryError(e.lineno, say("csl_malformed", line=e.lineno, column=e.colno, problem=e.msg))
        return
    if isinstance(data, dict):  # one item, or {"items": [...]}
        data = [data] if "title" in data else data.get("items")
    if not isinstance(data, list):
        yield EntryError(1, say("csl_not_array"))
        return
    for index, item in enumerate(data, 1):
        yield _csl_reference(item, index)
