"""A reader's library as the faces use it: saving papers, importing and exporting bibliographies (the
Daily Papers ranked from it are ``ranking/daily.py``'s).

Imported references are linked to stored papers by arXiv id, then DOI, then exact title; a reference that is
not in the store keeps its own title, authors and abstract and still counts as an interest. An export carries
the reader's tags and notes (and a paper's venue), so importing it again gives them back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from papersift.records.messages import say
from papersift.records.paper import Paper, is_arxiv_id, paper_key
from papersift.sources.export import Exportable, SavedPaper, Venue
from papersift.sources.export import as_reference as paper_reference
from papersift.sources.references import (
    EntryError,
    Reference,
    parse_journal_ref,
    safe_url,
)
from papersift.store import Store, StoreError
from papersift.store.records import Account, LibraryEntry, entry_key


def entry_from_paper(paper: Paper, **changes: object) -> LibraryEntry:
    day = paper.published or paper.announced
    journal, volume, issue, pages = parse_journal_ref(paper.journal_ref)
    entry = LibraryEntry(
        key=paper.id,
        paper_id=paper.id,
        title=paper.title,
        authors=tuple(paper.authors),
        abstract=paper.abstract,
        year=day.year if day else None,
        doi=paper.doi,
        url=f"https://arxiv.org/abs/{paper.id}" if is_arxiv_id(paper.id) else None,  # not a venue paper's
        venue=journal or None,
        volume=volume,
        issue=issue,
        pages=pages,
    )
    return replace(entry, **changes)  # type: ignore[arg-type]


def entry_from_reference(ref: Reference, **changes: object) -> LibraryEntry:
    """An outside reference as an entry of its own (no stored paper): its key made from its ids or title, its
    URL checked (a ``Reference`` made elsewhere than the readers is checked here too)."""
    entry = LibraryEntry(
        key=entry_key(ref.arxiv_id, ref.doi, ref.title), url=safe_url(ref.url), **_shared(ref)
    )
    return replace(entry, **changes)  # type: ignore[arg-type]


# what an entry and a reference both hold, under the same name
_SHARED = ("title", "authors", "abstract", "year", "doi", "venue", "volume", "issue", "pages")


def _shared(record: LibraryEntry | Reference) -> dict[str, Any]:
    return {name: getattr(record, name) for name in _SHARED}


def find_paper(store: Store, paper_id: str) -> Paper:
    try:
        key = paper_key(paper_id)  # an arXiv id, or a venue paper's (colm2025-0JzWiigkUy)
    except ValueError as e:
        raise StoreError(say("is_not_arxiv_id", raw=repr(paper_id))) from e
    paper = store.get(key)
    if paper is None:
        raise StoreError(say("no_paper_sync_first", id=key))
    return paper


def save_paper(
    store: Store,
    reader: Account,
    paper_id: str,
    *,
    tags: Sequence[str] = (),
    note: str = "",
    rating: int = 0,
) -> LibraryEntry:
    """Save a stored paper to the reader's library (again: tags add up, a rating or note replaces)."""
    paper = find_paper(store, paper_id)
    store.save_entries(reader.id, [entry_from_paper(paper, tags=tuple(tags), note=note, rating=rating)])
    entry = store.library_entry(reader.id, paper.id)
    assert entry is not None
    return entry


@dataclass(slots=True)
class ImportReport:
    """What an import did: entries read, linked to stored papers, kept with their own text, and errors."""

    read: int = 0
    linked: int = 0
    kept: int = 0
    new: int = 0
    errors: list[EntryError] = field(default_factory=list)


def link(store: Store, ref: Reference) -> Paper | None:
    """The store's paper a reference names: by arXiv id, DOI, or a title only one paper has; else None."""
    if ref.arxiv_id and (paper := store.get(ref.arxiv_id)):
        return paper
    if ref.doi and (pid := store.paper_id_by_doi(ref.doi)):
        return store.get(pid)
    if ref.title:
        ids = store.paper_ids_by_title(ref.title)
        if len(ids) == 1:
            return store.get(ids[0])
    return None


def import_references(
    store: Store,
    reader: Account,
    refs: Sequence[Reference],
    *,
    tags: Sequence[str] = (),
    source: str = "import",
) -> ImportReport:
    """Add references to the library, linked to stored papers where possible; returns what happened."""
    report = ImportReport(read=len(refs))
    entries: list[LibraryEntry] = []
    for ref in refs:
        paper = link(store, ref)
        extra = {
            "tags": tuple(dict.fromkeys([*ref.tags, *tags])),
            "note": ref.note,
            "source": cited(source, ref),
            **{k: v for k in ("volume", "issue", "pages") if (v := getattr(ref, k))},
        }
        if paper is not None:
            report.linked += 1
            entries.append(entry_from_paper(paper, **extra))
        elif ref.title:
            report.kept += 1
            entries.append(entry_from_reference(ref, **extra))
        else:
            report.errors.append(EntryError(ref.line, say("entry_no_title_no_id", entry=repr(ref.key))))
    for start in range(0, len(entries), 1000):
        report.new += store.save_entries(reader.id, entries[start : start + 1000])
    return report


_CITED = re.compile(r" @(\w+)\{([^{}\s]*)\}$")


def cited(source: str, ref: Reference) -> str:
    """The entry's source, with the citation key and entry type it was imported under
    (``import @article{vaswani2017}``), so an export gives them back."""
    return f"{source} @{ref.kind}{{{ref.key}}}" if ref.kind and ref.key and " " not in ref.key else source


def citation(entry: LibraryEntry) -> tuple[str, str] | None:
    """(entry type, citation key) an entry was imported under, if any."""
    m = _CITED.search(entry.source)
    return (m[1], m[2]) if m else None


def as_reference(entry: LibraryEntry) -> Reference:
    """A library entry as a bibliography record (for BibTeX / CSL-JSON export), under the citation key
    and entry type it was imported with; an arXiv id keyed entry keeps its eprint."""
    kind, key = citation(entry) or ("", entry.key)
    return Reference(
        key=key,
        arxiv_id=entry.paper_id or (entry.key if is_arxiv_id(entry.key) else None),
        url=safe_url(entry.url),
        tags=entry.tags,
        note=entry.note,
        line=0,
        kind=kind,
        **_shared(entry),
    )


def paper_venues(store: Store, paper_ids: Sequence[str]) -> dict[str, tuple[Venue, ...]]:
    """The venues these papers were accepted at (newest first), as a bibliography names them."""
    marks = store.venues_of(paper_ids)
    return {pid: tuple(Venue(m.venue, m.year, m.url) for m in found) for pid, found in marks.items()}


def export_items(
    store: Store, entries: Sequence[LibraryEntry], venues: Mapping[str, Sequence[Venue]] | None = None
) -> list[Exportable]:
    """Stored papers as themselves (arXiv-style BibTeX) with the reader's tags and note, outside references
    with their own fields; an imported paper keeps the citation key and entry type it came with (and its
    arXiv eprint). A paper accepted at a venue (``venues`` by paper id; by default the store's) is cited as a
    conference paper there."""
    papers = {p.id: p for p in store.get_many([e.paper_id for e in entries if e.paper_id])}
    if venues is None:
        venues = paper_venues(store, list(papers))
    out: list[Exportable] = []
    for e in entries:
        paper, was = papers.get(e.paper_id or ""), citation(e)
        at = tuple(venues.get(e.paper_id or "", ()))
        if paper is not None and was is not None:
            numbers = {k: v for k in ("volume", "issue", "pages") if (v := getattr(e, k))}
            ref = paper_reference(SavedPaper(paper, tags=e.tags, note=e.note, venues=at))
            if at and was[0] == "misc":  # a preprint accepted since: cited at its venue
                out.append(replace(ref, key=was[1], **numbers))
            else:
                out.append(replace(ref, kind=was[0], key=was[1], venue=e.venue or ref.venue, **numbers))
        elif paper is not None:
            out.append(SavedPaper(paper, tags=e.tags, note=e.note, venues=at))
        else:
            out.append(as_reference(e))
    return out


def exported(store: Store, reader: Account, tag: str | None = None) -> list[Exportable]:
    """The reader's library (or the entries tagged ``tag``) to export; a tag no entry has is refused."""
    if tag is not None and tag not in {t for t, _ in store.tags(reader.id)}:
        raise StoreError(say("no_such_tag", tag=repr(tag)))
    return export_items(store, store.library(reader.id, tag))
