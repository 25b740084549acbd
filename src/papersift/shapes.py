"""The JSON shape of each thing the faces show, in one place: a paper, a related hit, a search hit, a library
entry and a daily pick. The API (``web/``), the feeds (``atom.py``, ``digest.py``) and the CLI build their
JSON with these functions, so a field is added or renamed here once.

A paper is ``listing.paper_json`` and a library entry ``library.entry_json`` (re-exported here); the others
are a paper with what its ranking adds. ``position`` is how the caller numbers the items (``rank=`` for
results, ``number=`` for a day's listing), plus anything the caller adds (``date=``, ``announced=``).
"""

from __future__ import annotations

from typing import Any

from papersift.library import DailyPick
from papersift.library import entry_json as entry_json
from papersift.listing import paper_json as paper_json
from papersift.ranking.related import RelatedHit
from papersift.ranking.search import SearchHit


def related_hit_json(hit: RelatedHit, **position: Any) -> dict[str, Any]:
    """A related paper: its score, why it is related, the shared terms and authors."""
    return paper_json(
        hit.paper,
        **position,
        score=round(hit.score, 4),
        why=hit.reasons(),
        terms=hit.terms,
        shared_authors=hit.authors,
    )


def search_hit_json(hit: SearchHit, rank: int) -> dict[str, Any]:
    """A search result: its rank, score and the query terms it matched."""
    return paper_json(hit.paper, rank=rank, score=round(hit.score, 4), terms=hit.terms)


def daily_pick_json(pick: DailyPick, **position: Any) -> dict[str, Any]:
    """One of a reader's Daily Papers: its score (null in arXiv order) and why it is where it is."""
    score = None if pick.score is None else round(pick.score, 4)
    return paper_json(pick.paper, **position, score=score, why=list(pick.reasons))
