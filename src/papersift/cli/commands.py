"""The ``papersift`` command line: the root ``app``, its ``--db``/``--home`` options, and the one list of
commands, in the order ``papersift --help`` shows them (``papersift.cli.main`` runs it).

Each command group lives in its own module (``papersift.cli.papers_cmd``, ``.ingest``, ``.search``,
``.index``, ``.serve``, ``.migrate``, ``.topics``, ``.daily``, ``.evaluate``, ``.accounts``, ``.library``,
``.llm``); what they share is in ``papersift.cli.common``. Command names and ``--format json`` shapes are an
interface other tools rely on. Heavy modules are imported inside the commands that need them, so quick
commands (``list``, ``search``) start fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from papersift.cli import (
    accounts_cmd,
    daily_cmd,
    eval_cmd,
    fulltext_cmd,
    index_cmd,
    ingest_cmd,
    library_cmd,
    llm_cmd,
    migrate_cmd,
    papers_cmd,
    reading_cmd,
    search_cmd,
    serve,
    topics_cmd,
    venues_cmd,
)
from papersift.cli.metavars import PlainMetavarGroup

app = typer.Typer(
    cls=PlainMetavarGroup,
    help="papersift: a self-hosted research-paper radar for arXiv.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar="PAPERSIFT_DB",
            help="The store: postgresql://USER@HOST/DB or sqlite:///PATH (default: SQLite in --home).",
        ),
    ] = None,
    home: Annotated[
        Path | None,
        typer.Option("--home", help="Data directory for every command (as each command's --home)."),
    ] = None,
) -> None:
    """papersift: a self-hosted research-paper radar for arXiv."""
    import os

    # how a root option reaches every command: each command's settings read PAPERSIFT_DB, and its --home
    # option falls back to PAPERSIFT_HOME (`serve` hands its workers the settings themselves)
    if db:
        os.environ["PAPERSIFT_DB"] = db
    if home:
        os.environ["PAPERSIFT_HOME"] = str(home)


app.command()(ingest_cmd.ingest)
app.command()(ingest_cmd.sync)
app.command("list")(papers_cmd.list_)
app.command()(papers_cmd.show)
app.command()(search_cmd.search)
app.command()(index_cmd.embed)
app.command()(search_cmd.related)
app.command()(serve.demo)
app.command()(serve.serve)
app.command()(migrate_cmd.migrate)
app.command()(daily_cmd.follow)
app.command()(daily_cmd.recommend)
app.command()(daily_cmd.digest)
app.command()(daily_cmd.daily)
app.command()(topics_cmd.topics)
app.command()(reading_cmd.summarize)
app.command()(reading_cmd.ask)
app.command()(fulltext_cmd.fulltext)
app.command()(fulltext_cmd.enrich)
app.add_typer(ingest_cmd.harvest_app, name="harvest")
app.add_typer(eval_cmd.eval_app, name="eval")
app.add_typer(accounts_cmd.reader_app, name="reader")
app.add_typer(library_cmd.library_app, name="library")
app.add_typer(llm_cmd.llm_app, name="llm")
app.command()(venues_cmd.venue)
app.add_typer(venues_cmd.venues_app, name="venues")
