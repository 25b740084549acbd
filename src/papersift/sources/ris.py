"""The RIS reader (Zotero, EndNote, Mendeley exports): tagged records as ``Reference`` records.

Each ``KW`` line is one tag, as the RIS specification has it (commas and semicolons are part of it). A note
(``N1``) runs on over plain lines, blank ones and leading spaces kept; a line that looks like a tag line was
written with one more leading space, taken off here. Zotero's notes are HTML (``<p>…</p>``): read as text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from papersift.records.messages import say
from papersift.records.paper import clean_text
from papersift.sources import references as ref
from papersift.sources.references import EntryError, Read, Reference

_RIS_LINE = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_RIS_MULTILINE = frozenset({"AB", "N2", "N1"})  # prose tags whose values may run on over plain lines
_RIS_ARXIV_TAGS = ("UR", "L1", "L2", "DO", "M1", "M3", "AN", "N1", "T2", "JO", "JF", "T3")
_GUARDED = re.compile(r" +[A-Z][A-Z0-9]  -(?: |$)")  # a note's line that looks like a tag line, guarded
_HTML_NOTE = re.compile(r"\s*<(p|div|h[1-6]|ul|ol|blockquote|pre)\b[^>]*>.*</\1>\s*", re.S | re.I)
_HTML_BREAK = re.compile(r"<br\s*/?>", re.I)
_HTML_BLOCK_END = re.compile(r"</(?:p|div|h[1-6]|li|ul|ol|blockquote|pre)>", re.I)
_HTML_TAG = re.compile(r"<[^>]*>")


def _note_text(value: str) -> str:
    """An ``N1`` value as the note's text: Zotero's HTML (a whole ``<p>…</p>`` or ``<div>…</div>``) with its
    paragraphs as blank lines and ``<br>`` as line breaks; other text as it is."""
    if not _HTML_NOTE.fullmatch(value):
        return value.strip()
    text = _HTML_BLOCK_END.sub("\n\n", _HTML_BREAK.sub("\n", value.replace("\n", " ")))
    text = html.unescape(_HTML_TAG.sub("", text)).replace("\xa0", " ")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.strip() for line in text.splitlines())).strip()


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
        return EntryError(line, say("ris_no_title"))
    authors = tuple(n for n in (_ris_name(v) for v in tags.get("AU", []) + tags.get("A1", [])) if n)
    year = ref.first_year(first("PY"), first("Y1"), first("DA"))
    arxiv_texts = [v for t in _RIS_ARXIV_TAGS for v in tags.get(t, [])]
    return Reference(
        key=first("ID").strip() or ref.make_key(authors, year, title),
        title=title,
        authors=authors,
        year=year,
        abstract=clean_text(first("AB", "N2")),
        doi=ref.normalize_doi(first("DO")),
        arxiv_id=ref.find_arxiv_id(*arxiv_texts),
        url=ref.safe_url(first("UR")),
        venue=clean_text(first("T2", "JF", "JO", "J2")) or None,
        tags=tuple(dict.fromkeys(t for t in map(clean_text, tags.get("KW", [])) if t)),
        note="\n\n".join(n for n in map(_note_text, tags.get("N1", [])) if n),
        line=line,
        volume=clean_text(first("VL")),
        issue=clean_text(first("IS", "CP")),
        pages=ref.clean_pages("-".join(p for p in (first("SP").strip(), first("EP").strip()) if p)),
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
            if start and bad is None and last == "N1":
                tags[last][-1] += "\n"  # a blank line of a note
            continue
        m = _RIS_LINE.match(line)
        if not start:
            if m and m[1] == "TY":
                start, tags, last, bad, stray = n, {}, "", None, False
            elif m and not stray:
                yield EntryError(n, say("ris_stray_tag", tag=m[1]))
                stray = m[1] != "ER"
            elif m and m[1] == "ER":
                stray = False
            continue  # other text between records (export headers) belongs to no record
        if m is None:
            if bad is None and last == "N1":
                tags[last][-1] += "\n" + (line[1:] if _GUARDED.match(line) else line)
            elif bad is None and last in _RIS_MULTILINE:
                tags[last][-1] += "\n" + line.strip()
            elif bad is None:
                snippet = line.strip()[:60]
                bad = EntryError(n, say("ris_bad_line", snippet=repr(snippet), start=start))
            continue
        tag, value = m[1], m[2] or ""
        if tag in ("TY", "ER"):
            if tag == "TY" and bad is None:
                bad = EntryError(start, say("ris_no_end", start=start, n=n))
            yield bad or (start, tags)
            start, tags, last, bad = (n if tag == "TY" else 0), {}, "", None
        else:
            tags.setdefault(tag, []).append(value)
            last = tag
    if start:
        yield bad or EntryError(start, say("ris_cut_off", start=start))


def read_ris(text: str) -> Read:
    for record in _ris_records(text):
        yield record if isinstance(record, EntryError) else _ris_reference(record[1], record[0])
