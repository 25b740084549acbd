"""Search: ``/search`` and ``/api/search`` (hybrid, keyword or semantic, with filters and pages) from one
handler, the request parsed once into a ``SearchForm`` (what is ranked, and the cache key); results are kept
per store version and index generation. The page shows them in parts of ``PART`` (``web/parts.py``: a part
is a page of results; its "more" link appends the next one, with the count line for the ranks then shown)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse
from starlette.exceptions import HTTPException

from papersift.library.shapes import SearchHitShape, Understood
from papersift.ranking.search import MODES, SORTS, Mode, Sort, search_page
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


@dataclass(frozen=True, slots=True)
class SearchForm:
    """One search as asked, parsed (the page's form, the API's parameters, a feed's): what ``search_data``
    ranks, and with ``key`` its place in the cache. ``page`` of pages of ``k`` results; ``lang``, the
    language of the texts shown with them."""

    q: str
    mode: Mode = "hybrid"
    category: str | None = None
    since: str | None = None  # announced since … until (ISO days, as the CLI's --since / --until)
    until: str | None = None
    sort: Sort = "relevance"  # or "date": newest first of the most relevant
    venue: str | None = None  # accepted at a venue: "COLM" or "COLM 2025"
    verbatim: bool = False  # searched as typed: no translation, correction or acronyms
    page: int = 1
    k: int = TOP_K
    lang: str = "en"

    def key(self) -> tuple[str, ...]:
        """Its part of a cache key: every field, ``repr`` keeping None apart from "None"."""
        return tuple(repr(getattr(self, f.name)) for f in fields(self))

    def filters(self) -> Filters:
        """The store's filters of the search (400 for a date that is not one)."""
        return Filters(
            category=self.category,
            since=parse_day(self.since, 400) if self.since else None,
            until=parse_day(self.until, 400) if self.until else None,
            venue=self.venue,
        )


def search_data(state: AppState, form: SearchForm) -> dict[str, Any]:
    """One page of results of ``form`` (``next_page`` is null on the last page), kept per store version and
    index generation; ``understood`` says how the query was read, ``sort`` how the results are ordered."""
    if form.mode not in MODES:
        raise HTTPException(400, say("mode_one_of", modes=", ".join(MODES)))
    if form.sort not in SORTS:
        raise HTTPException(400, say("sort_one_of", sorts=", ".join(SORTS)))
    filters = form.filters()
    q, cut = shortened(form.q)

    def ranked() -> dict[str, Any]:
        result = search_page(
            state.indexes(),
            q,
            form.page,
            form.k,
            mode=form.mode,
            filters=filters,
            exact=form.verbatim,
            translate=state.translate(),
            count=TOTAL_CAP + 1,  # the total, from the page's own candidate pool
            sort=form.sort,  # one of SORTS, checked above
        )
        first = (form.page - 1) * form.k + 1
        texts = texts_for(state, (h.paper for h in result.hits), form.lang)
        total, cap = result.total, TOTAL_CAP
        return SearchAnswer.make(
            query=q,
            mode=result.mode,
            sort=form.sort,
            page=form.page,
            next_page=form.page + 1 if len(result.hits) == form.k else None,
            notes=result.notes,
            understood=Understood.of(result.understood),
            total=None if total is None else Total.make(count=min(total, cap), capped=total > cap),
            shortened=cut,
            unknown_category=unknown_category(form.category),
            results=[SearchHitShape.of_hit(h, r, texts) for r, h in enumerate(result.hits, first)],
        ).dump()

    key = ("search", *form.key(), texts_version(state))
    return dict(state.cached(key, ranked, index=True))


def shown_first(request: Request, form: SearchForm) -> int:
    """The rank of the first result on the reader's page: the page's own first, or for a later part the
    script appends (``?first=N``, carried by its "more" links) the first of the page it is appended to,
    so that the part's count line says the whole range shown ("results 1–50")."""
    own = (form.page - 1) * form.k + 1
    asked_first = request.query_params.get("first", "")
    if asked_first.isdigit() and 1 <= int(asked_first) <= own:
        return int(asked_first)
    return own


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
    translated, corrected and its acronyms expanded unless ``verbatim``. The page shows the results in parts
    of ``PART`` (unless ``k`` is asked for); the API answers ``k`` per page."""
    as_page = not wants_json(request)  # the API requires q (``twin``'s ``api``)
    form = SearchForm(
        q=q,
        mode=mode,
        category=category or None,
        since=since or None,
        until=until or None,
        sort=sort,
        venue=venue or None,
        verbatim=verbatim,
        page=page_no,
        k=PART if as_page and "k" not in request.query_params else k,
        lang=reading_lang(web, request),
    )
    if not as_page:
        return search_data(web.state, form)
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
    ask = asked(request)  # the results in parts of PART (web/parts.py): a part is a page of results
    first = shown_first(request, form)
    choices = {"q": q, "mode": mode, "category": category, "since": since, "until": until, "sort": sort}
    size = None if form.k == PART else form.k  # a size asked for is kept in the parts' links
    base = href("/search", choices | {"venue": venue, "verbatim": verbatim, "k": size})

    def page_data() -> dict[str, Any]:
        data = search_data(web.state, form)
        has_next = data["next_page"] is not None
        part = page_part(data["results"], form.page, base, size=form.k, has_next=has_next)
        if part.next_rows:  # the part after it counts from this page's first result
            part = replace(part, next_rows=href(part.next_rows, {"first": first}))
        return with_part(data, part)

    return web.cached_page(
        request,
        fragment_or(ask.fragment, "search.html", "_results_part.html"),
        ("search-page", *form.key(), texts_version(web.state), str(ask.fragment), str(first)),
        page_data,
        index=True,
        fragment=ask.fragment,
        shown_first=first,
        **context,
    )
