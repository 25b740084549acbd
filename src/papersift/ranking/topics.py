"""The day at a glance: any set of papers (a listing, Daily Papers, a search's results) grouped into topics,
each topic named by its most distinctive terms, and every paper placed on a 2-D map.

* Features: each paper's stored dense vector (MiniLM). Papers without one are placed by their tf-idf row
  (the lexical arrays, else their text weighed by the arrays' idf): clustered with the rest when no paper
  has a vector, else put in the topic whose papers' mean tf-idf vector is nearest.
* Topics: k-means (k-means++, fixed seed) on the vectors reduced to ``DIMENSIONS`` principal components, for
  every k in a small range sized from the number of papers. Each partition whose silhouette is within
  ``NAME_SLACK`` of the best is refined (``refine``): a topic no phrase of two to five words names (a lone
  word, one hyphenated compound such as ``multi-agent``, or nothing), or that holds over ``BLOB`` of the
  papers (most of a day in one topic draws no map: a cs.AI day's "language models"), is split in two (k-means,
  or 2-means started from the centres of the papers holding one of its ``SEEDS`` best phrases and of the rest;
  parts of ``MIN_PART`` papers or more, at most ``MAX_TOPICS`` topics) or, if small, merged into the topic of
  the nearest centre, whenever that leaves fewer papers in such topics. The refined partition leaving the
  fewest papers in such topics is kept (ties: fewer topics, then the smaller k; without the papers' phrases:
  the smallest k within ``SLACK``). Last (``settle``), a topic still without a phrase and under ``KEEP_GROUP``
  papers is merged into its nearest topic or dissolved (each paper to the nearest other topic centre) when
  every topic receiving its papers is then named by a phrase; a larger one keeps its word. Where such topics
  are left, the settled partition is refined once more with room for up to ``MOST_TOPICS`` topics (a busy
  day's large groups split by their phrases) and settled again. Same papers, same topics: the input is put in
  id order first and every seed is fixed.
* Names (c-TF-IDF over phrases): the key phrases of a topic's own titles and abstracts (``name_keys``: one
  to five words as written, never across a stop word or punctuation, plurals folded, a hyphen read as a
  space unless its compound holds a stop word) in at least a third of its papers, at least ``CONTRAST``
  times as common there as in the rest of the set and in under a third of the rest (``large language
  model`` names no group of a cs.CL day; a lone word: also in at most ``LABEL_MAX_DF`` of the store),
  scored by share × log(1 + papers per topic / papers of the set holding it) × share / (share + share in
  the rest), longer phrases favoured; the best phrase of two to five words names it (one inside a
  longer qualifying phrase nearly as many of its papers hold: that longer one; none with a verb or filler,
  none all generic words: ``_phrase_name``; a noun phrase as the set's papers use its words, no verb of
  ``VERB_FORMS`` or one they write before a determiner, no plural followed by a participle, not ending in
  a number or an adverb: ``_noun_phrase``; written as words of their own by one of its papers, not the
  tail of a hyphenated compound; one shown as a single hyphenated compound, ``high-resolution``, only after
  every other, extended to the best qualifying phrase holding it, ``multi-agent systems``); once the
  topics are formed, a topic no such phrase names is named by the arXiv category at least a third of its
  papers list, at least ``CATEGORY_CONTRAST`` times as common there as in the rest of the set (``Audio
  and Speech Processing`` for a cs.CL day's speech papers; the day's own category never names one),
  before a hyphenated compound; else its best word fit to stand alone (``_nameable``: no generic research
  word, adjective or participle, a noun as the set's papers use it, written as a word of its own); each
  name used by one topic of the day, none the opening words of another's (``large language`` beside
  ``large language model``; largest topics choose first). Names are phrases: no opening count, no measure,
  superlative or verb's -s form at the end, no plural before another word (``_noun_phrase``).
* The day's other papers (``_pooled``): the topics that neither a phrase nor a category names (a lone
  word, a hyphenated compound, nothing) are pooled into one unnamed group, listed last, its words its
  terms; the map draws it grey and unlabelled where its papers lie. A ``namer`` (the configured model)
  names every topic instead (none pooled).
* Layout: the papers projected on the two principal axes of the topic centroids (weighted by size, with the
  papers' own spread breaking ties), each paper drawn halfway towards its topic's centre, scaled to [0, 1].

On the busiest whole-archive day of the 300k file this agrees with the papers' primary categories better
than k-means on tf-idf (``bench/topics.py`` reports both).
"""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from itertools import pairwise
from typing import Protocol

import numpy as np
import scipy.sparse as sp

from papersift.index.indexes import Indexes
from papersift.index.lexical import N_FEATURES, Lexical, term_slot, terms
from papersift.ranking.phrases import FILLER as VERBS
from papersift.ranking.phrases import GENERIC, fold, occurs, phrases, pieces, runs
from papersift.records.taxonomy import canonical, category_name, category_named
from papersift.records.words import STOP_WORDS
from papersift.store import ListingEntry, Store

Namer = Callable[[list[tuple[list[str], list[str]]]], list[str]]  # (phrases, titles) per topic → labels

DIMENSIONS = 24  # principal components the vectors are clustered in
MIN_TOPIC = 10  # papers per topic the range of k is sized for
SLACK = 0.01  # silhouette a smaller k may give up
NAME_SLACK = 0.01  # silhouette a k whose topics phrases name better may give up
MIN_PART = MIN_TOPIC // 2  # papers of each part of a split topic, at least
MIN_GROUP = 4  # papers of a topic k-means finds, at least (fewer: outliers, ``_absorbed``)
MERGE_BELOW = 2 * MIN_TOPIC  # an unnamed topic this small may join its nearest
MAX_TOPICS = 16
MOST_TOPICS = 24  # topics a day may reach by splitting a large group no phrase names (after ``settle``)
SEEDS = 4  # phrases of a topic no phrase names whose papers seed a split of it
SEED_HOLDERS = 3  # papers of the topic holding such a phrase, at least
BLOB = 0.5  # a topic holding more of the set than this is split like one no phrase names
KEEP_GROUP = 2 * MIN_TOPIC  # a topic no phrase names this large keeps its word rather than dissolve
DISSOLVE_TRIES = MAX_TOPICS  # assignments of a dissolved topic's papers (each without the topics that lost)
MIN_SHARE = 1 / 3  # a name's phrases are in at least this share of the topic's papers
CONTRAST = 1.5  # … and at least this many times as common in it as in the other papers of the set
NAME_WORDS = 5  # words of a name at most
CUT_SHORT = 0.6  # a phrase opening a longer one this share of its topic's holders hold names nothing
EXTEND = 0.8  # a phrase inside a longer one that this share of its papers hold is named by the longer
LABEL_MAX_DF = 0.3  # … and in at most this share of the store (``based``, ``propose`` name nothing)
FILLER = frozenset(  # the words of every abstract, never a topic
    "achieve approach based demonstrate existing introduce method novel paper present propose result show "
    "study using".split()
    + "across beyond toward towards versus".split()  # prepositions the stop words lack: half a phrase
)
LONE_GENERIC = frozenset(  # words of every research field's abstracts: never a topic's whole name
    """ability accuracy algorithm algorithms capability capabilities effectiveness efficiency feature
    features information knowledge learning quality robustness system systems text tool tools training
    understanding across along among beyond despite toward towards upon within without application
    applications domain domains level levels source sources reference references request requests
    structure structures time times answer answers turn""".split()
)
# … nor, with generic words, a whole phrase (``wide range``, ``powerful tools``)
VAGUE = frozenset("high low state-of-the-art wide broad range variety powerful prior".split())
ADJECTIVE_ENDINGS = ("al", "ive", "ous", "ic", "able", "ible", "ary", "ful", "less")  # half a phrase alone
DETERMINERS = frozenset("the a an this these those our their its each every such any".split())  # a noun's
LEADS = frozenset("the a an our their its these this those how whether".split())  # … a verb's object
VERB_FORMS = frozenset(  # verbs of abstracts, as keys spell them (``reveals`` → ``reveal``): no name's word
    """reveal describe favor exhibit suggest indicate yield span depend exist write highlight underscore
    emphasize explore investigate examine analyze analyse outperform surpass achieve enable allow help
    aim seek tend appear become remain require involve rely fail struggle""".split()
)
NUMBERS = frozenset("one two three four five six seven eight nine ten".split())
TAILS = frozenset("point percent percentage fold best better worse most least".split())  # no name's last word
SINGULAR_S = frozenset("series species news lens".split())  # words in -s that are no plurals
ADVERB_LIKE = ("aly", "ily", "bly", "ply")  # words in -ly that are nouns (anomaly, family, assembly, supply)
CATEGORY = "arxiv:"  # a name key of this prefix is an arXiv category's (``arxiv:eess.AS``)
CATEGORY_CONTRAST = 3.0  # a category naming a topic is at least this many times as common in it (not
# cs.AI of half a cs.CL day)
TERMS = 5  # terms listed per topic
PULL = 0.5  # how far each point is drawn towards its topic's centre
SEED = 0
SILHOUETTE_SAMPLE = 1500  # papers the silhouette is measured on (a fixed sample beyond that)
N_INIT = 3  # k-means++ starts per k


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


@dataclass(frozen=True, slots=True)
class Topic:
    """One cluster: its label, its distinctive terms (best first) and its papers' ids."""

    label: str
    terms: tuple[str, ...]
    papers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Point:
    id: str
    x: float
    y: float
    cluster: int


@dataclass(frozen=True, slots=True)
class TopicMap:
    """Topics largest first; one point per paper, in the order the papers came."""

    topics: list[Topic]
    points: list[Point]
    moved: int = 0  # papers moved out of topics no phrase names (``settle``, ``claimed``)


def map_json(category: str, day: str, tmap: TopicMap) -> dict[str, object]:
    """The map's JSON (``papersift topics --format json``, ``/api/map/...``)."""
    return {
        "category": category,
        "date": day,
        "clusters": [
            {"label": t.label, "terms": list(t.terms), "papers": list(t.papers)} for t in tmap.topics
        ],
        "points": [{"id": p.id, "x": p.x, "y": p.y, "cluster": p.cluster} for p in tmap.points],
    }


def listing_entries(store: Store, category: str, when: date, days: int = 1) -> list[ListingEntry]:
    """The listings of ``category`` on the ``days`` days ending ``when``, each paper once (its first row)."""
    first = when - timedelta(days=days - 1)
    seen: dict[str, ListingEntry] = {}
    for day in store.announcement_days(category):
        if first <= day <= when:
            for entry in store.listing(category, day):
                seen.setdefault(entry.paper.id, entry)
    return list(seen.values())


def topic_map(indexes: Indexes, papers: Sequence[Doc], namer: Namer | None = None) -> TopicMap:
    """Group ``papers`` into topics, name them, and lay them out (deterministic for the same papers).

    ``namer``: labels from the configured language model (given each topic's key phrases and titles);
    without one, or when it fails, each topic is named by its best key phrase."""
    unique = {p.id: p for p in papers}
    ordered = [unique[i] for i in sorted(unique)]
    if not ordered:
        return TopicMap([], [])
    rowids = np.array([indexes.store.rowid(p.id) or -1 for p in ordered], dtype=np.int64)
    with _one_thread():
        return _topic_map(indexes, papers, ordered, rowids, namer)


def _topic_map(
    indexes: Indexes, papers: Sequence[Doc], ordered: list[Doc], rowids: np.ndarray, namer: Namer | None
) -> TopicMap:
    dense = _dense(indexes, rowids)
    has = np.linalg.norm(dense, axis=1) > 0 if dense is not None else np.zeros(len(ordered), bool)
    tfidf = None if has.all() else tfidf_matrix(indexes.lexical, rowids, ordered)
    book = phrase_book(indexes.lexical, ordered)
    if has.sum() >= 2:
        assert dense is not None
        reduced = _principal(dense, min(DIMENSIONS, int(has.sum()) - 1), has)
        labels = np.full(len(ordered), -1)
        labels[has], moved = clustered(reduced[has], book=book_rows(book, has))
        if not has.all():
            assert tfidf is not None
            labels[~has] = _nearest_topic(tfidf, labels, has)
        placed = has
    else:  # fewer than two papers with vectors: their words alone
        if tfidf is None:
            tfidf = tfidf_matrix(indexes.lexical, rowids, ordered)
        reduced = _reduce_sparse(tfidf)
        labels, moved = clustered(reduced, book=book)
        placed = np.ones(len(ordered), bool)
    if namer is None:  # a paper of a group no phrase names that writes a named topic's name joins it
        labels, more = claimed(reduced, labels, book, placed)
        moved += more
    coords = layout(reduced, labels, placed)
    topics, labels = name_topics(book, ordered, labels, namer)
    # topics largest first (ties: the first paper id), the other papers last; points in the caller's order
    order = sorted(
        range(len(topics)), key=lambda t: (not topics[t].label, -len(topics[t].papers), topics[t].papers[0])
    )
    rank = {old: new for new, old in enumerate(order)}
    position = {p.id: i for i, p in enumerate(ordered)}
    seen: set[str] = set()
    points = []
    for paper in papers:
        if paper.id in seen:
            continue
        seen.add(paper.id)
        i = position[paper.id]
        x, y = coords[i]
        points.append(Point(paper.id, round(float(x), 4), round(float(y), 4), rank[int(labels[i])]))
    return TopicMap([topics[t] for t in order], points, moved)


def _dense(indexes: Indexes, rowids: np.ndarray) -> np.ndarray | None:
    if indexes.dense is None:
        return None
    vectors = indexes.dense.vectors(np.where(rowids >= 0, rowids, 0))
    vectors[rowids < 0] = 0.0
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(np.where(norms > 0, vectors / np.where(norms > 0, norms, 1.0), 0.0), dtype=np.float64)


def tfidf_matrix(lexical: Lexical | None, rowids: np.ndarray, papers: Sequence[Doc]) -> sp.csr_matrix:
    """The papers' normalised tf-idf rows (from the arrays; a paper not in them: its text, weighed alike)."""
    indptr: list[int] = [0]
    indices: list[np.ndarray] = []
    data: list[np.ndarray] = []
    positions = lexical.positions(rowids) if lexical is not None else np.full(len(papers), -1)
    for paper, position in zip(papers, positions.tolist(), strict=True):
        if lexical is None:
            slots = np.unique([term_slot(t) for t in terms(f"{paper.title} {paper.abstract}")])
            weights = np.ones(len(slots), np.float32) / max(math.sqrt(len(slots)), 1.0)
        elif position >= 0:
            slots, weights = lexical.row(position)
        else:
            slots, weights = lexical.vectorize(f"{paper.title} {paper.abstract}")
        indices.append(np.asarray(slots, np.int64))
        data.append(np.asarray(weights, np.float32))
        indptr.append(indptr[-1] + len(slots))
    return sp.csr_matrix(
        (
            np.concatenate([np.zeros(0, np.float32), *data]),
            np.concatenate([np.zeros(0, np.int64), *indices]),
            indptr,
        ),
        shape=(len(papers), N_FEATURES),
    )


def _reduce_sparse(matrix: sp.csr_matrix) -> np.ndarray:
    """Tf-idf rows as unit vectors in their leading latent dimensions (an eigen-decomposition of the
    papers' n × n similarity matrix: the same projection as a truncated SVD, without sklearn)."""
    n = matrix.shape[0]
    gram = np.asarray((matrix @ matrix.T).toarray(), dtype=np.float64)
    values, vectors = np.linalg.eigh(gram)
    top = np.argsort(-values)[: min(DIMENSIONS * 2, n)]
    reduced = vectors[:, top] * np.sqrt(np.maximum(values[top], 0.0))
    reduced = _fix_signs(reduced.T).T
    norms = np.linalg.norm(reduced, axis=1, keepdims=True)
    return np.asarray(reduced / np.where(norms > 0, norms, 1.0))


def k_range(n: int) -> range:
    """The numbers of topics tried for ``n`` papers: from about √(n/4) to ``MAX_TOPICS`` (at least
    ``MIN_TOPIC`` papers each); ``range(1, 2)`` when there are too few papers for two topics."""
    if n < 2 * MIN_TOPIC:
        return range(1, 2)
    top = min(MAX_TOPICS, n // MIN_TOPIC)
    low = max(2, min(top, round(math.sqrt(n / 4))))
    return range(low, top + 1)


def clustered(
    vectors: np.ndarray, ks: range | None = None, book: PhraseBook | None = None
) -> tuple[np.ndarray, int]:
    """Topic numbers for papers' (reduced) vectors: k-means, k by silhouette and, given the papers'
    ``book``, by how many papers their refined topics' phrases name; then ``settle`` (see module). Also
    the papers ``settle`` moved out of topics no phrase names."""
    n = len(vectors)
    ks = ks or k_range(n)
    if ks.stop - ks.start == 1 and ks.start == 1:
        return np.zeros(n, np.int64), 0
    reduced = vectors
    with _one_thread():
        sample = (
            np.random.default_rng(SEED).permutation(n)[:SILHOUETTE_SAMPLE] if n > SILHOUETTE_SAMPLE else None
        )
        distances = _distances(reduced if sample is None else reduced[sample])
        tried = []
        for k in ks:
            labels = kmeans(reduced, k)
            tried.append((silhouette(distances, labels if sample is None else labels[sample]), labels))
    top = max(score for score, _ in tried)
    if book is None:
        # the fewest topics whose silhouette is within SLACK of the best (more topics barely scoring
        # higher are smaller, harder to name and crowd the map)
        return _absorbed(reduced, next(labels for score, labels in tried if score >= top - SLACK)), 0
    # among the partitions within NAME_SLACK of the best silhouette, each refined: the one leaving the
    # fewest papers in topics no phrase names (ties: the fewest topics, then the smaller k)
    fits = [
        refine(reduced, _absorbed(reduced, labels), book)
        for score, labels in tried
        if score >= top - NAME_SLACK
    ]
    best = min(fits, key=lambda labels: (unphrased(book, labels), int(labels.max())))
    settled, moved = settle(reduced, best, book)
    if unphrased(book, settled):  # groups no phrase names are left: they may split beyond MAX_TOPICS
        settled, more = settle(reduced, refine(reduced, settled, book, MOST_TOPICS), book)
        moved += more
    return settled, moved


def _absorbed(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels`` with each topic of fewer than ``MIN_GROUP`` papers (a few outliers k-means set apart,
    named by one paper's words) merged into the topic of the nearest centre, smallest first."""
    for _ in range(len(labels)):
        sizes = np.bincount(labels)
        small = [t for t in np.argsort(sizes, kind="stable").tolist() if 0 < sizes[t] < MIN_GROUP]
        others = [t for t in range(len(sizes)) if sizes[t] >= MIN_GROUP]
        if not small or not others:
            break
        members = np.flatnonzero(labels == small[0])
        labels = labels.copy()
        labels[members] = _nearest(vectors, labels, members, others)
        labels = _by_first(labels)
    return labels


def refine(vectors: np.ndarray, labels: np.ndarray, book: PhraseBook, most: int = MAX_TOPICS) -> np.ndarray:
    """``labels`` with each topic no phrase names split in two (k-means, or 2-means seeded by the papers
    holding one of its phrases; each part at least ``MIN_PART`` papers, at most ``most`` topics) or, when
    small (under ``MERGE_BELOW`` papers), merged into the topic of the nearest centre: of a topic's trials
    the one leaving the fewest papers in topics no phrase names, taken when that is fewer than before;
    until none is."""
    left = unphrased(book, labels)
    for _ in range(2 * most):  # each step splits or merges one topic: a few steps at most
        if not left:
            break
        unnamed = [t for t, _ in _unsettled(book, labels)]
        step: tuple[np.ndarray, int] | None = None
        for topic in unnamed:
            for trial, parts in _trials(vectors, labels, topic, book, most):
                # a trial none of whose changed topics a phrase names on its own is not worth naming whole
                names = _label_topics(book, trial, parts)
                if not any(_named(book, names[t][0]) for t in parts):
                    continue
                fewer = unphrased(book, trial)
                if fewer < (left if step is None else step[1]):
                    step = (trial, fewer)
            if step is not None:
                break
        if step is None:
            break
        labels, left = step
    return _by_first(labels)


def _trials(
    vectors: np.ndarray, labels: np.ndarray, topic: int, book: PhraseBook, most: int = MAX_TOPICS
) -> list[tuple[np.ndarray, set[int]]]:
    """The partitions ``refine`` tries for one topic, each with the topics it changes: split in two
    (k-means, then 2-means seeded by each of its best ``SEEDS`` phrases), merged into the nearest topic."""
    members = np.flatnonzero(labels == topic)
    count = int(labels.max()) + 1
    out: list[tuple[np.ndarray, set[int]]] = []
    if len(members) >= 2 * MIN_PART and count < most:
        halves = [kmeans(vectors[members], 2)]
        halves += [_seeded(vectors[members], holders) for holders in _seeds(book, labels, members)]
        for half in halves:
            if min(np.bincount(half, minlength=2)) >= MIN_PART:
                split = labels.copy()
                split[members[half == 1]] = count
                if not any(np.array_equal(split, o) for o, _ in out):
                    out.append((split, {topic, count}))
    others = [t for t in range(count) if t != topic and (labels == t).any()]
    if len(members) < MERGE_BELOW and others:
        merged = labels.copy()
        merged[members] = _nearest(vectors, labels, members, others)
        merged = _by_first(merged)
        out.append((merged, {int(merged[members[0]])}))
    return out


def _nearest(vectors: np.ndarray, labels: np.ndarray, members: np.ndarray, others: list[int]) -> int:
    """Of the topics ``others``, the one whose centre is nearest the centre of ``members``."""
    centre = vectors[members].mean(axis=0)
    gaps = [float(((vectors[labels == t].mean(axis=0) - centre) ** 2).sum()) for t in others]
    return others[int(np.argmin(gaps))]


def _seeds(book: PhraseBook, labels: np.ndarray, members: np.ndarray) -> list[np.ndarray]:
    """For a topic's ``members``: which of them hold each of its best ``SEEDS`` phrases (fit to name a
    topic, allowed, held by ``SEED_HOLDERS`` or more of them and by a larger share of them than of the
    other papers; most held first, ties by key), one boolean row per phrase."""
    mine = book.shared_holds[members]
    inside = np.asarray(mine.sum(axis=0)).ravel()
    total = np.asarray(book.shared_holds.sum(axis=0)).ravel()
    rest = max(len(labels) - len(members), 1)
    share, rest_share = inside / len(members), (total - inside) / rest
    fit = np.flatnonzero((inside >= SEED_HOLDERS) & (share >= CONTRAST * rest_share))
    cols = [j for j in fit.tolist() if book.words[book.shared[j]] >= 2 and book.allowed[book.shared[j]]]
    cols.sort(key=lambda j: (-int(inside[j]), book.keys[book.shared[j]]))
    rows = mine.tocsc()
    seeds = []
    for j in cols:
        if not _noun_phrase(book, book.keys[book.shared[j]]):
            continue
        held = np.zeros(len(members), bool)
        held[rows.indices[rows.indptr[j] : rows.indptr[j + 1]]] = True
        seeds.append(held)
        if len(seeds) == SEEDS:
            break
    return seeds


def _seeded(x: np.ndarray, held: np.ndarray, iterations: int = 10) -> np.ndarray:
    """2-means of ``x`` started from the centre of the ``held`` rows (part 1) and of the rest (part 0)."""
    parts = held.astype(np.int64)
    for _ in range(iterations):
        if parts.all() or not parts.any():
            break
        centres = np.stack([x[parts == 0].mean(axis=0), x[parts == 1].mean(axis=0)])
        new = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        if np.array_equal(new, parts):
            break
        parts = new
    return parts


def settle(vectors: np.ndarray, labels: np.ndarray, book: PhraseBook) -> tuple[np.ndarray, int]:
    """The last resort for a topic of fewer than ``KEEP_GROUP`` papers that no phrase names: merged into
    the topic of the nearest centre, else dissolved (each paper to the topic of the nearest other centre
    that is then still named by a phrase), when every topic receiving its papers is then named by a
    phrase and fewer papers are in topics no phrase names; the topic numbers and the papers moved."""
    moved = 0
    for _ in range(MOST_TOPICS):  # each pass removes one topic
        found = label_topics(book, labels)
        sizes = np.bincount(labels)
        left = unphrased(book, labels)
        lone = sorted(
            (t for t, (name, _) in found.items() if not _named(book, name) and sizes[t] < KEEP_GROUP),
            key=lambda t: (int(sizes[t]), t),
        )
        step = None
        for topic in lone:
            members = np.flatnonzero(labels == topic)
            others = [t for t in range(len(sizes)) if t != topic and sizes[t]]
            merged = labels.copy()
            merged[members] = _nearest(vectors, labels, members, others) if others else topic
            step = _received(book, _by_first(merged), members, left)
            centres = {t: vectors[labels == t].mean(axis=0) for t in others}
            for _ in range(DISSOLVE_TRIES):  # dissolved: the topics that lose their phrase take none
                if step is not None or not others:
                    break
                gaps = np.stack([((vectors[members] - centres[t]) ** 2).sum(axis=1) for t in others])
                dissolved = labels.copy()
                dissolved[members] = np.array(others)[gaps.argmin(axis=0)]
                trial = _by_first(dissolved)
                step = _received(book, trial, members, left)
                names = label_topics(book, trial)
                losing = {int(dissolved[i]) for i in members if not _named(book, names[int(trial[i])][0])}
                others = [t for t in others if t not in losing]
            if step is not None:
                moved += len(members)
                break
        if step is None:
            break
        labels = step
    return labels, moved


def claimed(
    vectors: np.ndarray, labels: np.ndarray, book: PhraseBook, movable: np.ndarray
) -> tuple[np.ndarray, int]:
    """``labels`` with each paper (of those ``movable``) of a topic that neither a phrase nor a category
    names joining the nearest topic (by centre) whose name it holds (a phrase it writes, a category it
    lists), while that topic stays within ``BLOB`` of the set: a paper on reinforcement learning in a group
    no phrase names is one of the day's "reinforcement learning" papers, not one of its other papers. Also
    the papers moved."""
    found = label_topics(book, labels, categories=True)
    named = sorted(t for t, (name, _) in found.items() if _named(book, name))
    if not named or len(named) == len(found):
        return labels, 0
    holders = np.zeros((len(labels), len(named)), bool)  # papers × named topics: holds its name
    for c, t in enumerate(named):
        name = found[t][0]
        if name.startswith(CATEGORY):
            j = book.categories.index(name.removeprefix(CATEGORY))
            column = book.listed[:, j].toarray().ravel() > 0
        else:
            column = np.zeros(len(labels), bool)
            column[_holding(book, name)] = True
        holders[:, c] = column
    centres = np.stack([vectors[(labels == t) & movable].mean(axis=0) for t in named])
    sizes = np.bincount(labels)[named]
    room = BLOB * len(labels)
    out = labels.copy()
    moved = 0
    for i in np.flatnonzero(movable & ~np.isin(labels, named)).tolist():
        fits = np.flatnonzero(holders[i] & (sizes + 1 <= room))
        if not fits.size:
            continue
        c = int(fits[np.argmin(((centres[fits] - vectors[i]) ** 2).sum(axis=1))])
        out[i] = named[c]
        sizes[c] += 1
        moved += 1
    return _by_first(out), moved


def _received(book: PhraseBook, trial: np.ndarray, members: np.ndarray, left: int) -> np.ndarray | None:
    """``trial`` when every topic holding one of ``members`` is named by a phrase and fewer papers than
    ``left`` are in topics no phrase names."""
    names = label_topics(book, trial)
    if all(_named(book, names[int(t)][0]) for t in set(trial[members].tolist())):
        return trial if unphrased(book, trial) < left else None
    return None


def kmeans(x: np.ndarray, k: int, seeds: int = N_INIT, iterations: int = 100) -> np.ndarray:
    """Lloyd's k-means from k-means++ starts (seeds 0 … ``seeds``-1), the lowest inertia kept."""
    best: tuple[float, np.ndarray] | None = None
    squares = (x * x).sum(axis=1)
    for seed in range(seeds):
        rng = np.random.default_rng(SEED + seed)
        centres = [x[int(rng.integers(len(x)))]]
        nearest = ((x - centres[0]) ** 2).sum(axis=1)
        for _ in range(1, k):
            total = float(nearest.sum())
            pick = int(rng.choice(len(x), p=nearest / total)) if total > 0 else int(rng.integers(len(x)))
            centres.append(x[pick])
            nearest = np.minimum(nearest, ((x - x[pick]) ** 2).sum(axis=1))
        c = np.stack(centres)
        labels = np.zeros(len(x), np.int64)
        for step in range(iterations):
            d = squares[:, None] - 2 * x @ c.T + (c * c).sum(axis=1)[None, :]
            new = d.argmin(axis=1)
            if step and np.array_equal(new, labels):
                break
            labels = new
            onehot = np.zeros((len(x), k))
            onehot[np.arange(len(x)), labels] = 1.0
            counts = onehot.sum(axis=0)
            sums = onehot.T @ x
            c = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], c)
        inertia = float(d[np.arange(len(x)), labels].sum())
        if best is None or inertia < best[0] - 1e-9:
            best = (inertia, labels)
    assert best is not None
    return _by_first(best[1])


def _by_first(labels: np.ndarray) -> np.ndarray:
    """Topics numbered 0, 1, … by their first paper: the same partition always gets the same numbers."""
    values, first = np.unique(labels, return_index=True)
    renumber = np.empty(int(values.max()) + 1 if len(values) else 0, np.int64)
    renumber[values[np.argsort(first)]] = np.arange(len(values))
    return np.asarray(renumber[labels], np.int64)


def _distances(x: np.ndarray) -> np.ndarray:
    squares = (x * x).sum(axis=1)
    return np.asarray(np.sqrt(np.maximum(squares[:, None] - 2 * x @ x.T + squares[None, :], 0.0)))


def silhouette(distances: np.ndarray, labels: np.ndarray) -> float:
    """The mean silhouette (Euclidean) of a partition, from the pairwise distances; -1 for one topic."""
    topics, labels = np.unique(labels, return_inverse=True)
    if len(topics) < 2:
        return -1.0
    onehot = np.zeros((len(labels), len(topics)))
    onehot[np.arange(len(labels)), labels] = 1.0
    sums = distances @ onehot
    counts = onehot.sum(axis=0)
    own = counts[labels]
    a = sums[np.arange(len(labels)), labels] / np.maximum(own - 1, 1)
    means = sums / counts[None, :]
    means[np.arange(len(labels)), labels] = np.inf
    b = means.min(axis=1)
    s = np.where(own > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def _one_thread() -> AbstractContextManager[object]:
    """BLAS on one thread: these products are small, and threads fighting over busy cores cost seconds."""
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    except ImportError:
        return nullcontext()
    limits: AbstractContextManager[object] = threadpool_limits(limits=1)
    return limits


def _fix_signs(axes: np.ndarray) -> np.ndarray:
    """Each axis (row) flipped so its largest component is positive: an eigenvector's sign is arbitrary."""
    signs = np.sign(axes[np.arange(len(axes)), np.abs(axes).argmax(axis=1)])
    return np.asarray(axes * np.where(signs == 0, 1.0, signs)[:, None])


def _principal(vectors: np.ndarray, dims: int, rows: np.ndarray) -> np.ndarray:
    """``vectors`` projected on the ``dims`` principal axes of the ``rows`` (a mask) among them (centred
    on their mean; signs fixed: deterministic)."""
    mean = vectors[rows].mean(axis=0)
    centred = vectors[rows] - mean
    values, axes = np.linalg.eigh(centred.T @ centred)
    top = np.argsort(-values)[:dims]
    return np.asarray((vectors - mean) @ _fix_signs(axes[:, top].T).T)


def _nearest_topic(tfidf: sp.csr_matrix, labels: np.ndarray, has: np.ndarray) -> np.ndarray:
    """For the papers without a vector: the topic whose papers' mean tf-idf row is most like theirs."""
    topics = sorted(set(labels[has].tolist()))
    centroids = sp.vstack([sp.csr_matrix(tfidf[np.flatnonzero(labels == t)].mean(axis=0)) for t in topics])
    similarity = (tfidf[np.flatnonzero(~has)] @ centroids.T).toarray()
    found: np.ndarray = np.array(topics)[similarity.argmax(axis=1)]
    return found


def layout(vectors: np.ndarray, labels: np.ndarray, has: np.ndarray) -> np.ndarray:
    """2-D positions in [0, 1]² (see module); papers without a vector sit near their topic's centre."""
    n = len(labels)
    if vectors.shape[1] < 2:  # two or three papers reduce to fewer than two dimensions: pad with zeros
        vectors = np.hstack([vectors, np.zeros((n, 2 - vectors.shape[1]))])
    topics = sorted(set(labels.tolist()))
    inside = vectors[has]
    mean = inside.mean(axis=0)
    centroids = np.stack(
        [vectors[(labels == t) & has].mean(axis=0) if ((labels == t) & has).any() else mean for t in topics]
    )
    sizes = np.array([float(((labels == t) & has).sum()) for t in topics])
    # between-topic spread weighted 3× over the papers' own: the axes that set the topics apart
    stacked = np.vstack([(centroids - mean) * 3.0 * np.sqrt(sizes)[:, None], inside - mean])
    values, eigen = np.linalg.eigh(stacked.T @ stacked)
    axes = _fix_signs(eigen[:, np.argsort(-values)[:2]].T)
    points = (vectors - mean) @ axes.T
    centres = (centroids - mean) @ axes.T
    where = {t: i for i, t in enumerate(topics)}
    centre_of = centres[[where[int(t)] for t in labels]]
    points = centre_of + PULL * (points - centre_of)
    spread = float(np.abs(points[has] - centre_of[has]).mean()) if has.any() else 0.0
    for i in np.flatnonzero(~has):  # no vector: a fixed jitter (from its position) around the centre
        h = zlib.crc32(str(i).encode())
        angle = (h % 3600) / 3600 * 2 * math.pi
        points[i] = centre_of[i] + spread * np.array([math.cos(angle), math.sin(angle)])
    low, high = points.min(axis=0), points.max(axis=0)
    span = np.where(high - low > 0, high - low, 1.0)
    return np.asarray((points - low) / span) if n > 1 else np.full((n, 2), 0.5)


@dataclass(slots=True)
class Memo:
    """What naming a set of papers' partitions finds once and looks up again (one per ``PhraseBook``)."""

    whole: dict[tuple[str, int], bool] = field(default_factory=dict)  # whether a paper writes a key as a
    # word of its own (``_whole``)
    forms: dict[str, str] = field(default_factory=dict)  # each key as its papers write it most (``shown``)
    runs: dict[int, list[str]] = field(default_factory=dict)  # a paper's runs of words (``_own``)
    longer: dict[str, list[int]] | None = None  # each phrase's columns of the keys it opens (``_cut_short``)
    # how often each word (as keys spell it) follows a determiner, precedes one, follows "to" (``_usage``)
    usage: tuple[Counter[str], Counter[str], Counter[str]] | None = None
    # a partition's ``label_topics`` (with categories or not)
    labelled: dict[tuple[bytes, bool], dict[int, tuple[str, tuple[str, ...]]]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PhraseBook:
    """A set of papers' candidate names: which paper holds which phrase (``name_keys``, one column each)."""

    keys: list[str]  # the phrases as ``name_keys`` spells them, one per column
    holds: sp.csr_matrix  # papers × keys: 1 where the paper holds the phrase
    words: np.ndarray  # words per key
    allowed: np.ndarray  # whether a key may name a topic (a lone word: in at most LABEL_MAX_DF of the store)
    written: list[frozenset[str]]  # each paper's phrases before plurals are folded (how names are shown)
    variants: dict[str, set[str]]  # each key's phrases before plurals are folded
    texts: list[str]  # each paper's title and abstract
    column: dict[str, int]  # each key's column
    shared: np.ndarray  # the keys two or more of the papers hold (only they name a topic of four or more)
    shared_holds: sp.csr_matrix  # ``holds`` of those keys
    holders: sp.csc_matrix  # ``holds`` by column (a key's papers)
    categories: list[str]  # the arXiv categories the papers list (canonical ids), one per column
    listed: sp.csr_matrix  # papers × categories: 1 where the paper lists the category
    memo: Memo = field(default_factory=Memo)


def phrase_book(lexical: Lexical | None, papers: Sequence[Doc]) -> PhraseBook:
    """The ``PhraseBook`` of ``papers`` (each text's phrases found once)."""
    texts = [f"{d.title}. {d.abstract}" for d in papers]  # no phrase runs from the title into the abstract
    written = [frozenset(phrases(_unhyphenated(text), NAME_WORDS)) for text in texts]
    column: dict[str, int] = {}
    variants: dict[str, set[str]] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, found in enumerate(written):
        held: set[str] = set()
        for p in found:
            key = term_key(p)
            variants.setdefault(key, set()).add(p)
            held.add(key)
        for key in held:
            rows.append(i)
            cols.append(column.setdefault(key, len(column)))
    keys = list(column)
    holds = _incidence(rows, cols, (len(papers), len(keys)))
    words = np.array([len(k.split()) for k in keys], np.int64)
    n_store = len(lexical) if lexical is not None else 0
    df = lexical.arrays["df"] if lexical is not None and n_store else None
    allowed = np.array(
        [
            w > 1 or df is None or _store_df(df, k) <= LABEL_MAX_DF * n_store
            for k, w in zip(keys, words, strict=True)
        ],
        bool,
    )
    categories, listed = _listed(papers)
    return PhraseBook(
        keys, holds, words, allowed, written, variants, texts, column, *_derived(holds), categories, listed
    )


def _listed(papers: Sequence[Doc]) -> tuple[list[str], sp.csr_matrix]:
    """The known arXiv categories ``papers`` list (canonical ids, ``math.IT`` as ``cs.IT``) and which
    paper lists which."""
    column: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, paper in enumerate(papers):
        for cat in {canonical(c) for c in paper.categories if category_name(c)}:
            rows.append(i)
            cols.append(column.setdefault(cat, len(column)))
    return list(column), _incidence(rows, cols, (len(papers), len(column)))


def _incidence(rows: list[int], cols: list[int], shape: tuple[int, int]) -> sp.csr_matrix:
    """A ``shape`` matrix of ones at (``rows[i]``, ``cols[i]``): which paper holds or lists what."""
    return sp.csr_matrix(
        (np.ones(len(rows)), (np.array(rows, np.int64), np.array(cols, np.int64))), shape=shape
    )


def _derived(holds: sp.csr_matrix) -> tuple[np.ndarray, sp.csr_matrix, sp.csc_matrix]:
    """A book's ``shared``, ``shared_holds`` and ``holders``, from its ``holds``."""
    shared = np.flatnonzero(np.asarray(holds.sum(axis=0)).ravel() >= 2)
    return shared, holds[:, shared].tocsr(), holds.tocsc()


def book_rows(book: PhraseBook, mask: np.ndarray) -> PhraseBook:
    """The book of the papers ``mask`` selects (all of them: the book itself, its lookups kept)."""
    if mask.all():
        return book
    rows = np.flatnonzero(mask)
    holds = book.holds[rows]
    shared, shared_holds, holders = _derived(holds)
    return replace(
        book,
        holds=holds,
        written=[book.written[i] for i in rows],
        texts=[book.texts[i] for i in rows],
        shared=shared,
        shared_holds=shared_holds,
        holders=holders,
        listed=book.listed[rows],
        memo=Memo(),
    )


def _holding(book: PhraseBook, key: str) -> list[int]:
    """The papers holding ``key``."""
    j = book.column[key]
    return [int(i) for i in book.holders.indices[book.holders.indptr[j] : book.holders.indptr[j + 1]]]


def _whole(book: PhraseBook, key: str, members: np.ndarray) -> bool:
    """Whether one of the ``members`` writes ``key`` as a word of its own (``fine`` of ``fine-grained``
    names nothing)."""
    for i in members.tolist():
        if (key, i) not in book.memo.whole:
            book.memo.whole[key, i] = any(_own(book, i, v) for v in book.variants[key] & book.written[i])
        if book.memo.whole[key, i]:
            return True
    return False


def _own(book: PhraseBook, i: int, phrase: str) -> bool:
    """Whether paper ``i`` writes ``phrase`` as words of their own: a word not inside a hyphenated
    compound, a phrase neither opening nor ending inside one (``resource languages`` of ``low-resource
    languages`` is half a phrase; ``multi-agent systems`` is whole)."""
    if i not in book.memo.runs:
        book.memo.runs[i] = [" ".join(run) for run in runs(book.texts[i])]
    words = phrase.split()
    if len(words) == 1:
        return any(f" {phrase} " in f" {run} " for run in book.memo.runs[i])
    pattern = r"(?<![\w-])" + r"(?:-|\s+)".join(re.escape(w) for w in words) + r"(?![\w-])"
    return any(re.search(pattern, run) for run in book.memo.runs[i])


def shown(book: PhraseBook, key: str) -> str:
    """``key`` as the book's papers holding it write it most often (ties: the last form in order; a key
    they do not hold: itself)."""
    if key.startswith(CATEGORY):
        return category_name(key.removeprefix(CATEGORY)) or key
    if key not in book.memo.forms:
        forms: Counter[str] = Counter()
        for i in _holding(book, key) if key in book.column else []:
            for p in book.variants[key] & book.written[i]:
                forms.update(_as_written(p, book.texts[i]))
        book.memo.forms[key] = max(forms, key=lambda f: (forms[f], f)) if forms else key
    return book.memo.forms[key]


def _half(book: PhraseBook, key: str) -> bool:
    """Whether a phrase is shown as one hyphenated compound (``high-resolution``, ``multi-agent``): a
    modifier, half a phrase, named by only when nothing else fits."""
    form = shown(book, key)
    return " " not in form and "-" in form


def _phrase_name(key: str) -> bool:
    """A phrase fit to name a topic: two or more words, none a verb or filler of every abstract
    (``consistently outperforms state-of-the-art`` names nothing), not all generic (``high quality``,
    ``state-of-the-art performance``), not opening with an adverb."""
    words = key.split()
    first = words[0]
    return (
        len(words) >= 2
        and not any(w in VERBS or w in FILLER for w in words)
        and not all(w in GENERIC or w in LONE_GENERIC or w in VAGUE for w in words)
        and not (first.endswith("ly") and not first.endswith(("aly", "ily")))
    )


def _noun_phrase(book: PhraseBook, key: str) -> bool:
    """A phrase fit to name a topic (``_phrase_name``) that reads as a noun phrase in the book's papers:
    no word used as a verb there (``_verbal``: ``analysis reveals``, ``write code``; a word in -ing is
    left to the next rule), no plural before another word (``scenarios spanning``, ``agents reuse
    information``: a clause; ``graphics``, ``series`` are no plurals), not opening with a count (``206
    movies``, ``5 pro`` of "Gemini 2.5 Pro"), not ending in a number, an adverb, a measure or a superlative
    (``gemini 1``, ``high-fidelity 3d``, ``agents increasingly``, ``percentage points``, ``performing
    best``), not ending in a verb's -s form (``text defines``: its papers write "to define", never "the
    define")."""
    if not _phrase_name(key):
        return False
    words = key.split()
    last = words[-1]
    if _NUMBER.fullmatch(last) or last in NUMBERS or (last.endswith("ly") and not last.endswith(ADVERB_LIKE)):
        return False
    if words[0].isdigit() or last in TAILS:
        return False
    if any(_verbal(book, w) for w in words if not w.endswith("ing")):
        return False
    form = shown(book, key).replace("-", " ").split()
    if any(_plural(a) for a in form[:-1]):
        return False
    return not (form[-1] != last and form[-1].endswith("s") and _infinitive(book, last))


def _plural(word: str) -> bool:
    """Whether a word as written reads as a plural (``agents``; not ``graphics``, ``series``, ``bias``)."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "ics", *SINGULAR_S))


def _infinitive(book: PhraseBook, word: str) -> bool:
    """Whether the book's papers write ``word`` (as keys spell it) after "to" and never after a
    determiner (``to define``: a verb)."""
    after, _, infinitive = _usage(book)
    return infinitive[word] >= 1 and not after[word]


def _cut_short(book: PhraseBook, name: str, mask: np.ndarray) -> bool:
    """Whether a phrase is a longer one cut short in the topic ``mask`` selects: ``CUT_SHORT`` of its
    papers there holding one phrase that opens with it (``large language`` where ``large language model``
    falls just short of a third: neither names the topic; ``gaussian splatting`` inside ``3d gaussian
    splatting`` is whole)."""
    if " " not in name:
        return False
    if book.memo.longer is None:  # each phrase of two or more words: the keys it opens
        opened: dict[str, list[int]] = {}
        for j, key in enumerate(book.keys):
            words = key.split()
            for end in range(2, len(words)):
                opened.setdefault(" ".join(words[:end]), []).append(j)
        book.memo.longer = opened
    longer = book.memo.longer.get(name)
    if not longer:
        return False
    held = [
        int(mask[book.holders.indices[book.holders.indptr[j] : book.holders.indptr[j + 1]]].sum())
        for j in longer
    ]
    mine = int(mask[_holding(book, name)].sum())
    return max(held) >= CUT_SHORT * mine > 0


def _taken(name: str, used: set[str]) -> bool:
    """Whether a name the day has used is ``name``, opens with it or is how it opens (``large language``
    beside ``large language model``: one name cut short), or is it but for generic words (``large
    language model`` beside ``language model``); ``vision language model`` beside ``language model``,
    ``speech recognition`` beside ``speech`` are names of their own."""
    if " " not in name:
        return name in used
    bare = _bare(name)
    return any(
        u == name or (" " in u and (u.startswith(f"{name} ") or name.startswith(f"{u} ") or _bare(u) == bare))
        for u in used
    )


def _bare(name: str) -> list[str]:
    """A name's words but its generic and vague ones (``large language model``, ``language model``:
    ``language``)."""
    return [w for w in name.split() if w not in GENERIC and w not in VAGUE] or name.split()


def _noun(book: PhraseBook, word: str) -> bool:
    """Whether the book's papers use a lone ``word`` as a noun: after a determiner at least once and at
    least as often as before one (not ``open``, ``exist``, ``reduce``), and not a number word."""
    after, before, _ = _usage(book)
    return word not in NUMBERS and after[word] >= 1 and after[word] >= before[word]


def _verbal(book: PhraseBook, word: str) -> bool:
    """Whether ``word`` (as keys spell it) is a verb: one of ``VERB_FORMS``, or one the book's papers
    write right before a determiner (``reveals the``, ``describe a``) three times or more
    and over twice as often as right after one (``the model``)."""
    after, before, _ = _usage(book)
    return word in VERB_FORMS or (before[word] >= 3 and before[word] > 2 * after[word])


def _usage(book: PhraseBook) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """How often each word (as keys spell it) of the book's papers follows a determiner
    (``DETERMINERS``), how often it precedes one (``LEADS``) and how often it follows "to", never across
    punctuation (``scenarios, the``); counted once per book."""
    if book.memo.usage is None:
        after: Counter[str] = Counter()
        before: Counter[str] = Counter()
        infinitive: Counter[str] = Counter()
        keyed: dict[str, str] = {}
        for text in book.texts:
            words = [keyed.get(p) or keyed.setdefault(p, term_key(p)) for p in pieces(text)]
            for a, b in pairwise(words):
                if not (a[0].isalnum() and b[0].isalnum()):  # never across punctuation
                    continue
                if a in DETERMINERS:
                    after[b] += 1
                elif a == "to":
                    infinitive[b] += 1
                if b in LEADS:
                    before[a] += 1
        book.memo.usage = (after, before, infinitive)
    return book.memo.usage


_NUMBER = re.compile(r"\d+(?:d|k|m|b|x|th|st|nd|rd)?")  # 1, 3d, 7b, 10x, 4th: a count or a measure, no head


def _phrase(name: str) -> bool:
    """Whether a topic's name (a key) is a phrase of two to five words."""
    return 2 <= len(name.split()) <= NAME_WORDS


def _named(book: PhraseBook, name: str) -> bool:
    """Whether a topic's name (a key) is a phrase of two to five words, not one hyphenated compound, or
    an arXiv category's name."""
    return name.startswith(CATEGORY) or (_phrase(name) and not _half(book, name))


def unphrased(book: PhraseBook, labels: np.ndarray) -> int:
    """Papers in topics (numbered as ``labels``) that no phrase of two to five words names (one hyphenated
    compound, ``fine-grained``, is half a phrase), those of unnamed topics counted twice."""
    sizes = np.bincount(labels)
    return sum(int(sizes[t]) * (1 + (not name)) for t, name in _unsettled(book, labels))


def _unsettled(book: PhraseBook, labels: np.ndarray) -> list[tuple[int, str]]:
    """The topics (numbered as ``labels``; largest first) ``refine`` works on, with their names: those no
    phrase names, and one holding over ``BLOB`` of a set big enough for two topics (most of the day in one
    topic draws no map)."""
    sizes = np.bincount(labels)
    n = len(labels)
    found = label_topics(book, labels)
    return sorted(
        (
            (t, name)
            for t, (name, _) in found.items()
            if not _named(book, name) or (n >= 2 * MIN_TOPIC and sizes[t] > BLOB * n)
        ),
        key=lambda item: (-int(sizes[item[0]]), item[0]),
    )


def label_topics(
    book: PhraseBook, labels: np.ndarray, categories: bool = False
) -> dict[int, tuple[str, tuple[str, ...]]]:
    """Each topic's name and key phrases (as keys; see module), largest topics choosing first; with
    ``categories``, a topic no phrase names may be named by an arXiv category (``CATEGORY`` + its id):
    the last naming, once the topics are formed (while they are, only phrases count)."""
    seen = (labels.astype(np.int64).tobytes(), categories)
    if seen not in book.memo.labelled:
        book.memo.labelled[seen] = _label_topics(book, labels, categories=categories)
    return dict(book.memo.labelled[seen])


def _label_topics(
    book: PhraseBook, labels: np.ndarray, only: set[int] | None = None, categories: bool = False
) -> dict[int, tuple[str, tuple[str, ...]]]:
    """``label_topics``; given ``only``, just those topics, each as if it chose first."""
    n = len(labels)
    sizes = np.bincount(labels)
    topics = [t for t in range(len(sizes)) if sizes[t]]
    onehot = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(len(sizes), n))
    # a key one paper holds is in a third of a topic of three papers at most: without such topics, only
    # the shared keys are counted (the same names, a fraction of the work)
    small = min(int(sizes[t]) for t in topics) <= 3
    cols = np.arange(len(book.keys)) if small else book.shared
    counts = np.asarray((onehot @ (book.holds if small else book.shared_holds)).toarray())  # topics × keys
    total = counts.sum(axis=0)
    listed = np.asarray((onehot @ book.listed).toarray()) if categories else None  # topics × categories
    listed_total = listed.sum(axis=0) if listed is not None else None
    average = n / max(len(topics), 1)  # c-TF-IDF's A: papers per topic
    boost = 1.0 + 0.25 * (book.words[cols] - 1)  # longer phrases favoured
    allowed = book.allowed[cols]
    order = sorted(topics, key=lambda t: (-int(sizes[t]), t))
    used: set[str] = set()
    found: dict[int, tuple[str, tuple[str, ...]]] = {}
    for topic in order:
        if only is not None and topic not in only:
            continue
        size = int(sizes[topic])
        inside_counts = counts[topic]
        share = inside_counts / size
        rest_share = (total - inside_counts) / max(n - size, 1)
        # in a third of the topic, distinctive (rarer in the rest of the set), allowed
        fit = np.flatnonzero(
            allowed & (share >= MIN_SHARE) & (share >= CONTRAST * rest_share) & (rest_share < MIN_SHARE)
        )
        # c-TF-IDF over phrases: the share of the topic's papers × log(1 + A / papers of the set with it)
        weight = share[fit] * np.log(1 + average / total[fit]) * share[fit] / (share[fit] + rest_share[fit])
        score = {
            book.keys[cols[j]]: float(w * boost[j])
            for j, w in zip(fit.tolist(), weight.tolist(), strict=True)
        }
        inside = Counter({book.keys[cols[j]]: int(inside_counts[j]) for j in fit.tolist()})
        ranked = sorted(score, key=lambda k: (-score[k], k))
        picked: list[str] = []
        for key in ranked:
            if key in used or any(f" {key} " in f" {p} " or f" {p} " in f" {key} " for p in picked):
                continue
            picked.append(key)
            if len(picked) == TERMS:
                break
        # the label: the best phrase of two to five words (a phrase inside a longer qualifying one that
        # nearly as many papers hold is that longer one); else the best nameable word; one per day
        label = _label(
            book,
            ranked,
            score,
            inside,
            used,
            labels == topic,
            _categories(book, listed[topic], listed_total, size, n)
            if listed is not None and listed_total is not None
            else [],
        )
        if label and label not in picked:
            picked = [label, *[p for p in picked if f" {p} " not in f" {label} "]][:TERMS]
        if label:
            used.add(label)
        found[topic] = (label, tuple(picked))
    return found


def _categories(book: PhraseBook, inside: np.ndarray, total: np.ndarray, size: int, n: int) -> list[str]:
    """The category keys (``CATEGORY`` + id) that may name a topic of ``size`` papers listing each
    category ``inside`` times (of ``total`` in the set of ``n``): listed by at least a third of its papers,
    at least ``CATEGORY_CONTRAST`` times as large a share as of the rest; best first (share × share /
    (share + share in the rest), ties by id)."""
    share = inside / size
    rest = (total - inside) / max(n - size, 1)
    fit = np.flatnonzero((share >= MIN_SHARE) & (share >= CATEGORY_CONTRAST * rest))
    weight = {j: float(share[j] * share[j] / (share[j] + rest[j])) for j in fit.tolist()}
    return [
        CATEGORY + book.categories[j] for j in sorted(weight, key=lambda j: (-weight[j], book.categories[j]))
    ]


def _label(
    book: PhraseBook,
    ranked: list[str],
    score: dict[str, float],
    inside: Counter[str],
    used: set[str],
    mask: np.ndarray,
    categories: Sequence[str] = (),
) -> str:
    """A topic's name from its qualifying keys (best first; see module): the first phrase of two to five
    words fit to name it (inside a longer qualifying one nearly as many papers hold: that one), else the
    first of ``categories`` (the arXiv categories a third of its papers list, rarer elsewhere), one shown
    as a hyphenated compound only after those (it extends to the best qualifying phrase holding it), else
    the first word fit to stand alone; none the day has used; ``""`` when none fits."""
    seen: set[str] = set()
    halves: list[str] = []
    for key in ranked:
        name = _longest(key, score, inside)
        if name in seen or _taken(name, used):
            continue
        seen.add(name)
        if not _noun_phrase(book, name) or not _whole(book, name, np.flatnonzero(mask)):
            continue
        if _cut_short(book, name, mask):
            continue
        if not _half(book, name):
            return name
        padded = f" {name} "
        longer = [
            k
            for k in ranked
            if len(k) > len(name)
            and padded in f" {k} "
            and k not in used
            and _noun_phrase(book, k)
            and not _half(book, k)
        ]
        if longer:
            return longer[0]
        halves.append(name)
    for key in categories:
        if key not in used:
            return key
    if halves:
        return halves[0]
    words = [k for k in dict.fromkeys(_longest(k, score, inside) for k in ranked) if not _taken(k, used)]
    found = [k for k in words if _nameable(k) and (_noun_phrase(book, k) if " " in k else _noun(book, k))]
    if found:
        mine = np.flatnonzero(mask)
        found = [k for k in found if _whole(book, k, mine)]
    return found[0] if found else ""


def name_topics(
    book: PhraseBook, papers: Sequence[Doc], labels: np.ndarray, namer: Namer | None = None
) -> tuple[list[Topic], np.ndarray]:
    """Each topic (numbered as ``labels``) with its papers and its key phrases (see module), and the
    topic numbers of the papers once the groups no phrase names are pooled (``_pooled``)."""
    found = label_topics(book, labels, categories=True)
    named = _model_names(namer, book, papers, labels, found) if namer is not None else None
    if named is not None:  # the configured model names the topics (it got each topic's phrases and titles)
        found = named
    else:  # the groups no phrase or category names are the day's other papers: one unnamed group
        labels, found = _pooled(book, labels, found)
    keys = {k for _, ks in found.values() for k in ks}

    def form(key: str) -> str:
        return shown(book, key) if key in keys else key

    def written(term: str, members: np.ndarray) -> bool:
        """Whether a paper of the topic writes the term (not only as a piece of a hyphenated word)."""
        return any(occurs(term, f"{papers[int(i)].title} {papers[int(i)].abstract}") for i in members)

    topics = []
    for t in sorted(found):
        members = np.flatnonzero(labels == t)
        label = form(found[t][0])
        # the day's commonest form of the name may be one no paper of the topic writes (a plural): then the
        # form a paper of the topic writes
        if label and category_named(label) is None and not written(label, members):
            texts = [f"{papers[int(i)].title} {papers[int(i)].abstract}" for i in members]
            label = _written_form(label, texts)
        terms = [form(k) for k in found[t][1]]
        terms = [label if label and name_key(k) == name_key(label) else k for k in terms]
        terms = [k for k in terms if k == label or written(k, members)]
        topics.append(Topic(label, tuple(terms), tuple(papers[int(i)].id for i in members)))
    return topics, labels


def _written_form(label: str, texts: list[str]) -> str:
    """``label`` as one of ``texts`` writes it as a phrase of its own (the same name key: a plural, a
    hyphen), or ``label`` when none does."""
    key = name_key(label)
    for text in texts:
        for p in phrases(text, NAME_WORDS):
            if name_key(p) == key and len(p.split()) == len(label.split()) and occurs(p, text):
                return p
    return label


def _pooled(
    book: PhraseBook, labels: np.ndarray, found: dict[int, tuple[str, tuple[str, ...]]]
) -> tuple[np.ndarray, dict[int, tuple[str, tuple[str, ...]]]]:
    """``labels`` and ``found`` with every topic that no phrase of two to five words or arXiv category
    names (a lone word, one hyphenated compound, nothing) pooled into one unnamed topic, the day's other
    papers: its terms are those topics' names (largest first), never a name of its own."""
    sizes = np.bincount(labels)
    rest = sorted(
        (t for t, (name, _) in found.items() if not _named(book, name)), key=lambda t: (-sizes[t], t)
    )
    if not rest:
        return labels, found
    pooled = labels.copy()
    pooled[np.isin(labels, rest)] = rest[0]
    pooled = _by_first(pooled)
    words = [name or next(iter(terms), "") for name, terms in (found[t] for t in rest)]  # each one's word
    renumber = {t: int(pooled[np.flatnonzero(labels == t)[0]]) for t in found if t not in rest[1:]}
    out = {renumber[t]: found[t] for t in found if t not in rest}
    out[renumber[rest[0]]] = ("", tuple(dict.fromkeys(w for w in words if w))[:TERMS])
    return pooled, out


def name_keys(text: str) -> set[str]:
    """The phrases a topic may be named by in ``text`` (one to ``NAME_WORDS`` words, hyphens read as
    spaces so ``vision-language model`` holds ``language model``), plurals folded: what "a paper holds the
    name" means for the one-third rule."""
    return {term_key(p) for p in phrases(_unhyphenated(text), NAME_WORDS)}


def name_key(label: str) -> str:
    """A topic's name as ``name_keys`` spells it (``Multi-Agent Systems`` → ``multi agent system``)."""
    return term_key(" ".join(_unhyphenated(fold(label)).split()))


_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


def _unhyphenated(text: str) -> str:
    """Hyphens between words as spaces, except in a compound holding a stop word (``chain-of-thought``
    stays one word: split, it would be two fragments)."""

    def split(match: re.Match[str]) -> str:
        parts = match.group(0).split("-")
        return match.group(0) if any(p.lower() in STOP_WORDS for p in parts) else " ".join(parts)

    return _COMPOUND.sub(split, text)


def _as_written(phrase: str, text: str) -> list[str]:
    """``phrase`` (found in the unhyphenated text) as ``text`` writes it: with its hyphens where it has
    them (``multi agent`` → ``multi-agent``), lower-cased and accent-folded as phrases are."""
    pattern = r"\b" + r"(?:-|\s+)".join(re.escape(w) for w in phrase.split()) + r"\b"
    found = re.findall(pattern, fold(text))
    return [re.sub(r"\s+", " ", f) for f in found] or [phrase]


def _longest(key: str, score: dict[str, float], inside: Counter[str]) -> str:
    """``key``, or the longest qualifying phrase holding it that at least ``EXTEND`` of its papers hold
    (``large language`` → ``large language model``)."""
    padded = f" {key} "
    longer = [
        k for k in score if len(k) > len(key) and padded in f" {k} " and inside[k] >= EXTEND * inside[key]
    ]
    return max(longer, key=lambda k: (len(k.split()), inside[k], k)) if longer else key


def _store_df(df: np.ndarray, key: str) -> int:
    """Papers of the store holding a phrase, at most: its word's count, or its rarest adjacent pair's (the
    lexical arrays hold words and pairs; hash collisions only ever raise the count)."""
    words = key.split()
    if len(words) == 1:
        return int(df[term_slot(words[0])])
    return min(int(df[term_slot(f"{a} {b}")]) for a, b in pairwise(words))


def _model_names(
    namer: Namer,
    book: PhraseBook,
    papers: Sequence[Doc],
    labels: np.ndarray,
    found: dict[int, tuple[str, tuple[str, ...]]],
) -> dict[int, tuple[str, tuple[str, ...]]] | None:
    """Labels from ``namer`` (one per topic, in topic order, given its phrases as its papers write them,
    a category by its name, and its first titles); the phrases stay; ``None`` when it fails (ours name
    the topics)."""
    topics = sorted(found)
    asked = [
        (
            [shown(book, k) for k in found[t][1]],
            [papers[int(i)].title for i in np.flatnonzero(labels == t)][:12],
        )
        for t in topics
    ]
    try:
        names = namer(asked)
    except Exception:  # a model that fails names nothing: the phrases name the topics
        return None
    if len(names) != len(topics):
        return None
    return {t: (name.strip()[:60] or found[t][0], found[t][1]) for t, name in zip(topics, names, strict=True)}


def term_key(term: str) -> str:
    """A term with plural words made singular (``"language models"`` → ``"language model"``): a topic's
    papers "contain" a label term in either form."""
    return " ".join(
        w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w for w in term.split()
    )


def _nameable(term: str) -> bool:
    """A word fit to name a topic alone: letters only, four or more, not generic (``GENERIC``,
    ``LONE_GENERIC``), not a participle, an adverb or an adjective (``compared``, ``largely``,
    ``natural``: no LaTeX fragments, variables, verbs or half phrases)."""
    return all(
        len(w) >= 4
        and w.isalpha()
        and w not in GENERIC
        and w not in FILLER
        and w not in LONE_GENERIC
        and not w.endswith(("ed", "ly", *ADJECTIVE_ENDINGS))
        for w in term_key(term).split()
    )
