"""The torch encoder: the packaged MiniLM loads offline, gives unit vectors, and int8 stays close to fp32."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index.encoder import Encoder, load_encoder, model_id, paper_text
from papersift.settings import Settings

pytestmark = pytest.mark.torch

TEXTS = [
    paper_text("Attention is all you need", "We propose the Transformer, based solely on attention."),
    paper_text("Dark matter halos", "N-body simulations of cold dark matter halo density profiles."),
    paper_text("$^{210}$Fr hyperfine", "Precision spectroscopy of francium isotopes \\mathcal{O}(\\alpha)."),
    "",
]


@pytest.fixture(scope="module")
def encoders() -> tuple[Encoder, Encoder]:
    return load_encoder(Settings(runtime="torch")), load_encoder(Settings(runtime="torch", quantize=False))


def test_vectors_are_unit_length_and_named_by_model(encoders: tuple[Encoder, Encoder]) -> None:
    int8, fp32 = encoders
    vectors = int8.encode(TEXTS)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert int8.name == "all-MiniLM-L6-v2+int8" and fp32.name == "all-MiniLM-L6-v2"
    assert model_id(Settings(runtime="torch", quantize=False)) == fp32.name
    assert int8.encode([]).shape == (0, 384)


def test_int8_vectors_stay_close_to_fp32_and_keep_their_order(encoders: tuple[Encoder, Encoder]) -> None:
    int8, fp32 = encoders
    a, b = int8.encode(TEXTS[:3]), fp32.encode(TEXTS[:3])
    assert (a * b).sum(axis=1).min() > 0.95
    # the ML paper stays closer to itself than to the physics ones in both spaces
    assert np.argmax(a[1:] @ b[0]) == np.argmax(b[1:] @ b[0])


def test_clip_cuts_long_text_to_the_model_window(encoders: tuple[Encoder, Encoder]) -> None:
    int8, _ = encoders
    short, cut = int8.clip("a short abstract")
    assert short == "a short abstract" and not cut
    huge = "word " * 200_000
    head, cut = int8.clip(huge)
    assert cut and len(head) < 10_000
    assert int8.encode([huge]).shape == (1, 384)
