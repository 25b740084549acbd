"""The ``papersift`` command line: ingest, harvest, sync, list, show, search, embed, related, eval, demo,
serve (and, from ``cli_library.py``, the reader's commands).

Command names and ``--format json`` shapes are an interface other tools rely on. Heavy modules are
imported inside the commands that need them, so quick commands (``list``, ``search``) start fast.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
import typer.core

if TYPE_CHECKING:
    from rich.progress import Progress

    from papersift.index.engines import TlsFiles
    from papersift.index.pipeline import Indexes
    from papersift.paper import Paper
    from papersift.ranking.evaluate import Score
    from papersift.settings import Settings
    from papersift.store import IngestCounts, Store

_METAVARS = {
    "str": "TEXT",
    "int": "INTEGER",
    "float": "NUMBER",
    "int range": "INTEGER",
    "float range": "NUMBER",
}


def _metavar(param: typer.core.TyperOption, ctx: Any) -> str | None:
    """What ``--help`` shows for an option's value: nothing for a flag, else TEXT / INTEGER / PATH
    (typer's own labels read ``<bool>``, ``<str>``, ``<int range>``)."""
    if param.is_flag:
        return None
    if param.metavar:
        return str(param.metavar)
    label = str(param.display_type(ctx)).strip("<>")
    return _METAVARS.get(label, label.upper() if label in ("path", "file", "directory") else label)


typer.core.TyperOption.display_type_rich = _metavar  # type: ignore[method-assign,assignment]
typer.core.TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]  # named already

app = typer.Typer(
    help="papersift: a self-hosted research-paper radar for arXiv.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
harvest_app = typer.Typer(help="Harvest papers from arXiv's interfaces.", no_args_is_help=True)
app.add_typer(harvest_app, name="harvest")
eval_app = typer.Typer(help="Measure ranking quality on citation data, with baselines.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")


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

    if db:  # every command's settings (and `serve`'s workers) read it from the environment
        os.environ["PAPERSIFT_DB"] = db
    if home:  # read by each command's --home (its env var) and by `serve`'s workers
        os.environ["PAPERSIFT_HOME"] = str(home)


HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home", envvar="PAPERSIFT_HOME", help="Data directory (default ~/.local/share/papersift)."
    ),
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="text or json")]


def _settings(home: Path | None) -> Settings:
    from pydantic import ValidationError

    from papersift.settings import Settings, settings_problem

    try:
        return Settings(home=home) if home else Settings()
    except ValidationError as e:  # refused at start, before anything connects anywhere
        _fail(f"settings: {settings_problem(e)}", 2)


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


def _bar() -> Progress:
    """A progress bar with counts and time left, on a terminal only."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not sys.stderr.isatty(),
    )


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
    typer.echo(f"sync: asking {settings.rss_url} for {' '.join(categories)}", err=True)
    try:
        with ArxivClient(settings, on_retry=lambda line: typer.echo(f"waiting: {line}", err=True)) as client:
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


def _hit_json(paper: Paper, rank: int, score: float, **extra: object) -> dict[str, object]:
    from papersift.listing import paper_json

    return paper_json(paper, score=round(score, 4), rank=rank, **extra)


@app.command()
def search(
    query: Annotated[
        str | None, typer.Argument(help='Words, "phrases", prefix*, -exclude, a OR b; or an arXiv id.')
    ] = None,
    mode: Annotated[str, typer.Option("--mode", "-m", help="hybrid, keyword or semantic.")] = "hybrid",
    queries_from: Annotated[
        Path | None, typer.Option("--queries-from", help="One query a line; one JSON line per query.")
    ] = None,
    k: Annotated[int, typer.Option("-k", min=1, max=1000, help="Number of results.")] = 10,
    category: Annotated[str | None, typer.Option("--category", "-c")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Announced on or after.")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Announced on or before.")] = None,
    author: Annotated[str | None, typer.Option("--author", "-a")] = None,
    page: Annotated[int, typer.Option("--page", min=1)] = 1,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Search: hybrid (BM25 + vectors + tf-idf, the default), keyword (BM25) or semantic, with filters."""
    from papersift.index.pipeline import Indexes
    from papersift.listing import json_line
    from papersift.paper import format_authors
    from papersift.ranking.search import MODES
    from papersift.ranking.search import search as run
    from papersift.store import Filters, StoreError

    _check_format(fmt)
    if mode not in MODES:
        _fail(f"--mode must be one of {', '.join(MODES)}, not {mode!r}", 2)
    if (query is None) == (queries_from is None):
        _fail("give a QUERY or --queries-from FILE (one of them)", 2)
    queries = [query] if query is not None else _lines_of(queries_from)
    settings = _settings(home)
    store = _store(settings)
    filters = Filters(category, _day(since, "--since"), _day(until, "--until"), author)
    # keyword search needs no index: skip opening (and syncing) them
    indexes = _indexes(store, settings) if mode != "keyword" else Indexes(store, settings, None, None)
    try:
        for text in queries:
            result = run(indexes, text, mode=mode, k=k, offset=(page - 1) * k, filters=filters)
            for note in dict.fromkeys(result.notes):
                typer.echo(f"note: {note}", err=True)
            first = (page - 1) * k + 1
            if queries_from is not None:
                results = [
                    _hit_json(h.paper, rank, h.score, terms=h.terms)
                    for rank, h in enumerate(result.hits, first)
                ]
                typer.echo(json_line({"query": text, "mode": result.mode, "results": results}))
            elif fmt == "json":
                for rank, h in enumerate(result.hits, first):
                    typer.echo(json_line(_hit_json(h.paper, rank, h.score, terms=h.terms)))
            elif not result.hits:
                typer.echo("no results", err=True)
            for rank, h in enumerate(result.hits if fmt == "text" and queries_from is None else [], first):
                p = h.paper
                typer.echo(f"{rank:>3}. [{p.id}] {p.title}")
                typer.echo(
                    f"     {format_authors(p.authors)} · {' '.join(p.categories)} · "
                    f"{p.announced or p.published or ''} · score {h.score:.2f}"
                    + (f" · {', '.join(h.terms)}" if h.terms else "")
                )
    except StoreError as e:
        _fail(str(e))
    finally:
        store.close()


def _lines_of(path: Path | None) -> list[str]:
    assert path is not None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        _fail(f"cannot read {path}: {e.strerror}")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def _indexes(store: Store, settings: Settings) -> Indexes:
    from papersift.index.pipeline import open_indexes
    from papersift.store import StoreError

    try:
        indexes = open_indexes(store, settings)
    except StoreError as e:
        _fail(str(e))
    if indexes.dense is None:
        typer.echo("note: no vectors yet: run `papersift embed` (keyword evidence only until then)", err=True)
    return indexes


@app.command()
def embed(
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Embed at most this many.")] = None,
    reset: Annotated[bool, typer.Option("--reset", help="Drop every vector and re-embed.")] = False,
    cache: Annotated[bool, typer.Option(help="Reuse vectors of texts embedded before.")] = True,
    engine: Annotated[str, typer.Option("--engine", help="local (this process) or dask.")] = "local",
    scheduler: Annotated[
        str | None, typer.Option("--scheduler", help="Dask scheduler, e.g. tcp://HOST:8786 (else local).")
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, help="Local Dask cluster processes (default: cores).")
    ] = None,
    tls_ca: Annotated[
        Path | None, typer.Option("--tls-ca", help="CA certificate of a tls:// Dask cluster (PEM).")
    ] = None,
    tls_cert: Annotated[
        Path | None, typer.Option("--tls-cert", help="This client's certificate for the cluster (PEM).")
    ] = None,
    tls_key: Annotated[
        Path | None, typer.Option("--tls-key", help="This client's private key (PEM).")
    ] = None,
    home: HomeOpt = None,
) -> None:
    """Embed the papers that have no vector yet (newest first, resumable) and update the indexes.

    Each update is a new index generation in ``PAPERSIFT_HOME/index`` that running servers switch to; one
    build runs at a time (a second ``embed`` waits for the first). Across machines use a tls:// scheduler
    with --tls-ca/--tls-cert/--tls-key: Dask ships pickled code, so plain tcp:// is for trusted networks only.
    """
    if engine not in ("local", "dask"):
        _fail(f"--engine must be local or dask, not {engine!r}", 2)
    if engine == "local" and (scheduler or workers):
        _fail("--scheduler and --workers need --engine dask", 2)
    if scheduler and workers:
        _fail("--workers sizes a local cluster; with --scheduler the cluster's own workers run", 2)
    tls = _tls_files(scheduler, tls_ca, tls_cert, tls_key)
    settings = _settings(home)
    with _build_lock(settings):
        _embed(settings, limit, reset, cache, engine, scheduler, workers, tls)


PUBLISH_EVERY = 120.0  # seconds of embedding between two index generations (servers pick each one up)


@contextlib.contextmanager
def _build_lock(settings: Settings) -> Iterator[None]:
    """The index build lock; when another process holds it, say so and wait for it."""
    from papersift.index.generations import BuildRunningError, build_lock

    try:
        with build_lock(settings.index_dir, wait=False):
            yield
        return
    except BuildRunningError as e:
        typer.echo(f"{e}; waiting for it to finish (Ctrl-C to stop)", err=True)
    with build_lock(settings.index_dir, wait=True):
        yield


def _embed(
    settings: Settings,
    limit: int | None,
    reset: bool,
    cache: bool,
    engine: str,
    scheduler: str | None,
    workers: int | None,
    tls: TlsFiles | None,
) -> None:
    import sqlite3
    import time

    from papersift.index.encoder import model_id
    from papersift.index.engines import DaskEngine, Engine, EngineError
    from papersift.index.pipeline import embed_missing, refresh, sentence_source
    from papersift.store import StoreError
    from papersift.store.cache import VectorCache

    store = _store(settings)
    if reset:
        store.reset_vectors(model_id(settings))
    todo = store.count() - store.vector_count()
    todo = min(todo, limit) if limit else todo
    vector_cache = VectorCache(settings.cache_path) if cache else None
    runner: Engine | None = None
    started = time.perf_counter()
    try:
        if engine == "dask" and todo:
            runner = DaskEngine(settings, scheduler=scheduler, workers=workers, tls=tls)
        with _bar() as bar:
            task = bar.add_task("indexing terms", total=store.count())
            refresh(store, settings, progress=lambda n: bar.advance(task, n))
            bar.update(task, completed=store.count())
            task = bar.add_task(f"embedding ({model_id(settings)})", total=todo)
            logged = [0]

            published = [time.monotonic()]

            def advance(n: int) -> None:
                bar.advance(task, n)
                logged[0] += n
                if bar.disable and logged[0] % 5120 < n:  # a log file gets a line every ~5k papers
                    typer.echo(f"embedded {logged[0]:,} of {todo:,}", err=True)
                if time.monotonic() - published[0] > PUBLISH_EVERY:  # a long run serves what it has
                    refresh(store, settings)
                    published[0] = time.monotonic()

            done = embed_missing(
                store, settings, limit=limit, cache=vector_cache, progress=advance, engine=runner
            )
            source = sentence_source(settings, vector_cache)
            task = bar.add_task("embedding sentences (cached ones are reused)", total=None)
            source.progress = lambda n: bar.advance(task, n)
            papers, vectors = refresh(store, settings, sentences=source)
    except (StoreError, EngineError) as e:
        _fail(str(e))
    except sqlite3.OperationalError as e:  # e.g. "database is locked" past the busy timeout
        _fail(f"the store: {e}; the previous index generation keeps serving, run `papersift embed` again")
    finally:
        if runner:
            runner.close()
        if vector_cache:
            vector_cache.close()
        store.close()
    seconds = time.perf_counter() - started
    rate = f" ({done / seconds:.1f}/s)" if done and seconds > 0 else ""
    typer.echo(f"embed: {done} papers embedded{rate}; index: {papers} papers, {vectors} vectors")


def _tls_files(
    scheduler: str | None, ca: Path | None, cert: Path | None, key: Path | None
) -> TlsFiles | None:
    """The TLS files for a tls:// scheduler: all three or none, and only with a tls:// scheduler."""
    from papersift.index.engines import TlsFiles

    given = [p for p in (ca, cert, key) if p is not None]
    tls_scheduler = bool(scheduler and scheduler.startswith("tls://"))
    if not given and not tls_scheduler:
        return None
    if not tls_scheduler:
        _fail("--tls-ca/--tls-cert/--tls-key need --scheduler tls://HOST:PORT", 2)
    if ca is None or cert is None or key is None:
        _fail("a tls:// scheduler needs all of --tls-ca, --tls-cert and --tls-key", 2)
    for path in (ca, cert, key):
        if not path.is_file():
            _fail(f"TLS file not found: {path}", 2)
    return TlsFiles(ca, cert, key)


@app.command()
def related(
    ids: Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="arXiv ids or URLs.")] = None,
    text: Annotated[str | None, typer.Option("--text", help="Any text, e.g. a pasted abstract.")] = None,
    ids_from: Annotated[Path | None, typer.Option("--ids-from", help="One id a line.")] = None,
    k: Annotated[int, typer.Option("-k", min=1, max=1000, help="Results per query.")] = 10,
    category: Annotated[str | None, typer.Option("--category", "-c")] = None,
    since: Annotated[str | None, typer.Option("--since", help="Announced on or after.")] = None,
    facet: Annotated[
        str | None,
        typer.Option("--facet", help="Related in one part only: background, method or result sentences."),
    ] = None,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Related papers (相关论文) of papers or of any text, each with why it matches."""
    from papersift.index.sentences import FACETS
    from papersift.listing import json_line
    from papersift.paper import InvalidIdError, format_authors, normalize_id
    from papersift.ranking.related import Query, paper_query, text_query
    from papersift.ranking.related import related as run
    from papersift.store import StoreError

    _check_format(fmt)
    if facet is not None and facet not in FACETS:
        _fail(f"--facet must be one of {', '.join(FACETS)}, not {facet!r}", 2)
    wanted = list(ids or []) + (_lines_of(ids_from) if ids_from else [])
    if (text is not None) == bool(wanted):
        _fail("give paper IDs, --ids-from FILE, or --text TEXT (ids or text, not both)", 2)
    if text is not None and not text.strip():
        _fail("--text is empty", 2)
    settings = _settings(home)
    store = _store(settings)
    when = _day(since, "--since")
    indexes = _indexes(store, settings)
    batch = ids_from is not None or len(wanted) > 1
    failed = False
    try:
        queries: list[Query | str] = []
        if text is not None:
            queries.append(text_query(indexes, text, facet=facet))
        for raw in wanted:
            try:
                pid = normalize_id(raw)
            except InvalidIdError as e:
                queries.append(str(e))
                continue
            paper = store.get(pid)
            queries.append(
                paper_query(indexes, paper, facet=facet) if paper else f"{pid} is not in the store"
            )
        for raw, query in zip(wanted or [text or ""], queries, strict=True):
            if isinstance(query, str):
                failed = True
                typer.echo(f"error: {query}", err=True)
                if fmt == "json" or batch:
                    typer.echo(json_line({"query": raw, "error": query, "results": []}))
                continue
            for note in query.notes:
                typer.echo(f"note: {note}", err=True)
            hits = run(indexes, query, k=k, category=category, since=when)
            if fmt == "json" or batch:
                results = [
                    _hit_json(h.paper, rank, h.score, why=h.reasons(), terms=h.terms)
                    for rank, h in enumerate(hits, 1)
                ]
                typer.echo(json_line({"query": query.label, "results": results}))
                continue
            head = f"[{query.paper.id}] {query.paper.title}" if query.paper else f'"{query.label}"'
            typer.echo(f"Related to {head}")
            for rank, h in enumerate(hits, 1):
                p = h.paper
                typer.echo(f"{rank:>3}. [{p.id}] {p.title}")
                typer.echo(
                    f"     {format_authors(p.authors)} · {' '.join(p.categories)} · "
                    f"{p.announced or p.published or ''} · score {h.score:.3f}"
                )
                snippet = " ".join(p.abstract.split())
                typer.echo(f"     {snippet[:160]}{'…' if len(snippet) > 160 else ''}")
                if h.reasons():
                    typer.echo(f"     why: {'; '.join(h.reasons())}")
            if not hits:
                typer.echo("no related papers found", err=True)
    except StoreError as e:
        _fail(str(e))
    finally:
        store.close()
    if failed:
        raise typer.Exit(1)


def _eval_indexes(settings: Settings, corpus: Path, workdir: Path) -> Indexes:
    """A fresh store of ``corpus`` in ``workdir``, embedded (via the install's vector cache), indexed."""
    from papersift.index.pipeline import embed_missing, open_indexes, refresh, sentence_source
    from papersift.ingest import ingest_paths
    from papersift.store import open_store
    from papersift.store.cache import VectorCache

    if not corpus.exists():
        _fail(f"corpus not found: {corpus}")
    local = settings.model_copy(update={"home": workdir})
    store = open_store(local)
    counts = ingest_paths(store, [corpus], chunk=settings.ingest_chunk)
    typer.echo(f"corpus: {counts.new} papers from {corpus}", err=True)
    cache = VectorCache(settings.cache_path)
    with _bar() as bar:
        task = bar.add_task("embedding (cached vectors are reused)", total=store.count())
        embed_missing(store, local, cache=cache, progress=lambda n: bar.advance(task, n))
        source = sentence_source(settings, cache)
        task = bar.add_task("embedding sentences (cached ones are reused)", total=None)
        source.progress = lambda n: bar.advance(task, n)
        refresh(store, local, sentences=source)
    cache.close()
    return open_indexes(store, local)


def _print_scores(
    scores: list[Score],
    fmt: str,
    reference: str | tuple[str, ...],
    line: Callable[[Score], dict[str, object]] | None = None,
    unit: str = "queries",
) -> None:
    """One JSON line per method (``line``, else ``Score.json``), or a table with each method's nDCG@10
    against ``reference`` (the best of them, when several are named)."""
    from papersift.listing import json_line

    if fmt == "json":
        for score in scores:
            typer.echo(json_line(line(score) if line else score.json()))
        return
    names = (reference,) if isinstance(reference, str) else reference
    base = max((s for s in scores if s.method in names), key=lambda s: s.ndcg, default=None)
    vs = base.method if base else " / ".join(names)
    typer.echo(f"{'method':<22} {'nDCG@10':>8} {'Recall@10':>10} {'MRR':>7} {unit:>8}  vs {vs}")
    for s in scores:
        ratio = f"{s.ndcg / base.ndcg:.2f}x" if base and base.ndcg else "-"
        typer.echo(f"{s.method:<22} {s.ndcg:>8.4f} {s.recall:>10.4f} {s.mrr:>7.4f} {s.queries:>8}  {ratio}")


CorpusOpt = Annotated[Path, typer.Option("--corpus", help="Papers (JSON lines) to build the store from.")]
SplitOpt = Annotated[
    str, typer.Option("--split", help="all, tune or heldout: which half of the queries (by query paper id).")
]


def _check_split(split: str) -> None:
    from papersift.ranking.evaluate import SPLITS

    if split not in SPLITS:
        _fail(f"--split must be one of {', '.join(SPLITS)}, not {split!r}", 2)


def _evaluate(
    data: Path,
    corpus: Path,
    fmt: str,
    home: Path | None,
    run: Callable[[Indexes, Path], list[Score]],
    reference: str | tuple[str, ...],
    line: Callable[[Score], dict[str, object]] | None = None,
    unit: str = "queries",
) -> None:
    """Check the inputs, build the fresh store in a temporary home, run, print against ``reference``."""
    import tempfile

    _check_format(fmt)
    for path in (data, corpus):
        if not path.exists():
            _fail(f"file not found: {path}")
    settings = _settings(home)
    with tempfile.TemporaryDirectory(prefix="papersift-eval-") as tmp:
        indexes = _eval_indexes(settings, corpus, Path(tmp))
        scores = run(indexes, data)
        indexes.store.close()
    _print_scores(scores, fmt, reference, line, unit)


@eval_app.command("related")
def eval_related(
    relevance: Annotated[Path, typer.Option("--relevance", help="{query_id, candidate_id, label} lines.")],
    corpus: CorpusOpt = Path("../shared/data/arxiv-20k.jsonl.gz"),
    split: SplitOpt = "all",
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Related papers vs tf-idf (arxiv-sanity-lite), BM25, dense cosine and RRF: nDCG@10, Recall@10, MRR."""
    from papersift.ranking.evaluate import evaluate_related, read_relevance

    _check_split(split)
    _evaluate(
        relevance,
        corpus,
        fmt,
        home,
        lambda ix, path: evaluate_related(ix, read_relevance(path), split=split),
        "tfidf-arxiv-sanity",
    )


@eval_app.command("recommend")
def eval_recommend(
    relevance: Annotated[Path, typer.Option("--relevance", help="{query_id, candidate_id, label} lines.")],
    corpus: CorpusOpt = Path("../shared/data/arxiv-20k.jsonl.gz"),
    seed: Annotated[int, typer.Option("--seed", help="Draws each reader's library and random papers.")] = 0,
    split: Annotated[
        str, typer.Option("--split", help="all, tune or heldout: which half of the readers (by query id).")
    ] = "all",
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Daily Papers ranking vs arxiv-sanity-lite's SVM and zotero-arxiv-daily on simulated readers."""
    from papersift.ranking.evaluate import (
        RECOMMEND_BASELINES,
        SPLITS,
        evaluate_recommend,
        read_relevance,
        reader_line,
    )

    if split not in SPLITS:
        _fail(f"--split must be one of {', '.join(SPLITS)}, not {split!r}", 2)
    if not relevance.exists():
        _fail(f"file not found: {relevance}")
    try:  # read before the store is built, so a bad file fails at once
        gold = read_relevance(relevance)
    except (OSError, EOFError, ValueError, KeyError, TypeError) as e:
        _fail(f"{relevance}: not {{query_id, candidate_id, label}} JSON lines ({e})")
    _evaluate(
        relevance,
        corpus,
        fmt,
        home,
        lambda ix, _: evaluate_recommend(ix, gold, seed=seed, split=split),
        RECOMMEND_BASELINES,
        reader_line,
        "readers",
    )


@eval_app.command("search")
def eval_search(
    contexts: Annotated[Path, typer.Option("--contexts", help="{citing_id, cited_id, context} lines.")],
    corpus: CorpusOpt = Path("../shared/data/arxiv-20k.jsonl.gz"),
    split: SplitOpt = "all",
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Search by citation sentence vs BM25, dense cosine and RRF: nDCG@10, Recall@10, MRR."""
    from papersift.ranking.evaluate import evaluate_search, read_contexts

    _check_split(split)
    _evaluate(
        contexts,
        corpus,
        fmt,
        home,
        lambda ix, path: evaluate_search(ix, read_contexts(path), split=split),
        "bm25",
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
    embed: Annotated[bool, typer.Option(help="Start `papersift embed` in the background.")] = True,
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
    papers = store.count()
    store.close()
    shown = category or settings.default_categories[0]
    typer.echo(
        f"demo: {papers:,} papers in {settings.home}; the latest {shown} listing: `papersift list {shown}`"
    )
    from papersift.index.generations import build_running

    if embed and build_running(settings.index_dir):
        typer.echo("\nan index build (`papersift embed`) is already running: not starting another")
    elif embed:
        log = settings.home / "embed.log"
        with log.open("ab") as out:
            subprocess.Popen(
                [sys.executable, "-m", "papersift.cli", "embed", "--home", str(settings.home)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        typer.echo(
            f"\nembedding the {papers:,} papers in the background, newest first (log: {log}); "
            "`papersift related ID` and `papersift search --mode hybrid` use them as they arrive"
        )


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.", min=1, max=65535)] = 8000,
    workers: Annotated[int, typer.Option(help="Server processes (each maps the same indexes).", min=1)] = 1,
    home: HomeOpt = None,
    public_read_only: Annotated[
        bool,
        typer.Option(
            "--public-read-only", help="Serve listings and search to the network: no library, no writes."
        ),
    ] = False,
) -> None:
    """The web UI and its JSON API (OpenAPI at /openapi.json)."""
    import os
    from urllib.parse import urlsplit

    import uvicorn

    from papersift.settings import is_loopback

    settings = _settings(home)
    public = not is_loopback(host)
    if public and not settings.accounts and not public_read_only and not settings.read_only:
        _fail(
            f"refusing to serve on {host}: without accounts anyone who can reach it could read and change "
            "the library. Set PAPERSIFT_ACCOUNTS=true (and add readers with `papersift reader add`), "
            "pass --public-read-only (listings and search only), or serve on 127.0.0.1.",
            2,
        )
    if public_read_only:
        os.environ["PAPERSIFT_READ_ONLY"] = "true"
    if public and host not in ("0.0.0.0", "::"):  # the address itself is a name clients may use
        os.environ["PAPERSIFT_ALLOWED_HOSTS"] = ",".join((*settings.allowed_hosts, host))
    elif public and not settings.allowed_hosts and is_loopback(urlsplit(settings.base_url).hostname or ""):
        typer.echo(
            "papersift: only loopback names are answered; set PAPERSIFT_BASE_URL (or "
            "PAPERSIFT_ALLOWED_HOSTS) to the name clients use",
            err=True,
        )
    _check_port(host, port)  # a busy port fails here, before anything says the server is up
    os.environ["PAPERSIFT_HOME"] = str(settings.home)  # what each worker's app_from_env reads
    if not settings.threads:  # workers share the cores: a query's embedding needs no more than its share
        os.environ["PAPERSIFT_THREADS"] = str(max(1, (os.cpu_count() or 1) // workers))
    # each worker loads the indexes and the query model before it accepts a connection, then says so
    os.environ["PAPERSIFT_SERVE_URL"] = f"http://{host}:{port}/"
    typer.echo("papersift: loading the indexes and the query model…", err=True)
    uvicorn.run(
        "papersift.web.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
    )


def _check_port(host: str, port: int) -> None:
    """Fail with a clear message when ``host:port`` cannot be listened on (in use, or not an address here)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        _fail(f"cannot listen on {host}:{port}: {e.strerror}")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as e:
            _fail(f"cannot listen on {host}:{port}: {e.strerror} (is another server using it? try --port)")


@app.command()
def migrate(
    source: Annotated[str, typer.Option("--from", help="The SQLite store: sqlite:///PATH (or a path).")],
    target: Annotated[str, typer.Option("--to", help="The PostgreSQL database: postgresql://user@host/db.")],
    force: Annotated[bool, typer.Option("--force", help="Replace what the target already holds.")] = False,
) -> None:
    """Copy a SQLite install into PostgreSQL, then check each table's rows and checksum on both sides."""
    from papersift.store import StoreError, is_postgres_url, sqlite_path
    from papersift.store.sqlite import SqliteStore

    try:
        from papersift.store.migrate import copy_store, source_counts, verify
        from papersift.store.postgres import PostgresStore
    except ImportError as e:
        _fail(f"migrate needs the [postgres] extra: pip install 'papersift[postgres]' ({e})")

    if not is_postgres_url(target):
        _fail(f"--to must be a postgresql:// URL, not {target!r}", 2)
    try:
        path = sqlite_path(source)
    except StoreError as e:
        _fail(str(e), 2)
    if not path.is_file():
        _fail(f"--from: no SQLite store at {path}")
    try:
        src, dst = SqliteStore(path), PostgresStore(target)
    except StoreError as e:
        _fail(str(e))
    try:
        with _bar() as bar:
            task = bar.add_task("copying", total=sum(source_counts(src).values()))
            copy_store(
                src, dst, force=force, progress=lambda t, n: bar.update(task, advance=n, description=t)
            )
        checks = verify(src, dst)
    except StoreError as e:
        _fail(str(e))
    finally:
        src.close()
        dst.close()
    typer.echo(f"{'table':<16}{'source rows':>12}{'target rows':>12}  {'source sum':<18}{'target sum':<18}")
    for c in checks:
        typer.echo(
            f"{c.table:<16}{c.source_rows:>12}{c.target_rows:>12}  {c.source_sum:<18}{c.target_sum:<18}"
            + ("ok" if c.ok else "DIFFERS")
        )
    if not all(c.ok for c in checks):
        _fail("the target differs from the source")
    typer.echo(f"migrated {path} -> PostgreSQL: every table matches")


# the reader's commands (library, follow, recommend, digest, daily) and `topics` live in their own modules
from papersift import cli_library, cli_topics  # noqa: E402, F401


def main() -> None:
    app()


if __name__ == "__main__":  # `python -m papersift.cli`: run the importable module, where every command is
    from papersift.cli import main as _main

    _main()
