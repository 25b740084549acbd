"""What runs inside a Dask worker for ``DaskEngine``: the model, loaded once per worker, and the task.

Kept apart from ``engines`` so that importing the pipeline never imports ``distributed`` (0.6 s); only
``DaskEngine`` imports this module. Workers never touch the store: a task gets a chunk's texts and returns
their float32 vectors.
"""

from __future__ import annotations

import threading

import numpy as np
from distributed import Worker, get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from papersift.index.encoder import Encoder, load_encoder, model_id
from papersift.settings import Settings


def plugin_name(settings: Settings) -> str:
    """One plugin (one loaded model) per model and batch size: drivers with other settings never share it."""
    return f"papersift-encoder:{model_id(settings)}:batch{settings.embed_batch}"


class EncoderPlugin(WorkerPlugin):
    """Loads the model when a worker starts (and again in a worker the nanny restarts), with torch using as
    many threads as the worker has; chunks are then encoded one at a time, each with all those threads."""

    idempotent = True  # registered again under the same name (by a later driver): kept, not reloaded

    def __init__(self, settings: Settings) -> None:
        self.name = plugin_name(settings)
        # only what the model needs travels to the workers (never the rest of the settings: SMTP password…)
        self.model, self.quantize, self.batch = settings.model, settings.quantize, settings.embed_batch
        self.encoder: Encoder | None = None
        self.lock: threading.Lock | None = None

    def setup(self, worker: Worker) -> None:
        self.lock = threading.Lock()
        threads = worker.state.nthreads
        wanted = Settings(model=self.model, quantize=self.quantize, embed_batch=self.batch, threads=threads)
        self.encoder = load_encoder(wanted)

    def encode(self, texts: list[str]) -> np.ndarray:
        if self.encoder is None or self.lock is None:
            raise RuntimeError("papersift's encoder plugin was not set up on this worker")
        with self.lock:
            return self.encoder.encode(texts)


def encode_chunk(plugin: str, texts: list[str]) -> np.ndarray:
    """The task: one chunk's texts → unit vectors (float32), with this worker's model."""
    found = get_worker().plugins.get(plugin)
    if not isinstance(found, EncoderPlugin):
        raise RuntimeError(f"worker {get_worker().address} has no plugin {plugin!r}")
    return found.encode(texts)
