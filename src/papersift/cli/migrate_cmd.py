"""``papersift migrate``: copy a SQLite install into PostgreSQL and check every table on both sides."""

from __future__ import annotations

from typing import Annotated

import typer

from papersift.cli.common import fail, progress_bar, refuse, spoken


def migrate(
    source: Annotated[str, typer.Option("--from", help="The SQLite store: sqlite:///PATH (or a path).")],
    target: Annotated[str, typer.Option("--to", help="The PostgreSQL database: postgresql://user@host/db.")],
    force: Annotated[bool, typer.Option("--force", help="Replace what the target already holds.")] = False,
) -> None:
    """Copy a SQLite install into PostgreSQL, then check each table's rows and checksum on both sides."""
    from papersift.records.messages import reason
    from papersift.store import StoreError, is_postgres_url, sqlite_path
    from papersift.store.sqlite import SqliteStore

    say = spoken()  # migrate loads no settings: the language is the environment's

    try:
        from papersift.store.migrate import copy_store, source_counts, verify
        from papersift.store.postgres import PostgresStore
    except ImportError as e:
        refuse("cli_migrate_needs_postgres", say=say, problem=e)

    if not is_postgres_url(target):
        refuse("cli_to_postgres_url", 2, say=say, value=repr(target))
    try:
        path = sqlite_path(source)
    except StoreError as e:
        fail(reason(e), 2, say=say)
    if not path.is_file():
        refuse("cli_no_sqlite_store", say=say, path=path)
    try:
        src = SqliteStore(path)
    except StoreError as e:
        fail(reason(e), say=say)
    try:
        dst = PostgresStore(target)
    except StoreError as e:
        src.close()
        fail(reason(e), say=say)
    try:
        with progress_bar() as bar:
            task = bar.add_task(say.line("cli_bar_copying"), total=sum(source_counts(src).values()))
            copy_store(
                src, dst, force=force, progress=lambda t, n: bar.update(task, advance=n, description=t)
            )
        checks = verify(src, dst)
    except StoreError as e:
        fail(reason(e), say=say)
    finally:
        src.close()
        dst.close()
    typer.echo(say.line("cli_migrate_header"))
    for c in checks:
        typer.echo(
            f"{c.table:<16}{c.source_rows:>12}{c.target_rows:>12}  {c.source_sum:<18}{c.target_sum:<18}"
            + say.line("cli_migrate_ok" if c.ok else "cli_migrate_differs")
        )
    if not all(c.ok for c in checks):
        refuse("cli_target_differs", say=say)
    typer.echo(say.line("cli_migrated", path=path))
