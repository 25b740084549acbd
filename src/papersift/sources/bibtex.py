"""The BibTeX reader (bibtexparser): entries as ``Reference`` records, LaTeX decoded, a failed block as an
``EntryError`` on its line.

Tags are ``keywords`` split at commas and semicolons outside braces (``{graphs, sparse}`` is one tag, as
``export.py`` writes it); the note is ``note``, ``annote`` (Zotero's BibTeX) and ``annotation`` (Zotero's
BibLaTeX), each kept, in that order, line breaks and all.
"""

from __future__ import annotations

import re

from bibtexparser.entrypoint import parse_string
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.library import Library
from bibtexparser.middlewares import RemoveEnclosingMiddleware
from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names
from bibtexparser.model import Entry, ParsingFailedBlock

from papersift.records.messages import say
from papersift.records.paper import clean_text
from papersift.sources.latex import latex_to_unicode, unescape_bibtex
from papersift.sources.references import (
    EntryError,
    Read,
    Reference,
    bare_arxiv_id,
    clean_pages,
    find_arxiv_id,
    first_year,
    make_key,
    normalize_doi,
    safe_url,
)

_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()]*)")
_KEPT_CHARS = re.compile(r"\\psChar\{([^{}]*)\}")  # export.py's wrapper of what pdflatex cannot set
_NOTE_FIELDS = ("note", "annote", "annotation")


def _kept(value: str) -> str:
    return _KEPT_CHARS.sub(lambda m: m[1], value)


def _bibtex_tags(value: str) -> tuple[str, ...]:
    """``keywords`` as tags: split at commas and semicolons that no brace group holds, each decoded."""
    pieces, depth, start, escaped = [], 0, 0, False
    for i, ch in enumerate(value):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        elif ch in ",;" and depth == 0:
            pieces.append(value[start:i])
            start = i + 1
    pieces.append(value[start:])
    tags = (latex_to_unicode(_kept(p)) for p in pieces)
    return tuple(dict.fromkeys(t for t in tags if t))


def _bibtex_names(value: str) -> tuple[str, ...]:
    names = []
    for raw in split_multiple_persons_names(value):
        if raw.strip().lower() == "others":
            continue
        name = latex_to_unicode(parse_single_name_into_parts(raw, strict=False).merge_first_name_first)
        if name:
            names.append(name)
    return tuple(names)


def _bibtex_arxiv_id(f: dict[str, str]) -> str | None:
    prefix = (f.get("archiveprefix") or f.get("eprinttype") or "arxiv").strip().lower()
    found = bare_arxiv_id(f.get("eprint")) if prefix == "arxiv" else None
    volume = re.fullmatch(r"\s*abs/(\S+)\s*", f.get("volume", ""))  # DBLP: journal = CoRR, volume = abs/…
    return (
        found
        or bare_arxiv_id(f.get("arxivid") or f.get("arxiv"))
        or find_arxiv_id(f.get("url"), f.get("howpublished"), f.get("journal"), f.get("doi"), f.get("note"))
        or (bare_arxiv_id(volume[1]) if volume else None)
    )


def _find_url(text: str | None) -> str | None:
    """The first http(s) URL in ``text`` (``\\url{…}`` included)."""
    m = re.search(r"https?://[^\s{}]+", text or "")
    return m[0] if m else None


def _reference_from_entry(entry: Entry) -> Reference | EntryError:
    line = (entry.start_line or 0) + 1
    f: dict[str, str] = {}
    notes: dict[str, list[str]] = {k: [] for k in _NOTE_FIELDS}
    for field in entry.fields:
        f.setdefault(field.key.lower(), str(field.value))
        if field.key.lower() in notes:  # Zotero writes an annote for each note
            notes[field.key.lower()].append(unescape_bibtex(_kept(str(field.value))).strip())
    title = latex_to_unicode(f.get("title", ""))
    if not title:
        return EntryError(line, say("bibtex_no_title", entry=repr(entry.key)))
    authors = _bibtex_names(f.get("author", ""))
    year = first_year(f.get("year"), f.get("date"))
    url = safe_url(unescape_bibtex(f.get("url", ""))) or safe_url(_find_url(f.get("howpublished")))
    venue = next((f[k] for k in ("journal", "journaltitle", "booktitle") if f.get(k)), "")
    return Reference(
        key=entry.key or make_key(authors, year, title),
        title=title,
        authors=authors,
        year=year,
        abstract=clean_text(unescape_bibtex(f.get("abstract", ""))),
        doi=normalize_doi(unescape_bibtex(f.get("doi", ""))),
        arxiv_id=_bibtex_arxiv_id({k: unescape_bibtex(v) for k, v in f.items() if k != "abstract"}),
        url=url,
        venue=latex_to_unicode(venue) or None,
        tags=_bibtex_tags(f.get("keywords", "")),
        note="\n\n".join(n for kind in _NOTE_FIELDS for n in notes[kind] if n),
        line=line,
        kind=entry.entry_type.lower(),
        volume=clean_text(unescape_bibtex(f.get("volume", "")))
        if not f.get("volume", "").startswith("abs/")
        else "",
        issue=clean_text(unescape_bibtex(f.get("number", "") or f.get("issue", ""))),
        pages=clean_pages(unescape_bibtex(f.get("pages", ""))),
    )


def _failed_block_error(block: ParsingFailedBlock) -> EntryError:
    line = (block.start_line or 0) + 1
    m = _KEY_IN_RAW.match((block.raw or "")[:300])
    what = say("bibtex_entry_named", entry=repr(m[1])) if m and m[1] else say("bibtex_entry")
    error = block.error
    reason = error.abort_reason if isinstance(error, BlockAbortedException) else str(error)
    return EntryError(line, say("bibtex_malformed", what=what, reason=" ".join(reason.split())))


def read_bibtex(text: str) -> Read:
    for block in parse_string(text).blocks:
        if isinstance(block, ParsingFailedBlock):
            # a duplicate key or field (Zotero writes an annote for each note) still holds a whole entry:
            # keep it rather than lose it, its values unbraced as the parser's middleware does the others'
            inner = block.ignore_error_block
            if not isinstance(inner, Entry):
                yield _failed_block_error(block)
                continue
            block = RemoveEnclosingMiddleware().transform_entry(inner, Library())
        if isinstance(block, Entry):
            yield _reference_from_entry(block)
