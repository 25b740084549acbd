"""``papersift ingest``, ``harvest oai`` and ``sync``: getting papers into the store from files, arXiv's
OAI-PMH interface and its RSS feeds."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from papersift.cli.common import (
    CategoriesArg,
    HomeOpt,
    Opened,
    fail,
    load_settings,
    opened,
    parse_day,
    refuse,
    report,
)

harvest_app = typer.Typer(help="Harvest papers from arXiv's interfaces.", no_args_is_help=True)


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories, any arXiv format.")],
    home: HomeOpt = None,
    fmt: Annotated[str | None, typer.Option("--as", help="Force a format instead of detecting it.")] = None,
) -> None:
    """Load papers from files: snapshots (JSON lines, .gz), OAI-PMH, API Atom, RSS, mailings, .abs."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from papersift.services.ingest import ingest_paths
    from papersift.sources import FORMATS

    if fmt is not None and fmt not in FORMATS:
        refuse("cli_as_one_of", 2, allowed=", ".join(FORMATS))
    settings = load_settings(home)
    with (
        opened(settings) as o,
        Progress(
            SpinnerColumn(),
            TextColumn("[progress.description]{task.description}"),
            TextColumn(o.say.line("cli_bar_records")),
            TimeElapsedColumn(),
            transient=True,
            disable=not sys.stderr.isatty(),
        ) as bar,
    ):
        task = bar.add_task(o.say.line("cli_bar_ingesting"), total=None)
        counts = ingest_paths(
            o.store,
            paths,
            fmt=fmt,
            progress=lambda c: bar.advance(task, c.total),
            chunk=settings.ingest_chunk,
        )
    report(counts, "ingest", o.say)
    if counts.failed:
        raise typer.Exit(1)


def _oai_set(value: str | None) -> str | None:
    return value.lower() if value else value  # arXiv's sets are spelled in lower case (physics:hep-th)


@harvest_app.command("oai")
def harvest_oai(
    set_spec: Annotated[
        str | None,
        typer.Option("--set", help="OAI set, e.g. cs, math, physics:hep-th (any case).", callback=_oai_set),
    ] = None,
    from_: Annotated[
        str | None,
        typer.Option("--from", help="Datestamp to start at (default: where the last run ended)."),
    ] = None,
    until: Annotated[str | None, typer.Option("--until", help="Last datestamp.")] = None,
    prefix: Annotated[str, typer.Option("--prefix", help="arXiv or arXivRaw.")] = "arXiv",
    home: HomeOpt = None,
) -> None:
    """Bulk or incremental OAI-PMH harvest, resumable after a kill."""
    from rich.progress import Progress

    from papersift.records.messages import reason
    from papersift.services.harvest import ArxivClient, HarvestError
    from papersift.services.harvest import harvest_oai as run

    settings = load_settings(home)
    with opened(settings) as o:
        try:
            with ArxivClient(settings) as client, Progress(disable=not sys.stderr.isatty()) as bar:
                task = bar.add_task(
                    f"OAI {set_spec}" if set_spec else o.say.line("cli_bar_oai_all"), total=None
                )
                counts = run(
                    client,
                    o.store,
                    set_spec=set_spec,
                    from_date=parse_day(from_, "--from"),
                    until=parse_day(until, "--until"),
                    metadata_prefix=prefix,
                    on_page=lambda page, c: bar.update(
                        task, advance=c.total, description=o.say.line("cli_bar_oai_page", page=page)
                    ),
                )
        except HarvestError as e:
            refuse("cli_harvest_stopped", say=o.say, problem=reason(e))
    report(counts, "harvest", o.say)


def sync(
    categories: CategoriesArg,
    home: HomeOpt = None,
) -> None:
    """Fetch today's announcements of CATEGORY... from arXiv's RSS feeds."""
    from papersift.records.messages import reason
    from papersift.services.harvest import ArxivClient, HarvestError, sync_rss

    settings = load_settings(home)
    with opened(settings) as o:
        say = o.say
        typer.echo(
            say.line("cli_sync_asking", url=settings.rss_url, categories=" ".join(categories)), err=True
        )
        try:
            with ArxivClient(
                settings, on_retry=lambda line: typer.echo(say.line("cli_waiting", line=line), err=True)
            ) as client:
                counts = sync_rss(
                    client,
                    o.store,
                    categories,
                    on_feed=lambda cat, c: typer.echo(
                        say.line("cli_new_updated", what=cat, new=c.new, updated=c.updated)
                    ),
                )
        except HarvestError as e:
            fail(reason(e), say=say)
        report(counts, "sync", say)
        from papersift.cli.common import fulltext_pass

        fulltext_pass(o)  # the full text of each reader's top Daily Papers and saved papers…
        _read_ahead(o)  # …first: their TL;DRs read it


def _read_ahead(o: Opened) -> None:
    """With a model: the TL;DRs of each reader's top Daily Papers (``digest.read_ahead``)."""
    from papersift.library.digest import read_ahead
    from papersift.llm.client import available

    if available(o.settings):
        typer.echo(o.say(read_ahead(o.store, o.indexes, o.settings, o.store.accounts()).line("reading")))
