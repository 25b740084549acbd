"""``papersift venues`` (every venue's accept lists with their counts by status), ``venues import FILE…``
(Paper Copilot's paperlists JSON, plain or .gz) and ``venue NAME YEAR`` (one list's records, each with
its arXiv paper or its venue paper)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from papersift.cli.common import FormatOpt, HomeOpt, check_format, fail, load_settings, opened, refuse

venues_app = typer.Typer(
    help="Venues' accept lists: import them, list them.", invoke_without_command=True, no_args_is_help=False
)
MAX_SKIPS_SHOWN = 50  # skipped records named one by one on stderr; the rest counted


@venues_app.callback()
def venues(ctx: typer.Context, fmt: FormatOpt = "text", home: HomeOpt = None) -> None:
    """Every venue's accept lists, each year with its records, those linked to arXiv and its counts by
    status."""
    if ctx.invoked_subcommand is not None:
        return
    from papersift.services.listing import json_line

    check_format(fmt)
    with opened(load_settings(home)) as o:
        summaries = o.store.venue_list()
        if fmt == "json":
            for s in summaries:
                typer.echo(
                    json_line(
                        {
                            "venue": s.venue,
                            "year": s.year,
                            "records": s.records,
                            "linked": s.linked,
                            "statuses": dict(s.statuses),
                            "imported": s.imported.isoformat() if s.imported else None,
                        }
                    )
                )
            return
        if not summaries:
            typer.echo(o.say.line("cli_no_venues"))
        for s in summaries:
            statuses = ", ".join(f"{status or '—'} {n}" for status, n in s.statuses)
            typer.echo(
                o.say.line(
                    "cli_venue_summary",
                    venue=s.venue,
                    year=s.year,
                    records=s.records,
                    linked=s.linked,
                    statuses=statuses,
                )
            )


@venues_app.command("import")
def import_(
    paths: Annotated[list[Path], typer.Argument(help="Accept lists: colm2025.json or colm2025.json.gz …")],
    venue: Annotated[
        str | None, typer.Option("--venue", help="The venue (default: from the file's name).")
    ] = None,
    year: Annotated[
        int | None, typer.Option("--year", help="Its year (default: from the file's name).")
    ] = None,
    home: HomeOpt = None,
) -> None:
    """Import venues' accept lists: each record linked to its arXiv paper (by title and authors), the others
    kept as venue papers; importing a list again updates it."""
    from papersift.records.messages import reason
    from papersift.services.venue_import import import_file
    from papersift.sources.paperlists import PaperlistError

    with opened(load_settings(home)) as o:
        for path in paths:
            if not path.is_file():
                refuse("cli_no_such_file", 1, o.say, path=str(path))
            try:
                done = import_file(o.store, path, venue, year)
            except PaperlistError as e:
                fail(reason(e), say=o.say)
            for s in done.skipped[:MAX_SKIPS_SHOWN]:
                where = f"{s.number} ({s.record})" if s.record != "?" else str(s.number)
                typer.echo(
                    o.say.line("cli_venue_skipped_one", file=done.file, record=where, reason=o.say(s.reason)),
                    err=True,
                )
            c = done.counts
            typer.echo(
                o.say.line(
                    "cli_venue_imported",
                    file=done.file,
                    venue=done.venue,
                    year=done.year,
                    read=c.records,
                    linked=c.linked,
                    kept=c.venue_papers,
                    skipped=len(done.skipped),
                )
            )
            reasons = Counter(o.say(s.reason) for s in done.skipped)
            for why, n in reasons.items():
                typer.echo(o.say.line("cli_venue_skipped_why", n=n, reason=why))
            typer.echo(
                o.say.line(
                    "cli_venue_changes",
                    new=c.new,
                    changed=c.changed,
                    unchanged=c.unchanged,
                    removed=c.removed,
                    seconds=f"{done.seconds:.1f}",
                )
            )


def venue(
    name: Annotated[str, typer.Argument(help="The venue, e.g. COLM (any case).")],
    year: Annotated[int, typer.Argument(help="Its year, e.g. 2025.")],
    status: Annotated[str | None, typer.Option("--status", "-s", help="Only this status, e.g. Oral.")] = None,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """One venue's accept list of one year: each record with its status and its arXiv paper (or its venue
    paper's id); JSON lines with --format json."""
    from papersift.services.listing import json_line

    check_format(fmt)
    with opened(load_settings(home)) as o:
        entries = o.store.venue_entries(name, year, status)
        if not entries and status and (statuses := o.store.venue_statuses(name, year)):
            listed = ", ".join(f"{s or '—'} {n}" for s, n in statuses)
            refuse("cli_no_venue_status", 1, o.say, venue=name, year=year, status=status, statuses=listed)
        if not entries:
            refuse("cli_no_venue_list", 1, o.say, venue=name, year=year)
        for n, e in enumerate(entries, 1):
            r = e.record
            if fmt == "json":
                typer.echo(json_line(entry_json(e)))
                continue
            where = e.arxiv or o.say.line("cli_venue_paper_only", id=e.paper_id)
            typer.echo(f"#{n:03d} [{r.status or '—'}] {r.title}")
            typer.echo(f"     {', '.join(r.authors)}")
            typer.echo(f"     {where}")


def entry_json(e: Any) -> dict[str, Any]:
    """A stored record as ``venue NAME YEAR --format json`` gives it (one line each)."""
    r = e.record
    return {
        "id": r.id,
        "arxiv": e.arxiv,
        "paper": e.paper_id,
        "venue": r.venue,
        "year": r.year,
        "title": r.title,
        "authors": list(r.authors),
        "status": r.status,
        "track": r.track,
        "links": dict(r.links),
        "first_seen": e.first_seen.isoformat(),
    }
