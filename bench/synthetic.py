"""Full-arXiv-scale SYNTHETIC data for the scale benchmarks: the 300k real papers and id-shifted copies.

arXiv holds about 2.7M papers; ``../shared/data`` holds 300k real ones. ``papers`` yields the real file,
then ``copies - 1`` copies of it under invented ids of years arXiv has not reached (``2701.00001`` …,
see ``shifted_id``) with the source ``synthetic-copy-K``, so nothing can mistake them for real papers.
Copies keep the text, so every term's document frequency is the real one times ``copies``.

``base_vectors`` gives the 300k real papers their real MiniLM vectors where the vector cache has them
(``papersift eval`` fills it with the 20k file's) and a SYNTHETIC vector from a Gaussian fit to those for
the rest (real vectors for 300k papers take hours on 2 cores). ``copy_vectors`` gives each copy its base
paper's vector plus isotropic noise (cosine about 0.85 to it): the archive gets 9× denser around every
topic, as a bigger arXiv is, and no two vectors are equal (exact search has no ties).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import orjson

from papersift.index.encoder import model_id, paper_text
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store.cache import VectorCache

NUMBERS = 99_999  # new-style ids per month: YYMM.00001 … YYMM.99999
FIRST_YEAR = 27  # 2027: no real arXiv id has it
NOISE = 0.0316  # per-dimension sd: cosine(base, copy) ≈ 1 / sqrt(1 + 384 · NOISE²) ≈ 0.85


def shifted_id(copy: int, index: int, base: int) -> str:
    """The id of copy ``copy`` (1, 2, …) of the ``index``-th real paper: unique, valid, and not real."""
    seq = (copy - 1) * base + index
    month, number = divmod(seq, NUMBERS)
    year, mm = divmod(month, 12)
    return f"{FIRST_YEAR + year:02d}{mm + 1:02d}.{number + 1:05d}"


def real_papers(path: Path) -> list[Paper]:
    with gzip.open(path, "rb") as f:
        return [paper_from_record(orjson.loads(line), path.name) for line in f]


def papers(base: list[Paper], copies: int) -> Iterator[Paper]:
    """The real papers, then ``copies - 1`` id-shifted copies of them (not in the real listings)."""
    yield from base
    for copy in range(1, copies):
        for i, paper in enumerate(base):
            new_id = shifted_id(copy, i, len(base))
            yield replace(paper, id=new_id, listings=[], source=f"synthetic-copy-{copy}")


def base_vectors(base: list[Paper], cache_path: Path, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors for the real papers, in order, and a mask of the ones that are real MiniLM vectors."""
    cache = VectorCache(cache_path)
    found = cache.get(model_id(Settings()), [paper_text(p.title, p.abstract) for p in base])
    cache.close()
    if not found:
        raise SystemExit(f"the vector cache {cache_path} lacks the 20k papers: run `make eval` first")
    real = np.stack([found[i] for i in sorted(found)]).astype(np.float32)
    rng = np.random.default_rng(seed)
    matrix = rng.multivariate_normal(real.mean(axis=0), np.cov(real, rowvar=False), size=len(base))
    matrix = matrix.astype(np.float32)
    mask = np.zeros(len(base), bool)
    mask[sorted(found)] = True
    matrix[mask] = real
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix, mask


def copy_vectors(base: np.ndarray, copy: int, seed: int) -> np.ndarray:
    """The vectors of copy ``copy``: each base vector moved by noise, renormalised."""
    rng = np.random.default_rng(seed * 1000 + copy)
    moved = base + rng.normal(0.0, NOISE, size=base.shape).astype(np.float32)
    return (moved / np.linalg.norm(moved, axis=1, keepdims=True)).astype(np.float32)


def vector_slices(
    base: list[Paper], base_matrix: np.ndarray, copies: int, seed: int, size: int = 50_000
) -> Iterator[tuple[list[str], np.ndarray]]:
    """(ids, vectors) of every paper ``papers`` yields, in slices of ``size``, in the same order."""
    for copy in range(copies):
        matrix = base_matrix if copy == 0 else copy_vectors(base_matrix, copy, seed)
        ids = (
            [p.id for p in base] if copy == 0 else [shifted_id(copy, i, len(base)) for i in range(len(base))]
        )
        for lo in range(0, len(ids), size):
            yield ids[lo : lo + size], matrix[lo : lo + size]
