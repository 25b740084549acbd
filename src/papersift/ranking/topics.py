"""The day at a glance: papers grouped into topics, each named by its most distinctive phrase
(``topic_labels``), on a 2-D map; its JSON ``TopicMap``. All scikit-learn; same papers, same map (id order,
fixed seeds). Each rule, measured on 2026-05-12 (809 papers: NMI vs the categories 0.392; k-means on tf-idf
0.101) and on ``bench/topic_names.py``'s 10 busy days (unnamed share 12.4%):

* Vectors: MiniLM's on ``DIMENSIONS`` principal axes; a paper without one the mean of its 3 nearest by
  tf-idf (5-33% of 2026-05-12's hidden: NMI 0.365, 282 unnamed; the nearest tf-idf centroid's topic: 0.337,
  351); under 2 with one, a truncated SVD of the tf-idf rows (no store arrays: the set's, sublinear, 0.286).
* k-means (``N_INIT`` starts; 1: NMI 0.380, 14.4% unnamed, but "prior work", "critical challenge" name
  topics and "autonomous driving" none) for k from √(n/4) to ``MAX_TOPICS``, by silhouette; a topic under
  ``MIN_GROUP`` papers joins the nearest (an outlier; else 14.6% unnamed but "powerful tools").
* The ``REFINED`` ks within ``NAME_SLACK`` of the best silhouette leaving the fewest unnamed are refined (1:
  NMI 0.437, 14.4%, but "bearing molecules", "unlike prior"): a topic no phrase names or over ``BLOB`` of
  the set is split, by k-means or 2-means from the holders of one of its phrases (without: 26.4% unnamed),
  parts of ``MIN_PART``+, or under ``MERGE_BELOW`` merged into the nearest (without: 17.0%), while fewer stay
  unnamed; the best again up to ``MOST_TOPICS`` (without: 23.7%).
* ``claimed``: a paper of an unnamed topic or the field's vocabulary's (else NMI 0.371) writing a named
  topic's name joins the nearest up to ``BLOB`` (without: NMI 0.273, 22.9% unnamed); the rest: other papers.
* A name as its topic writes it (else "vision transformer" names papers writing "vision transformers").
* Layout: the principal axes of the size-weighted topic centres, each paper ``PULL`` of the way to its own.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from functools import partial
from itertools import islice
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA, TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import silhouette_score
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from papersift.index.indexes import Indexes
from papersift.index.lexical import N_FEATURES, Lexical, terms
from papersift.ranking import topic_labels as tl
from papersift.ranking.phrases import occurs, phrases
from papersift.ranking.topic_labels import PhraseBook, label_topics, name_key, named, shown
from papersift.records.json_model import Shape
from papersift.records.paper import Paper
from papersift.records.taxonomy import category_named
from papersift.store import ListingEntry, Store

Namer = Callable[[list[tuple[list[str], list[str]]]], list[str]]  # (phrases, titles) per topic → labels
DIMENSIONS, SEED, N_INIT = 24, 0, 3  # principal axes; k-means' fixed seed and k-means++ starts per k
MIN_TOPIC, MAX_TOPICS, MOST_TOPICS = 10, 16, 24  # papers per topic the ks are sized for; ks; after splits
MIN_GROUP, MIN_PART, MERGE_BELOW = 4, MIN_TOPIC // 2, 2 * MIN_TOPIC  # see module
NAME_SLACK, REFINED, BLOB, PULL, SILHOUETTE_SAMPLE = 0.01, 3, 0.5, 0.5, 1500  # the last: a fixed sample


class Cluster(Shape):
    """A topic; one labelled ``""`` (at most one, last) is the day's other papers, no phrase naming them."""

    label: str
    terms: list[str]
    papers: list[str]


class MapPoint(Shape):
    id: str
    x: float
    y: float
    cluster: int


class TopicMap(Shape):
    """A day's topics, largest first, and a point per paper in the order given (``date``: ``map_json``'s)."""

    category: str
    date: str
    clusters: list[Cluster]
    points: list[MapPoint]


def map_json(category: str, day: str, tmap: TopicMap) -> dict[str, Any]:
    return tmap.model_copy(update={"category": category, "date": day}).dump()


def listing_entries(store: Store, category: str, when: date, days: int = 1) -> list[ListingEntry]:
    """The listings of ``category`` on the ``days`` days ending ``when``, each paper once (its first row)."""
    seen: dict[str, ListingEntry] = {}
    for day in store.announcement_days(category):
        for entry in store.listing(category, day) if when - timedelta(days=days - 1) <= day <= when else []:
            seen.setdefault(entry.paper.id, entry)
    return list(seen.values())


def topic_map(indexes: Indexes, papers: Sequence[Paper], namer: Namer | None = None) -> TopicMap:
    """The map of ``papers``: their topics, named by ``namer`` (the configured model) or their phrases."""
    ordered = sorted({p.id: p for p in papers}.values(), key=lambda p: p.id)
    if not ordered:
        return TopicMap.make(category="", date="", clusters=[], points=[])
    with threadpool_limits(limits=1):  # small products: threads fighting over busy cores cost seconds
        vectors, book = _vectors(indexes, ordered), tl.phrase_book(indexes.lexical, ordered)
        labels, _ = claimed(vectors, clustered(vectors, book), book)  # writing a named topic's name: joins it
        coords = layout(vectors, labels)
        clusters, labels = name_topics(book, ordered, labels, namer)
    # topics largest first (ties: the first paper id), the other papers last; points in the caller's order
    order = sorted(range(len(clusters)), key=lambda t: (not clusters[t].label, -len(clusters[t].papers)))
    rank, where = {old: new for new, old in enumerate(order)}, {p.id: i for i, p in enumerate(ordered)}
    xy = [(round(float(x), 4), round(float(y), 4)) for x, y in coords]
    points = [
        {"id": i, "x": xy[where[i]][0], "y": xy[where[i]][1], "cluster": rank[int(labels[where[i]])]}
        for i in dict.fromkeys(p.id for p in papers)
    ]
    return TopicMap.make(category="", date="", clusters=[clusters[t] for t in order], points=points)


def _vectors(indexes: Indexes, papers: Sequence[Paper]) -> np.ndarray:
    """The papers' vectors (see module), in the order given."""
    n, rowids = len(papers), np.array([indexes.store.rowid(p.id) or -1 for p in papers], dtype=np.int64)
    dense = np.zeros((n, 1))
    if indexes.dense is not None:
        dense = np.asarray(indexes.dense.vectors(np.where(rowids >= 0, rowids, 0)), np.float64)
        dense[rowids < 0] = 0.0
        dense /= np.where((norms := np.linalg.norm(dense, axis=1, keepdims=True)) > 0, norms, 1.0)
    has = np.linalg.norm(dense, axis=1) > 0
    if n < 2:
        return np.zeros((n, 1))
    rows = tfidf_matrix(indexes.lexical, rowids, papers) if not has.all() else sp.csr_matrix((n, 1))
    if has.sum() < 2:  # words alone: the tf-idf rows' leading latent dimensions
        svd = TruncatedSVD(min(2 * DIMENSIONS, n - 1), algorithm="arpack", random_state=SEED)
        return np.asarray(normalize(svd.fit_transform(rows.astype(np.float64))))
    if not has.all():  # a paper without a vector: the mean of its three nearest papers' by tf-idf
        near = np.argsort(-(rows[~has] @ rows[has].T).toarray(), axis=1, kind="stable")[:, :3]
        dense[~has] = normalize(dense[has][near].mean(axis=1))
    pca = PCA(min(DIMENSIONS, n - 1, dense.shape[1]), svd_solver="full", random_state=SEED)
    return np.asarray(pca.fit(dense).transform(dense), np.float64)


def tfidf_matrix(lexical: Lexical | None, rowids: np.ndarray, papers: Sequence[Paper]) -> sp.csr_matrix:
    """The papers' unit tf-idf rows: the store's arrays' (else their text weighed alike), or the set's own."""
    texts = [f"{p.title} {p.abstract}" for p in papers]
    if lexical is None:
        return TfidfVectorizer(analyzer=terms, sublinear_tf=True).fit_transform(texts).astype(np.float32)
    at = lexical.positions(rowids).tolist()
    rows = [lexical.row(i) if i >= 0 else lexical.vectorize(text) for i, text in zip(at, texts, strict=True)]
    slots, weights = map(np.concatenate, zip(*rows, strict=True))
    ends = np.cumsum([0] + [len(s) for s, _ in rows])
    return sp.csr_matrix((weights.astype(np.float32), slots, ends), shape=(len(rows), N_FEATURES))


def clustered(vectors: np.ndarray, book: PhraseBook) -> np.ndarray:
    """Topic numbers for papers' (reduced) vectors (see module)."""
    n, top = len(vectors), min(MAX_TOPICS, len(vectors) // MIN_TOPIC)
    if top < 2:
        return np.zeros(n, np.int64)
    tried = [kmeans(vectors, k) for k in range(max(2, min(top, round(math.sqrt(n / 4)))), top + 1)]
    sample = {"sample_size": SILHOUETTE_SAMPLE, "random_state": SEED} if n > SILHOUETTE_SAMPLE else {}
    score = [silhouette_score(vectors, t, **sample) if t.max() else -1.0 for t in tried]
    near = [absorbed(vectors, t) for s, t in zip(score, tried, strict=True) if s >= max(score) - NAME_SLACK]
    fits = [refine(vectors, labels, book) for labels in sorted(near, key=partial(unphrased, book))[:REFINED]]
    best = min(fits, key=lambda labels: (unphrased(book, labels), int(labels.max())))
    return refine(vectors, best, book, MOST_TOPICS) if unphrased(book, best) else best


def kmeans(x: np.ndarray, k: int, init: np.ndarray | None = None) -> np.ndarray:
    """k-means labels of ``x``: k-means++ from a fixed seed, or 10 steps from the centres ``init``."""
    again = {"init": init, "n_init": 1, "max_iter": 10} if init is not None else {"n_init": N_INIT}
    return by_first(np.asarray(KMeans(k, random_state=SEED, **again).fit_predict(x), np.int64))


def by_first(labels: np.ndarray) -> np.ndarray:
    """Topics numbered 0, 1, … by their first paper: the same partition always gets the same numbers."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return np.asarray(np.argsort(np.argsort(first))[inverse.ravel()], np.int64)


def joined(vectors: np.ndarray, labels: np.ndarray, members: np.ndarray, others: list[int]) -> np.ndarray:
    """``labels`` (``by_first``) with ``members`` (a mask) in the topic of ``others`` nearest them."""
    gaps = [((vectors[labels == t].mean(axis=0) - vectors[members].mean(axis=0)) ** 2).sum() for t in others]
    return by_first(np.where(members, others[int(np.argmin(gaps))], labels))


def absorbed(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels``, each topic under ``MIN_GROUP`` papers merged into the nearest topic, smallest first."""
    while True:
        sizes = np.bincount(labels)
        small = [t for t in np.argsort(sizes, kind="stable").tolist() if 0 < sizes[t] < MIN_GROUP]
        others = [t for t in range(len(sizes)) if sizes[t] >= MIN_GROUP]
        if not small or not others:
            return labels
        labels = joined(vectors, labels, labels == small[0], others)


def refine(vectors: np.ndarray, labels: np.ndarray, book: PhraseBook, most: int = MAX_TOPICS) -> np.ndarray:
    """``labels`` with unsettled topics split or merged while fewer papers are ``unphrased`` (see module)."""
    left = unphrased(book, labels)
    for _ in range(2 * most):  # each step splits or merges one topic
        step: tuple[int, np.ndarray] | None = None
        for topic in unsettled(book, labels) if left else []:
            for trial, parts in _trials(vectors, labels, topic, book, most):
                names = label_topics(book, trial, only=parts)
                fewer = unphrased(book, trial) if any(named(book, names[t][0]) for t in parts) else left
                step = (fewer, trial) if fewer < (step[0] if step else left) else step
            if step is not None:
                break
        if step is None:
            break
        left, labels = step
    return by_first(labels)


def _trials(
    vectors: np.ndarray, labels: np.ndarray, topic: int, book: PhraseBook, most: int
) -> list[tuple[np.ndarray, set[int]]]:
    """The partitions ``refine`` tries for one topic, each with the topics it changes."""
    members, count = np.flatnonzero(labels == topic), int(labels.max()) + 1
    out: list[tuple[np.ndarray, set[int]]] = []
    # the holders of each of its four most held distinctive noun phrases: 2-means starts
    inside = np.asarray(book.holds[members].sum(axis=0)).ravel()
    rest = (np.asarray(book.holds.sum(axis=0)).ravel() - inside) / max(len(labels) - len(members), 1)
    fit = np.flatnonzero((inside >= 3) & (inside / len(members) >= tl.CONTRAST * rest)).tolist()
    keys = (book.keys[j] for j in sorted(fit, key=lambda j: (-int(inside[j]), book.keys[j])))
    phrased = islice((k for k in keys if " " in k and tl.noun_phrase(book, k)), 4)
    x = vectors[members]
    held = [h for h in (tl.holding(book, k)[members] for k in phrased) if 0 < h.sum() < len(h)]
    starts = [None, *(np.stack([x[~h].mean(axis=0), x[h].mean(axis=0)]) for h in held)]
    for half in (kmeans(x, 2, s) for s in starts) if len(x) >= 2 * MIN_PART and count < most else []:
        split = labels.copy()
        split[members[half == 1]] = count
        out += [(split, {topic, count})] if min(np.bincount(half, minlength=2)) >= MIN_PART else []
    others = [t for t in range(count) if t != topic and (labels == t).any()]
    if len(members) < MERGE_BELOW and others:
        out.append((merged := joined(vectors, labels, labels == topic, others), {int(merged[members[0]])}))
    return out


def unsettled(book: PhraseBook, labels: np.ndarray) -> list[int]:
    """The topics (largest first) no phrase names, or over ``BLOB`` of a set of two topics or more."""
    sizes, found, n = np.bincount(labels), label_topics(book, labels), len(labels)
    out = [t for t, (k, _) in found.items() if not named(book, k) or 2 * MIN_TOPIC <= n < sizes[t] / BLOB]
    return sorted(out, key=lambda t: (-sizes[t], t))


def unphrased(book: PhraseBook, labels: np.ndarray) -> int:
    """Papers in ``unsettled`` topics, those of unnamed topics counted twice."""
    sizes, found = np.bincount(labels), label_topics(book, labels)
    return sum(int(sizes[t]) * (1 + (not found[t][0])) for t in unsettled(book, labels))


def claimed(vectors: np.ndarray, labels: np.ndarray, book: PhraseBook) -> tuple[np.ndarray, int]:
    """``labels`` after the papers of unnamed topics joined named ones (see module); and how many did."""
    found = label_topics(book, labels, categories=True)
    names = sorted(
        t for t, (n, _) in found.items() if named(book, n) and tl.background(book, n)[0] <= tl.NAME_MAX_DF
    )
    if not names or len(names) == len(found):
        return labels, 0
    holders = np.stack([tl.holding(book, found[t][0]) for t in names], axis=1)
    centres = np.stack([vectors[labels == t].mean(axis=0) for t in names])
    sizes, out, moved = np.bincount(labels)[names], labels.copy(), 0
    for i in np.flatnonzero(~np.isin(labels, names)).tolist():
        fits = np.flatnonzero(holders[i] & (sizes + 1 <= BLOB * len(labels)))
        if fits.size:
            c = int(fits[np.argmin(((centres[fits] - vectors[i]) ** 2).sum(axis=1))])
            out[i], sizes[c], moved = names[c], sizes[c] + 1, moved + 1
    return by_first(out), moved


def layout(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """2-D positions in [0, 1]² (see module)."""
    n = len(labels)  # two or three papers: fewer than two dimensions, padded
    vectors = np.hstack([vectors, np.zeros((n, max(0, 2 - vectors.shape[1])))])
    mean, sizes = vectors.mean(axis=0), np.bincount(labels)
    centroids = np.stack([vectors[labels == t].mean(axis=0) for t in range(len(sizes))])
    # between-topic spread weighted 3× over the papers' own: the axes that set the topics apart
    stacked = np.vstack([(centroids - mean) * 3.0 * np.sqrt(sizes)[:, None], vectors - mean])
    axes = np.linalg.svd(stacked, full_matrices=False)[2][:2]
    axes *= np.where(axes[np.arange(2), np.abs(axes).argmax(axis=1)] < 0, -1.0, 1.0)[:, None]  # fixed signs
    centre_of = ((centroids - mean) @ axes.T)[labels]
    points = centre_of + PULL * ((vectors - mean) @ axes.T - centre_of)
    low, span = points.min(axis=0), np.ptp(points, axis=0)
    return np.asarray((points - low) / np.where(span > 0, span, 1.0)) if n > 1 else np.full((n, 2), 0.5)


def name_topics(
    book: PhraseBook, papers: Sequence[Paper], labels: np.ndarray, namer: Namer | None = None
) -> tuple[list[Cluster], np.ndarray]:
    """Each topic's ``Cluster`` and the papers' cluster numbers, the unnamed pooled (unless ``namer``)."""
    found = label_topics(book, labels, categories=True)
    titles = {t: [papers[int(i)].title for i in np.flatnonzero(labels == t)][:12] for t in sorted(found)}
    try:  # a model that fails, or answers too few names, names nothing: the phrases name the topics
        names = namer([([shown(book, k) for k in found[t][1]], titles[t]) for t in titles]) if namer else []
    except Exception:
        names = []
    if len(names) == len(titles):
        found = {t: (n.strip()[:60] or found[t][0], found[t][1]) for t, n in zip(titles, names, strict=True)}
    elif rest := [t for t, (n, _) in found.items() if not named(book, n)]:
        rest.sort(key=lambda t: (-int((labels == t).sum()), t))
        words = dict.fromkeys(w for w in (n or next(iter(ks), "") for n, ks in (found[t] for t in rest)) if w)
        labels = np.where(np.isin(labels, rest), rest[0], labels)
        found = {t: v for t, v in found.items() if t not in rest} | {rest[0]: ("", tuple(words)[: tl.TERMS])}
    keys, labels = {k for _, ks in found.values() for k in ks}, np.searchsorted(sorted(found), labels)
    clusters = []
    for n, (name, ks) in enumerate(found[t] for t in sorted(found)):
        members = np.flatnonzero(labels == n)
        texts = [f"{papers[int(i)].title} {papers[int(i)].abstract}" for i in members]
        label = shown(book, name) if name in keys else name
        if label and category_named(label) is None and not any(occurs(label, x) for x in texts):
            forms = {p for x in texts for p in phrases(x, tl.NAME_WORDS) if name_key(p) == name_key(label)}
            label = min((p for p in forms if p.count(" ") == label.count(" ")), default=label)
        terms = [shown(book, k) for k in ks]
        terms = [label if label and name_key(k) == name_key(label) else k for k in terms]
        terms = [k for k in terms if k == label or any(occurs(k, x) for x in texts)]
        clusters.append(Cluster.make(label=label, terms=terms, papers=[papers[int(i)].id for i in members]))
    return clusters, labels
