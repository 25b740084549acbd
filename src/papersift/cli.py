"""The ``papersift`` command line: ingest, harvest, sync, list, show, search, demo.

Command names and ``--format json`` shapes are an interface other tools rely on. Heavy modules are
imported inside the commands that need them, so quick commands (``list``, ``search``) start fast.
"""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from papersift.settings import Settings
    from papersift.store import IngestCounts, Store

app = typer.Typer(
    help="papersift: a self-hosted research-paper radar for arXiv.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
harvest_app = typer.Typer(help="Harvest papers from arXiv's interfaces.", no_args_is_help=True)
app.add_typer(harvest_app, name="harvest")

HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home", envvar="PAPERSIFT_HOME", help="Data directory (default ~/.local/share/papersift)."
    ),
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="text or json")]


def _settings(home: Path | None) -> Settings:
    from papersift.settings import Settings

    return Settings(home=home) if home else Settings()


def _store(settings: Settings) -> Store:
    from papersift.store import StoreError, open_store

    try:
        return open_store(settings)
    except StoreError as e:
        _fail(str(e))


def _fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _day(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        _fail(f"{option}: not a date (YYYY-MM-DD): {value!r}", 2)


def _check_format(fmt: str, allowed: tuple[str, ...] = ("text", "json")) -> None:
    if fmt not in allowed:
        _fail(f"--format must be one of {', '.join(allowed)}, not {fmt!r}", 2)


def _report(counts: IngestCounts, what: str) -> None:
    for err in counts.errors[:50]:
        typer.echo(f"error: {err}", err=True)
    if len(counts.errors) > 50:
        typer.echo(f"error: … and {len(counts.errors) - 50} more failed records", err=True)
    typer.echo(
        f"{what}: {counts.new} new, {counts.updated} updated, {counts.skipped} skipped, "
        f"{counts.failed} failed" + (f", {counts.deleted} deleted" if counts.deleted else "")
    )


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories, any arXiv format.")],
    home: HomeOpt = None,
    fmt: Annotated[str | None, typer.Option("--as", help="Force a format instead of detecting it.")] = None,
) -> None:
    """Load papers from files: snapshots (JSON lines, .gz), OAI-PMH, API Atom, RSS, mailings, .abs."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from papersift.ingest import ingest_paths
    from papersift.sources import FORMATS

    if fmt is not None and fmt not in FORMATS:
        _fail(f"--as must be one of {', '.join(FORMATS)}", 2)
    settings = _settings(home)
    store = _store(settings)
    with Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        TextColumn("{task.completed:,} records"),
        TimeElapsedColumn(),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as bar:
        task = bar.add_task("ingesting", total=None)
        counts = ingest_paths(
            store,
            paths,
            fmt=fmt,
            progress=lambda c: bar.advance(task, c.total),
            chunk=settings.ingest_chunk,
        )
    store.close()
    _report(counts, "ingest")
    if counts.failed:
        raise typer.Exit(1)


@harvest_app.command("oai")
def harvest_oai(
    set_spec: Annotated[
        str | None, typer.Option("--set", help="OAI set, e.g. cs, math, physics:hep-th.")
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

    from papersift.harvest import ArxivClient, HarvestError
    from papersift.harvest import harvest_oai as run

    settings = _settings(home)
    store = _store(settings)
    try:
        with ArxivClient(settings) as client, Progress(disable=not sys.stderr.isatty()) as bar:
            task = bar.add_task(f"OAI {set_spec or 'all'}", total=None)
            counts = run(
                client,
                store,
                set_spec=set_spec,
                from_date=_day(from_, "--from"),
                until=_day(until, "--until"),
                metadata_prefix=prefix,
                on_page=lambda page, c: bar.update(task, advance=c.total, description=f"OAI page {page}"),
            )
    except HarvestError as e:
        _fail(f"harvest stopped (rerun to resume): {e}")
    finally:
        store.close()
    _report(counts, "harvest")


@app.command()
def sync(
    categories: Annotated[list[str], typer.Argument(help="Categories, e.g. cs.LG stat.ML.")],
    home: HomeOpt = None,
) -> None:
    """Fetch today's announcements of CATEGORY... from arXiv's RSS feeds."""
    from papersift.harvest import ArxivClient, HarvestError, sync_rss

    settings = _settings(home)
    store = _store(settings)
    try:
        with ArxivClient(settings) as client:
            counts = sync_rss(
                client,
                store,
                categories,
                on_feed=lambda cat, c: typer.echo(f"{cat}: {c.new} new, {c.updated} updated"),
            )
    except HarvestError as e:
        _fail(str(e))
    finally:
        store.close()
    _report(counts, "sync")


@app.command("list")
def list_(
    category: Annotated[str, typer.Argument(help="Category or archive, e.g. cs.LG or astro-ph.")],
    day: Annotated[
        str | None, typer.Option("--date", "-d", help="Listing date (default: the latest).")
    ] = None,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """A day's listing of a category, numbered #01… as arXiv lists it."""
    from papersift.listing import json_line, listing_text, paper_json

    _check_format(fmt)
    wanted = _day(day, "--date")
    store = _store(_settings(home))
    days = store.announcement_days(category)
    if not days:
        _fail(f"no listings for {category!r} in the store (ingest or sync first)")
    when = wanted or days[-1]
    entries = store.listing(category, when)
    store.close()
    if not entries:
        before = [d for d in days if d < when]
        after = [d for d in days if d > when]
        hint = ", ".join(str(d) for d in (before[-1:] + after[:1]))
        _fail(f"no {category} listing on {when}" + (f" (nearest: {hint})" if hint else ""))
    if fmt == "json":
        for number, e in enumerate(entries, 1):
            typer.echo(json_line(paper_json(e.paper, number=number, kind=e.kind, listing_date=str(when))))
    else:
        typer.echo(listing_text(category, when, entries), nl=False)


@app.command()
def show(
    paper_id: Annotated[str, typer.Argument(metavar="ID", help="arXiv id or abs/PDF URL.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or bibtex")] = "text",
    home: HomeOpt = None,
) -> None:
    """One paper: metadata, abstract, links; or its JSON or BibTeX."""
    from papersift.listing import json_line, paper_bibtex, paper_json, paper_text
    from papersift.paper import InvalidIdError, normalize_id

    _check_format(fmt, ("text", "json", "bibtex"))
    try:
        pid = normalize_id(paper_id)
    except InvalidIdError as e:
        _fail(str(e), 2)
    store = _store(_settings(home))
    paper = store.get(pid)
    store.close()
    if paper is None:
        _fail(f"{pid} is not in the store")
    if fmt == "json":
        typer.echo(json_line(paper_json(paper)))
    elif fmt == "bibtex":
        typer.echo(paper_bibtex(paper), nl=False)
    else:
        typer.echo(paper_text(paper), nl=False)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help='Words, "phrases", prefix*, -exclude, a OR b.')],
    k: Annotated[int, typer.Option("-k", min=1, max=1000, help="Number of results.")] = 10,
    category: Annotated[str | None, typer.Option("--category", "-c")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Announced on or after.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Announced on or before.")] = None,
    author: Annotated[str | None, typer.Option("--author", "-a")] = None,
    page: Annotated[int, typer.Option("--page", min=1)] = 1,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Keyword search (BM25 over title, abstract, authors) with filters."""
    from papersift.listing import json_line, paper_json
    from papersift.paper import format_authors, is_arxiv_id, normalize_id
    from papersift.store import Hit, StoreError

    _check_format(fmt)
    store = _store(_settings(home))
    hits: list[Hit]
    if is_arxiv_id(query) and (paper := store.get(normalize_id(query))) is not None:
        hits = [Hit(paper, 0.0)]
    else:
        try:
            hits = store.search(
                query,
                k=k,
                offset=(page - 1) * k,
                category=category,
                since=_day(since, "--since"),
                until=_day(until, "--until"),
                author=author,
            )
        except StoreError as e:
            _fail(str(e))
    store.close()
    if fmt == "json":
        for rank, h in enumerate(hits, 1):
            typer.echo(json_line(paper_json(h.paper, score=round(h.score, 4), rank=rank)))
        return
    if not hits:
        typer.echo("no results", err=True)
        return
    for rank, h in enumerate(hits, (page - 1) * k + 1):
        p = h.paper
        typer.echo(f"{rank:>3}. [{p.id}] {p.title}")
        typer.echo(
            f"     {format_authors(p.authors)} · {' '.join(p.categories)} · "
            f"{p.announced or p.published or ''} · score {h.score:.2f}"
        )


@app.command()
def demo(
    shared: Annotated[
        Path, typer.Option(help="Offline data folder used when arXiv cannot be reached.")
    ] = Path("../shared/data"),
    days: Annotated[int, typer.Option(help="Announcement days to load.")] = 5,
    category: Annotated[
        str | None,
        typer.Option(help="Category whose listing is printed (default: the busiest one)."),
    ] = None,
    offline: Annotated[bool, typer.Option(help="Do not try arXiv at all.")] = False,
    home: HomeOpt = None,
) -> None:
    """Fill the store with recent real papers (arXiv, else the shared data) and print a listing."""
    from papersift.demo import load_recent_snapshot, sync_recent

    settings = _settings(home)
    store = _store(settings)
    counts = None
    if not offline:
        counts = sync_recent(settings, store, list(settings.default_categories))
    if counts is None:
        snapshot = shared / "arxiv-300k.jsonl.gz"
        if not snapshot.exists():
            store.close()
            _fail(
                "arXiv is unreachable and no offline data was found at "
                f"{snapshot}; connect to the internet or pass --shared PATH"
            )
        typer.echo(f"arXiv unreachable or skipped: loading the latest {days} days from {snapshot}")
        counts, busiest = load_recent_snapshot(store, snapshot, days)
        category = category or busiest
    _report(counts, "demo")
    store.close()
    list_(category or settings.default_categories[0], None, "text", home)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
