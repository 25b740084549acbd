"""What every encoder shares, whichever runtime runs it: the ``Encoder`` protocol, the text a paper is
embedded from (``paper_text``), the model id stored with every vector (``model_id``), the default model
and how many characters can reach its window. ``encoder`` (the choice of runtime, torch) and
``onnx_encoder`` both import it, and neither imports the other at module level."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from papersift.settings import Settings

DEFAULT_MODEL = "all-MiniLM-L6-v2"
CHARS_PER_TOKEN = 8  # generous: text beyond max_tokens × this can never reach the model


def paper_text(title: str, abstract: str) -> str:
    """The text a paper is embedded from: its title and abstract."""
    return f"{title}. {abstract}".strip()


def model_id(settings: Settings) -> str:
    """The name recorded with every stored vector: the model and how it is run. torch:
    ``all-MiniLM-L6-v2+int8`` (quantised) or the bare name; ONNX Runtime: ``+onnx-qint8`` when quantised
    (int8 compute, the default), else ``+onnx`` (the default model as shipped, with int8 weights computed in
    fp32: ``+onnx-int8``, the name of the vectors papersift made by default before ``+onnx-qint8``)."""
    if settings.runtime == "onnx":
        if settings.quantize:
            return settings.model + "+onnx-qint8"
        shipped_int8 = settings.model in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}")
        return settings.model + ("+onnx-int8" if shipped_int8 else "+onnx")
    return settings.model + ("+int8" if settings.quantize else "")


class Encoder(Protocol):
    """What encodes texts, whichever runtime: ``TorchEncoder`` or ``onnx_encoder.OnnxEncoder``."""

    name: str
    batch_size: int

    @property
    def dims(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def clip(self, text: str) -> tuple[str, bool]:
        """Cut ``text`` to what the model reads; True when something was cut."""
        ...

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors (float32, one row per text)."""
        ...
