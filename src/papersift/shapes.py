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

from papersift.library import DailyPick
from papersift.library import entry_json as entry_json
from papersift.listing import paper_json as listing_json
from papersift.paper import Paper
from papersift.ranking.related import RelatedHit
from papersift.ranking.search import SearchHit
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


def search_hit_json(hit: SearchHit, rank: int, texts: Texts | None = None) -> dict[str, Any]:
    """A search result: its rank, score and the query terms it matched."""
    return paper_json(hit.paper, texts, rank=rank, score=round(hit.score, 4), terms=hit.terms)


def daily_pick_json(pick: DailyPick, texts: Texts | None = None, **position: Any) -> dict[str, Any]:
    """One of a reader's Daily Papers: its score (null in arXiv order) and why it is where it is."""
    score = None if pick.score is None else round(pick.score, 4)
    return paper_json(pick.paper, texts, **position, score=score, why=list(pick.reasons))
