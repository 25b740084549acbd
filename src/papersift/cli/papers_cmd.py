"""``papersift list`` and ``show``: a day's listing of a category and one paper, as text, JSON or BibTeX."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from papersift.cli.common import (
    CategoryArg,
    FormatOpt,
    HomeOpt,
    LangOpt,
    ListingDayOpt,
    Opened,
    check_format,
    fail,
    load_settings,
    opened,
    opened_listing,
    refuse,
    spoken,
)
from papersift.cli.language import Speech
from papersift.sources.latex import plain_text

if TYPE_CHECKING:
    from papersift.records.paper import Paper


def list_(
    category: CategoryArg,
    day: ListingDayOpt = None,
    fmt: FormatOpt = "text",
    lang: LangOpt = "en",
    home: HomeOpt = None,
) -> None:
    """A day's listing of a category, numbered #01… as arXiv lists it."""
    from papersift.library.shapes import ListedPaper
    from papersift.ranking.daily import day_quiet
    from papersift.reading.shown import lookup
    from papersift.services.listing import json_line, listing_text

    check_format(fmt)
    with opened_listing(home, category, day) as (o, when, days):
        entries = o.store.listing(category, when)
        # why a day has none, as far as the store knows it (a weekend, a holiday arXiv announced, not stored)
        quiet = None if entries else day_quiet(o.store, [category], when)
        texts = lookup(o.settings, o.store, [e.paper for e in entries], lang) if fmt == "json" else None
    if not entries:
        if quiet is not None:
            fail(quiet.line(), say=o.say)
        before = [d for d in days if d < when]
        after = [d for d in days if d > when]
        hint = ", ".join(str(d) for d in (before[-1:] + after[:1]))
        if hint:
            refuse("cli_no_listing_on_nearest", say=o.say, category=category, day=when, nearest=hint)
        refuse("no_listing_on", say=o.say, category=category, day=when)
    if fmt == "json":
        for number, e in enumerate(entries, 1):
            typer.echo(
                json_line(
                    ListedPaper.of(e.paper, texts, number=number, kind=e.kind, listing_date=str(when)).dump()
                )
            )
    else:
        typer.echo(listing_text(category, when, entries, o.say.lang), nl=False)


def show(
    paper_id: Annotated[str, typer.Argument(metavar="ID", help="arXiv id or abs/PDF URL.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or bibtex")] = "text",
    lang: LangOpt = "en",
    home: HomeOpt = None,
    references: Annotated[
        bool,
        typer.Option("--references", help="Its references (from its full text), each store paper named."),
    ] = False,
    cited_by: Annotated[bool, typer.Option("--cited-by", help="The store's papers that cite it.")] = False,
) -> None:
    """One paper: metadata, abstract, links, its TL;DR; or its JSON or BibTeX; or its references or the
    papers citing it."""
    from papersift.library.shapes import PaperShape
    from papersift.reading.shown import lookup
    from papersift.records.messages import reason
    from papersift.records.paper import InvalidIdError, paper_key
    from papersift.services.listing import json_line, paper_bibtex, paper_text

    check_format(fmt, ("text", "json", "bibtex"))
    try:
        pid = paper_key(paper_id)  # an arXiv id, or a venue paper's
    except InvalidIdError as e:
        fail(reason(e), 2, say=spoken())
    settings = load_settings(home)
    with opened(settings) as o:
        paper = o.store.get(pid)
        if paper is not None and (references or cited_by):
            check_format(fmt)
            _show_links(o, paper, references, cited_by, fmt)
            return
        texts = lookup(settings, o.store, [paper], lang) if paper is not None else None
    if paper is None:
        refuse("cli_not_in_store", say=Speech(settings.lang), paper=pid)
    shown = PaperShape.of(paper, texts).dump()
    if fmt == "json":
        typer.echo(json_line(shown))
    elif fmt == "bibtex":
        typer.echo(paper_bibtex(paper), nl=False)
    else:
        say = Speech(settings.lang)
        typer.echo(paper_text(paper, say.lang), nl=False)
        typer.echo(_tldr_line(shown["tldr"], say))
        if shown["venues"]:
            accepted = [
                " · ".join(str(v[k]) for k in ("venue", "year", "status") if v[k]) for v in shown["venues"]
            ]
            typer.echo(say.line("cli_accepted_at", venues="; ".join(accepted)))
        if "zh" in shown and shown["zh"]["title"]:
            zh = shown["zh"]
            title, abstract = plain_text(zh["title"]), plain_text(zh["abstract"])
            typer.echo(f"{say.line('cli_translation', title=title)}\n{abstract}".rstrip())
        for line in _links_lines(shown, say):
            typer.echo(line)


def _tldr_line(tldr: dict[str, Any], say: Speech) -> str:
    """``show``'s ``TL;DR (BY): TEXT`` (BY: the model, or the abstract's key sentence), or why there is
    none."""
    from papersift.reading.extractive import EXTRACTIVE

    if not tldr["text"]:
        return say.line("cli_tldr_unavailable", problem=tldr["error"])
    by = say.line("cli_tldr_extractive") if tldr["by"] == EXTRACTIVE else tldr["by"]
    return say.line("tldr_line_by", by=by, text=plain_text(tldr["text"]))


def _links_lines(shown: dict[str, Any], say: Speech) -> list[str]:
    """The full text's lines of ``show``: what was read, references, cited by, code, citation count."""
    lines = []
    if (info := shown["fulltext"]) is not None:
        words = f"{info['words']:,}"
        lines.append(
            say.line("cli_full_text_read", source=info["from"], sections=info["sections"], words=words)
        )
    if refs := shown["references"]:
        here = sum(r["resolved"] is not None for r in refs)
        lines.append(say.line("cli_references_count", n=len(refs), m=here))
    if citing := shown["cited_by"]:
        lines.append(say.line("cli_cited_by_count", n=len(citing)))
    lines += [say.line("cli_own_code" if c["own"] else "cli_code", url=c["url"]) for c in shown["code"]]
    if (count := shown["citations"]) is not None:
        lines.append(say.line("cli_citations", n=f"{count['count']:,}", day=count["date"]))
    return lines


def _show_links(o: Opened, paper: Paper, references: bool, cited_by: bool, fmt: str) -> None:
    """``show --references`` / ``--cited-by``: the paper's references (each with the store paper it names)
    or the store's papers citing it, as text or JSON."""
    from papersift.library.shapes import CitingShape, ReferenceShape
    from papersift.services.listing import json_line

    if references:
        refs = o.store.references(paper.id)
        if fmt == "json":
            typer.echo(json_line({"id": paper.id, "references": [ReferenceShape.of(r).dump() for r in refs]}))
        else:
            here = sum(r.resolved is not None for r in refs)
            typer.echo(o.say.line("cli_references_heading", n=len(refs), m=here))
            for n, r in enumerate(refs, 1):
                typer.echo(f"[{n}] {r.text}" + (f"  -> {r.resolved}" if r.resolved else ""))
    if cited_by:
        citing = o.store.cited_by(paper.id)
        if fmt == "json":
            typer.echo(json_line({"id": paper.id, "cited_by": [CitingShape.of(c).dump() for c in citing]}))
        else:
            typer.echo(o.say.line("cli_cited_by_heading", n=len(citing)))
            for c in citing:
                typer.echo(f"{c.paper_id}  {plain_text(c.title)}")
