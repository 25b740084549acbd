"""``papersift reader add|list|feed``: the readers (accounts) of a shared install and their private feeds."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from papersift.cli.common import HomeOpt, ReaderOpt, load_settings, opened, spoken

reader_app = typer.Typer(help="Readers of a shared install (accounts for the web UI).", no_args_is_help=True)


@reader_app.command("add")
def reader_add(
    name: Annotated[str, typer.Argument(help="Login name.")],
    email: Annotated[str | None, typer.Option(help="Where digests are sent.")] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from stdin.")
    ] = False,
    home: HomeOpt = None,
) -> None:
    """Create a reader (asks for a password unless --password-stdin)."""
    from papersift.services.accounts import create_account

    password = (
        sys.stdin.readline().rstrip("\n")
        if password_stdin
        else typer.prompt(spoken().line("cli_password"), hide_input=True, confirmation_prompt=True)
    )
    with opened(load_settings(home)) as o:
        reader = create_account(o.store, name, password, email)
    typer.echo(o.say.line("cli_reader_created", name=reader.name))


@reader_app.command("list")
def reader_list(home: HomeOpt = None) -> None:
    """Every reader, with their e-mail and library size."""
    with opened(load_settings(home)) as o:
        for r in o.store.accounts():
            typer.echo(
                f"{r.name}\t{r.email or '-'}\t{o.say.line('cli_papers', n=len(o.store.library(r.id)))}"
            )


@reader_app.command("feed")
def reader_feed(reader: ReaderOpt = None, new: bool = False, home: HomeOpt = None) -> None:
    """The private Atom feed URL of a reader's Daily Papers (--new replaces its secret token)."""
    from papersift.services.accounts import new_token

    settings = load_settings(home)
    with opened(settings) as o:
        who = o.account(reader)
        if new:
            o.store.update_account(who.id, feed_token=new_token())
            who = o.store.account_by_id(who.id) or who
    typer.echo(f"{settings.base_url.rstrip('/')}/feed/{who.feed_token}.atom")
