"""Bibliographies out: BibTeX (a ``Paper`` in arXiv's own style, which the CLI and web UI also use, and a
``Reference`` in its own type) and CSL-JSON, with citation keys made unique. Written so that reading the
file back gives the same references; no parser is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import orjson

from papersift.paper import Paper
from papersift.sources.latex import escape_arxiv, escape_bibtex
from papersift.sources.references import (
    ABS_URL,
    Reference,
    bibtex_key,
    make_key,
    paper_year,
    reference_from_paper,
)

_KEY_UNSAFE = re.compile(r"[\s,{}()\"'#%=\\~]")


def paper_bibtex(paper: Paper, key: str | None = None) -> str:
    """A BibTeX ``@misc`` entry in arXiv's own style (eprint, archivePrefix, primaryClass)."""
    fields = [
        ("title", "{" + escape_arxiv(paper.title) + "}"),
        ("author", " and ".join(escape_arxiv(a) for a in paper.authors)),
        ("year", str(paper_year(paper))),
        ("eprint", paper.id),
        ("archivePrefix", "arXiv"),
        ("primaryClass", paper.primary_category),
        ("url", ABS_URL.format(paper.id)),
    ]
    if paper.doi:
        fields.append(("doi", paper.doi))
    if paper.journal_ref:
        fields.append(("journal", escape_arxiv(paper.journal_ref)))
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields)
    return f"@misc{{{key or bibtex_key(paper)},\n{body}\n}}\n"


def _bibtex_name(name: str) -> str:
    text = escape_bibtex(name)
    # a comma or a lone "and" would split the name; braces keep it one last name
    return "{" + text + "}" if "," in name or re.search(r"\band\b", name, re.I) else text


def reference_bibtex(ref: Reference, key: str | None = None) -> str:
    """One reference as a BibTeX entry of its own type (else ``@article`` with a venue, or ``@misc``)."""
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
    kind = ref.kind or ("article" if ref.venue else "misc")
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
