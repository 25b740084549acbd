"""How papers are shown outside the web UI: the numbered daily listing text, JSON lines and BibTeX.

Pure formatting of store records; the CLI prints what these return. The JSON of a paper is
``reader/shapes.py``'s; a paper's BibTeX entry is ``sources.bibliography.paper_bibtex``, re-exported here.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import orjson

from papersift.records.paper import Paper
from papersift.sources.citetext import author_line, plain_authors
from papersift.sources.export import paper_bibtex as paper_bibtex
from papersift.store import ListingEntry

ABS_URL = "https://arxiv.org/abs/{}"
PDF_URL = "https://arxiv.org/pdf/{}"


def json_line(obj: dict[str, Any]) -> str:
    return orjson.dumps(obj).decode()


def entry_text(number: int, day: date, category: str, entry: ListingEntry, width: int = 2) -> str:
    """One listing entry as text: ``#01  2026-10-26  cs.LG`` then title, authors, abstract, link."""
    p = entry.paper
    cats = " ".join(p.categories) if p.categories else category
    head = f"#{number:0{width}d}  {day.isoformat()}  {cats}"
    if entry.kind == "cross":
        head += f"  (cross-list from {p.primary_category})"
    elif entry.kind in ("replace", "replace-cross"):
        head += "  (replaced)"
    return "\n".join(
        [
            head,
            p.title,
            author_line(p.authors),
            p.abstract,
            f"arXiv:{p.id}  {ABS_URL.format(p.id)}",
        ]
    )


def listing_counts(entries: list[ListingEntry]) -> dict[str, int]:
    """How many of a day's entries are new submissions, cross-lists and replacements."""
    new = sum(e.kind == "new" for e in entries)
    cross = sum(e.kind == "cross" for e in entries)
    return {"new": new, "cross": cross, "replace": len(entries) - new - cross}


def listing_text(category: str, day: date, entries: list[ListingEntry]) -> str:
    """A whole day's listing: counts, then new and cross-listed papers, then replacements apart."""
    counts = listing_counts(entries)
    new, cross, repl = counts["new"], counts["cross"], counts["replace"]
    width = max(2, len(str(len(entries))))
    out = [
        f"{category} — {day:%a, %d %b %Y}: {new} new, {cross} cross-lists, {repl} replacements",
        "",
    ]
    replacements_started = False
    for number, entry in enumerate(entries, 1):
        if entry.kind.startswith("replace") and not replacements_started:
            out += ["Replacements", ""]
            replacements_started = True
        out += [entry_text(number, day, category, entry, width), ""]
    return "\n".join(out).rstrip() + "\n"


def paper_text(paper: Paper) -> str:
    """``papersift show``: everything known about one paper."""
    lines = [
        f"arXiv:{paper.id}" + (f"v{paper.version}" if paper.version else ""),
        paper.title,
        ", ".join(plain_authors(paper.authors)),
        f"Categories: {' '.join(paper.categories)}",
    ]
    for label, value in (
        ("Announced", paper.announced),
        ("Submitted", paper.published),
        ("Updated", paper.updated),
        ("Comments", paper.comments),
        ("Journal-ref", paper.journal_ref),
        ("DOI", paper.doi),
        ("License", paper.license),
    ):
        if value:
            lines.append(f"{label}: {value}")
    for v in paper.versions:
        if v.submitted:
            lines.append(f"  v{v.version}: {v.submitted:%a, %d %b %Y %H:%M UTC}")
    lines += ["", paper.abstract, "", f"{ABS_URL.format(paper.id)}  {PDF_URL.format(paper.id)}"]
    return "\n".join(lines) + "\n"
