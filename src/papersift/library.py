"""A reader's library as the faces use it: saving papers, importing and exporting bibliographies, and the
personal Daily Papers ranked from it.

Imported references are linked to stored papers by arXiv id, then DOI, then exact title; a reference that is
not in the store keeps its own title, authors and abstract and still counts as an interest. ``daily`` turns
the library and the reader's interests into a ``Profile`` and ranks the day's new papers with
``ranking.recommend``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from papersift.index.indexes import Indexes
from papersift.paper import Paper, is_arxiv_id, normalize_id
from papersift.sources.references import (
    EntryError,
    Reference,
    parse_journal_ref,
    reference_from_paper,
    safe_url,
)
from papersift.store import Store, StoreError
from papersift.store.records import Account, Interests, LibraryEntry, entry_key

if TYPE_CHECKING:
    from papersift.ranking.recommend import Profile

DAILY_KINDS = ("new", "cross")  # a Daily Papers day: new submissions and cross-lists, not replacements


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
        url=f"https://arxiv.org/abs/{paper.id}",
        venue=journal or None,
        volume=volume,
        issue=issue,
        pages=pages,
    )
    return replace(entry, **changes)  # type: ignore[arg-type]


def entry_json(e: LibraryEntry) -> dict[str, object]:
    """The JSON shape of a library entry (``library list --format json``, ``/api/library``)."""
    return {
        "key": e.key,
        "id": e.paper_id,
        "title": e.title,
        "authors": list(e.authors),
        "year": e.year,
        "doi": e.doi,
        "url": safe_url(e.url),  # an entry saved before imports checked their links shows none
        "tags": list(e.tags),
        "note": e.note,
        "rating": e.rating,
        "read": e.read,
        "added": e.added.isoformat() if e.added else None,
        "source": e.source,
    }


def find_paper(store: Store, paper_id: str) -> Paper:
    try:
        key = normalize_id(paper_id)
    except ValueError as e:
        raise StoreError(f"{paper_id!r} is not an arXiv id") from e
    paper = store.get(key)
    if paper is None:
        raise StoreError(f"no paper {key} in the store (ingest or sync it first)")
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


def _link(store: Store, ref: Reference) -> Paper | None:
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
        paper = _link(store, ref)
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
            entries.append(
                LibraryEntry(
                    key=entry_key(ref.arxiv_id, ref.doi, ref.title),
                    paper_id=None,
                    title=ref.title,
                    authors=ref.authors,
                    abstract=ref.abstract,
                    year=ref.year,
                    doi=ref.doi,
                    url=safe_url(ref.url),  # a Reference made elsewhere than the readers: checked here too
                    venue=ref.venue,
                    **extra,
                )
            )
        else:
            report.errors.append(
                EntryError(ref.line, f"entry {ref.key!r} has no title and no known arXiv id")
            )
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
        title=entry.title,
        authors=entry.authors,
        year=entry.year,
        abstract=entry.abstract,
        doi=entry.doi,
        arxiv_id=entry.paper_id or (entry.key if is_arxiv_id(entry.key) else None),
        url=safe_url(entry.url),
        venue=entry.venue,
        tags=entry.tags,
        note=entry.note,
        line=0,
        kind=kind,
        volume=entry.volume,
        issue=entry.issue,
        pages=entry.pages,
    )


def export_items(store: Store, entries: Sequence[LibraryEntry]) -> list[Reference | Paper]:
    """Stored papers as themselves (arXiv-style BibTeX), outside references with their own fields; an
    imported paper keeps the citation key and entry type it came with (and its arXiv eprint)."""
    papers = {p.id: p for p in store.get_many([e.paper_id for e in entries if e.paper_id])}
    out: list[Reference | Paper] = []
    for e in entries:
        paper, was = papers.get(e.paper_id or ""), citation(e)
        if paper is not None and was is not None:
            numbers = {k: v for k in ("volume", "issue", "pages") if (v := getattr(e, k))}
            ref = replace(reference_from_paper(paper), kind=was[0], key=was[1], tags=e.tags, note=e.note)
            out.append(replace(ref, venue=e.venue or ref.venue, **numbers))
        else:
            out.append(paper or as_reference(e))
    return out


def profile(store: Store, reader: Account, entries: Sequence[LibraryEntry] | None = None) -> Profile:
    """The reader's library (``entries`` when already read) and interests as the recommender's input."""
    from papersift.ranking.recommend import LibraryItem, Profile

    interests = store.interests(reader.id)
    items: list[LibraryItem] = []
    for e in store.library(reader.id) if entries is None else entries:
        rowid = store.rowid(e.paper_id) if e.paper_id else None
        items.append(
            LibraryItem(
                rowid=rowid,
                text=f"{e.title}. {e.abstract}".strip(),
                authors=e.authors,
                rating=e.rating,
                added=e.added or _epoch(),
                title=e.title,
            )
        )
    return Profile(
        items=tuple(items),
        categories=interests.categories,
        authors=interests.authors,
        must=interests.must,
        never=interests.never,
    )


def _epoch() -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC)


def daily_days(store: Store, categories: Sequence[str]) -> list[date]:
    """Every announcement day of any of ``categories``, oldest first."""
    return sorted({d for c in categories for d in store.announcement_days(c)})


def day_papers(store: Store, categories: Sequence[str], day: date) -> list[Paper]:
    """The day's new papers and cross-lists in the followed categories, in arXiv order, each once."""
    seen: dict[str, Paper] = {}
    for category in categories:
        for entry in store.listing(category, day):
            if entry.kind in DAILY_KINDS and entry.paper.id not in seen:
                seen[entry.paper.id] = entry.paper
    return list(seen.values())


@dataclass(frozen=True, slots=True)
class DailyPick:
    """One paper of a reader's Daily Papers, with why it is where it is (empty for arXiv order)."""

    paper: Paper
    score: float | None
    reasons: tuple[str, ...] = ()


def daily(
    store: Store,
    indexes: Indexes | None,
    reader: Account | None,
    day: date,
    categories: Sequence[str],
    *,
    k: int | None = None,
) -> list[DailyPick]:
    """The day's papers for ``reader``: ranked by the library and interests when there are any and the
    vectors exist, else in arXiv order (with the must / never keywords still applied; no reader: all)."""
    from papersift.ranking.recommend import keyword_pattern, passes, recommend

    interests = store.interests(reader.id) if reader else Interests()
    entries = store.library(reader.id) if reader else []
    saved = {e.paper_id for e in entries if e.paper_id}
    papers = [p for p in day_papers(store, categories, day) if p.id not in saved]  # never what is saved
    limit = k or len(papers)
    personal = bool(interests.authors or interests.must or interests.never or entries)
    ready = indexes is not None and indexes.dense is not None and indexes.lexical is not None
    if reader and personal and ready:
        assert indexes is not None
        rowids = {p.id: store.rowid(p.id) for p in papers}
        by_rowid = {r: p for p in papers if (r := rowids[p.id]) is not None}
        mine = profile(store, reader, entries)
        ranked = recommend(indexes, mine, list(by_rowid), k=limit, papers=by_rowid)
        return [
            DailyPick(by_rowid[r.rowid], r.score, tuple(r.reasons())) for r in ranked if r.rowid in by_rowid
        ]
    must, never = keyword_pattern(interests.must), keyword_pattern(interests.never)
    keep = [p for p in papers if passes(p, must, never)]
    return [DailyPick(p, None) for p in keep[:limit]]


@dataclass(frozen=True, slots=True)
class DailyView:
    """One day's Daily Papers: the categories followed, every day they have listings, the picks."""

    categories: tuple[str, ...]
    days: list[date]
    day: date
    picks: list[DailyPick]

    @property
    def ranking(self) -> str:
        """How the picks are ordered: ``library`` (ranked by the reader's library) or ``arXiv order``."""
        return "library" if self.picks and self.picks[0].score is not None else "arXiv order"


class NoDailyPapers(StoreError):
    """Nothing to pick from: the followed categories have no listings at all, or none on the day asked."""


def daily_picks(
    store: Store,
    indexes: Indexes | None,
    reader: Account | None,
    fallback: Sequence[str],
    day: date | None = None,
    *,
    k: int | None = None,
) -> DailyView:
    """The reader's (or, with no reader, everyone's) Daily Papers of ``day`` (default: the latest) in the
    categories they follow, else ``fallback``, as every face shows them (web, CLI, digests); or
    ``NoDailyPapers`` saying why there are none (the web answers it with a 404, the CLI with an error)."""
    followed = store.interests(reader.id).categories if reader else ()
    categories = tuple(followed or fallback)
    days = daily_days(store, categories)
    if not days:
        raise NoDailyPapers("no listings for the followed categories yet")
    when = day or days[-1]
    if when not in days:
        raise NoDailyPapers(f"no listing of {', '.join(categories)} on {when}")
    return DailyView(categories, days, when, daily(store, indexes, reader, when, categories, k=k))
