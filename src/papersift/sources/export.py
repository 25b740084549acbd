"""Bibliographies out: BibTeX (a ``Paper`` in arXiv's own style, which the CLI and web UI also use, and a
``Reference`` in its own type), CSL-JSON and RIS, with citation keys made unique. Text goes through the one
converter (``citetext``): BibTeX that compiles under every TeX engine and bibtex or biber, plain Unicode for
CSL-JSON and RIS. Written so that reading the file back gives the same references; no parser is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import orjson

from papersift.records.paper import Paper
from papersift.sources.citetext import (
    bibtex_name,
    bibtex_preamble,
    bibtex_text,
    clean_authors,
    non_ascii_latex,
    plain_authors,
    plain_text,
)
from papersift.sources.latex import escape_bibtex
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


def paper_bibtex(paper: Paper, key: str | None = None) -> str:
    """A BibTeX ``@misc`` entry in arXiv's own style (eprint, archivePrefix, primaryClass), after the
    ``@preamble`` its math needs, if any."""
    provided: set[str] = set()
    entry = _paper_entry(paper, key or bibtex_key(paper), provided)
    return bibtex_preamble(provided) + entry


def _paper_entry(paper: Paper, key: str, provided: set[str]) -> str:
    fields = [
        ("title", "{" + bibtex_text(paper.title, provided) + "}"),
        ("author", " and ".join(bibtex_name(a, provided) for a in clean_authors(paper.authors))),
        ("year", str(paper_year(paper))),
        ("eprint", paper.id),
        ("archivePrefix", "arXiv"),
        ("primaryClass", paper.primary_category),
        ("url", ABS_URL.format(paper.id)),
    ]
    if paper.doi:
        fields.append(("doi", re.sub(r"[{}\\\s]", "", paper.doi)))
    journal, volume, issue, pages = parse_journal_ref(paper.journal_ref)
    if journal:
        fields.append(("journal", bibtex_text(journal, provided)))
    fields += _numbers(volume, issue, pages)
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields if v)
    return f"@misc{{{key},\n{body}\n}}\n"


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
        fields.append(("journal", text(ref.venue)))
    fields += _numbers(ref.volume, ref.issue, ref.pages)
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


def to_bibtex(items: Iterable[Reference | Paper]) -> str:
    """A BibTeX file of references and papers; citation keys made unique (``key``, ``key-2``, …)."""
    used: set[str] = set()
    provided: set[str] = set()
    out = []
    for item in items:
        if isinstance(item, Paper):
            out.append(_paper_entry(item, _unique(bibtex_key(item), used), provided))
        else:
            out.append(_reference_entry(item, _unique(_safe_key(item), used), provided))
    preamble = bibtex_preamble(provided)
    return "\n".join([preamble, *out] if preamble else out)


def _csl_person(name: str) -> dict[str, str]:
    given, _, family = name.rpartition(" ")
    return {"family": family, "given": given} if given else {"literal": name}


def reference_csl(ref: Reference) -> dict[str, Any]:
    """One reference as a CSL-JSON item (Zotero's field names)."""
    item: dict[str, Any] = {"id": ref.key, "type": "article-journal" if ref.venue else "article"}
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
        "keyword": ", ".join(ref.tags),
        "note": ref.note,
        "volume": ref.volume,
        "issue": ref.issue,
        "page": ref.pages,
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


def _ris_name(name: str) -> str:
    given, _, family = name.rpartition(" ")
    return f"{family}, {given}" if given else name


def reference_ris(ref: Reference) -> str:
    """One reference as an RIS record (``JOUR`` with a venue, else ``GEN``), text as plain Unicode."""

    def text(value: str) -> str:
        return plain_text(value) if ref.latex else value

    lines = [("TY", "JOUR" if ref.venue else "GEN"), ("ID", ref.key), ("TI", text(ref.title))]
    authors = plain_authors(ref.authors) if ref.latex else clean_authors(ref.authors)
    lines += [("AU", _ris_name(a)) for a in authors]
    if ref.year is not None:
        lines.append(("PY", str(ref.year)))
    if ref.venue:
        lines += [("JO", text(ref.venue)), ("T2", text(ref.venue))]
    first, _, last = ref.pages.partition("-")
    lines += [("VL", ref.volume), ("IS", ref.issue), ("SP", first), ("EP", last)]
    lines += [("DO", ref.doi or ""), ("UR", ref.url or "")]
    if ref.arxiv_id:
        lines.append(("M1", f"arXiv:{ref.arxiv_id}"))
    lines += [("KW", t) for t in ref.tags]
    lines += [("AB", ref.abstract), ("N1", ref.note)]
    body = "".join(f"{tag}  - {_ris_value(value)}\n" for tag, value in lines if value.strip())
    return body + "ER  - \n"


def _ris_value(value: str) -> str:
    return " ".join(value.split())  # one line: RIS continues only a few tags over plain lines


def to_ris(items: Iterable[Reference | Paper]) -> str:
    """An RIS file (what Zotero, EndNote and Mendeley import); ids made unique like ``to_bibtex``'s keys."""
    used: set[str] = set()
    out = []
    for item in items:
        ref = reference_from_paper(item) if isinstance(item, Paper) else item
        key = _unique(ref.key or make_key(ref.authors, ref.year, ref.title), used)
        out.append(reference_ris(replace(ref, key=key)))
    return "\n".join(out)
