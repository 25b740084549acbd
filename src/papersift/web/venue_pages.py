"""Venues on the web: ``/venues`` (every venue-year stored, with its counts by status) and
``/venue/{name}/{year}`` (its records with their status and links, each to its arXiv paper or its venue
paper's page; a status filter; the topic map of its papers that have vectors; a search within it, which is
``/search`` with ``venue=``), each a page and its ``/api`` JSON twin from one handler (``web/pages.py``).
The page shows the records in parts, as a listing does (``web/parts.py``: 418 records of COLM open as 25,
"more" without script); its JSON holds them all.

The records come from the store (``store.venue_list``, ``venue_entries``), the map from the topic map
machinery of the listings (``web/topic_pages.py``, ``ranking/topics/``). A name that is no venue's
spelling (a slash, a space) or a venue-year the store does not hold is a 404 that links the venues stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from fastapi import APIRouter, Path, Query, Request

from papersift.ranking.topics import MIN_TOPIC, TopicMap, map_json
from papersift.ranking.topics.clusters import stored_vectors
from papersift.records.messages import say
from papersift.records.paper import Paper
from papersift.records.venues import is_venue_name, venue_slug
from papersift.store.venue_rows import VenueEntry
from papersift.web.deadends import DeadEnd
from papersift.web.models import StatusCount, VenueAnswer, VenueList, VenueRecordShape, VenueSummaryShape
from papersift.web.pages import Answer, Web, twin, wants_json
from papersift.web.parts import FRAGMENT, asked, fragment_or, href, part_of, with_part
from papersift.web.state import AppState
from papersift.web.topic_pages import MAP_PAGE_SIZES, compute_map, map_ready, map_view, pending

router = APIRouter()
VENUE_MAP = "_venue_map.html"  # the map alone (?map=1&fragment=1)
Year = Path(ge=1900, le=2999, description="the venue's year")
Status = Query(None, max_length=80, description="only the records of this status (Poster, Oral…)")


def venues_data(state: AppState) -> dict[str, Any]:
    """Every venue-year the store holds, by name then year (newest first), with its counts by status."""
    return VenueList.make(
        venues=[
            VenueSummaryShape.make(
                venue=s.venue,
                year=s.year,
                records=s.records,
                linked=s.linked,
                statuses=[StatusCount.make(status=name, count=n) for name, n in s.statuses],
                imported=s.imported.isoformat(timespec="seconds") if s.imported else None,
            )
            for s in state.store.venue_list()
        ]
    ).dump()


@twin(router, "/venues")
def venues(request: Request, web: Web) -> Answer:
    """The venues whose accept lists are stored: each year's records, how many are linked to arXiv, and
    their counts by status."""
    state = web.state
    if wants_json(request):
        return dict(state.cached(("api-venues",), lambda: venues_data(state)))
    return web.cached_page(request, "venues.html", ("venues",), lambda: venues_data(state))


def missing_venue(name: str, year: int, known: Sequence[tuple[str, int]]) -> DeadEnd:
    """A venue-year the store does not hold (or a name no venue has): the venues page, and the other years
    of the same venue."""
    slug = venue_slug(name)
    same = [(f"{v} {y}", f"/venue/{v}/{y}") for v, y in known if venue_slug(v) == slug]
    return DeadEnd(404, say("no_venue", venue=name, year=year), [(say("all_venues"), "/venues"), *same])


def record_shape(entry: VenueEntry) -> VenueRecordShape:
    r = entry.record
    return VenueRecordShape.make(
        id=r.id,
        paper=entry.paper_id,
        arxiv=entry.arxiv,
        title=r.title,
        authors=list(r.authors),
        status=r.status,
        track=r.track,
        abstract=r.abstract,
        links=dict(r.links),
    )


def with_vectors(state: AppState, papers: Sequence[Paper]) -> list[Paper]:
    """Those of ``papers`` the current index generation has a vector of (the map is drawn over them)."""
    indexes = state.indexes()
    if indexes.dense is None or not papers:
        return []
    _, vectors = stored_vectors(indexes, papers)
    has = np.linalg.norm(vectors, axis=1) > 0
    return [p for p, kept in zip(papers, has, strict=True) if kept]


def venue_map(state: AppState, papers: Sequence[Paper]) -> TopicMap | None:
    """The topic map of ``papers`` (kept per set of papers and index generation); None for too few papers
    to hold two topics."""
    if len(papers) < 2 * MIN_TOPIC:
        return None
    return compute_map(state, papers)


def venue_data(
    state: AppState, name: str, year: int, status: str | None, page: bool = False, wait: bool = True
) -> dict[str, Any]:
    """A venue-year's records (``status``: of that status only) with their counts by status and the topic
    map of their papers that have vectors (``map``: its JSON, none under two topics); the page's data
    (``page``) adds the map's drawing and the other years of the venue. Not ``wait``: a map not computed
    yet is left out and drawn ``PENDING`` (computed beside the requests: ``web/topic_pages.py``)."""
    summaries = state.store.venue_list() if is_venue_name(name) else []
    known = [(s.venue, s.year) for s in summaries]
    slug = venue_slug(name)
    shown = next((s for s in summaries if venue_slug(s.venue) == slug and s.year == year), None)
    if shown is None:
        raise missing_venue(name, year, known)
    entries = state.store.venue_entries(shown.venue, year, status or None)
    papers = {p.id: p for p in state.store.get_many(list(dict.fromkeys(e.paper_id for e in entries)))}
    mapped = with_vectors(state, list(papers.values()))
    later = not wait and len(mapped) >= 2 * MIN_TOPIC and not map_ready(state, mapped)
    tmap = None if later else venue_map(state, mapped)
    label = f"{shown.venue} {year}"
    drawable = tmap is not None and len(tmap.clusters) > 1  # a map of two topics or more
    data = VenueAnswer.make(
        venue=shown.venue,
        year=year,
        status=status or None,
        records=shown.records,
        linked=shown.linked,
        statuses=[StatusCount.make(status=s, count=n) for s, n in shown.statuses],
        map=map_json(label, "", tmap) if tmap is not None and drawable else None,
        entries=[record_shape(e) for e in entries],
    ).dump()
    if not page:
        return data
    titles = {e.paper_id: e.record.title for e in entries}
    drawn = map_view(tmap, titles, MAP_PAGE_SIZES) if tmap is not None and drawable else None
    years = sorted((y for v, y in known if venue_slug(v) == slug), reverse=True)
    return data | {
        "drawn": pending(MAP_PAGE_SIZES) if later else drawn,
        "years": years,
        "mapped": len(mapped),
    }


@twin(router, "/venue/{name}/{year}", 404)
def venue(request: Request, web: Web, name: str, year: int = Year, status: str | None = Status) -> Answer:
    """A venue's accepted papers of ``year``, in its list's order: each record's status, track and links,
    and its paper in this store (``arxiv``: the linked arXiv id, null for a venue paper of its own); the
    counts by status and the topic map of the records shown."""
    state = web.state
    key = (name, str(year), status or "")
    if wants_json(request):
        return dict(
            state.cached(("api-venue", *key), lambda: venue_data(state, name, year, status), index=True)
        )
    ask = asked(request)  # a part of the records (web/parts.py); the JSON holds them all
    base = href(str(request.url.path), {"status": status})

    def page_data() -> dict[str, Any]:
        data = venue_data(state, name, year, status, page=True, wait=ask.map or ask.topic is not None)
        return with_part(data, part_of(data["entries"], ask.part, base, rest=ask.rest))

    return web.cached_page(
        request,
        fragment_or(ask.fragment, "venue.html", VENUE_MAP if ask.map else FRAGMENT),
        ("venue", *key, *ask.key()),
        page_data,
        index=True,
        topic=ask.topic,
        fragment=ask.fragment,
        row_template="_venue_record.html",
    )
