"""The JSON shape of each thing the faces show, in one place: a paper, a related hit, a search hit, a library
entry and a daily pick. The API (``web/``), the feeds (``atom.py``, ``digest.py``) and the CLI build their
JSON with these functions, so a field is added or renamed here once.

A paper is ``listing.paper_json`` with what the reading layer adds (``reading/shown.py``: its ``tldr``, and
``zh`` in 中文; ``texts`` are the stored texts looked up for the papers shown, the extractive TL;DR without
them), and a library entry ``library.entry_json`` (re-exported here); the others are a paper with what its
ranking adds. ``position`` is how the caller numbers the items (``rank=`` for
results, ``number=`` for a day's listing), plus anything the caller adds (``date=``, ``announced=``).
"""

from __future__ import annotations

from typing import Any

from papersift.library import entry_json as entry_json
from papersift.listing import paper_json as listing_json
from papersift.paper import Paper
from papersift.ranking.daily import DailyPick
from papersift.ranking.related import RelatedHit
from papersift.ranking.search import SearchHit, SearchResult
from papersift.ranking.understand import Understood
from papersift.reading.shown import Texts, reading_json


def paper_json(paper: Paper, texts: Texts | None = None, **extra: Any) -> dict[str, Any]:
    """A paper as every face shows it in JSON: its record, its TL;DR (and 中文 texts), what ``extra`` adds."""
    return listing_json(paper, **reading_json(paper, texts), **extra)


def related_hit_json(hit: RelatedHit, texts: Texts | None = None, **position: Any) -> dict[str, Any]:
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


def search_hit_json(hit: SearchHit, rank: int, texts: Texts | None = None) -> dict[str, Any]:
    """A search result: its rank, score and the query terms it matched."""
    return paper_json(hit.paper, texts, rank=rank, score=round(hit.score, 4), terms=hit.terms)


def daily_pick_json(pick: DailyPick, texts: Texts | None = None, **position: Any) -> dict[str, Any]:
    """One of a reader's Daily Papers: its score (null in arXiv order) and why it is where it is."""
    score = None if pick.score is None else round(pick.score, 4)
    return paper_json(pick.paper, texts, **position, score=score, why=list(pick.reasons))
