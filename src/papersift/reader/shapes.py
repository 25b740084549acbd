"""The JSON shape of each thing the faces show, in one place: a paper, a related hit, a search hit, a library
entry, a daily pick and the lab's trending papers. The API (``web/``), the feeds (``records/feeds.py``,
``reader/digest.py``)
and the CLI build their JSON with these functions, so a field is added or renamed here once.

A paper is its record (``record_json``) with what the reading layer adds (``reading/shown.py``: its
``tldr``, and ``zh`` in 中文; ``texts`` are the stored texts looked up for the papers shown, the extractive
TL;DR without them); the others are a paper with what its ranking adds. ``position`` is how the caller
numbers the items (``rank=`` for results, ``number=`` for a day's listing), plus anything the caller adds
(``date=``, ``announced=``).
"""

from __future__ import annotations

from typing import Any

from papersift.ranking.daily import DailyPick
from papersift.ranking.pool import Hit
from papersift.ranking.search import SearchResult
from papersift.ranking.understand import Understood
from papersift.reading.shown import Texts, reading_json
from papersift.records.paper import Paper
from papersift.services.lab import Popular
from papersift.services.listing import ABS_URL, PDF_URL
from papersift.sources.citetext import plain_authors
from papersift.sources.fulltext import CodeLink, Reference
from papersift.sources.references import safe_url
from papersift.store.fulltext_rows import Citing, PaperLinks
from papersift.store.records import LibraryEntry


def record_json(paper: Paper, **extra: Any) -> dict[str, Any]:
    """A paper's record as JSON, without what the reading layer adds (the lab's trending papers; the base of
    ``paper_json``)."""
    return {
        "id": paper.id,
        "version": paper.version,
        "title": paper.title,
        "authors": list(plain_authors(paper.authors)),
        "abstract": paper.abstract,
        "categories": paper.categories,
        "primary_category": paper.primary_category,
        "announced": paper.announced.isoformat() if paper.announced else None,
        "published": paper.published.isoformat() if paper.published else None,
        "updated": paper.updated.isoformat() if paper.updated else None,
        "comments": paper.comments,
        "journal_ref": paper.journal_ref,
        "doi": paper.doi,
        "license": paper.license,
        "abs_url": ABS_URL.format(paper.id),
        "pdf_url": PDF_URL.format(paper.id),
        **extra,
    }


def paper_json(paper: Paper, texts: Texts | None = None, **extra: Any) -> dict[str, Any]:
    """A paper as every face shows it in JSON: its record, its TL;DR (and 中文 texts), its full text's
    references, citing papers and code (``links_json``), what ``extra`` adds."""
    links = texts.links.get(paper.id) if texts is not None else None
    return record_json(paper, **reading_json(paper, texts), **links_json(links), **extra)


def reference_json(ref: Reference) -> dict[str, Any]:
    """One reference of a paper: the entry as written, what was read from it, and ``resolved``, the store
    paper it names (null: none)."""
    return {
        "key": ref.key,
        "text": ref.text,
        "arxiv_id": ref.arxiv_id,
        "doi": ref.doi,
        "title": ref.title,
        "year": ref.year,
        "url": safe_url(ref.url) if ref.url else None,
        "resolved": ref.resolved,
    }


def cited_json(citing: Citing) -> dict[str, Any]:
    """A store paper citing another: its id and title."""
    return {"id": citing.paper_id, "title": citing.title}


def code_json(link: CodeLink) -> dict[str, Any]:
    """A code or project link: its URL, host kind, and whether it is the paper's own."""
    return {"url": link.url, "kind": link.kind, "own": link.own}


def links_json(links: PaperLinks | None) -> dict[str, Any]:
    """What every paper's JSON carries of its full text: ``fulltext`` ({from, sections, words, version,
    fetched} or null), ``references``, ``cited_by`` (the store's papers citing it), ``code`` and
    ``citations`` (Semantic Scholar's count with its date, or null); empty lists and nulls without them."""
    links = links or PaperLinks()
    info, count = links.fulltext, links.citations
    return {
        "fulltext": None
        if info is None
        else {
            "from": info.source,
            "sections": info.sections,
            "words": info.words,
            "version": info.version or None,
            "fetched": info.fetched.isoformat() if info.fetched else None,
        },
        "references": [reference_json(r) for r in links.references],
        "cited_by": [cited_json(c) for c in links.cited_by],
        "code": [code_json(c) for c in links.code if safe_url(c.url)],
        "citations": None
        if count is None
        else {"count": count.citations, "references": count.references, "date": count.day.isoformat()},
    }


def related_hit_json(hit: Hit, texts: Texts | None = None, **position: Any) -> dict[str, Any]:
    """A related paper: its score, why it is related, the shared terms and authors."""
    return paper_json(
        hit.paper,
        texts,
        **position,
        score=round(hit.score, 4),
        why=hit.reasons(),
        terms=hit.terms,
        shared_authors=hit.authors,
    )


def understood_json(understood: Understood | None) -> dict[str, Any] | None:
    """How a search query was read (``ranking.understand``): the text searched for, the original, the
    rewrites applied (one note each), the corrections, the translation, the acronyms and, for a query
    matching nothing, the nearest terms (or categories)."""
    if understood is None:
        return None
    return {
        "text_used": understood.text_used,
        "original": understood.original,
        "rewritten": understood.rewritten,
        "verbatim": understood.verbatim,
        "applied": list(understood.applied),
        "corrections": [{"from": a, "to": b} for a, b in understood.corrections],
        "translation": understood.translation,
        "acronyms": [{"form": a, "other": b} for a, b in understood.acronyms],
        "suggestions": list(understood.suggestions),
        "highlight": understood.highlight,
    }


def search_result_json(result: SearchResult, query: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """One query's results as the API and ``papersift search --format json`` give them."""
    return {
        "query": query,
        "mode": result.mode,
        "notes": list(dict.fromkeys(result.notes)),
        "understood": understood_json(result.understood),
        "results": results,
    }


def search_hit_json(hit: Hit, rank: int, texts: Texts | None = None) -> dict[str, Any]:
    """A search result: its rank, score and the query terms it matched."""
    return paper_json(hit.paper, texts, rank=rank, score=round(hit.score, 4), terms=hit.terms)


def daily_pick_json(pick: DailyPick, texts: Texts | None = None, **position: Any) -> dict[str, Any]:
    """One of a reader's Daily Papers: its score (null in arXiv order), why it is where it is, and how the
    reader already saw it (``seen``: pushed, mailed, opened, read; shown only when asked for)."""
    score = None if pick.score is None else round(pick.score, 4)
    return paper_json(
        pick.paper, texts, **position, score=score, why=list(pick.reasons), seen=list(pick.seen)
    )


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


def trending_json(days: int, items: list[Popular]) -> dict[str, Any]:
    """``/api/trending``: ``{"days", "papers": [{"id", "title", "saves", "upvotes", ...}]}``."""
    return {
        "days": days,
        "papers": [record_json(p.paper, saves=p.saves, upvotes=p.upvotes) for p in items],
    }
