"""Readers' bibliography files: BibTeX, RIS, CSL-JSON and plain arXiv id lists in, BibTeX and CSL-JSON out.

Pure parsing and writing, no store: ``read_bibliography`` turns a file's text into ``Reference`` records plus
an ``EntryError`` for each entry it had to skip (with the line it starts on), so one bad entry never costs
the rest. Text fields come out as Unicode: BibTeX's LaTeX is decoded for titles, names, venues and tags;
abstracts and notes only have BibTeX's escapes undone (their math stays ``$...$``, as arXiv's own text
does). The writers escape what they write so that reading it back gives the same references; a ``Paper``
is written in arXiv's own BibTeX style (``paper_bibtex``), which the CLI and web UI also use.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
from bibtexparser.entrypoint import parse_string
from bibtexparser.exceptions import BlockAbortedException
from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names
from bibtexparser.model import Entry, ParsingFailedBlock
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.latexwalker import LatexWalkerError
from pylatexenc.latexwalker import get_default_latex_context_db as get_default_walker_db

from papersift.paper import InvalidIdError, Paper, clean_text, normalize_id
from papersift.sources import open_bytes

FORMATS = ("bibtex", "ris", "csl-json", "ids")
_ALIASES = {"bib": "bibtex", "csl": "csl-json", "json": "csl-json", "txt": "ids"}
ABS_URL = "https://arxiv.org/abs/{}"


@dataclass(frozen=True, slots=True)
class Reference:
    """One bibliography entry as found in a reader's file."""

    key: str  # citation key, or a stable one made from author, year and title
    title: str
    authors: tuple[str, ...]  # "First Last"
    year: int | None
    abstract: str
    doi: str | None  # lower case, no https://doi.org/
    arxiv_id: str | None  # versionless, normalize_id's spelling
    url: str | None
    venue: str | None
    tags: tuple[str, ...]
    note: str
    line: int  # 1-based line the entry starts on; 0 where the format gives none (CSL-JSON)


@dataclass(frozen=True, slots=True)
class EntryError:
    """An entry that was skipped: the line it starts on (0 when unknown) and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What one file gave: the references read, the entries skipped, and the format it was read as."""

    references: list[Reference]
    errors: list[EntryError]
    format: str  # one of FORMATS; "" when the input could not be read at all


# ---------------------------------------------------------------------------------------------------------
# field helpers shared by the readers


_ID = r"(?:\d{4}\.\d{4,5}|[a-z][a-z-]*[a-z](?:\.[a-z]{2})?/\d{7})(?!\d)(?:v\d+)?"
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv\.org/(?:abs|pdf|html)/|arxiv[:.\s]\s*|10\.48550/arxiv\.)({_ID})", re.I
)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def find_arxiv_id(*texts: str | None) -> str | None:
    """The first arXiv id written in any of ``texts`` (``arXiv:…``, abs/PDF URLs, arXiv DOIs), versionless."""
    for text in texts:
        for m in _ARXIV_IN_TEXT.finditer(text or ""):
            try:
                return normalize_id(m[1])
            except InvalidIdError:
                continue
    return None


def _bare_arxiv_id(value: str | None) -> str | None:
    """An id field's value (``2401.01234v2``, ``arXiv:hep-th/9901001``), or one written inside it."""
    if not value:
        return None
    try:
        return normalize_id(value.strip())
    except InvalidIdError:
        return find_arxiv_id(value)


def normalize_doi(value: str | None) -> str | None:
    """``https://doi.org/10.1000/ABC`` → ``10.1000/abc``; None when there is no DOI in ``value``."""
    m = _DOI.search(value or "")
    return m[0].rstrip(".,;").lower() if m else None


_UNSAFE_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\\\"'<>`]")  # spaces, controls, quotes, backslash
_HTTP = re.compile(r"https?://[^/?#@:]+(?::\d{1,5})?(?:[/?#]|$)", re.I)  # scheme, a host, its port
_DOI_URL = "https://doi.org/"


def safe_url(value: str | None) -> str | None:
    """A link that is safe in an ``href``: an http(s) URL to a host, else a DOI (``doi:10.…``, ``10.…``) or an
    arXiv id (``arXiv:2401.01234``) as its https link; None for anything else (``javascript:``, ``data:``,
    ``file:``, relative paths, text with spaces or control characters). Imported URLs pass through here."""
    text = (value or "").strip()
    if not text or len(text) > 2000:
        return None
    if _HTTP.match(text) and not _UNSAFE_IN_URL.search(text):
        return text
    doi = re.fullmatch(r"(?:doi:\s*)?(10\.\d{4,9}/\S+)", text, re.I)
    if doi:
        return _DOI_URL + quote(doi[1], safe="/:;()._-")
    arxiv = re.fullmatch(r"(?:arxiv:\s*)?([\w./-]+)", text, re.I)
    return ABS_URL.format(_id_line(arxiv[1])) if arxiv and _id_line(arxiv[1]) else None


def _year(*values: Any) -> int | None:
    for value in values:
        m = _YEAR.search(str(value)) if value not in (None, "") else None
        if m:
            return int(m[1])
    return None


def _split_tags(value: str | None) -> list[str]:
    return [t for t in (clean_text(p) for p in re.split(r"[,;]", value or "")) if t]


def _ascii_word(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def make_key(authors: Iterable[str], year: int | None, title: str) -> str:
    """A citation key in the usual ``lastYYYYword`` shape, stable for the same author, year and title."""
    first = next(iter(authors), "")
    last = re.sub(r"[^a-z]", "", _ascii_word(first.split()[-1] if first.split() else "")) or "anon"
    word = next((w.lower() for w in re.findall(r"[A-Za-z]{4,}", _ascii_word(title))), "paper")
    return f"{last}{year or ''}{word}"


# ---------------------------------------------------------------------------------------------------------
# LaTeX → Unicode

_LATEXISH = re.compile(r"[\\{}~]|--|``|''")
_MACRO_OR_LIGATURE = re.compile(r"[\\~$]|--|``|''")  # without these, LaTeX is words and grouping braces
_BARE_PERCENT = re.compile(r"(?<!\\)%")
_DECODE_LIMIT = 10_000  # longer text takes the light path: pylatexenc needs ~10 µs a character
_TEXT_MACROS = {
    "textbackslash": "\\",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textasciitilde": "~",
    "textasciicircum": "^",
}
_LIGHT = re.compile(r"\\(" + "|".join(_TEXT_MACROS) + r")(?![A-Za-z])(?:\{\}| )?|\\([&%#_${}])|\{\}")


@lru_cache(maxsize=1)
def _decoder() -> tuple[LatexNodes2Text, Any]:
    """The text converter and the parser's macro table, built once (pylatexenc builds the table per call)."""
    db = get_default_latex_context_db()
    macros = [MacroTextSpec(name, simplify_repl=text) for name, text in _TEXT_MACROS.items()]
    db.add_context_category("papersift", prepend=True, macros=[*macros, MacroTextSpec("url", "%s")])
    return LatexNodes2Text(latex_context=db, math_mode="verbatim"), get_default_walker_db()


_LIGHT_NO_BRACES = re.compile(_LIGHT.pattern + "|[{}]")


def unescape_bibtex(text: str, drop_braces: bool = False) -> str:
    """Undo BibTeX's escapes only (``\\&``, ``\\_``, ``\\textbackslash{}``, ``{}``); other LaTeX is kept,
    grouping braces too unless ``drop_braces``."""
    pattern = _LIGHT_NO_BRACES if drop_braces else _LIGHT
    return pattern.sub(lambda m: _TEXT_MACROS[m[1]] if m[1] else m[2] or "", text)


def latex_to_unicode(text: str) -> str:
    """LaTeX field text as Unicode (``{\\"u}`` → ü, ``\\&`` → &, grouping braces dropped, math kept as is),
    whitespace collapsed."""
    if not _LATEXISH.search(text):
        return clean_text(text)
    if not _MACRO_OR_LIGATURE.search(text):  # Zotero's {Capital} protection: the common case, made cheap
        return clean_text(text.replace("{", "").replace("}", ""))
    if len(text) > _DECODE_LIMIT:
        return clean_text(unescape_bibtex(text, drop_braces=True))
    return _decode_latex(text)


@lru_cache(maxsize=8192)  # names, venues and tags repeat across a library
def _decode_latex(text: str) -> str:
    converter, walker_db = _decoder()
    try:
        return clean_text(converter.latex_to_text(_BARE_PERCENT.sub(r"\\%", text), latex_context=walker_db))
    except (LatexWalkerError, RecursionError):
        return clean_text(unescape_bibtex(text, drop_braces=True))


# ---------------------------------------------------------------------------------------------------------
# format detection and entry point

_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.M)
_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")


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
    if lines and _id_line(lines[0]) is not None:
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
            problem = "empty input" if not text.strip() else "unrecognised format"
            message = f"{problem}: expected BibTeX, RIS, CSL-JSON or a list of arXiv ids, one a line"
            return ImportResult([], [EntryError(0, message)], "")
    readers = {"bibtex": _read_bibtex, "ris": _read_ris, "csl-json": _read_csl_json, "ids": _read_ids}
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
        return ImportResult([], [EntryError(0, f"{path}: cannot read: {reason}")], "")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        message = f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} on line {line}); save it as UTF-8"
        return ImportResult([], [EntryError(line, message)], "")
    return read_bibliography(text, fmt)


Read = Iterator[Reference | EntryError]


# ---------------------------------------------------------------------------------------------------------
# BibTeX

_KEY_IN_RAW = re.compile(r"@\s*\w+\s*[{(]\s*([^,\s{}()]*)")


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
    found = _bare_arxiv_id(f.get("eprint")) if prefix == "arxiv" else None
    volume = re.fullmatch(r"\s*abs/(\S+)\s*", f.get("volume", ""))  # DBLP: journal = CoRR, volume = abs/…
    return (
        found
        or _bare_arxiv_id(f.get("arxivid") or f.get("arxiv"))
        or find_arxiv_id(f.get("url"), f.get("howpublished"), f.get("journal"), f.get("doi"), f.get("note"))
        or (_bare_arxiv_id(volume[1]) if volume else None)
    )


def _find_url(text: str | None) -> str | None:
    """The first http(s) URL in ``text`` (``\\url{…}`` included)."""
    m = re.search(r"https?://[^\s{}]+", text or "")
    return m[0] if m else None


def _reference_from_entry(entry: Entry) -> Reference | EntryError:
    line = (entry.start_line or 0) + 1
    f: dict[str, str] = {}
    for field in entry.fields:
        f.setdefault(field.key.lower(), str(field.value))
    title = latex_to_unicode(f.get("title", ""))
    if not title:
        return EntryError(line, f"BibTeX entry {entry.key!r} has no title; skipped")
    authors = _bibtex_names(f.get("author", ""))
    year = _year(f.get("year"), f.get("date"))
    url = safe_url(unescape_bibtex(f.get("url", ""))) or safe_url(_find_url(f.get("howpublished")))
    venue = next((f[k] for k in ("journal", "journaltitle", "booktitle") if f.get(k)), "")
    notes = (unescape_bibtex(f.get(k, "")).strip() for k in ("note", "annote"))
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
        tags=tuple(latex_to_unicode(t) for t in _split_tags(f.get("keywords"))),
        note="\n\n".join(n for n in notes if n),
        line=line,
    )


def _failed_block_error(block: ParsingFailedBlock) -> EntryError:
    line = (block.start_line or 0) + 1
    m = _KEY_IN_RAW.match((block.raw or "")[:300])
    what = f"BibTeX entry {m[1]!r}" if m and m[1] else "BibTeX entry"
    error = block.error
    reason = error.abort_reason if isinstance(error, BlockAbortedException) else str(error)
    return EntryError(line, f"{what} is malformed and was skipped: {' '.join(reason.split())}")


def _read_bibtex(text: str) -> Read:
    for block in parse_string(text).blocks:
        if isinstance(block, ParsingFailedBlock):
            # a duplicate key or field still holds a whole entry: keep it rather than lose it
            inner = block.ignore_error_block
            if not isinstance(inner, Entry):
                yield _failed_block_error(block)
                continue
            block = inner
        if isinstance(block, Entry):
            yield _reference_from_entry(block)


# ---------------------------------------------------------------------------------------------------------
# RIS

_RIS_MULTILINE = frozenset({"AB", "N2", "N1"})  # prose tags whose values may run on over plain lines
_RIS_ARXIV_TAGS = ("UR", "L1", "L2", "DO", "M1", "M3", "AN", "N1", "T2", "JO", "JF", "T3")


def _ris_name(value: str) -> str:
    """RIS names are ``Last, First[, Suffix]`` (or already ``First Last``)."""
    parts = [p.strip() for p in value.split(",")]
    if len(parts) == 1:
        return clean_text(value)
    return clean_text(" ".join([*parts[1:2], parts[0], *parts[2:]]))


def _ris_reference(tags: dict[str, list[str]], line: int) -> Reference | EntryError:
    def first(*names: str) -> str:
        return next((v for n in names for v in tags.get(n, []) if v.strip()), "")

    title = clean_text(first("TI", "T1", "CT"))
    if not title:
        return EntryError(line, "RIS record has no title (TI or T1); skipped")
    authors = tuple(n for n in (_ris_name(v) for v in tags.get("AU", []) + tags.get("A1", [])) if n)
    year = _year(first("PY"), first("Y1"), first("DA"))
    arxiv_texts = [v for t in _RIS_ARXIV_TAGS for v in tags.get(t, [])]
    return Reference(
        key=first("ID").strip() or make_key(authors, year, title),
        title=title,
        authors=authors,
        year=year,
        abstract=clean_text(first("AB", "N2")),
        doi=normalize_doi(first("DO")),
        arxiv_id=find_arxiv_id(*arxiv_texts),
        url=safe_url(first("UR")),
        venue=clean_text(first("T2", "JF", "JO", "J2")) or None,
        tags=tuple(t for v in tags.get("KW", []) for t in map(clean_text, v.split(";")) if t),
        note="\n\n".join(v.strip() for v in tags.get("N1", []) if v.strip()),
        line=line,
    )


def _ris_records(text: str) -> Iterator[tuple[int, dict[str, list[str]]] | EntryError]:
    """Each RIS record as (line of its TY, values by tag), or the error that spoiled it."""
    start = 0  # line of the open record's TY; 0 between records
    tags: dict[str, list[str]] = {}
    last = ""
    bad: EntryError | None = None
    stray = False  # inside tag lines that lack their TY, already reported
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        m = _RIS_LINE.match(line)
        if not start:
            if m and m[1] == "TY":
                start, tags, last, bad, stray = n, {}, "", None, False
            elif m and not stray:
                yield EntryError(n, f"RIS tag {m[1]} outside a record (no 'TY  - ' line before it); skipped")
                stray = m[1] != "ER"
            elif m and m[1] == "ER":
                stray = False
            continue  # other text between records (export headers) belongs to no record
        if m is None:
            if bad is None and last in _RIS_MULTILINE:
                tags[last][-1] += "\n" + line.strip()
            elif bad is None:
                snippet = line.strip()[:60]
                bad = EntryError(
                    n, f"not a RIS 'XX  - value' line: {snippet!r}; record from line {start} skipped"
                )
            continue
        tag, value = m[1], m[2] or ""
        if tag in ("TY", "ER"):
            if tag == "TY" and bad is None:
                bad = EntryError(start, f"RIS record from line {start} has no 'ER  - ' line before line {n}")
            yield bad or (start, tags)
            start, tags, last, bad = (n if tag == "TY" else 0), {}, "", None
        else:
            tags.setdefault(tag, []).append(value)
            last = tag
    if start:
        yield bad or EntryError(start, f"RIS record from line {start} is cut off: no 'ER  - ' line")


def _read_ris(text: str) -> Read:
    for record in _ris_records(text):
        yield record if isinstance(record, EntryError) else _ris_reference(record[1], record[0])


# ---------------------------------------------------------------------------------------------------------
# CSL-JSON


def _str(value: Any) -> str:
    return value if isinstance(value, str) else str(value) if isinstance(value, int | float) else ""


def _csl_name(person: Any) -> str:
    if not isinstance(person, dict):
        return clean_text(_str(person))
    if person.get("literal"):
        return clean_text(_str(person["literal"]))
    keys = ("given", "dropping-particle", "non-dropping-particle", "family", "suffix")
    return clean_text(" ".join(_str(person.get(k)) for k in keys))


def _csl_year(issued: Any) -> int | None:
    if not isinstance(issued, dict):
        return _year(_str(issued))
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        return _year(parts[0][0])
    return _year(_str(issued.get("raw")), _str(issued.get("literal")))


def _csl_reference(item: Any, index: int) -> Reference | EntryError:
    if not isinstance(item, dict):
        return EntryError(0, f"CSL-JSON item {index} is not an object; skipped")
    title = clean_text(_str(item.get("title")))
    ident = _str(item.get("citation-key")) or _str(item.get("id"))
    if not title:
        where = f"CSL-JSON item {index}" + (f" (id {ident!r})" if ident else "")
        return EntryError(0, f"{where} has no title; skipped")
    people = item.get("author")
    authors = tuple(n for n in map(_csl_name, people if isinstance(people, list) else []) if n)
    year = _csl_year(item.get("issued"))
    number = _str(item.get("number"))
    is_preprint = "arxiv" in " ".join(_str(item.get(k)).lower() for k in ("publisher", "archive", "source"))
    texts = [_str(item.get(k)) for k in ("URL", "DOI", "note", "container-title", "archive_location")]
    return Reference(
        key=ident if ident and "://" not in ident else make_key(authors, year, title),  # not Zotero's URIs
        title=title,
        authors=authors,
        year=year,
        abstract=clean_text(_str(item.get("abstract"))),
        doi=normalize_doi(_str(item.get("DOI"))),
        arxiv_id=find_arxiv_id(number, *texts) or (_bare_arxiv_id(number) if is_preprint else None),
        url=safe_url(_str(item.get("URL"))),
        venue=clean_text(_str(item.get("container-title"))) or None,
        tags=tuple(_split_tags(_str(item.get("keyword")))),
        note=_str(item.get("note")).strip(),
        line=0,
    )


def _read_csl_json(text: str) -> Read:
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as e:
        yield EntryError(e.lineno, f"malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}")
        return
    if isinstance(data, dict):  # one item, or {"items": [...]}
        data = [data] if "title" in data else data.get("items")
    if not isinstance(data, list):
        yield EntryError(1, "CSL-JSON must be an array of items")
        return
    for index, item in enumerate(data, 1):
        yield _csl_reference(item, index)


# ---------------------------------------------------------------------------------------------------------
# arXiv id lists


def _id_line(line: str) -> str | None:
    try:
        return normalize_id(line)
    except InvalidIdError:
        return None


def _read_ids(text: str) -> Read:
    for n, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        found = _id_line(line) if line else None
        if found is not None:
            yield Reference(found, "", (), None, "", None, found, None, None, (), "", n)
        elif line:
            yield EntryError(n, f"not an arXiv id or arXiv URL: {line[:80]!r}")


# ---------------------------------------------------------------------------------------------------------
# writers

_BIB_SPECIAL = re.compile(r"(?<!\\)([&%#])")
_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    **{c: "\\" + c for c in "&%#_$"},
}
_TO_ESCAPE = re.compile(r"[\\{}~^&%#_$]")
_LIGATURE = re.compile(r"(?<=[-`'!?])(?=[-`'])")  # -- ``  '' ?` !` would become – “ ” ¿ ¡
_KEY_UNSAFE = re.compile(r"[\s,{}()\"'#%=\\~]")


def _balanced(text: str) -> str:
    """``text`` with every brace a matched LaTeX group: escaped and unmatched braces become
    ``\\textbraceleft{}``/``\\textbraceright{}``, so no BibTeX reader can lose the entry's end."""
    text = text.replace("\\{", _ESCAPES["{"]).replace("\\}", _ESCAPES["}"])
    if "{" not in text and "}" not in text:
        return text
    out: list[str] = []
    opened: list[int] = []  # indexes in out of "{" not yet closed
    for ch in text:
        if ch == "{":
            opened.append(len(out))
        elif ch == "}":
            if not opened:
                out.append(_ESCAPES["}"])
                continue
            opened.pop()
        out.append(ch)
    for i in opened:
        out[i] = _ESCAPES["{"]
    return "".join(out)


def _bib(text: str) -> str:
    # arXiv text is LaTeX already (``$x_i$`` stays); escape only bare & % # that LaTeX would choke on
    return _BIB_SPECIAL.sub(r"\\\1", _balanced(text))


def escape_bibtex(text: str) -> str:
    """Plain Unicode text as a BibTeX field value that ``latex_to_unicode`` reads back unchanged."""
    return _LIGATURE.sub("{}", _TO_ESCAPE.sub(lambda m: _ESCAPES[m[0]], text))


def _paper_year(paper: Paper) -> int:
    return (paper.published or paper.announced or paper.updated or date(1991, 1, 1)).year


def bibtex_key(paper: Paper) -> str:
    """``lastYYYYword`` for a paper: first author's last name, year of v1, first long word of the title."""
    return make_key(paper.authors, _paper_year(paper), paper.title)


def paper_bibtex(paper: Paper, key: str | None = None) -> str:
    """A BibTeX ``@misc`` entry in arXiv's own style (eprint, archivePrefix, primaryClass)."""
    fields = [
        ("title", "{" + _bib(paper.title) + "}"),
        ("author", " and ".join(_bib(a) for a in paper.authors)),
        ("year", str(_paper_year(paper))),
        ("eprint", paper.id),
        ("archivePrefix", "arXiv"),
        ("primaryClass", paper.primary_category),
        ("url", ABS_URL.format(paper.id)),
    ]
    if paper.doi:
        fields.append(("doi", paper.doi))
    if paper.journal_ref:
        fields.append(("journal", _bib(paper.journal_ref)))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    return f"@misc{{{key or bibtex_key(paper)},\n{body}\n}}\n"


def _bibtex_name(name: str) -> str:
    text = escape_bibtex(name)
    # a comma or a lone "and" would split the name; braces keep it one last name
    return "{" + text + "}" if "," in name or re.search(r"\band\b", name, re.I) else text


def reference_bibtex(ref: Reference, key: str | None = None) -> str:
    """One reference as a BibTeX entry (``@article`` when it has a venue, else ``@misc``)."""
    fields = [("title", "{" + escape_bibtex(ref.title) + "}")]
    if ref.authors:
        fields.append(("author", " and ".join(_bibtex_name(a) for a in ref.authors)))
    if ref.year is not None:
        fields.append(("year", str(ref.year)))
    if ref.venue:
        fields.append(("journal", escape_bibtex(ref.venue)))
    if ref.arxiv_id:
        fields += [("eprint", ref.arxiv_id), ("archivePrefix", "arXiv")]
    if ref.doi:
        fields.append(("doi", re.sub(r"[{}]", "", ref.doi)))
    if ref.url:
        fields.append(("url", ref.url.replace("{", "%7B").replace("}", "%7D")))
    if ref.tags:
        fields.append(("keywords", ", ".join(escape_bibtex(t) for t in ref.tags)))
    if ref.abstract:
        fields.append(("abstract", escape_bibtex(ref.abstract)))
    if ref.note:
        fields.append(("note", escape_bibtex(ref.note)))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    kind = "article" if ref.venue else "misc"
    return f"@{kind}{{{key or _safe_key(ref)},\n{body}\n}}\n"


def _safe_key(ref: Reference) -> str:
    return _KEY_UNSAFE.sub("", ref.key) or make_key(ref.authors, ref.year, ref.title)


def _unique(key: str, used: set[str]) -> str:
    candidate, n = key, 1
    while candidate.lower() in used:
        n += 1
        candidate = f"{key}-{n}"
    used.add(candidate.lower())
    return candidate


def to_bibtex(items: Iterable[Reference | Paper]) -> str:
    """A BibTeX file of references and papers; citation keys made unique (``key``, ``key-2``, …)."""
    used: set[str] = set()
    out = []
    for item in items:
        if isinstance(item, Paper):
            out.append(paper_bibtex(item, _unique(bibtex_key(item), used)))
        else:
            out.append(reference_bibtex(item, _unique(_safe_key(item), used)))
    return "\n".join(out)


def reference_from_paper(paper: Paper) -> Reference:
    """A paper from the store as a reference (its text stays arXiv's LaTeX)."""
    return Reference(
        key=bibtex_key(paper),
        title=paper.title,
        authors=tuple(paper.authors),
        year=_paper_year(paper),
        abstract=paper.abstract,
        doi=normalize_doi(paper.doi),
        arxiv_id=paper.id,
        url=ABS_URL.format(paper.id),
        venue=paper.journal_ref,
        tags=(),
        note="",
        line=0,
    )


def _csl_person(name: str) -> dict[str, str]:
    given, _, family = name.rpartition(" ")
    return {"family": family, "given": given} if given else {"literal": name}


def reference_csl(ref: Reference) -> dict[str, Any]:
    """One reference as a CSL-JSON item (Zotero's field names)."""
    item: dict[str, Any] = {"id": ref.key, "type": "article-journal" if ref.venue else "article"}
    item["title"] = ref.title
    if ref.authors:
        item["author"] = [_csl_person(a) for a in ref.authors]
    if ref.year is not None:
        item["issued"] = {"date-parts": [[ref.year]]}
    optional = {
        "container-title": ref.venue,
        "abstract": ref.abstract,
        "DOI": ref.doi,
        "URL": ref.url,
        "keyword": ", ".join(ref.tags),
        "note": ref.note,
    }
    if ref.arxiv_id:
        optional |= {"number": f"arXiv:{ref.arxiv_id}", "publisher": None if ref.venue else "arXiv"}
    item.update((k, v) for k, v in optional.items() if v)
    return item


def to_csl_json(items: Iterable[Reference | Paper]) -> str:
    """A CSL-JSON array (what Zotero imports as "CSL JSON"); ids made unique like ``to_bibtex``'s keys."""
    used: set[str] = set()
    out = []
    for item in items:
        ref = reference_from_paper(item) if isinstance(item, Paper) else item
        csl = reference_csl(ref)
        csl["id"] = _unique(ref.key or make_key(ref.authors, ref.year, ref.title), used)
        out.append(csl)
    return orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n"
