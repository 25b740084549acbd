"""The ``papersift`` command line: the root ``app``, its ``--db``/``--home`` options, and the one list of
commands, in the order ``papersift --help`` shows them (``papersift.cli.main`` runs it).

Each command group lives in its own module (``papersift.cli.papers``, ``.ingest``, ``.search``,
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
    accounts,
    daily,
    evaluate,
    fulltext,
    index,
    ingest,
    library,
    llm,
    migrate,
    papers,
    reading,
    search,
    serve,
    topics,
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


app.command()(ingest.ingest)
app.command()(ingest.sync)
app.command("list")(papers.list_)
app.command()(papers.show)
app.command()(search.search)
app.command()(index.embed)
app.command()(search.related)
app.command()(serve.demo)
app.command()(serve.serve)
app.command()(migrate.migrate)
app.command()(daily.follow)
app.command()(daily.recommend)
app.command()(daily.digest)
app.command()(daily.daily)
app.command()(topics.topics)
app.command()(reading.summarize)
app.command()(reading.ask)
app.command()(fulltext.fulltext)
app.command()(fulltext.enrich)
app.add_typer(ingest.harvest_app, name="harvest")
app.add_typer(evaluate.eval_app, name="eval")
app.add_typer(accounts.reader_app, name="reader")
app.add_typer(library.library_app, name="library")
app.add_typer(llm.llm_app, name="llm")
