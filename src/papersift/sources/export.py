"""Bibliographies out: BibTeX (a ``Paper`` in arXiv's own style, which the CLI and web UI also use, and a
``Reference`` in its own type), CSL-JSON and RIS, with citation keys made unique. Text goes through the one
converter (``citetext``): BibTeX that compiles under every TeX engine and bibtex or biber, plain Unicode for
CSL-JSON and RIS. Written so that reading the file back gives the same references; no parser is loaded.

A ``SavedPaper`` is a stored paper with the reader's tags and note and the venues it was accepted at: tags
go out as BibTeX ``keywords``, RIS ``KW`` and CSL-JSON ``keyword``, the note as ``note`` / ``N1`` / ``note``,
and a venue makes it a conference paper (``@inproceedings`` with ``booktitle``, ``CPAPER`` with ``T2``,
``paper-conference`` with ``container-title``). A tag holding a comma or semicolon is kept whole: in braces
in BibTeX (``keywords = {diffusion, {graphs, sparse}}``), in double quotes in CSL-JSON (``"graphs, sparse"``,
a quote in it doubled), and on its own ``KW`` line in RIS, whose lines are never split.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import groupby
from typing import Any

import orjson

from papersift.records.paper import Paper, is_arxiv_id
from papersift.sources.citetext import (
    PDFLATEX_UTF8,
    bibtex_name,
    bibtex_preamble,
    bibtex_text,
    clean_authors,
    non_ascii_latex,
    plain_authors,
)
from papersift.sources.latex import escape_bibtex, plain_text
from papersift.sources.references import (
    ABS_URL,
    Reference,
    bibtex_key,
    make_key,
    paper_year,
    parse_journal_ref,
    reference_from_paper,
)

_TEX_SPECIAL = re.compile(r"[\\{}%#&_$^~]")  # none belongs in a volume, number or page
_KEY_UNSAFE = re.compile(r"[\s,{}()\"'#%=\\~]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # no character TeX can read
_CONFERENCE = frozenset({"inproceedings", "conference"})


@dataclass(frozen=True, slots=True)
class Venue:
    """A conference a paper was accepted at, as a bibliography names it (``COLM 2025``)."""

    name: str  # "COLM", or the conference's long name where its records give one
    year: int
    url: str | None = None  # the paper's page at the venue: its link when it has no arXiv id

    @property
    def title(self) -> str:
        return f"{self.name} {self.year}"


@dataclass(frozen=True, slots=True)
class SavedPaper:
    """A stored paper with what its reader keeps with it (tags, a note) and the venues it was accepted at
    (the first is the one it is cited at)."""

    paper: Paper
    tags: tuple[str, ...] = ()
    note: str = ""
    venues: tuple[Venue, ...] = ()


Exportable = Reference | Paper | SavedPaper


def paper_bibtex(paper: Paper, key: str | None = None, venues: Iterable[Venue] = ()) -> str:
    """A BibTeX entry in arXiv's own style (eprint, archivePrefix, primaryClass): ``@misc``, or
    ``@inproceedings`` at its first venue; after the ``@preamble`` its math needs, if any."""
    provided: set[str] = set()
    saved = SavedPaper(paper, venues=tuple(venues))
    entry = _paper_entry(saved, key or _paper_key(saved), provided)
    return bibtex_preamble(provided) + entry


def _paper_key(saved: SavedPaper) -> str:
    paper = saved.paper
    if saved.venues and not (paper.published or paper.announced or paper.updated):
        return make_key(paper.authors, saved.venues[0].year, paper.title)  # a venue-only paper
    return bibtex_key(paper)


def _paper_entry(saved: SavedPaper, key: str, provided: set[str]) -> str:
    paper, venue = saved.paper, next(iter(saved.venues), None)
    arxiv = is_arxiv_id(paper.id)
    fields = [
        ("title", "{" + bibtex_text(paper.title, provided) + "}"),
        ("author", " and ".join(bibtex_name(a, provided) for a in clean_authors(paper.authors))),
    ]
    if venue:
        fields.append(("booktitle", _kept_text(venue.title, provided)))
    fields.append(("year", str(venue.year if venue else paper_year(paper))))
    if arxiv:
        fields += [("eprint", paper.id), ("archivePrefix", "arXiv"), ("primaryClass", paper.primary_category)]
    own_page = venue.url if venue else None
    fields.append(("url", _bibtex_url(ABS_URL.format(paper.id) if arxiv else own_page)))
    if paper.doi:
        fields.append(("doi", re.sub(r"[{}\\\s]", "", paper.doi)))
    journal, volume, issue, pages = parse_journal_ref(paper.journal_ref)
    if not venue:  # a journal_ref names the journal version; cited at a venue, the paper is the venue's
        fields.append(("journal", bibtex_text(journal, provided) if journal else ""))
        fields += _numbers(volume, issue, pages)
    fields += _reader_fields(saved.tags, saved.note, provided)
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
    return f"@{'inproceedings' if venue else 'misc'}{{{key},\n{body}\n}}\n"


def _bibtex_url(url: str | None) -> str:
    return (url or "").replace("{", "%7B").replace("}", "%7D")


def _kept_text(text: str, provided: set[str]) -> str:
    """A reader's own words (a note, a tag) as BibTeX that every engine compiles and ``unescape_bibtex``
    reads back unchanged: BibTeX's specials escaped, line breaks kept, the characters pdflatex's utf8 sets
    as they are, any run of others in ``\\psChar{…}`` (XeLaTeX and LuaLaTeX show it, pdflatex a ``?``)."""
    escaped = escape_bibtex(_CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n")))
    out = []
    for beyond, run in groupby(escaped, lambda c: c > "\x7f" and c not in PDFLATEX_UTF8):
        chars = "".join(run)
        if beyond:
            provided.add("psChar")
            chars = "\\psChar{" + chars + "}"
        out.append(chars)
    return "".join(out)


def _bibtex_tag(tag: str, provided: set[str]) -> str:
    text = _kept_text(tag, provided)
    return "{" + text + "}" if re.search(r"[,;]", tag) else text  # braces keep a comma inside the tag


def _reader_fields(tags: Iterable[str], note: str, provided: set[str]) -> list[tuple[str, str]]:
    """BibTeX's ``keywords`` (the reader's tags) and ``note``."""
    keywords = ", ".join(_bibtex_tag(t, provided) for t in tags if t.strip())
    return [("keywords", keywords), ("note", _kept_text(note.strip(), provided))]


def _numbers(volume: str, issue: str, pages: str) -> list[tuple[str, str]]:
    """BibTeX's volume, number and pages (a page range with ``--``)."""
    values = [("volume", volume), ("number", issue), ("pages", pages.replace("-", "--"))]
    return [(k, _TEX_SPECIAL.sub("", v)) for k, v in values if v]


def reference_bibtex(ref: Reference, key: str | None = None) -> str:
    """One reference as a BibTeX entry of its own type (else ``@article`` with a venue, or ``@misc``),
    after the ``@preamble`` its math needs, if any."""
    provided: set[str] = set()
    entry = _reference_entry(ref, key or _safe_key(ref), provided)
    return bibtex_preamble(provided) + entry


def _unicode_bibtex(text: str) -> str:
    """A reader's Unicode text as BibTeX that ``latex_to_unicode`` reads back unchanged, letters beyond
    ASCII as LaTeX accents and symbols (so pdflatex needs no ``inputenc`` setup for them)."""
    escaped = escape_bibtex(text)
    return non_ascii_latex(escaped) if not escaped.isascii() else escaped


def _unicode_name(name: str) -> str:
    text = _unicode_bibtex(name)
    # a comma or a lone "and" would split the name; braces keep it one last name
    return "{" + text + "}" if "," in name or re.search(r"\band\b", name, re.I) else text


def _reference_entry(ref: Reference, key: str, provided: set[str]) -> str:
    def text(value: str) -> str:
        return bibtex_text(value, provided) if ref.latex else _unicode_bibtex(value)

    fields = [("title", "{" + text(ref.title) + "}")]
    authors = clean_authors(ref.authors)
    if authors:
        names = (bibtex_name(a, provided) if ref.latex else _unicode_name(a) for a in authors)
        fields.append(("author", " and ".join(names)))
    if ref.year is not None:
        fields.append(("year", str(ref.year)))
    if ref.venue:
        fields.append(("booktitle" if ref.kind in _CONFERENCE else "journal", text(ref.venue)))
    fields += _numbers(ref.volume, ref.issue, ref.pages)
    if ref.arxiv_id:
        fields += [("eprint", ref.arxiv_id), ("archivePrefix", "arXiv")]
    if ref.doi:
        fields.append(("doi", re.sub(r"[{}]", "", ref.doi)))
    if ref.url:
        fields.append(("url", _bibtex_url(ref.url)))
    if ref.abstract:
        fields.append(("abstract", escape_bibtex(ref.abstract)))
    fields += _reader_fields(ref.tags, ref.note, provided)
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
    kind = ref.kind or ("article" if ref.venue else "misc")
    return f"@{kind}{{{key},\n{body}\n}}\n"


def _safe_key(ref: Reference) -> str:
    return _KEY_UNSAFE.sub("", ref.key) or make_key(ref.authors, ref.year, ref.title)


def _unique(key: str, used: set[str]) -> str:
    candidate, n = key, 1
    while candidate.lower() in used:
        n += 1
        candidate = f"{key}-{n}"
    used.add(candidate.lower())
    return candidate


def to_bibtex(items: Iterable[Exportable]) -> str:
    """A BibTeX file of references and papers; citation keys made unique (``key``, ``key-2``, …)."""
    used: set[str] = set()
    provided: set[str] = set()
    out = []
    for item in items:
        if isinstance(item, Reference):
            out.append(_reference_entry(item, _unique(_safe_key(item), used), provided))
        else:
            saved = item if isinstance(item, SavedPaper) else SavedPaper(item)
            out.append(_paper_entry(saved, _unique(_paper_key(saved), used), provided))
    preamble = bibtex_preamble(provided)
    return "\n".join([preamble, *out] if preamble else out)


def _csl_person(name: str) -> dict[str, str]:
    given, _, family = name.rpartition(" ")
    return {"family": family, "given": given} if given else {"literal": name}


def as_reference(item: Exportable) -> Reference:
    """A paper (with its reader's tags and note, and its first venue) as a reference; a reference as it is."""
    if isinstance(item, Reference):
        return item
    saved = item if isinstance(item, SavedPaper) else SavedPaper(item)
    changes: dict[str, Any] = {"key": _paper_key(saved), "tags": saved.tags, "note": saved.note}
    venue = next(iter(saved.venues), None)
    if venue:
        changes |= {"venue": venue.title, "year": venue.year, "kind": "inproceedings"}
        changes |= {"volume": "", "issue": "", "pages": ""}
    if not is_arxiv_id(saved.paper.id):  # a venue-only paper: no eprint, its venue page for a link
        changes |= {"arxiv_id": None, "url": venue.url if venue else None}
    return replace(reference_from_paper(saved.paper), **changes)


def _csl_type(ref: Reference) -> str:
    if ref.kind in _CONFERENCE:
        return "paper-conference"
    return "article-journal" if ref.venue else "article"


def _csl_keyword(tags: Iterable[str]) -> str:
    """Tags as CSL-JSON's one ``keyword`` string: joined by ``, ``; a tag holding a comma, semicolon or
    double quote in double quotes, its quotes doubled (as CSV writes it)."""
    return ", ".join(
        '"' + t.replace('"', '""') + '"' if re.search(r'[,;"]', t) else t for t in tags if t.strip()
    )


def reference_csl(ref: Reference) -> dict[str, Any]:
    """One reference as a CSL-JSON item (Zotero's field names)."""
    item: dict[str, Any] = {"id": ref.key, "type": _csl_type(ref)}
    item["title"] = plain_text(ref.title) if ref.latex else ref.title
    authors = plain_authors(ref.authors) if ref.latex else clean_authors(ref.authors)
    if authors:
        item["author"] = [_csl_person(a) for a in authors]
    if ref.year is not None:
        item["issued"] = {"date-parts": [[ref.year]]}
    optional = {
        "container-title": plain_text(ref.venue or "") if ref.latex else ref.venue,
        "abstract": ref.abstract,
        "DOI": ref.doi,
        "URL": ref.url,
        "keyword": _csl_keyword(ref.tags),
        "note": ref.note.strip(),
        "volume": ref.volume,
        "issue": ref.issue,
        "page": ref.pages,
    }
    if ref.arxiv_id:
        optional |= {"number": f"arXiv:{ref.arxiv_id}", "publisher": None if ref.venue else "arXiv"}
    item.update((k, v) for k, v in optional.items() if v)
    return item


def to_csl_json(items: Iterable[Exportable]) -> str:
    """A CSL-JSON array (what Zotero imports as "CSL JSON"); ids made unique like ``to_bibtex``'s keys."""
    used: set[str] = set()
    out = []
    for item in items:
        ref = as_reference(item)
        csl = reference_csl(ref)
        csl["id"] = _unique(ref.key or make_key(ref.authors, ref.year, ref.title), used)
        out.append(csl)
    return orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n"


def _ris_name(name: str) -> str:
    given, _, family = name.rpartition(" ")
    return f"{family}, {given}" if given else name


def _ris_type(ref: Reference) -> str:
    if ref.kind in _CONFERENCE:
        return "CPAPER"
    return "JOUR" if ref.venue else "GEN"


def reference_ris(ref: Reference) -> str:
    """One reference as an RIS record (``CPAPER`` at a conference, ``JOUR`` with another venue, else
    ``GEN``), text as plain Unicode; the reader's tags one ``KW`` line each, their note an ``N1``."""

    def text(value: str) -> str:
        return plain_text(value) if ref.latex else value

    kind = _ris_type(ref)
    lines = [("TY", kind), ("ID", ref.key), ("TI", text(ref.title))]
    authors = plain_authors(ref.authors) if ref.latex else clean_authors(ref.authors)
    lines += [("AU", _ris_name(a)) for a in authors]
    if ref.year is not None:
        lines.append(("PY", str(ref.year)))
    if ref.venue:
        lines += [("JO", text(ref.venue))] if kind == "JOUR" else []
        lines.append(("T2", text(ref.venue)))
    first, _, last = ref.pages.partition("-")
    lines += [("VL", ref.volume), ("IS", ref.issue), ("SP", first), ("EP", last)]
    lines += [("DO", ref.doi or ""), ("UR", ref.url or "")]
    if ref.arxiv_id:
        lines.append(("M1", f"arXiv:{ref.arxiv_id}"))
    lines += [("KW", t) for t in ref.tags]
    lines.append(("AB", ref.abstract))
    body = "".join(f"{tag}  - {_ris_value(value)}\n" for tag, value in lines if value.strip())
    return body + _ris_note(ref.note) + "ER  - \n"


def _ris_value(value: str) -> str:
    return " ".join(value.split())  # one line: RIS continues only a few tags over plain lines


_RIS_TAG_LIKE = re.compile(r" *[A-Z][A-Z0-9]  -(?: |$)")


def _ris_note(note: str) -> str:
    """The note as one ``N1`` whose lines (blank ones too) run on as plain lines, which ``read_ris`` keeps; a
    line that looks like a tag line gets one more leading space, which the reader takes off again."""
    lines = [line.rstrip() for line in _CONTROL.sub("", note.replace("\r\n", "\n")).strip().splitlines()]
    if not lines:
        return ""
    rest = [" " + line if _RIS_TAG_LIKE.match(line) else line for line in lines[1:]]
    return "".join(line + "\n" for line in [f"N1  - {lines[0]}", *rest])


def to_ris(items: Iterable[Exportable]) -> str:
    """An RIS file (what Zotero, EndNote and Mendeley import); ids made unique like ``to_bibtex``'s keys."""
    used: set[str] = set()
    out = []
    for item in items:
        ref = as_reference(item)
        key = _unique(ref.key or make_key(ref.authors, ref.year, ref.title), used)
        out.append(reference_ris(replace(ref, key=key)))
    return "\n".join(out)
