"""``papersift search`` and ``related``: ranked papers for a query, or for papers and pasted text, as text or
JSON lines (one line per query in batch mode)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import (
    FormatOpt,
    HomeOpt,
    check_format,
    known_category_option,
    lines_of,
    load_settings,
    opened,
    parse_day,
    refuse,
)
from papersift.cli.language import Speech
from papersift.sources.latex import plain_text

if TYPE_CHECKING:
    from papersift.ranking.understand import Understood


def search(
    ctx: typer.Context,
    query: Annotated[
        str | None, typer.Argument(help='Words, "phrases", prefix*, -exclude, a OR b; or an arXiv id.')
    ] = None,
    mode: Annotated[str, typer.Option("--mode", "-m", help="hybrid, keyword or semantic.")] = "hybrid",
    queries_from: Annotated[
        Path | None, typer.Option("--queries-from", help="One query a line; one JSON line per query.")
    ] = None,
    k: Annotated[int, typer.Option("-k", min=1, max=1000, help="Number of results.")] = 10,
    category: Annotated[str | None, typer.Option("--category", "-c", callback=known_category_option)] = None,
    since: Annotated[str | None, typer.Option("--since", help="Announced on or after.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Announced on or before.")] = None,
    author: Annotated[str | None, typer.Option("--author", "-a")] = None,
    venue: Annotated[
        str | None, typer.Option("--venue", help="Only papers a venue accepted: COLM, or COLM 2025.")
    ] = None,
    page: Annotated[int, typer.Option("--page", min=1)] = 1,
    sort: Annotated[
        str, typer.Option("--sort", help="relevance, or date: the 200 most relevant results, newest first.")
    ] = "relevance",
    exact: Annotated[
        bool, typer.Option("--exact", help="Search the query as typed: no translation, correction, acronyms.")
    ] = False,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Search: hybrid (BM25 + vectors + tf-idf, the default), keyword (BM25) or semantic, with filters.

    A query is understood first: 中文 is translated, misspellings corrected, acronyms matched with their
    long forms (the notes say what was done; --exact searches the query as typed)."""
    from papersift.index.indexes import Indexes, current_vocabulary
    from papersift.library.shapes import SearchHitShape, SearchResultShape
    from papersift.ranking.query_form import reads_pairs
    from papersift.ranking.search import MODES, SORTS, search_page
    from papersift.reading.query_translation import translator
    from papersift.reading.shown import with_venues
    from papersift.records.paper import is_arxiv_id
    from papersift.services.listing import json_line
    from papersift.sources.citetext import author_line
    from papersift.store import Filters

    check_format(fmt)
    if mode not in MODES:
        refuse("cli_one_of", 2, option="--mode", allowed=", ".join(MODES), value=repr(mode))
    if sort not in SORTS:
        refuse("cli_one_of", 2, option="--sort", allowed=", ".join(SORTS), value=repr(sort))
    if queries_from is None:
        if query is None:
            refuse("cli_query_or_file", 2)
        queries = [query]
    elif query is not None:
        refuse("cli_query_or_file", 2)
    else:
        queries = lines_of(queries_from)
    settings = load_settings(home)
    say = Speech(settings.lang)
    # the model loads beside the indexes unless no text is encoded (keyword mode, an arXiv id)
    warm = mode != "keyword" and not (query is not None and is_arxiv_id(query))
    with opened(settings, warm=warm, kept=ctx.obj) as o:
        filters = Filters(
            category, parse_day(since, "--since"), parse_day(until, "--until"), author, venue=venue
        )
        # keyword search needs no index: skip opening (and syncing) them, unless a query is read through
        # their pair counts (中文), so that every mode reads it the same way
        light = mode == "keyword" and not any(reads_pairs(q) for q in queries)
        vocabulary = current_vocabulary(settings) if light else None
        # the search itself notes a store without vectors, and only where a mode wants them (not keyword)
        indexes = (
            Indexes(o.store, settings, None, None, vocabulary=vocabulary) if light else o.papersift.indexes()
        )
        translate = translator(settings, o.store)  # the configured model, if any (else the dictionary)
        for text in queries:
            result = search_page(
                indexes,
                text,
                page,
                k,
                mode=mode,
                filters=filters,
                exact=exact,
                translate=translate,
                sort=sort,  # one of SORTS, checked above
            )
            for note in _understood_notes(result.understood, say):
                typer.echo(note, err=True)
            for note in dict.fromkeys(result.notes):
                typer.echo(say.line("cli_note", note=note), err=True)
            first = (page - 1) * k + 1
            shown = (
                with_venues(o.store, [h.paper for h in result.hits])
                if fmt == "json" or queries_from
                else None
            )
            if queries_from is not None:
                results = [SearchHitShape.of_hit(h, rank, shown) for rank, h in enumerate(result.hits, first)]
                typer.echo(json_line(SearchResultShape.of(result, text, results).dump()))
            elif fmt == "json":
                for rank, h in enumerate(result.hits, first):
                    typer.echo(json_line(SearchHitShape.of_hit(h, rank, shown).dump()))
            elif not result.hits:
                typer.echo(say.line("cli_no_results"), err=True)
            for rank, h in enumerate(result.hits if fmt == "text" and queries_from is None else [], first):
                p = h.paper
                typer.echo(f"{rank:>3}. [{p.id}] {plain_text(p.title)}")
                typer.echo(
                    f"     {say(author_line(p.authors))} · {' '.join(p.categories)} · "
                    f"{p.announced or p.published or ''} · {say.line('score', score=f'{h.score:.2f}')}"
                    + (f" · {', '.join(h.terms)}" if h.terms else "")
                )


def _understood_notes(understood: Understood | None, say: Speech) -> list[str]:
    """What the text output says of a rewritten query: what was searched for, what was done, the way back,
    and for a query matching nothing the nearest terms."""
    if understood is None:
        return []
    lines: list[str] = []
    if understood.rewritten:
        lines.append(say.line("cli_searched_for", query=understood.text_used))
        lines += [say.line("cli_note", note=note) for note in understood.applied]
        lines.append(say.line("cli_search_instead", query=understood.original))
    if understood.suggestions:
        lines.append(say.line("cli_nearest_terms", terms=", ".join(understood.suggestions)))
    return lines


def related(
    ctx: typer.Context,
    ids: Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="arXiv ids or URLs.")] = None,
    text: Annotated[str | None, typer.Option("--text", help="Any text, e.g. a pasted abstract.")] = None,
    ids_from: Annotated[Path | None, typer.Option("--ids-from", help="One id a line.")] = None,
    k: Annotated[int, typer.Option("-k", min=1, max=1000, help="Results per query.")] = 10,
    category: Annotated[str | None, typer.Option("--category", "-c", callback=known_category_option)] = None,
    since: Annotated[str | None, typer.Option("--since", help="Announced on or after.")] = None,
    facet: Annotated[
        str | None,
        typer.Option("--facet", help="Alike in one part only: background, method or result sentences."),
    ] = None,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Related papers (相关论文) of papers or of any text, each with why it matches."""
    from papersift.index.sentences import FACETS
    from papersift.library.shapes import RelatedHitShape
    from papersift.ranking.related import Query, paper_query, text_query
    from papersift.ranking.related import related as run
    from papersift.reading.query_translation import translator
    from papersift.reading.shown import with_venues
    from papersift.records.messages import reason, say
    from papersift.records.paper import InvalidIdError, paper_key
    from papersift.services.listing import json_line
    from papersift.sources.citetext import author_line
    from papersift.store import Filters

    check_format(fmt)
    if facet is not None and facet not in FACETS:
        refuse("cli_one_of", 2, option="--facet", allowed=", ".join(FACETS), value=repr(facet))
    wanted = list(ids or []) + (lines_of(ids_from) if ids_from else [])
    if (text is not None) == bool(wanted):
        refuse("cli_ids_or_text", 2)
    if text is not None and not text.strip():
        refuse("cli_text_empty", 2)
    settings = load_settings(home)
    speech = Speech(settings.lang)
    batch = ids_from is not None or len(wanted) > 1
    failed = False
    with opened(settings, warm=text is not None, kept=ctx.obj) as o:
        when = parse_day(since, "--since")
        indexes = o.indexes
        queries: list[Query | str] = []
        if text is not None:
            queries.append(text_query(indexes, text, facet=facet, translate=translator(settings, o.store)))
        for raw in wanted:
            try:
                pid = paper_key(raw)  # an arXiv id, or a venue paper's
            except InvalidIdError as e:
                queries.append(reason(e))
                continue
            paper = o.store.get(pid)
            queries.append(paper_query(indexes, paper, facet=facet) if paper else say("not_in_store", id=pid))
        for raw, query in zip(wanted or [text or ""], queries, strict=True):
            if isinstance(query, str):
                failed = True
                typer.echo(speech.line("cli_error", message=query), err=True)
                if fmt == "json" or batch:
                    typer.echo(json_line({"query": raw, "error": query, "results": []}))
                continue
            for note in query.notes:
                typer.echo(speech.line("cli_note", note=note), err=True)
            hits = run(indexes, query, k=k, filters=Filters(category=category, since=when))
            if fmt == "json" or batch:
                shown = with_venues(o.store, [h.paper for h in hits])
                results = [
                    RelatedHitShape.of_hit(h, shown, rank=rank).dump() for rank, h in enumerate(hits, 1)
                ]
                typer.echo(json_line({"query": query.label, "results": results}))
                continue
            head = (
                f"[{query.paper.id}] {plain_text(query.paper.title)}" if query.paper else f'"{query.label}"'
            )
            typer.echo(speech.line("cli_related_to", paper=head))
            for rank, h in enumerate(hits, 1):
                p = h.paper
                typer.echo(f"{rank:>3}. [{p.id}] {plain_text(p.title)}")
                typer.echo(
                    f"     {speech(author_line(p.authors))} · {' '.join(p.categories)} · "
                    f"{p.announced or p.published or ''} · {speech.line('score', score=f'{h.score:.3f}')}"
                )
                snippet = plain_text(p.abstract)
                typer.echo(f"     {snippet[:160]}{'…' if len(snippet) > 160 else ''}")
                if h.reasons():
                    typer.echo(f"     {speech.line('why_reasons', reasons=speech.joined(h.reasons()))}")
            if not hits:
                typer.echo(speech.line("cli_no_related"), err=True)
    if failed:
        raise typer.Exit(1)
