"""``papersift summarize`` (TL;DRs, and 中文 titles and abstracts, of papers or of a day's listing, with a
progress bar; resumable: what is stored is not made again) and ``papersift ask`` (a question about papers,
answered from their texts with a mark per claim)."""

from __future__ import annotations

from typing import Annotated

import typer

from papersift.cli.common import (
    FormatOpt,
    HomeOpt,
    LangOpt,
    check_format,
    fail,
    known_category_option,
    load_settings,
    opened,
    parse_day,
    progress_bar,
    refuse,
)
from papersift.cli.language import Speech
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.sources.latex import plain_text
from papersift.store import Store


def _papers(store: Store, ids: list[str], say: Speech) -> list[Paper]:
    from papersift.records.messages import reason
    from papersift.records.paper import InvalidIdError, normalize_id

    found, missing = [], []
    for raw in ids:
        try:
            pid = normalize_id(raw)
        except InvalidIdError as e:
            fail(reason(e), 2, say=say)
        paper = store.get(pid)
        if paper is None:
            missing.append(pid)
        else:
            found.append(paper)
    if missing:
        refuse("cli_not_in_store_list", say=say, papers=", ".join(missing))
    return found


def _check_model(settings: Settings) -> None:
    from papersift.llm.client import available

    if not available(settings):
        refuse("cli_no_model", say=Speech(settings.lang))


def summarize(
    ids: Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="arXiv ids.")] = None,
    day: Annotated[str | None, typer.Option("--date", "-d", help="A listing day (with --category).")] = None,
    category: Annotated[
        str | None,
        typer.Option("--category", "-c", help="The day's category.", callback=known_category_option),
    ] = None,
    lang: LangOpt = "en",
    retry: Annotated[bool, typer.Option("--retry", help="Make failed texts again.")] = False,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """TL;DRs (and with --lang zh 中文 titles and abstracts) of papers, or of a day's listing."""
    from papersift.library.shapes import PaperShape
    from papersift.reading.passes import summarize as run
    from papersift.reading.shown import lookup
    from papersift.services.listing import json_line

    check_format(fmt)
    settings = load_settings(home)
    if bool(ids) == bool(day or category):
        refuse("cli_ids_or_day", 2, say=Speech(settings.lang))
    if not ids and not (day and category):
        refuse("cli_a_day_is", 2, say=Speech(settings.lang))
    _check_model(settings)
    with opened(settings) as o:
        if ids:
            papers = _papers(o.store, ids, o.say)
        else:
            when = parse_day(day, "--date")
            assert when is not None and category is not None
            papers = [e.paper for e in o.store.listing(category, when)]
            if not papers:
                refuse("no_listing_on", say=o.say, category=category, day=when)
        with progress_bar() as bar:
            task = bar.add_task(o.say.line("cli_bar_summarize"), total=len(papers))
            made = run(settings, o.store, papers, lang, retry_failed=retry, step=lambda _: bar.advance(task))
        texts = lookup(settings, o.store, papers, lang)
    for paper in papers:
        shown = PaperShape.of(paper, texts).dump()
        if fmt == "json":
            typer.echo(json_line(shown))
            continue
        tldr = shown["tldr"]
        typer.echo(f"arXiv:{paper.id}  {plain_text(paper.title)}")
        if lang == "zh" and shown["zh"]["title"]:
            typer.echo(f"  {plain_text(shown['zh']['title'])}")
        said = o.say.line("tldr_line", text=plain_text(tldr["text"])) if tldr["text"] else None
        typer.echo(f"  {said or o.say.line('cli_tldr_unavailable', problem=tldr['error'])}")
    for failure in made.failures:
        key = {"paper": failure.key.paper_id, "kind": failure.key.kind, "lang": failure.key.lang}
        typer.echo(o.say.line("cli_summarize_failed", **key, problem=failure.error), err=True)
    typer.echo(o.say(made.line()), err=True)
    if made.failures:
        raise typer.Exit(1)


def ask(
    args: Annotated[
        list[str], typer.Argument(metavar='ID... "QUESTION"', help="arXiv ids, then the question.")
    ],
    lang: LangOpt = "en",
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """A question about one or several papers, answered from their texts, each claim marked \\[n]."""
    from papersift.reading.prompts import MAX_PAPERS
    from papersift.reading.shown import answer_json
    from papersift.reading.texts import ask as answer
    from papersift.services.listing import json_line

    check_format(fmt)
    if len(args) < 2:
        refuse("cli_ask_usage", 2)
    *ids, question = args
    if len(ids) > MAX_PAPERS:
        refuse("cli_at_most_papers", 2, n=MAX_PAPERS)
    settings = load_settings(home)
    _check_model(settings)
    with opened(settings) as o:
        result = answer(settings, o.store, _papers(o.store, ids, o.say), question, lang)
    if fmt == "json":
        typer.echo(json_line(answer_json(result)))
    elif result.text is None:
        typer.echo(o.say.line("cli_answer_unavailable", problem=result.error), err=True)
    else:
        typer.echo(result.text)
        typer.echo("")
        for n, paper in enumerate(result.papers, 1):
            typer.echo(f"[{n}] arXiv:{paper.id}  {plain_text(paper.title)}")
    if result.text is None:
        raise typer.Exit(1)
