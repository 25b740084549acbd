"""Search: ``/search`` and ``/api/search`` (hybrid, keyword or semantic, with filters and pages) from one
handler; results are kept per store version and index generation. The page shows them in parts of
``PART`` (``web/parts.py``: a part is a page of results; its "more" link appends the next one)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.exceptions import HTTPException

from papersift.ranking.search import MODES, SORTS, Mode, Sort, search_page
from papersift.reader.shapes import SearchHitShape, Understood
from papersift.records import taxonomy
from papersift.records.analyzer import words
from papersift.records.messages import say
from papersift.records.paper import is_arxiv_id, normalize_id
from papersift.store import Filters
from papersift.web.contract import FormDate
from papersift.web.models import SearchAnswer, Shortened, Total, UnknownCategory
from papersift.web.pages import TOP_K, Answer, Web, twin, wants_json
from papersift.web.parts import PART, asked, fragment_or, href, page_part, with_part
from papersift.web.reading_pages import reading_lang, texts_for, texts_version
from papersift.web.state import AppState, parse_day

router = APIRouter()
TOTAL_CAP = 100  # results counted for a query's total (more: "100+ results")
QUERY_CHARS = 1000  # a longer query is searched by its first this many characters, and the page says so


def shortened(q: str) -> tuple[str, Shortened | None]:
    """``q`` cut to ``QUERY_CHARS`` at a word's end (and what the page says of it: from, to), or as is."""
    if len(q) <= QUERY_CHARS:
        return q, None
    cut = q[:QUERY_CHARS]
    if not q[QUERY_CHARS].isspace() and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(), Shortened.make(**{"from": len(q), "to": len(cut.rstrip())})


def unknown_category(category: str | None) -> UnknownCategory | None:
    """For a filter naming no arXiv category (``cs.FOO``): it and the nearest ids arXiv has; else None."""
    if not category or taxonomy.is_known(category):
        return None
    return UnknownCategory.make(category=category, nearest=taxonomy.nearest(category))


def search_data(
    state: AppState,
    q: str,
    mode: str,
    category: str | None,
    since: str | None,
    page_no: int,
    k: int,
    lang: str = "en",
    verbatim: bool = False,
    until: str | None = None,
    sort: str = "relevance",
    venue: str | None = None,
) -> dict[str, Any]:
    """One page of results for ``q`` (``next_page`` is null on the last page); ``understood`` says how
    the query was read (``verbatim``: as typed); announced ``since`` … ``until`` (the CLI's ``--since`` and
    ``--until``: the same ``Filters``), by relevance or newest first (``sort``)."""
    if mode not in MODES:
        raise HTTPException(400, say("mode_one_of", modes=", ".join(MODES)))
    if sort not in SORTS:
        raise HTTPException(400, say("sort_one_of", sorts=", ".join(SORTS)))
    filters = Filters(
        category=category or None,
        since=parse_day(since, 400) if since else None,
        until=parse_day(until, 400) if until else None,
        venue=venue or None,  # "COLM" (every year) or "COLM 2025"
    )
    q, cut = shortened(q)

    def ranked() -> dict[str, Any]:
        indexes, translate = state.indexes(), state.translate()
        result = search_page(
            indexes,
            q,
            page_no,
            k,
            mode=mode,
            filters=filters,
            exact=verbatim,
            translate=translate,
            count=TOTAL_CAP + 1,  # the total, from the page's own candidate pool
            sort=sort,  # one of SORTS, checked above
        )
        first = (page_no - 1) * k + 1
        texts = texts_for(state, (h.paper for h in result.hits), lang)
        total, cap = result.total, TOTAL_CAP
        return SearchAnswer.make(
            query=q,
            mode=result.mode,
            page=page_no,
            next_page=page_no + 1 if len(result.hits) == k else None,
            notes=result.notes,
            understood=Understood.of(result.understood),
            total=None if total is None else Total.make(count=min(total, cap), capped=total > cap),
            shortened=cut,
            unknown_category=unknown_category(category),
            results=[SearchHitShape.of_hit(h, r, texts) for r, h in enumerate(result.hits, first)],
        ).dump()

    version = texts_version(state)
    key: tuple[str, ...] = ("search", q, mode, category or "", since or "", str(page_no), str(k))
    key += (str(verbatim), lang, version, until or "", sort, venue or "")
    return dict(state.cached(key, ranked, index=True))


@twin(router, "/search", api={"q": (str, Query(...))})
def search_papers(
    request: Request,
    web: Web,
    q: str = "",
    mode: Mode = "hybrid",
    category: str | None = None,
    since: FormDate = None,
    page_no: int = Query(1, alias="page", ge=1, le=100),
    k: int = TOP_K,
    verbatim: bool = False,
    until: FormDate = None,
    sort: Sort = "relevance",
    venue: str | None = Query(None, max_length=60, description='accepted at a venue: "COLM" or "COLM 2025"'),
) -> Answer:
    """Search the papers: ``q`` in any mode (the page without ``q`` is the empty form), announced
    ``since`` … ``until``, by relevance or ``sort=date`` (newest first of the most relevant); the query is
    translated, corrected and its acronyms expanded unless ``verbatim``."""
    lang = reading_lang(web, request)
    if wants_json(request):  # the API requires q (``twin``'s ``api``)
        return search_data(
            web.state, q, mode, category, since, page_no, k, lang, verbatim, until, sort, venue
        )
    context: dict[str, Any] = {
        "q": shortened(q)[0],
        "mode": mode,
        "category": category or "",
        "since": since or "",
        "until": until or "",
        "sort": sort,
        "venue": venue or "",
    }
    context |= {"hl": words(q), "search_page": True, "verbatim": verbatim}
    if not q.strip():
        return web.page(request, "search.html", 200, data=None, **context)
    if is_arxiv_id(q.strip()):  # an id or an arXiv URL opens the paper (a 404 there links arXiv)
        return RedirectResponse(f"/abs/{normalize_id(q.strip())}", status_code=303)
    texts = texts_version(web.state)
    ask = asked(request)  # the results in parts of PART (web/parts.py): a part is a page of results
    k = k if "k" in request.query_params else PART
    choices = {"q": q, "mode": mode, "category": category, "since": since, "until": until, "sort": sort}
    base = href("/search", choices | {"venue": venue, "verbatim": verbatim, "k": None if k == PART else k})

    def page_data() -> dict[str, Any]:
        data = search_data(
            web.state, q, mode, category, since, page_no, k, lang, verbatim, until, sort, venue
        )
        has_next = data["next_page"] is not None
        return with_part(data, page_part(data["results"], page_no, base, size=k, has_next=has_next))

    return web.cached_page(
        request,
        fragment_or(ask.fragment, "search.html", "_results_part.html"),
        (
            *(
                "search-page",
                q,
                mode,
                category or "",
                since or "",
                str(page_no),
                str(k),
                str(verbatim),
                texts,
            ),
            *(until or "", sort, venue or "", str(ask.fragment)),
        ),
        page_data,
        index=True,
        fragment=ask.fragment,
        **context,
    )
