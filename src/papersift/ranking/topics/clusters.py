"""The day's topics: papers grouped by their vectors, then split or merged until names fit.

* **Vectors.** MiniLM's, on ``dimensions`` principal axes (PCA). A paper without one takes the
  mean of its 3 nearest papers' by tf-idf; with under 2 vectors, a truncated SVD of the tf-idf
  rows.
* **k-means** (``n_init`` k-means++ starts, a fixed seed) for each k from √(n/4) to
  ``max_topics``, chosen by **silhouette**; a topic under ``min_group`` papers joins the nearest
  (an outlier).
* **Splitting.** The ``refined`` ks within ``name_slack`` of the best silhouette leaving the
  fewest papers unnamed are refined: a topic no phrase names (``names.label_topics``), or
  holding over ``largest`` of the day, is split by 2-means (plain, or started from the holders
  of one of its four most written noun phrases), parts of ``min_part`` papers at least, or,
  under ``merge_below`` papers, merged into the nearest topic, while fewer papers stay unnamed;
  the best again up to ``most_topics``.
* **Claiming.** A paper of a topic no phrase names that writes a named topic's name joins the
  nearest such topic, up to ``largest`` of the day.
* **Other papers.** The papers no name fits are grouped again by k-means (2 to ``other_groups``
  groups): each group a name fits is offered as a topic.
* **Bounded.** No topic keeps more than ``largest`` of the day: one still larger is halved by
  2-means."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import islice

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import silhouette_score
from sklearn.preprocessing import normalize

from papersift.index.indexes import Indexes
from papersift.index.lexical import N_FEATURES, Lexical, terms
from papersift.ranking.topics.book import PhraseBook, holding
from papersift.ranking.topics.naming import in_store, label_topics, named
from papersift.ranking.topics.parameters import PARAMETERS
from papersift.ranking.topics.wording import noun_phrase
from papersift.records.paper import Paper

P = PARAMETERS


# --- vectors ---


def stored_vectors(indexes: Indexes, papers: Sequence[Paper]) -> tuple[np.ndarray, np.ndarray]:
    """The papers' rowids (-1: not stored) and their unit vectors in the current generation, in the order
    given (a zero row: none)."""
    rowids = np.array([indexes.store.rowid(p.id) or -1 for p in papers], dtype=np.int64)
    if indexes.dense is None:
        return rowids, np.zeros((len(papers), 1))
    dense = np.asarray(indexes.dense.vectors(np.where(rowids >= 0, rowids, 0)), np.float64)
    dense[rowids < 0] = 0.0
    norms = np.linalg.norm(dense, axis=1, keepdims=True)
    dense /= np.where(norms > 0, norms, 1.0)
    return rowids, dense


def paper_vectors(indexes: Indexes, papers: Sequence[Paper]) -> np.ndarray:
    """The papers' vectors (see module), in the order given."""
    n = len(papers)
    rowids, dense = stored_vectors(indexes, papers)
    if n < 2:
        return np.zeros((n, 1))
    has = np.linalg.norm(dense, axis=1) > 0
    rows = sp.csr_matrix((n, 1)) if has.all() else tfidf_matrix(indexes.lexical, rowids, papers)
    if has.sum() < 2:  # words alone: the tf-idf rows' leading latent dimensions
        svd = TruncatedSVD(min(2 * P.dimensions, n - 1), algorithm="arpack", random_state=P.seed)
        return np.asarray(normalize(svd.fit_transform(rows.astype(np.float64))))
    if not has.all():  # a paper without a vector: the mean of its three nearest papers' by tf-idf
        similar = (rows[~has] @ rows[has].T).toarray()
        near = np.argsort(-similar, axis=1, kind="stable")[:, :3]
        dense[~has] = normalize(dense[has][near].mean(axis=1))
    pca = PCA(min(P.dimensions, n - 1, dense.shape[1]), svd_solver="full", random_state=P.seed)
    return np.asarray(pca.fit(dense).transform(dense), np.float64)


def tfidf_matrix(lexical: Lexical | None, rowids: np.ndarray, papers: Sequence[Paper]) -> sp.csr_matrix:
    """The papers' unit tf-idf rows: the store's arrays' (else their text weighed alike), or the
    set's own."""
    texts = [f"{p.title} {p.abstract}" for p in papers]
    if lexical is None:
        vectorizer = TfidfVectorizer(analyzer=terms, sublinear_tf=True)
        return vectorizer.fit_transform(texts).astype(np.float32)
    at = lexical.positions(rowids).tolist()
    rows = [lexical.row(i) if i >= 0 else lexical.vectorize(text) for i, text in zip(at, texts, strict=True)]
    slots = np.concatenate([s for s, _ in rows])
    weights = np.concatenate([w for _, w in rows])
    ends = np.cumsum([0] + [len(s) for s, _ in rows])
    return sp.csr_matrix((weights.astype(np.float32), slots, ends), shape=(len(rows), N_FEATURES))


# --- k-means and silhouette ---


def clustered(vectors: np.ndarray, book: PhraseBook) -> np.ndarray:
    """Topic numbers for papers' (reduced) vectors: k-means by silhouette, then refined (see
    module)."""
    n = len(vectors)
    top = min(P.max_topics, n // P.min_topic)
    if top < 2:
        return np.zeros(n, np.int64)
    low = max(2, min(top, round(math.sqrt(n / 4))))
    tried = [kmeans(vectors, k) for k in range(low, top + 1)]
    sample = {"sample_size": P.silhouette_sample, "random_state": P.seed} if n > P.silhouette_sample else {}
    scores = [silhouette_score(vectors, t, **sample) if t.max() else -1.0 for t in tried]
    best_score = max(scores)
    near = [
        absorbed(vectors, t) for s, t in zip(scores, tried, strict=True) if s >= best_score - P.name_slack
    ]
    near.sort(key=lambda labels: unphrased(book, labels))
    fits = [refine(vectors, labels, book) for labels in near[: P.refined]]
    best = min(fits, key=lambda labels: (unphrased(book, labels), int(labels.max())))
    if unphrased(book, best):
        return refine(vectors, best, book, P.most_topics)
    return best


def kmeans(x: np.ndarray, k: int, init: np.ndarray | None = None) -> np.ndarray:
    """k-means labels of ``x``: k-means++ from a fixed seed, or 10 steps from the centres ``init``."""
    if init is not None:
        model = KMeans(k, random_state=P.seed, init=init, n_init=1, max_iter=10)
    else:
        model = KMeans(k, random_state=P.seed, n_init=P.n_init)
    return by_first(np.asarray(model.fit_predict(x), np.int64))


def by_first(labels: np.ndarray) -> np.ndarray:
    """Topics numbered 0, 1, … by their first paper: the same partition always gets the same
    numbers."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return np.asarray(np.argsort(np.argsort(first))[inverse.ravel()], np.int64)


def joined(vectors: np.ndarray, labels: np.ndarray, members: np.ndarray, others: list[int]) -> np.ndarray:
    """``labels`` (``by_first``) with ``members`` (a mask) in the topic of ``others`` nearest them."""
    centre = vectors[members].mean(axis=0)
    gaps = [((vectors[labels == t].mean(axis=0) - centre) ** 2).sum() for t in others]
    return by_first(np.where(members, others[int(np.argmin(gaps))], labels))


def absorbed(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels``, each topic under ``min_group`` papers merged into the nearest topic, smallest
    first."""
    while True:
        sizes = np.bincount(labels)
        by_size = np.argsort(sizes, kind="stable").tolist()
        small = [t for t in by_size if 0 < sizes[t] < P.min_group]
        others = [t for t in range(len(sizes)) if sizes[t] >= P.min_group]
        if not small or not others:
            return labels
        labels = joined(vectors, labels, labels == small[0], others)


# --- splitting and merging until names fit ---


def unsettled(book: PhraseBook, labels: np.ndarray) -> list[int]:
    """The topics (largest first) no phrase names, or holding over ``largest`` of a day of two
    topics or more."""
    sizes = np.bincount(labels)
    n = len(labels)
    out = []
    for topic, naming in label_topics(book, labels).items():
        too_large = 2 * P.min_topic <= n and sizes[topic] > P.largest * n
        if not named(book, naming.name) or too_large:
            out.append(topic)
    return sorted(out, key=lambda t: (-sizes[t], t))


def unphrased(book: PhraseBook, labels: np.ndarray) -> int:
    """Papers in ``unsettled`` topics, those of unnamed topics counted twice."""
    sizes = np.bincount(labels)
    found = label_topics(book, labels)
    return sum(int(sizes[t]) * (1 + (not found[t].name)) for t in unsettled(book, labels))


def refine(vectors: np.ndarray, labels: np.ndarray, book: PhraseBook, most: int = P.max_topics) -> np.ndarray:
    """``labels`` with unsettled topics split or merged while fewer papers are ``unphrased`` (see
    module)."""
    left = unphrased(book, labels)
    for _ in range(2 * most):  # each step splits or merges one topic
        step: tuple[int, np.ndarray] | None = None
        for topic in unsettled(book, labels) if left else []:
            for trial, changed in _trials(vectors, labels, topic, book, most):
                names = label_topics(book, trial, only=changed)
                fewer = unphrased(book, trial) if any(named(book, names[t].name) for t in changed) else left
                if fewer < (step[0] if step else left):
                    step = (fewer, trial)
            if step is not None:
                break
        if step is None:
            break
        left, labels = step
    return by_first(labels)


def _trials(
    vectors: np.ndarray, labels: np.ndarray, topic: int, book: PhraseBook, most: int
) -> list[tuple[np.ndarray, set[int]]]:
    """The partitions ``refine`` tries for one topic, each with the topics it changes: halves by
    2-means (plain, or started from the holders of one of its phrases), and a merge into the
    nearest topic."""
    members = np.flatnonzero(labels == topic)
    count = int(labels.max()) + 1
    out: list[tuple[np.ndarray, set[int]]] = []
    x = vectors[members]
    if len(x) >= 2 * P.min_part and count < most:
        for start in [None, *_phrase_starts(book, labels, members, x)]:
            half = kmeans(x, 2, start)
            if min(np.bincount(half, minlength=2)) < P.min_part:
                continue
            split = labels.copy()
            split[members[half == 1]] = count
            out.append((split, {topic, count}))
    others = [t for t in range(count) if t != topic and (labels == t).any()]
    if len(members) < P.merge_below and others:
        merged = joined(vectors, labels, labels == topic, others)
        out.append((merged, {int(merged[members[0]])}))
    return out


def _phrase_starts(
    book: PhraseBook, labels: np.ndarray, members: np.ndarray, x: np.ndarray
) -> list[np.ndarray]:
    """2-means starts from the holders of each of a topic's four most written distinctive noun
    phrases."""
    inside = np.asarray(book.holds[members].sum(axis=0)).ravel()
    total = np.asarray(book.holds.sum(axis=0)).ravel()
    rest = (total - inside) / max(len(labels) - len(members), 1)
    distinct = (inside >= 3) & (inside / len(members) >= P.contrast * rest)
    columns = sorted(np.flatnonzero(distinct).tolist(), key=lambda j: (-int(inside[j]), book.keys[j]))
    keys = (book.keys[j] for j in columns)
    phrases = islice((k for k in keys if " " in k and noun_phrase(book, k)), 4)
    starts = []
    for key in phrases:
        held = holding(book, key)[members]
        if 0 < held.sum() < len(held):
            starts.append(np.stack([x[~held].mean(axis=0), x[held].mean(axis=0)]))
    return starts


# --- the papers no name fits ---


def claimed(vectors: np.ndarray, labels: np.ndarray, book: PhraseBook) -> tuple[np.ndarray, int]:
    """``labels`` after the papers of unnamed topics that write a named topic's name joined the
    nearest such topic (up to ``largest`` of the day); and how many did."""
    found = label_topics(book, labels, final=True)
    names = sorted(
        t
        for t, naming in found.items()
        if named(book, naming.name) and in_store(book, naming.name).share <= P.store_vocabulary
    )
    if not names or len(names) == len(found):
        return labels, 0
    holders = np.stack([holding(book, found[t].name) for t in names], axis=1)
    centres = np.stack([vectors[labels == t].mean(axis=0) for t in names])
    sizes = np.bincount(labels)[names]
    out = labels.copy()
    moved = 0
    for i in np.flatnonzero(~np.isin(labels, names)).tolist():
        fits = np.flatnonzero(holders[i] & (sizes + 1 <= P.largest * len(labels)))
        if fits.size:
            nearest = int(fits[np.argmin(((centres[fits] - vectors[i]) ** 2).sum(axis=1))])
            out[i] = names[nearest]
            sizes[nearest] += 1
            moved += 1
    return by_first(out), moved


def regrouped(vectors: np.ndarray, labels: np.ndarray, book: PhraseBook) -> np.ndarray:
    """``labels`` with the papers no name fits grouped again (2 to ``other_groups`` groups by
    k-means, the grouping that names the most of them kept): each group a name fits becomes a
    topic."""
    found = label_topics(book, labels, final=True)
    unnamed = [t for t, naming in found.items() if not named(book, naming.name)]
    members = np.flatnonzero(np.isin(labels, unnamed))
    count = int(labels.max()) + 1
    best, best_named = labels, 0
    for k in range(2, P.other_groups + 1):
        if len(members) < k * P.min_part:
            break
        groups = kmeans(vectors[members], k)
        if min(np.bincount(groups)) < P.min_part:
            continue
        trial = labels.copy()
        trial[members] = count + groups
        names = label_topics(book, trial, final=True, only=range(count, count + k))
        fitting = sum(int((groups == g).sum()) for g in range(k) if named(book, names[count + g].name))
        if fitting > best_named:
            best, best_named = trial, fitting
    return by_first(best)


def bounded(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels`` with every topic over ``largest`` of a day of ``2 * min_topic`` papers or more
    halved by 2-means until none is."""
    n = len(labels)
    if n < 2 * P.min_topic:
        return labels
    for _ in range(n):
        sizes = np.bincount(labels)
        largest = int(sizes.argmax())
        if sizes[largest] <= P.largest * n:
            break
        members = np.flatnonzero(labels == largest)
        halves = kmeans(vectors[members], 2)
        if halves.min() == halves.max():  # identical vectors: halved by order
            halves = (np.arange(len(members)) >= len(members) // 2).astype(np.int64)
        labels = labels.copy()
        labels[members[halves == 1]] = len(sizes)
    return by_first(labels)
