"""``papersift serve`` (the web UI and its API, in one or more uvicorn workers) and ``papersift demo`` (a
first run: recent real papers into the store, embedded in the background).

The workers get their settings as an argument, never through ``os.environ``: each is started (uvicorn's
spawn) with a pickled ``uvicorn.Config`` whose app is ``functools.partial(worker_app, settings, announce)``.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import HomeOpt, known_category_option, load_settings, opened, refuse, report
from papersift.cli.language import Speech

if TYPE_CHECKING:
    from fastapi import FastAPI

    from papersift.settings import Settings
    from papersift.store import IngestCounts, Store


def demo(
    shared: Annotated[
        Path, typer.Option(help="Offline data folder used when arXiv cannot be reached.")
    ] = Path("../shared/data"),
    days: Annotated[int, typer.Option(help="Announcement days to load (each category's latest).")] = 7,
    category: Annotated[
        str | None,
        typer.Option(
            help="Category whose listing is printed (default: the busiest one; any case).",
            callback=known_category_option,
        ),
    ] = None,
    offline: Annotated[bool, typer.Option(help="Do not try arXiv at all.")] = False,
    embed: Annotated[bool, typer.Option(help="Start `papersift embed` in the background.")] = True,
    background: Annotated[
        bool,
        typer.Option(
            help="Load the latest day now (online: today's announcements; offline: the snapshot's "
            "latest day) and the other days in the background (online: from arXiv's API)."
        ),
    ] = True,
    part: Annotated[
        str, typer.Option(hidden=True, help="all, first or rest of the snapshot's days.")
    ] = "all",
    home: HomeOpt = None,
) -> None:
    """Fill the store with recent real papers (arXiv, else the shared data) and print a listing."""
    from papersift.services.demo import LOADING, PARTS, load_recent_snapshot, sync_recent

    if part not in PARTS:
        refuse("cli_one_of", 2, option="--part", allowed=", ".join(PARTS), value=repr(part))
    settings = load_settings(home)
    say = Speech(settings.lang)
    snapshot = shared / "arxiv-300k.jsonl.gz"
    if part == "rest":  # the background half of a demo: the other days, then their vectors
        marker = settings.home / LOADING  # the pages say the other days are coming while it is there
        settings.home.mkdir(parents=True, exist_ok=True)
        marker.touch()
        try:
            with opened(settings) as o:
                if offline:
                    loaded, _ = load_recent_snapshot(o.store, snapshot, days, "rest")
                else:
                    loaded = _earlier_days(settings, o.store, days, say)
                report(loaded, say.line("cli_demo_other_days"), say)
                typer.echo(say.line("cli_demo_loaded", n=f"{o.store.count():,}", home=settings.home))
        finally:
            marker.unlink(missing_ok=True)
        if embed:
            subprocess.run([sys.executable, "-m", "papersift.cli", "embed", "--home", str(settings.home)])
        return
    later = False
    online = False
    whole: list[str] = []
    with opened(settings) as o:
        counts = None
        if not offline:
            counts = sync_recent(settings, o.store, list(settings.default_categories))
            online = counts is not None
            later = online and background and part == "all" and days > 1
            if counts is not None and not later and days > 1:  # --no-background: the earlier days now
                counts.add(_earlier_days(settings, o.store, days, say))
        if counts is None:
            if not snapshot.exists():
                refuse("cli_demo_offline", say=say, snapshot=snapshot)
            later = background and part == "all" and days > 1
            line = "cli_demo_from_snapshot_later" if later else "cli_demo_from_snapshot"
            typer.echo(say.line(line, days=days, snapshot=snapshot))
            counts, busiest = load_recent_snapshot(o.store, snapshot, days, "first" if later else part)
            category = category or busiest
            whole = _whole_days(o.store, shared, days, counts, say)
        report(counts, "demo", say)
        papers = o.store.count()
    shown = category or settings.default_categories[0]
    typer.echo(say.line("cli_demo_papers", n=f"{papers:,}", home=settings.home, category=shown))
    for line in whole:
        typer.echo(line)
    if later:
        log = settings.home / "demo.log"
        rest = ["demo", "--part", "rest", "--days", str(days), "--shared", str(shared)]
        (settings.home / LOADING).touch()  # before it starts: a page served at once already says so
        _detached(
            [*rest, *([] if online else ["--offline"]), *([] if embed else ["--no-embed"])], settings, log
        )
        typer.echo(
            "\n"
            + say.line("cli_demo_later_api" if online else "cli_demo_later_snapshot", n=days - 1, log=log)
        )
        return
    from papersift.index.generations import build_running

    if embed and build_running(settings.index_dir):
        typer.echo("\n" + say.line("cli_build_running"))
    elif embed:
        log = settings.home / "embed.log"
        _detached(["embed"], settings, log)
        typer.echo("\n" + say.line("cli_demo_embedding", n=f"{papers:,}", log=log))


def _whole_days(store: Store, shared: Path, days: int, counts: IngestCounts, say: Speech) -> list[str]:
    """The whole days of ``shared/listings-extra`` (each category's latest ``days``) into the store, added
    to ``counts``; a line naming each category's latest whole day."""
    from papersift.services.demo import EXTRA, load_day_listings

    try:
        loaded, listings = load_day_listings(store, shared / EXTRA, days)
    except (OSError, EOFError, ValueError) as exc:
        return [say.line("cli_not_loaded", path=shared / EXTRA, problem=exc)]
    counts.add(loaded)
    latest = {x.category: x for x in reversed(listings)}  # latest first: the last one kept is the latest
    return [say.line("cli_whole_day", category=c, day=x.day, n=len(x.ids)) for c, x in sorted(latest.items())]


def _earlier_days(settings: Settings, store: Store, days: int, say: Speech) -> IngestCounts:
    """The default categories' earlier days from arXiv's API; none, said in one line, when it fails."""
    from papersift.services.demo import earlier_days
    from papersift.services.harvest import HarvestError
    from papersift.store import IngestCounts

    try:
        return earlier_days(settings, store, list(settings.default_categories), days)
    except HarvestError as exc:
        typer.echo(say.line("cli_only_today", problem=exc))
        return IngestCounts()


def _detached(args: list[str], settings: Settings, log: Path) -> None:
    """``papersift ARGS --home HOME`` in a new session of its own, its output appended to ``log``."""
    with log.open("ab") as out:
        subprocess.Popen(
            [sys.executable, "-m", "papersift.cli", *args, "--home", str(settings.home)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


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

    from papersift.settings import is_loopback

    settings = load_settings(home)
    say = Speech(settings.lang)
    public = not is_loopback(host)
    if public and not settings.accounts and not public_read_only and not settings.read_only:
        refuse("cli_refusing_to_serve", 2, say=say, host=host)
    served: dict[str, object] = {}
    if public_read_only:
        served["read_only"] = True
    if public and host not in ("0.0.0.0", "::"):  # the address itself is a name clients may use
        served["allowed_hosts"] = (*settings.allowed_hosts, host)
    elif public and not settings.allowed_hosts and is_loopback(urlsplit(settings.base_url).hostname or ""):
        typer.echo(say.line("cli_loopback_only"), err=True)
    _check_port(host, port, say)  # a busy port fails here, before anything says the server is up
    if not settings.threads:  # workers share the cores: a query's embedding needs no more than its share
        served["threads"] = max(1, (os.cpu_count() or 1) // workers)
    typer.echo(say.line("cli_loading_indexes"), err=True)
    # each worker loads the indexes and the query model before it accepts a connection, then says so
    _run_workers(settings.model_copy(update=served), host, port, workers)


def worker_app(settings: Settings, announce: str) -> FastAPI:
    """One server worker's app (``web.app.server_app``: the garbage collector tuned for a server)."""
    from papersift.web.app import server_app

    return server_app(settings, announce)


def _run_workers(settings: Settings, host: str, port: int, workers: int) -> None:
    """uvicorn's ``run`` for an app factory given its arguments: with several workers, each spawned process
    unpickles the config, hence the settings, and calls the factory (``uvicorn.run`` accepts only an import
    string there, which could reach the settings only through the environment)."""
    from functools import partial

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    factory = partial(worker_app, settings, f"http://{host}:{port}/")
    if workers == 1:
        uvicorn.run(factory, factory=True, host=host, port=port, log_level="warning")
        return
    config = uvicorn.Config(factory, factory=True, host=host, port=port, workers=workers, log_level="warning")
    with contextlib.suppress(KeyboardInterrupt):  # as in uvicorn.run: Ctrl-C stops the workers quietly
        Multiprocess(config, sockets=[config.bind_socket()]).run()


def _check_port(host: str, port: int, say: Speech) -> None:
    """Fail with a clear message when ``host:port`` cannot be listened on (in use, or not an address here)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        refuse("cli_cannot_listen", say=say, host=host, port=port, problem=e.strerror)
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as e:
            refuse("cli_cannot_listen_busy", say=say, host=host, port=port, problem=e.strerror)
