"""``papersift embed``: embed the papers without a vector and publish a new index generation, here or on a
Dask cluster (TLS files checked before anything starts), one build at a time."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import HomeOpt, fail, load_settings, opened, progress_bar, refuse
from papersift.cli.language import Speech

if TYPE_CHECKING:
    from papersift.index.engines import TlsFiles
    from papersift.settings import Settings

PUBLISH_EVERY = 120.0  # seconds of embedding between two index generations (servers pick each one up)


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
        refuse("cli_engine_local_or_dask", 2, value=repr(engine))
    if engine == "local" and (scheduler or workers):
        refuse("cli_scheduler_needs_dask", 2)
    if scheduler and workers:
        refuse("cli_workers_or_scheduler", 2)
    tls = _tls_files(scheduler, tls_ca, tls_cert, tls_key)
    settings = load_settings(home)
    with _build_lock(settings):
        _embed(settings, limit, reset, cache, engine, scheduler, workers, tls)


@contextlib.contextmanager
def _build_lock(settings: Settings) -> Iterator[None]:
    """The index build lock; when another process holds it, say so and wait for it."""
    from papersift.index.generations import BuildRunningError, build_lock

    try:
        with build_lock(settings.index_dir, wait=False):
            yield
        return
    except BuildRunningError as e:
        typer.echo(Speech(settings.lang).line("cli_build_waiting", problem=e), err=True)
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
    import time

    from papersift.index.encoder import model_id
    from papersift.index.engines import DaskEngine, Engine, EngineError
    from papersift.index.pipeline import embed_missing, refresh
    from papersift.records.messages import reason
    from papersift.store import StoreBusy
    from papersift.store.cache import VectorCache

    say = Speech(settings.lang)
    with opened(settings) as o:
        store = o.store
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
            with progress_bar() as bar:
                task = bar.add_task(say.line("cli_bar_indexing_terms"), total=store.count())
                refresh(store, settings, progress=lambda n: bar.advance(task, n))
                bar.update(task, completed=store.count())
                task = bar.add_task(say.line("cli_bar_embedding_model", model=model_id(settings)), total=todo)
                logged = [0]

                published = [time.monotonic()]

                def advance(n: int) -> None:
                    bar.advance(task, n)
                    logged[0] += n
                    if bar.disable and logged[0] % 5120 < n:  # a log file gets a line every ~5k papers
                        typer.echo(
                            say.line("cli_embedded_of", n=f"{logged[0]:,}", todo=f"{todo:,}"), err=True
                        )
                    if time.monotonic() - published[0] > PUBLISH_EVERY:  # a long run serves what it has
                        refresh(store, settings)
                        published[0] = time.monotonic()

                done = embed_missing(
                    store, settings, limit=limit, cache=vector_cache, progress=advance, engine=runner
                )
                papers, vectors = refresh(store, settings)
        except EngineError as e:
            fail(reason(e), say=say)
        except StoreBusy as e:  # e.g. "database is locked" past the busy timeout
            refuse("cli_store_busy_embed", say=say, problem=reason(e))
        finally:
            if runner:
                runner.close()
            if vector_cache:
                vector_cache.close()
    seconds = time.perf_counter() - started
    index = {"papers": papers, "vectors": vectors}
    if done and seconds > 0:
        typer.echo(say.line("cli_embed_done_rate", n=done, rate=f"{done / seconds:.1f}", **index))
    else:
        typer.echo(say.line("cli_embed_done", n=done, **index))


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
        refuse("cli_tls_needs_scheduler", 2)
    if ca is None or cert is None or key is None:
        refuse("cli_tls_needs_all", 2)
    for path in (ca, cert, key):
        if not path.is_file():
            refuse("tls_file_not_found", 2, path=path)
    return TlsFiles(ca, cert, key)
