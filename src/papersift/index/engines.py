"""Where chunks of paper texts are turned into vectors: in this process, or over a Dask cluster.

An ``Engine`` pulls chunks of texts from an iterator, lazily, and gives back ``(position of the chunk, its
vectors)`` as each chunk finishes, in any order, never holding more than ``window`` chunks it has not given
back; memory stays flat however many papers wait. ``pipeline.embed_missing`` reads the chunks from the store
and writes each finished one in its own transaction: engines never see the store, so the driver is its only
writer and a killed run resumes from what it committed.

``LocalEngine`` encodes here, one chunk at a time. ``DaskEngine`` sends each chunk to a worker of a Dask
cluster: an existing one (``scheduler``), or a ``LocalCluster`` of worker processes on 127.0.0.1 that it
starts and closes. Every worker loads the model once (``dask_worker.EncoderPlugin``) and encodes a chunk
exactly as the local engine would (same texts, same sort and batches), so both give the same vectors. Dask
runs the chunks of a worker that dies again on another. A Ray engine would be one more class like these.

Across machines, Dask's plain TCP is for trusted networks only: it carries pickled code that the scheduler
and workers run. ``TlsFiles`` (``embed --tls-ca/--tls-cert/--tls-key``) connects to a ``tls://`` scheduler
with Dask's ``Security``: mutual TLS, every side's certificate checked against the CA, encryption required.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from papersift.index.encoder import Encoder, load_encoder
from papersift.records.messages import say

if TYPE_CHECKING:
    from papersift.settings import Settings

NOTHING = np.zeros((0, 0), dtype=np.float32)  # the vectors of an empty chunk (every text was in the cache)


class EngineError(RuntimeError):
    """The cluster cannot be reached or keeps losing the workers of a chunk; the message is for the user."""


@dataclass(frozen=True)
class TlsFiles:
    """This client's TLS identity for a ``tls://`` Dask scheduler: the CA that signed the cluster's
    certificates, and this client's certificate and key (PEM files)."""

    ca: Path
    cert: Path
    key: Path

    def security(self) -> Any:
        """Dask's ``Security`` for these files (encryption required: never a fall back to plain TCP)."""
        from distributed.security import Security

        for path in (self.ca, self.cert, self.key):
            if not path.is_file():
                raise EngineError(say("tls_file_not_found", path=str(path)))
        return Security(  # type: ignore[no-untyped-call]
            tls_ca_file=str(self.ca),
            tls_client_cert=str(self.cert),
            tls_client_key=str(self.key),
            require_encryption=True,
        )


class Engine(Protocol):
    """Turns chunks of texts into unit vectors, maybe several chunks at once."""

    window: int  # chunks taken from the iterator and not yet given back, at most

    def encode_chunks(self, chunks: Iterable[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
        """``(position in chunks, float32 vectors)`` for every chunk, in the order they finish."""
        ...

    def close(self) -> None: ...


@dataclass
class LocalEngine:
    """This process, one chunk at a time; the model is loaded when the first chunk needs it."""

    settings: Settings
    encoder: Encoder | None = None
    window: int = 1

    def encode_chunks(self, chunks: Iterable[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
        for position, texts in enumerate(chunks):
            if not texts:
                yield position, NOTHING
                continue
            self.encoder = self.encoder or load_encoder(self.settings)
            yield position, self.encoder.encode(texts)

    def close(self) -> None:
        pass


class DaskEngine:
    """Chunks as tasks on a Dask cluster, at most ``window`` in flight (default: two per worker)."""

    def __init__(
        self,
        settings: Settings,
        *,
        scheduler: str | None = None,
        workers: int | None = None,
        threads: int = 1,
        window: int | None = None,
        tls: TlsFiles | None = None,
    ) -> None:
        try:
            from distributed import Client, LocalCluster

            from papersift.index.dask_worker import EncoderPlugin, plugin_name
        except ImportError as e:
            raise EngineError(say("engine_dask_missing", problem=str(e))) from e

        self.client: Any = None  # distributed is untyped where it matters
        self.cluster: Any = None
        if scheduler and scheduler.startswith("tls://") != (tls is not None):
            raise EngineError(
                say("engine_tls_files") if tls is None else say("engine_tls_scheduler", scheduler=scheduler)
            )
        try:
            if scheduler:
                security = tls.security() if tls else None
                self.client = Client(scheduler, security=security)  # type: ignore[no-untyped-call]
            else:
                self.cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=threads,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",  # never 0.0.0.0
                )
                self.client = Client(self.cluster)  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError, ValueError) as e:  # ssl.SSLError is an OSError
            self.close()
            where = (
                say("engine_scheduler_at", scheduler=scheduler) if scheduler else say("engine_local_cluster")
            )
            raise EngineError(say("engine_unreachable", where=where, problem=str(e))) from e
        # every worker loads the model now, unless an earlier driver with these settings made it do so
        self.client.register_plugin(EncoderPlugin(settings))
        self.plugin = plugin_name(settings)
        self.window = window or max(2, 2 * len(self.client.nthreads()))

    def encode_chunks(self, chunks: Iterable[list[str]]) -> Iterator[tuple[int, np.ndarray]]:
        from distributed import as_completed
        from distributed.scheduler import KilledWorker

        from papersift.index.dask_worker import encode_chunk

        source = enumerate(chunks)
        positions: dict[object, int] = {}
        running: Any = as_completed()  # type: ignore[no-untyped-call]

        def submit_next() -> None:
            item = next(source, None)
            if item is not None:
                future = self.client.submit(encode_chunk, self.plugin, item[1], pure=False)
                positions[future.key] = item[0]
                running.add(future)

        for _ in range(self.window):
            submit_next()
        for future in running:
            try:
                vectors = future.result()
            except KilledWorker as e:
                raise EngineError(say("engine_workers_dying", problem=str(e))) from e
            yield positions.pop(future.key), vectors
            submit_next()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
