"""How papers are shown outside the web UI: the numbered daily listing text, JSON lines and BibTeX.

Pure formatting of store records; the CLI prints what these return. The text's fixed words (the listing's
header, ``Categories:``…) are messages (``records/messages.py``) said in ``lang``; a paper's text is plain
Unicode, no LaTeX left (``sources/latex.py``'s ``plain_text``). The JSON of a paper is ``library/shapes.py``'s
(its title and abstract arXiv's own text); a paper's BibTeX entry is ``sources.bibliography.paper_bibtex``,
re-exported here.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import orjson

from papersift.records.catalogs import said
from papersift.records.messages import dated, say
from papersift.records.paper import Paper
from papersift.records.venues import is_venue_id
from papersift.sources.citetext import author_line, plain_authors
from papersift.sources.export import paper_bibtex as paper_bibtex
from papersift.sources.latex import plain_text
from papersift.store import ListingEntry, Store

ABS_URL = "https://arxiv.org/abs/{}"
PDF_URL = "https://arxiv.org/pdf/{}"


def opening_day(store: Store, category: str, days: list[date]) -> date:
    """The day a listing opens on when none is asked for: the latest with new submissions in ``category``
    (a day of only cross-lists or replacements is not what "the latest listing" means), else the latest."""
    return store.latest_new_day(category) or days[-1]


def json_line(obj: dict[str, Any]) -> str:
    return orjson.dumps(obj).decode()


def _said(text: str, lang: str) -> str:
    return str(said(text, lang))


def entry_text(
    number: int, day: date, category: str, entry: ListingEntry, width: int = 2, lang: str = "en"
) -> str:
    """One listing entry as text: ``#01  2026-10-26  cs.LG`` then title, authors, abstract, link."""
    p = entry.paper
    cats = " ".join(p.categories) if p.categories else category
    head = f"#{number:0{width}d}  {day.isoformat()}  {cats}"
    if entry.kind == "cross":
        head += "  " + _said(say("listing_cross_from", category=p.primary_category), lang)
    elif entry.kind in ("replace", "replace-cross"):
        head += "  " + _said(say("listing_replaced"), lang)
    return "\n".join(
        [
            head,
            plain_text(p.title),
            _said(author_line(p.authors), lang),
            plain_text(p.abstract),
            f"arXiv:{p.id}  {ABS_URL.format(p.id)}",
        ]
    )


def listing_counts(entries: list[ListingEntry]) -> dict[str, int]:
    """How many of a day's entries are new submissions, cross-lists and replacements."""
    new = sum(e.kind == "new" for e in entries)
    cross = sum(e.kind == "cross" for e in entries)
    return {"new": new, "cross": cross, "replace": len(entries) - new - cross}


def listing_text(category: str, day: date, entries: list[ListingEntry], lang: str = "en") -> str:
    """A whole day's listing: counts, then new and cross-listed papers, then replacements apart."""
    header = say(
        "listing_header", category=category, day=dated("listing_day", day), **listing_counts(entries)
    )
    width = max(2, len(str(len(entries))))
    out = [_said(header, lang), ""]
    replacements_started = False
    for number, entry in enumerate(entries, 1):
        if entry.kind.startswith("replace") and not replacements_started:
            out += [_said(say("listing_replacements"), lang), ""]
            replacements_started = True
        out += [entry_text(number, day, category, entry, width, lang), ""]
    return "\n".join(out).rstrip() + "\n"


def _field(label: str, value: object, lang: str) -> str:
    """``Categories: cs.LG``: a field of ``show``, its label said in ``lang``."""
    return _said(say("paper_field", label=say(label), value=str(value)), lang)


def paper_text(paper: Paper, lang: str = "en") -> str:
    """``papersift show``: everything known about one paper, its fixed words in ``lang``."""
    venue_paper = is_venue_id(paper.id)  # a venue's paper with no arXiv version: its links are its record's
    lines = [
        paper.id if venue_paper else f"arXiv:{paper.id}" + (f"v{paper.version}" if paper.version else ""),
        plain_text(paper.title),
        ", ".join(plain_authors(paper.authors)),
        _field("field_categories", " ".join(paper.categories), lang),
    ]
    for label, value in (
        ("field_announced", paper.announced),
        ("field_submitted", paper.published),
        ("field_updated", paper.updated),
        ("field_comments", paper.comments),
        ("field_journal_ref", paper.journal_ref),
        ("field_doi", paper.doi),
        ("field_license", paper.license),
    ):
        if value:
            lines.append(_field(label, plain_text(value) if isinstance(value, str) else value, lang))
    for v in paper.versions:
        if v.submitted:
            at = dated("paper_version", v.submitted, version=v.version, time=f"{v.submitted:%H:%M}")
            lines.append("  " + _said(at, lang))
    lines += ["", plain_text(paper.abstract)]
    if not venue_paper:
        lines += ["", f"{ABS_URL.format(paper.id)}  {PDF_URL.format(paper.id)}"]
    return "\n".join(lines) + "\n"
