"""Readers' bibliography files: BibTeX, RIS, CSL-JSON and plain arXiv id lists in; BibTeX, CSL-JSON and RIS
out.

Pure parsing and writing, no store: ``read_bibliography`` turns a file's text into ``Reference`` records plus
an ``EntryError`` for each entry it had to skip (with the line it starts on), so one bad entry never costs
the rest. Text fields come out as Unicode: BibTeX's LaTeX is decoded for titles, names, venues and tags;
abstracts and notes only have BibTeX's escapes undone (their math stays ``$...$``, as arXiv's own text
does). The writers escape what they write so that reading it back gives the same references, the reader's
tags and notes included; a ``Paper`` (or a ``SavedPaper``: one with the reader's tags and note and its
venues) is written in arXiv's own BibTeX style (``paper_bibtex``), which the CLI and web UI also use.

The format readers are ``bibtex.py``, ``ris.py`` and ``csl.py`` (and the id lists here), the records and
field helpers ``references.py``, LaTeX both ways ``latex.py``, the writers ``export.py``; this module
detects a file's format and reads it, and names the public API in one place.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

from papersift.records.messages import say
from papersift.sources import open_bytes
from papersift.sources.bibtex import read_bibtex
from papersift.sources.csl import read_csl_json
from papersift.sources.export import (
    Exportable,
    SavedPaper,
    Venue,
    paper_bibtex,
    reference_bibtex,
    reference_csl,
    reference_ris,
    to_bibtex,
    to_csl_json,
    to_ris,
)
from papersift.sources.latex import escape_bibtex, latex_to_unicode, unescape_bibtex
from papersift.sources.references import (
    ABS_URL,
    EntryError,
    ImportResult,
    Read,
    Reference,
    bibtex_key,
    find_arxiv_id,
    id_line,
    make_key,
    normalize_doi,
    reference_from_paper,
    safe_url,
)
from papersift.sources.ris import read_ris

__all__ = [
    "ABS_URL",
    "FORMATS",
    "EntryError",
    "Exportable",
    "ImportResult",
    "Reference",
    "SavedPaper",
    "Venue",
    "bibtex_key",
    "detect_format",
    "escape_bibtex",
    "find_arxiv_id",
    "latex_to_unicode",
    "make_key",
    "normalize_doi",
    "paper_bibtex",
    "read_bibliography",
    "read_bibliography_file",
    "reference_bibtex",
    "reference_csl",
    "reference_from_paper",
    "reference_ris",
    "safe_url",
    "to_bibtex",
    "to_csl_json",
    "to_ris",
    "unescape_bibtex",
]

FORMATS = ("bibtex", "ris", "csl-json", "ids")
_ALIASES = {"bib": "bibtex", "csl": "csl-json", "json": "csl-json", "txt": "ids"}


_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.M)


def _strip_comment(line: str) -> str:
    return re.sub(r"(?:^|\s)#.*", "", line).strip()


def detect_format(text: str) -> str | None:
    """``bibtex``, ``ris``, ``csl-json`` or ``ids`` for a file's text; None when it is none of them."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith(("[", "{")):
        return "csl-json"
    lines = [line for line in map(_strip_comment, head[:65536].splitlines()[:200]) if line]
    if any(line.startswith("TY  -") for line in lines[:10]):  # export headers may come first
        return "ris"
    if _BIBTEX_ENTRY.search(head):
        return "bibtex"
    if lines and id_line(lines[0]) is not None:
        return "ids"
    return None


def read_bibliography(text: str, fmt: str | None = None) -> ImportResult:
    """Every reference in ``text`` (format detected unless given) and an error for each entry skipped.

    Raises ValueError only for an unknown ``fmt`` name; bad content never raises."""
    text = text.removeprefix("\ufeff")
    if fmt is not None:
        fmt = _ALIASES.get(fmt.lower(), fmt.lower())
        if fmt not in FORMATS:
            raise ValueError(f"unknown bibliography format {fmt!r}; one of {', '.join(FORMATS)}")
    else:
        fmt = detect_format(text)
        if fmt is None:
            problem = say("empty_input") if not text.strip() else say("unrecognised_format")
            message = say("no_bibliography", problem=problem)
            return ImportResult([], [EntryError(0, message)], "")
    readers = {"bibtex": read_bibtex, "ris": read_ris, "csl-json": read_csl_json, "ids": _read_ids}
    references: list[Reference] = []
    errors: list[EntryError] = []
    for read in readers[fmt](text):
        if isinstance(read, EntryError):
            errors.append(read)
        else:
            references.append(read)
    return ImportResult(references, sorted(errors, key=lambda e: e.line), fmt)


def read_bibliography_file(path: Path, fmt: str | None = None) -> ImportResult:
    """``read_bibliography`` of a file: UTF-8 (a BOM is fine), gzipped or not; a file that cannot be read
    gives one error and no references."""
    try:
        with open_bytes(path) as stream:
            data = stream.read()
    except (OSError, EOFError, zlib.error) as e:
        reason = getattr(e, "strerror", None) or e
        return ImportResult([], [EntryError(0, say("cannot_read", path=str(path), reason=str(reason)))], "")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        message = say("not_utf8", path=str(path), byte=f"{data[e.start]:02x}", line=line)
        return ImportResult([], [EntryError(line, message)], "")
    return read_bibliography(text, fmt)


def _read_ids(text: str) -> Read:
    for n, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        found = id_line(line) if line else None
        if found is not None:
            yield Reference(found, "", (), None, "", None, found, None, None, (), "", n)
        elif line:
            yield EntryError(n, say("not_an_arxiv_id_line", line=repr(line[:80])))
