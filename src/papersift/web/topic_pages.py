"""The topic map and the lab's signals on the web: ``/map/{category}/{day}`` and ``/api/map/...``, the map
above every listing and Daily Papers, ``/trending`` and ``/api/trending``, and the counts on paper rows.

The map is SVG drawn by the server (``_topic_map.html``); ``static/topics.js`` only adds the hover card and
the chips that filter the listing below it. Templates reach the map and the counts through Jinja globals,
``topic_view(entries)``, ``day_topic_view(…)`` and ``lab_counts(entries)``, so a listing page computes them
once per store version with the rest of the page (maps are also kept per set of papers in the state's
cache). The map page's data is its JSON twin's (``map_data``) with the rows it lists and its drawing.

A map takes seconds to compute and the rows none, so a page's first view never waits for its map: asked
with ``wait=False``, a map not computed yet is ``PENDING`` (the page holds a placeholder the size of the map,
``_topic_map.html``, and is not kept in the page cache) and is computed beside the requests
(``AppState.soon``). With script, ``static/topics.js`` fetches the page's ``?map=1&fragment=1`` (the map
alone, which waits for that computation) into the placeholder; without, the placeholder links to the map's
page, or to the page with ``?map=1``. A topic asked for (``?topic=N``) or ``?map=1`` waits for its map.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import partial
from typing import Any
from unicodedata import east_asian_width

import numpy as np
from fastapi import APIRouter, Form, Query, Request, Response
from fastapi.responses import RedirectResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from starlette.exceptions import HTTPException

from papersift.library.shapes import ListedPaper, Trending
from papersift.ranking.topics import MIN_TOPIC, TopicMap, listing_entries, map_json, topic_map
from papersift.reading.shown import lookup, with_venues
from papersift.records.catalogs import LANGUAGES
from papersift.records.messages import say
from papersift.records.paper import Paper
from papersift.records.taxonomy import category_name, category_named
from papersift.services.lab import TRENDING_DAYS, popular
from papersift.store import ListingEntry
from papersift.web.contract import DayPath
from papersift.web.deadends import missing_category, missing_listing
from papersift.web.i18n import arxiv_name
from papersift.web.pages import Answer, Web, twin, wants_json
from papersift.web.parts import href
from papersift.web.state import PROVISIONAL_MARK, AppState, day_and_neighbours, parse_day

WIDTH, HEIGHT, PAD = 800, 420, 24
COLOURS = 12  # hues, classes t0…t11 in topics.css; topics 12… (a busy day has up to 24) are drawn as rings
MAX_DAYS = 31
LABEL_EM, LINE = 8.4, 17.0  # a label's width per character (13 px semibold, generous) and its line height
WIDE_EM = 13.5  # …per wide character (中文, 日本語: a full em each, generous)
CAPITAL_EM = 10.4  # …per capital letter (names keep their acronyms: "LLM", "KV cache"; an M is 11 px)
OFFSETS = sorted(  # where a label may go, in lines and half-widths from its topic's centre: nearest first
    ((dy, dx) for dy in range(-8, 9) for dx in (-2, -1, 0, 1, 2)), key=lambda d: (abs(d[0]) + abs(d[1]), d)
)
HALO, GAP = 8.0, 2.0  # the white stroke around a label, and the space kept between two labels


@dataclass(frozen=True, slots=True)
class Size:
    """A drawing's name (its CSS class) and its SVG width and height."""

    name: str
    width: int
    height: int


# Each page draws its map at three sizes and topics.css shows the one whose width is nearest the map's box
# without being scaled below 85 % of it (container queries on .map-box), so a label's 13 px is never drawn
# below 11 px: a desktop's, a medium one's (641–860 px windows, tablets) and a phone's (360–560 px).
SMALL = Size("small", WIDTH, HEIGHT)  # above a listing and Daily Papers
MID, PHONE = Size("mid", 600, 380), Size("phone", 340, 300)  # …on a tablet's width, on a phone's
# the map page's large map: the content's width on a desktop (56rem less padding), taller; a tablet's;
# and a phone's (390 px less padding), taller still
WIDE, MIDDLE, NARROW = Size("wide", 840, 600), Size("middle", 600, 500), Size("narrow", 340, 460)
LISTING_SIZES, MAP_PAGE_SIZES = (SMALL, MID, PHONE), (WIDE, MIDDLE, NARROW)

router = APIRouter()


def _docs(entries: Sequence[dict[str, Any]]) -> list[Paper]:
    """The papers of a page's rows (``PaperShape`` dicts), as much of them as the map reads."""
    return [
        Paper(
            id=str(e["id"]),
            title=str(e.get("title", "")),
            authors=[],
            abstract=str(e.get("abstract", "")),
            categories=list(e.get("categories") or ()),
        )
        for e in entries
    ]


def colour(n: int, named: bool = True) -> str:
    """Topic ``n``'s classes in topics.css: one of ``COLOURS`` hues, filled for the first ``COLOURS``
    topics, a ring of the same hue for the next (no two of a day's topics drawn alike); the day's other
    papers (the unnamed group) grey."""
    if not named:
        return "t-other"
    return f"t{n % COLOURS}" + (" ring" if n >= COLOURS else "")


def map_view(tmap: TopicMap, titles: dict[str, str], sizes: Sequence[Size] = LISTING_SIZES) -> dict[str, Any]:
    """The map as the template draws it: the topics (colour classes, chips) and one drawing per size in
    ``sizes`` (SVG coordinates, labels placed for that size: the text is 13 px where a drawing is shown at
    about its own width)."""
    topics = [
        {
            "n": n,
            "label": topic.label,
            "named": bool(topic.label),
            "category": category_named(topic.label) is not None,
            "terms": list(topic.terms),
            "count": len(topic.papers),
            "colour": colour(n, bool(topic.label)),
            "papers": [{"id": i, "title": titles.get(i, i)} for i in topic.papers],
        }
        for n, topic in enumerate(tmap.clusters)
    ]
    return {"topics": topics, "drawings": [_drawing(tmap, titles, topics, size) for size in sizes]}


def _drawing(
    tmap: TopicMap, titles: dict[str, str], topics: list[dict[str, Any]], size: Size
) -> dict[str, Any]:
    width, height = size.width, size.height
    points: list[dict[str, Any]] = [
        {
            "id": p.id,
            "title": titles.get(p.id, p.id),
            "cluster": p.cluster,
            "colour": topics[p.cluster]["colour"],
            "cx": round(PAD + p.x * (width - 2 * PAD), 1),
            "cy": round(PAD + (1.0 - p.y) * (height - 2 * PAD), 1),
        }
        for p in tmap.points
    ]
    points.sort(key=lambda p: p["colour"] != "t-other")  # the other papers drawn first, under the topics
    centres = []
    for topic in topics:
        mine = [p for p in points if p["cluster"] == topic["n"]]
        x = sum(p["cx"] for p in mine) / max(len(mine), 1)
        y = sum(p["cy"] for p in mine) / max(len(mine), 1)
        centres.append((widest(str(topic["label"])), int(topic["count"]), x, y))
    labels = [
        {
            "n": n,
            "label": topics[n]["label"],
            "category": topics[n]["category"],
            "x": round(x, 1),
            "y": round(y, 1),
        }
        for n, (_, x, y) in place_labels(centres, width, height).items()
    ]
    return {"name": size.name, "width": width, "height": height, "points": points, "labels": labels}


def widest(label: str) -> str:
    """A label as its widest face draws it: a category's name in every page language (the page says it in
    its own: ``Graphics``, 图形学), any other label as it is; labels are placed by it, so that none
    overlaps another in any language."""
    if category_named(label) is None:
        return label
    return max((arxiv_name(label, lang) for lang in LANGUAGES), key=label_width)


def label_width(text: str) -> float:
    """How wide a label is drawn, its halo included (a wide character counts a full em, a capital
    letter more than a small one)."""
    return sum(_char_width(c) for c in text) + HALO


def _char_width(c: str) -> float:
    if east_asian_width(c) in "WF":
        return WIDE_EM
    return CAPITAL_EM if c.isupper() else LABEL_EM


def label_box(text: str, x: float, y: float) -> tuple[float, float, float, float]:
    """The box a label drawn at (x, y), centred on x with its baseline at y, covers (its halo included)."""
    width = label_width(text)
    return (x - width / 2, y - LINE * 0.8, x + width / 2, y + LINE * 0.25)


def place_labels(
    centres: Sequence[tuple[str, int, float, float]], width: float = WIDTH, height: float = HEIGHT
) -> dict[int, tuple[str, float, float]]:
    """Where each named topic's label goes, from its (label, paper count, centre x, centre y): near its
    centre, inside a ``width`` × ``height`` drawing and clear of every label placed before it (larger
    topics first). A label with no free place nearby stays off the drawing (its chip, below the map,
    names the topic: the legend). Topic number → (label, x, y)."""
    placed: list[tuple[float, float, float, float]] = []
    where: dict[int, tuple[str, float, float]] = {}
    for n in sorted(range(len(centres)), key=lambda i: -centres[i][1]):
        text, _, cx, cy = centres[n]
        if not text:
            continue
        half = label_width(text) / 2
        if 2 * half > width - 2:
            continue
        for dy, dx in OFFSETS:
            x = min(max(cx + dx * half, half + 1), width - half - 1)
            y = min(max(cy + dy * LINE, LINE * 0.8 + 1), height - LINE * 0.25 - 1)
            box = label_box(text, x, y)
            if not any(_overlap(box, other) for other in placed):
                placed.append(box)
                where[n] = (text, x, y)
                break
    return where


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] + GAP and b[0] < a[2] + GAP and a[1] < b[3] + GAP and b[1] < a[3] + GAP


def _map_key(docs: Sequence[Paper]) -> tuple[str, str]:
    """The cache key of the map of ``docs``: its set of papers."""
    return (
        "topic-map",
        hashlib.blake2b(" ".join(sorted(d.id for d in docs)).encode(), digest_size=16).hexdigest(),
    )


def _computed(state: AppState, docs: Sequence[Paper]) -> TopicMap:
    return topic_map(state.indexes(), docs, namer=state.namer())


def compute_map(state: AppState, docs: Sequence[Paper]) -> TopicMap:
    """The topic map of ``docs`` (kept per set of papers and index generation)."""
    result: TopicMap = state.cached(_map_key(docs), partial(_computed, state, docs), index=True)
    return result


def map_ready(state: AppState, docs: Sequence[Paper]) -> bool:
    """Whether the map of ``docs`` is computed; if not, it is computed beside the requests (``soon``): the
    page that asked goes on without it."""
    key = _map_key(docs)
    if state.holds(key, index=True):
        return True
    state.soon(key, partial(_computed, state, docs), index=True)
    return False


def _safe_map(state: AppState, docs: Sequence[Paper]) -> TopicMap | None:
    """The map of ``docs``; None when it fails: never a page lost to its map."""
    try:
        return compute_map(state, docs)
    except (ValueError, np.linalg.LinAlgError) as e:
        print(f"papersift: warning: no topic map: {e}", file=sys.stderr, flush=True)
        return None


def _drawn(tmap: TopicMap | None, docs: Sequence[Paper], sizes: Sequence[Size]) -> dict[str, Any] | None:
    """``map_view`` of ``tmap`` at ``sizes``; None when there is no map or one topic only."""
    return map_view(tmap, {d.id: d.title for d in docs}, sizes) if tmap and len(tmap.clusters) > 1 else None


def pending(sizes: Sequence[Size] = LISTING_SIZES) -> dict[str, Any]:
    """A map not computed yet, as the template draws its placeholder: empty drawings of the map's sizes
    (the same room on the page as the map that replaces it)."""
    drawings = [
        {"name": s.name, "width": s.width, "height": s.height, "points": [], "labels": []} for s in sizes
    ]
    return {"pending": True, "topics": [], "drawings": drawings}


PENDING = pending()


def topic_view(
    state: AppState, entries: Sequence[dict[str, Any]], wait: bool = True
) -> dict[str, Any] | None:
    """The map of a listing's papers, drawn at a listing's sizes (None: too few papers for two topics);
    ``PENDING`` where it is not computed yet and the page does not ``wait`` for it."""
    docs = _docs(entries)
    if len({d.id for d in docs}) < 2 * MIN_TOPIC:
        return None
    if not wait and not map_ready(state, docs):
        return PENDING
    return _drawn(_safe_map(state, docs), docs, LISTING_SIZES)


def day_topic_view(
    state: AppState,
    entries: Sequence[dict[str, Any]],
    categories: Sequence[str],
    day: str,
    wait: bool = True,
) -> dict[str, Any] | None:
    """The map of a page showing some of a day's papers (Daily Papers): the topics of the whole day's
    listings of ``categories``, drawn with only the page's papers. What a reader saves or rates changes
    which papers are shown, never the topics or where they sit (the map's input is the day's listings).
    ``PENDING`` where it is not computed yet and the page does not ``wait`` for it."""
    shown = {str(e["id"]) for e in entries}
    docs: dict[str, Paper] = {}
    for category in categories:
        for entry in state.store.listing(category, parse_day(day)):
            docs.setdefault(entry.paper.id, entry.paper)
    for doc in _docs(entries):  # a pick from elsewhere still has its place
        docs.setdefault(doc.id, doc)
    if len(docs) < 2 * MIN_TOPIC:
        return None
    if not wait and not map_ready(state, list(docs.values())):
        return PENDING
    whole = _safe_map(state, list(docs.values()))
    kept = [n for n, t in enumerate(whole.clusters) if shown & set(t.papers)] if whole else []
    if whole is None or len(kept) < 2:
        return None
    renumber = {old: new for new, old in enumerate(kept)}
    clusters = [
        whole.clusters[n].model_copy(update={"papers": [p for p in whole.clusters[n].papers if p in shown]})
        for n in kept
    ]
    points = [p.model_copy(update={"cluster": renumber[p.cluster]}) for p in whole.points if p.id in shown]
    tmap = whole.model_copy(update={"clusters": clusters, "points": points})
    return map_view(tmap, {str(e["id"]): str(e.get("title", "")) for e in entries})


def lab_counts(state: AppState, entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Paper id → its signals (saves, upvotes) from this install's readers; empty without accounts."""
    if not state.settings.accounts:
        return {}
    return dict(state.store.lab_signals([str(e["id"]) for e in entries]))


def add_template_globals(templates: Jinja2Templates, state: AppState) -> None:
    """The templates' ``topic_view(entries)``, ``day_topic_view(…)`` and ``lab_counts(entries)`` over
    ``state``; ``href`` (a URL with query parameters added) and ``provisional`` (the mark of a page that is
    not kept: ``web/state.py``) for a map's placeholder."""
    templates.env.globals["topic_view"] = partial(topic_view, state)
    templates.env.globals["day_topic_view"] = partial(day_topic_view, state)
    templates.env.globals["lab_counts"] = partial(lab_counts, state)
    templates.env.globals["href"] = href
    templates.env.globals["provisional"] = Markup(PROVISIONAL_MARK.decode())


def _listed(
    state: AppState, category: str, day: str, days: int
) -> tuple[list[date], date, list[ListingEntry]]:
    when = parse_day(day)
    known = state.store.announcement_days(category)
    if not known:
        raise missing_category(category)
    entries = listing_entries(state.store, category, when, days)
    if not entries:
        raise missing_listing(category, when, known, base="/map")
    return known, when, entries


def map_data(state: AppState, category: str, day: str, days: int, page: bool = False) -> dict[str, Any]:
    """The map as the API gives it, ``TopicMap``'s JSON; the page's data (``page``) is the same with the
    papers it lists under the map, the days around it and its drawing (``map_view``; none of one topic)."""
    known, when, entries = _listed(state, category, day, days)
    docs = [e.paper for e in entries]
    tmap = _safe_map(state, docs) if page else compute_map(state, docs)
    data = map_json(
        category, when.isoformat(), tmap or TopicMap.make(category="", date="", clusters=[], points=[])
    )
    if not page:
        return data
    shown = with_venues(state.store, [e.paper for e in entries])  # each entry's venues, one query
    return data | {
        "category_name": category_name(category),
        "days": days,
        **day_and_neighbours(known, when),
        "entries": [
            ListedPaper.of(e.paper, shown, number=n, kind=e.kind).dump() for n, e in enumerate(entries, 1)
        ],
        "drawn": _drawn(tmap, docs, MAP_PAGE_SIZES),
    }


Days = Query(1, ge=1, le=MAX_DAYS, description="days of listings ending on {day}")
TrendingDays = Query(TRENDING_DAYS, ge=1, le=365)


@twin(router, "/map/{category}/{day}", 404)
def topics(request: Request, web: Web, category: str, day: DayPath, days: int = Days) -> Answer:
    """The topic map of a listing: ``{"category", "date", "clusters", "points"}``."""
    state = web.state
    if wants_json(request):
        key = ("api-map", category, day, str(days))
        return dict(state.cached(key, lambda: map_data(state, category, day, days), index=True))
    return web.cached_page(
        request,
        "map.html",
        ("map", category, day, str(days)),
        lambda: map_data(state, category, day, days, page=True),
        index=True,
        personal=state.settings.accounts,
    )


def trending_data(state: AppState, days: int) -> dict[str, Any]:
    def compute() -> dict[str, Any]:
        items = popular(state.store, days, limit=50)
        texts = lookup(state.settings, state.store, [p.paper for p in items])  # each row's TL;DR
        return Trending.of(days, items, texts).dump()

    result: dict[str, Any] = state.cached(("trending", str(days)), compute, personal=True)
    return result


@twin(router, "/trending")
def trending(request: Request, web: Web, days: int = TrendingDays) -> Answer:
    """The papers this install's readers saved or rated +1 in the last ``days`` days, most first."""
    state = web.state
    if wants_json(request):
        return trending_data(state, days)
    reader = state.account(request)
    counted = None if reader is None else state.store.counted(reader.id)
    return web.page(request, "trending.html", data=trending_data(state, days), counted=counted)


@router.post("/lab/counted", include_in_schema=False)
def set_counted(request: Request, web: Web, counted: int = Form(..., ge=0, le=1)) -> Response:
    """Opt in or out of being counted in the lab's signals (the CSRF middleware checks the form)."""
    reader = web.state.account(request)
    if reader is None:
        raise HTTPException(401, say("log_in_first"))
    with web.state.writing() as store:
        store.set_counted(reader.id, bool(counted))
    return RedirectResponse("/trending", status_code=303)
