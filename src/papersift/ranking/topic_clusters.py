"""The topic map's geometry, all scikit-learn: papers as vectors (PCA of their MiniLM vectors, else a
truncated SVD of their tf-idf rows), k-means partitions scored by silhouette, and the 2-D layout (the
papers on the principal axes of the size-weighted topic centres, each drawn ``PULL`` of the way to its
centre, scaled to [0, 1]²). Every seed is fixed: the same rows give the same partition."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from typing import Protocol

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.metrics import silhouette_score
from sklearn.preprocessing import normalize

from papersift.index.indexes import Indexes
from papersift.index.lexical import N_FEATURES, Lexical, term_slot, terms

DIMENSIONS = 24  # principal components the vectors are clustered in
MIN_TOPIC = 10  # papers per topic the range of k is sized for
MAX_TOPICS = 16
MIN_GROUP = 4  # papers of a topic k-means finds, at least (fewer: outliers, ``absorbed``)
SEED = 0
N_INIT = 3  # k-means++ starts per k (as the hand-written k-means had); 1: NMI 0.3716, 14.1% unnamed
# on the 10 busy days (15.8%) but weaker names ("prior work"); "autonomous driving", "sign language" lost
SILHOUETTE_SAMPLE = 1500  # papers the silhouette is measured on (a fixed sample beyond that)
PULL = 0.5  # how far each point is drawn towards its topic's centre


class Doc(Protocol):
    """What the map reads of a paper (a ``Paper`` is one)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def abstract(self) -> str: ...
    @property
    def categories(self) -> Sequence[str]: ...


def dense_rows(indexes: Indexes, rowids: np.ndarray) -> np.ndarray | None:
    """The papers' unit dense vectors (zero rows for papers without one); ``None`` without a dense index."""
    if indexes.dense is None:
        return None
    vectors = np.asarray(indexes.dense.vectors(np.where(rowids >= 0, rowids, 0)), np.float64)
    vectors[rowids < 0] = 0.0
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.where(norms > 0, norms, 1.0))


def tfidf_matrix(lexical: Lexical | None, rowids: np.ndarray, papers: Sequence[Doc]) -> sp.csr_matrix:
    """The papers' normalised tf-idf rows (from the arrays; a paper not in them: its text, weighed alike)."""
    rows = []
    positions = lexical.positions(rowids) if lexical is not None else np.full(len(papers), -1)
    for paper, position in zip(papers, positions.tolist(), strict=True):
        text = f"{paper.title} {paper.abstract}"
        if lexical is None:
            slots = np.unique([term_slot(t) for t in terms(text)]).astype(np.int64)
            weights = np.ones(len(slots), np.float32) / max(math.sqrt(len(slots)), 1.0)
        else:
            slots, weights = lexical.row(position) if position >= 0 else lexical.vectorize(text)
        rows.append(sp.csr_matrix((weights, (np.zeros(len(slots)), slots)), shape=(1, N_FEATURES)))
    return sp.csr_matrix(sp.vstack(rows, format="csr"), dtype=np.float32)


def principal(vectors: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``vectors`` on the ``DIMENSIONS`` principal axes of the ``rows`` (a mask) among them."""
    pca = PCA(min(DIMENSIONS, int(rows.sum()) - 1, vectors.shape[1]), svd_solver="full", random_state=SEED)
    return np.asarray(pca.fit(vectors[rows]).transform(vectors), np.float64)


def latent(matrix: sp.csr_matrix) -> np.ndarray:
    """Tf-idf rows as unit vectors in their leading latent dimensions (a truncated SVD)."""
    if matrix.shape[0] < 2:
        return np.zeros((matrix.shape[0], 1))
    svd = TruncatedSVD(min(DIMENSIONS * 2, matrix.shape[0] - 1), algorithm="arpack", random_state=SEED)
    return np.asarray(normalize(svd.fit_transform(matrix.astype(np.float64))))


def k_range(n: int) -> range:
    """The numbers of topics tried for ``n`` papers: about √(n/4) to ``MAX_TOPICS``, ``MIN_TOPIC`` each."""
    if n < 2 * MIN_TOPIC:
        return range(1, 2)
    top = min(MAX_TOPICS, n // MIN_TOPIC)
    return range(max(2, min(top, round(math.sqrt(n / 4)))), top + 1)


def kmeans(x: np.ndarray, k: int, init: np.ndarray | None = None) -> np.ndarray:
    """k-means labels of ``x``: k-means++ from a fixed seed, or 10 steps from the centres ``init``."""
    model = KMeans(k, init="k-means++", n_init=N_INIT, random_state=SEED)
    if init is not None:
        model = KMeans(k, init=init, n_init=1, max_iter=10, random_state=SEED)
    return by_first(np.asarray(model.fit_predict(x), np.int64))


def partitions(x: np.ndarray, ks: range) -> list[tuple[float, np.ndarray]]:
    """Each k's k-means labels of ``x`` with their silhouette (on a fixed sample of a large set)."""
    sample, tried = SILHOUETTE_SAMPLE if len(x) > SILHOUETTE_SAMPLE else None, [kmeans(x, k) for k in ks]
    score = [
        silhouette_score(x, t, sample_size=sample, random_state=SEED) if t.max() else -1.0 for t in tried
    ]
    return list(zip(score, tried, strict=True))


def by_first(labels: np.ndarray) -> np.ndarray:
    """Topics numbered 0, 1, … by their first paper: the same partition always gets the same numbers."""
    values, first = np.unique(labels, return_index=True)
    renumber = np.zeros(int(values.max()) + 1 if len(values) else 0, np.int64)
    renumber[values[np.argsort(first)]] = np.arange(len(values))
    return np.asarray(renumber[labels], np.int64)


def nearest(vectors: np.ndarray, labels: np.ndarray, members: np.ndarray, others: list[int]) -> int:
    """Of the topics ``others``, the one whose centre is nearest the centre of ``members``."""
    gaps = [((vectors[labels == t].mean(axis=0) - vectors[members].mean(axis=0)) ** 2).sum() for t in others]
    return others[int(np.argmin(gaps))]


def absorbed(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels``, each topic under ``MIN_GROUP`` papers merged into the nearest topic, smallest first."""
    while True:
        sizes = np.bincount(labels)
        small = [t for t in np.argsort(sizes, kind="stable").tolist() if 0 < sizes[t] < MIN_GROUP]
        others = [t for t in range(len(sizes)) if sizes[t] >= MIN_GROUP]
        if not small or not others:
            return labels
        labels, members = labels.copy(), np.flatnonzero(labels == small[0])
        labels[members] = nearest(vectors, labels, members, others)
        labels = by_first(labels)


def nearest_topic(tfidf: sp.csr_matrix, labels: np.ndarray, has: np.ndarray) -> np.ndarray:
    """For the papers without a vector: the topic whose papers' mean tf-idf row is most like theirs."""
    topics = sorted(set(labels[has].tolist()))
    centroids = sp.vstack([sp.csr_matrix(tfidf[np.flatnonzero(labels == t)].mean(axis=0)) for t in topics])
    return np.asarray(np.array(topics)[(tfidf[np.flatnonzero(~has)] @ centroids.T).toarray().argmax(axis=1)])


def layout(vectors: np.ndarray, labels: np.ndarray, has: np.ndarray) -> np.ndarray:
    """2-D positions in [0, 1]² (see module); papers without a vector sit near their topic's centre."""
    n = len(labels)  # two or three papers: fewer than two dimensions, padded
    vectors = np.hstack([vectors, np.zeros((n, max(0, 2 - vectors.shape[1])))])
    topics, mean = sorted(set(labels.tolist())), vectors[has].mean(axis=0)
    inside = [(labels == t) & has for t in topics]
    centroids = np.stack([vectors[m].mean(axis=0) if m.any() else mean for m in inside])
    sizes = np.array([float(m.sum()) for m in inside])
    # between-topic spread weighted 3× over the papers' own: the axes that set the topics apart
    stacked = np.vstack([(centroids - mean) * 3.0 * np.sqrt(sizes)[:, None], vectors[has] - mean])
    axes = np.linalg.svd(stacked, full_matrices=False)[2][:2]
    axes *= np.where(axes[np.arange(2), np.abs(axes).argmax(axis=1)] < 0, -1.0, 1.0)[:, None]  # fixed signs
    where = {t: i for i, t in enumerate(topics)}
    centre_of = ((centroids - mean) @ axes.T)[[where[int(t)] for t in labels]]
    points = centre_of + PULL * ((vectors - mean) @ axes.T - centre_of)
    spread = float(np.abs(points[has] - centre_of[has]).mean()) if has.any() else 0.0
    for i in np.flatnonzero(~has):  # no vector: a fixed jitter (from its position) around the centre
        angle = (zlib.crc32(str(i).encode()) % 3600) / 3600 * 2 * math.pi
        points[i] = centre_of[i] + spread * np.array([math.cos(angle), math.sin(angle)])
    low, span = points.min(axis=0), np.ptp(points, axis=0)
    return np.asarray((points - low) / np.where(span > 0, span, 1.0)) if n > 1 else np.full((n, 2), 0.5)
