"""Daily Papers for one reader: the day's new papers ranked by the reader's library and interests, and why.

A reader's library (papers liked, saved or marked "not for me", each with the day it was added) and their
followed authors, categories and keywords make a ``Profile``. ``recommend`` scores each candidate paper by
the weighted sum of its library signals (``combine``; ``WEIGHTS`` below ``SVM_MIN_LIKED`` liked papers,
``WEIGHTS_LARGE`` from there on) plus 1.0 when it is in a followed category:

    fewer than 3 liked: 0.14 · z(model) + 0.41 · z(dense) + 0.41 · z(dense_max) + 0.45 · z(lexical)
                        + 2.06 · authors + 2.0 · category
    3 or more liked:    1.08 · z(svm) + 0.51 · z(lexical) + 0.05 · z(model) + 1.29 · authors + 2.0 · category

where z(·) standardises a signal over the candidates, so that each counts in the same units whatever the
library's size (``authors`` and ``category`` are raw). Papers by followed authors come first (two or more
of them before one), each group in score order; ties keep the order the candidates came in. The signals:

* model: a per-reader linear discriminant on the dense vectors, w = (Σ + λI)⁻¹ (μ_liked − μ_all),
  with μ_all and Σ the mean and covariance of a fixed random sample of the store (``BACKGROUND`` papers),
  and "not for me" papers pulling w away from themselves. Closed form (one 384×384 solve), and it discounts
  what every paper of a field shares.
* svm: from ``SVM_MIN_LIKED`` liked papers on, a per-reader linear SVM (scikit-learn's LinearSVC, C
  ``SVM_C``, balanced classes, items weighted as below) on the tf-idf row beside the dense vector: liked
  papers against the background sample and the "not for me" ones.
* dense / lexical: the mean of the ``NEAREST`` highest weighted similarities to liked papers (a reader with
  several interests is matched on each), minus the highest similarity to a "not for me" paper; dense_max:
  the highest alone. Dense similarities are cosines of the vectors centred on μ_all; tf-idf ones the
  lexical arrays' cosine. Topical closeness (the dense signals, the SVM) outweighs a lexical match on one
  rare word: three liked LoRA papers put unseen LoRA papers above a tensor-network paper that shares
  "singular values" and "low-rank" with them (``tests/test_recommend_topical.py``).
* authors: authors shared with liked papers (at most ``MAX_SHARED_AUTHORS``); category: the liked share of
  the candidate's primary category.
* library items weigh ``0.5 ** (age / HALF_LIFE_DAYS)``, and half that when only saved (rating 0).

The weights are the coefficients of a logistic regression of "a hidden reference or not" on these signals
of each candidate, fitted on the tune half of the simulated readers of ``papersift eval recommend`` (see
``evaluate``; libraries of 1, 3, 10 and 30 papers; ``bench/recommend_features.py``,
``bench/tune_recommend.py``), one fit per regime, none negative (the large regime's dense similarities,
which the SVM's features already hold, fit below zero and are left out); the held-out half checks them.
The fit replaced a grid search of nDCG@10 that chased the tune half's noise (held-out nDCG@10 .666 → .681,
at or above arxiv-sanity-lite's SVM at every size). ``category`` stays at 2.0 in place of the fit's 6:
from 1 to 6 it changes the tune readers' nDCG@10 by under 0.001, and a larger prior would put any paper of
a liked category above a much closer one of the reader's other categories. Candidate dates are never used:
the day's papers share one.

Keywords: a paper with any ``never`` word or phrase is dropped; when ``must`` words are given, a paper needs
one of them (whole words, case-insensitive, in title or abstract). With an empty library (or no index built
yet) papers are ordered by followed authors, then followed categories, then the order they came in.
``papers`` (the candidates' records) is read from the store when the caller does not pass it; library items
and candidates without a stored vector are embedded here (the encoder loads on first use).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import scipy.sparse as sp

from papersift.index.encoder import paper_text
from papersift.index.indexes import Indexes
from papersift.index.lexical import N_FEATURES, Lexical, term_slot
from papersift.ranking.phrases import phrases, reason_phrases, word_rarity
from papersift.records.messages import Message, say
from papersift.records.names import AuthorSet
from papersift.records.paper import Paper

WEIGHTS: Mapping[str, float] = {  # library signals (``_Library.features``), under ``SVM_MIN_LIKED`` liked
    "model": 0.14,
    "dense": 0.41,
    "dense_max": 0.41,
    "lexical": 0.45,
    "authors": 2.06,
    "category": 2.0,
}
WEIGHTS_LARGE: Mapping[str, float] = {  # from ``SVM_MIN_LIKED`` liked items on, the per-reader SVM among them
    "svm": 1.08,
    "lexical": 0.51,
    "model": 0.05,
    "authors": 1.29,
    "category": 2.0,
}
RAW = frozenset({"authors", "category"})  # signals weighed as they are (the others standardised)
W_FOLLOWED_CATEGORY = 1.0
SVM_MIN_LIKED = 3  # the per-reader SVM from this many liked items on
SVM_C = 0.01
SVM_DENSE = 1.0  # the dense vectors' scale beside the (unit) tf-idf rows in the SVM's features
MAX_SHARED_AUTHORS = 3
MAX_FOLLOWED_AUTHORS = 2
NEAREST = 3  # liked papers averaged per candidate
SHRINK = 0.03  # λ: ridge on the background covariance
BACKGROUND = 2000  # random stored papers that stand for "everything"
HALF_LIFE_DAYS = 730.0
SAVED_WEIGHT = 0.5
CLOSEST_SHOWN = 3
REASONS_CLOSEST = 1  # of them named in ``reasons``: the closest library paper
DISTINCTIVE_DF = 0.005  # a single word named as a shared term is in at most this share of the papers
REASONS_MIN_SIMILARITY = 0.25  # below this a library paper is not "close" enough to be named


@dataclass(frozen=True, slots=True)
class LibraryItem:
    """One thing the reader saved or rated."""

    rowid: int | None  # the paper's store rowid when it is an arXiv paper in the store, else None
    text: str  # title + abstract (used when rowid is None, e.g. a Zotero item not on arXiv)
    authors: tuple[str, ...]
    rating: int  # +1 liked / 0 saved / -1 "not for me"
    added: datetime  # when it entered the library (recency weighting)
    title: str = ""


@dataclass(frozen=True, slots=True)
class Profile:
    """What the reader's Daily Papers are ranked by."""

    items: tuple[LibraryItem, ...]
    categories: tuple[str, ...] = ()  # followed categories (cold start: these alone are enough)
    authors: tuple[str, ...] = ()  # followed authors
    must: tuple[str, ...] = ()  # keywords: a paper must contain at least one (if any given)
    never: tuple[str, ...] = ()  # keywords: a paper containing any is dropped


@dataclass(frozen=True, slots=True)
class Recommendation:
    """One recommended paper, its score and the evidence behind it."""

    rowid: int
    score: float
    closest: tuple[tuple[int | None, str, float], ...]  # library items it is closest to: (rowid, title, sim)
    terms: tuple[str, ...]  # shared key terms with the liked library
    followed_authors: tuple[str, ...]
    library_authors: tuple[str, ...] = ()  # its authors who also wrote papers in the library
    followed_category: str = ""

    def reasons(self) -> list[Message]:
        out: list[Message] = []
        if self.followed_authors:
            out.append(say("followed_authors", authors=", ".join(self.followed_authors)))
        if self.library_authors:
            out.append(say("library_authors", authors=", ".join(self.library_authors)))
        shown = [c for c in self.closest[:REASONS_CLOSEST] if c[2] >= REASONS_MIN_SIMILARITY]
        if shown:
            titles = "; ".join(f"“{_cut(title, 70)}” ({sim:.2f})" for _, title, sim in shown)
            out.append(say("close_to", titles=titles))
        if self.terms:
            out.append(say("shared_terms", terms=", ".join(self.terms)))
        if self.followed_category:
            out.append(say("followed_category", category=self.followed_category))
        return out


def keyword_pattern(words: Sequence[str]) -> re.Pattern[str] | None:
    """Any of ``words`` (phrases allowed) as a whole-word, case-insensitive pattern; None when none given."""
    parts = ["\\s+".join(map(re.escape, w.split())) for w in words if w.split()]
    if not parts:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


def passes(paper: Paper, must: re.Pattern[str] | None, never: re.Pattern[str] | None) -> bool:
    """Whether a paper survives the keyword filters (see ``keyword_pattern``)."""
    text = f"{paper.title}\n{paper.abstract}"
    if never is not None and never.search(text):
        return False
    return must is None or must.search(text) is not None


def recommend(
    indexes: Indexes,
    profile: Profile,
    candidates: Sequence[int],
    *,
    k: int = 20,
    now: datetime | None = None,
    papers: Mapping[int, Paper] | None = None,
) -> list[Recommendation]:
    """The ``k`` best of ``candidates`` (store rowids) for the reader, best first (see the module doc);
    papers already in the library are never among them."""
    saved = {i.rowid for i in profile.items if i.rowid is not None}  # never recommend what is saved
    order = [r for r in dict.fromkeys(int(r) for r in candidates) if r not in saved]
    if papers is None:
        papers = indexes.store.by_rowids(order)
    must, never = keyword_pattern(profile.must), keyword_pattern(profile.never)
    order = [r for r in order if r in papers and passes(papers[r], must, never)]
    if not order or k <= 0:
        return []
    cands = [papers[r] for r in order]
    followed = _followed_authors(cands, profile.authors)
    category = _followed_category(cands, profile.categories)
    score = W_FOLLOWED_CATEGORY * np.array([bool(c) for c in category], np.float64)
    lib = None
    if profile.items and (indexes.dense is not None or indexes.lexical is not None):
        lib = _Library(indexes, profile, now or datetime.now(UTC), order)
        score += lib.score(order, cands)
    # followed authors first (more of them first), then by score, then in the order given
    follows = np.array([min(len(f), MAX_FOLLOWED_AUTHORS) for f in followed])
    top = np.lexsort((np.arange(len(order)), -score, -follows))[:k]
    if lib is None:
        return [Recommendation(order[i], float(score[i]), (), (), followed[i], (), category[i]) for i in top]
    return [lib.explain(order[i], cands[i], float(score[i]), followed[i], category[i]) for i in top]


def combine(features: Mapping[str, np.ndarray], liked: int) -> np.ndarray:
    """The weighted sum of a candidate's library signals (``WEIGHTS``, or ``WEIGHTS_LARGE`` from
    ``SVM_MIN_LIKED`` liked items on; standardised ones through ``_z``); ``liked``: how many liked items the
    library holds."""
    total = np.zeros(len(next(iter(features.values())))) if features else np.zeros(0)
    weights = WEIGHTS_LARGE if liked >= SVM_MIN_LIKED else WEIGHTS
    for name, values in features.items():
        weight = weights.get(name, 0.0)
        if weight:
            total += weight * (values if name in RAW else _z(values))
    return total


def _followed_authors(cands: list[Paper], followed: Sequence[str]) -> list[tuple[str, ...]]:
    names = AuthorSet(followed)
    return [names.shared(p.authors) for p in cands]


def _followed_category(cands: list[Paper], followed: Sequence[str]) -> list[str]:
    """The candidate's primary category when it is followed (a class, or its whole archive)."""
    out = []
    for p in cands:
        primary = p.primary_category
        hit = any(primary == c or primary.startswith(c + ".") for c in followed) if primary else False
        out.append(primary if hit else "")
    return out


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _z(values: np.ndarray) -> np.ndarray:
    """Standard scores over the candidates (zeros when they do not differ).

    Not clipped: a paper far above the rest should stay there (clipping at ±3 cost 0.014 nDCG@10 on the
    tune readers)."""
    std = float(values.std())
    return (values - values.mean()) / std if std > 1e-9 else np.zeros_like(values)


def _rows(lex: Lexical, rowids: Sequence[int], texts: Sequence[str]) -> sp.csr_matrix:
    """tf-idf rows of papers: the stored row where the arrays hold the paper, else vectorised ``texts``."""
    positions = lex.positions(np.asarray(rowids, dtype=np.int64)) if len(lex) else np.full(len(rowids), -1)
    slots: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for position, text in zip(positions.tolist(), texts, strict=True):
        s, w = lex.row(position) if position >= 0 else lex.vectorize(text)
        slots.append(s)
        weights.append(w)
    indptr = np.zeros(len(slots) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in slots], out=indptr[1:])
    indices = np.concatenate(slots) if slots else np.zeros(0, np.int32)
    data = np.concatenate(weights) if weights else np.zeros(0, np.float32)
    return sp.csr_matrix((data, indices, indptr), shape=(len(slots), N_FEATURES))


class _Library:
    """The profile's items as vectors, tf-idf rows, weights, authors and categories, ready to score with."""

    def __init__(self, indexes: Indexes, profile: Profile, now: datetime, exclude: Sequence[int]) -> None:
        self.indexes = indexes
        self.items = profile.items
        now = _aware(now)
        ages = np.array([max((now - _aware(i.added)).total_seconds() / 86400, 0.0) for i in self.items])
        rating = np.array([i.rating for i in self.items])
        self.weights = 0.5 ** (ages / HALF_LIFE_DAYS) * np.where(rating == 0, SAVED_WEIGHT, 1.0)
        self.liked, self.disliked = rating >= 0, rating < 0
        texts = [i.text or i.title for i in self.items]
        rowids = [i.rowid if i.rowid is not None else -1 for i in self.items]
        lex = indexes.lexical
        self.vectors = self._vectors(rowids, texts) if indexes.dense is not None else None
        self.rows = _rows(lex, rowids, texts) if lex is not None else None
        self.background = self._background(set(exclude) | {r for r in rowids if r >= 0})
        self.authors = AuthorSet(
            a for i, ok in zip(self.items, self.liked, strict=True) if ok for a in i.authors
        )
        self.category_share: dict[int, float] = {}  # primary category code → weighted share of liked items
        if lex is not None and len(lex):
            positions = lex.positions(np.asarray(rowids, dtype=np.int64))
            known = self.liked & (positions >= 0)
            total = float(self.weights[known].sum())
            for code, weight in zip(lex.primary[positions[known]].tolist(), self.weights[known], strict=True):
                self.category_share[code] = self.category_share.get(code, 0.0) + float(weight) / total
        # the candidates' side, set by ``score`` for ``explain``
        self.position: dict[int, int] = {}
        self.sims: np.ndarray = np.zeros((0, len(self.items)))
        self.candidate_rows: sp.csr_matrix | None = None
        self._phrases: dict[int, set[str]] = {}  # library item → its phrases (``explain``)

    def _vectors(self, rowids: Sequence[int], texts: Sequence[str]) -> np.ndarray:
        """Stored vectors; papers without one (outside items, not yet embedded) are embedded here."""
        dense = self.indexes.dense
        assert dense is not None
        vectors = dense.vectors(np.asarray(rowids, dtype=np.int64))
        missing = [i for i in range(len(rowids)) if not np.any(vectors[i])]
        if missing:
            unique = list(dict.fromkeys(texts[i] for i in missing))  # one encoding per text per call
            encoded = dict(zip(unique, self.indexes.encoder().encode(unique), strict=True))
            for i in missing:
                vectors[i] = encoded[texts[i]]
        return vectors

    def _background(self, exclude: set[int]) -> np.ndarray:
        """Vectors of a fixed random sample of stored papers (not the candidates or the library)."""
        lex, dense = self.indexes.lexical, self.indexes.dense
        if lex is None or dense is None or not len(lex):
            self.background_keys = np.zeros(0, np.int64)
            return np.zeros((0, 0), np.float32)
        rng = np.random.default_rng(0)
        picked = lex.keys[rng.permutation(len(lex))[: BACKGROUND + len(exclude)]]
        keys = np.array([r for r in picked.tolist() if r not in exclude][:BACKGROUND], dtype=np.int64)
        vectors = dense.vectors(keys)
        stored = np.any(vectors, axis=1)
        self.background_keys = keys[stored]
        return vectors[stored]

    def score(self, order: list[int], cands: list[Paper]) -> np.ndarray:
        """The library's part of each candidate's score: ``combine`` of its ``features``."""
        return combine(self.features(order, cands), int(self.liked.sum()))

    def features(self, order: list[int], cands: list[Paper]) -> dict[str, np.ndarray]:
        """Each signal of the module doc, per candidate, before weighting."""
        self.position = {r: i for i, r in enumerate(order)}
        out: dict[str, np.ndarray] = {}
        parts: list[np.ndarray] = []
        vectors = None
        if self.vectors is not None:
            vectors = self._vectors(order, [paper_text(p.title, p.abstract) for p in cands])
            parts.append(vectors @ self.vectors.T)
            near = vectors, self.vectors
            if len(self.background) > 1:
                mean = self.background.mean(axis=0)
                out["model"] = vectors @ self._discriminant(mean)
                near = _unit(vectors - mean), _unit(self.vectors - mean)
            centred = near[0] @ near[1].T
            out["dense"] = self._nearest(centred)
            out["dense_max"] = self._nearest(centred, 1)
        lex = self.indexes.lexical
        if lex is not None and self.rows is not None:
            self.candidate_rows = _rows(lex, order, [f"{p.title} | {p.abstract}" for p in cands])
            parts.append(np.asarray((self.candidate_rows @ self.rows.T).todense()))
            out["lexical"] = self._nearest(parts[-1])
            codes = {c: i for i, c in enumerate(lex.categories)}
            out["category"] = np.array(
                [self.category_share.get(codes.get(p.primary_category, -1), 0.0) for p in cands]
            )
            if vectors is not None and self.liked.sum() >= SVM_MIN_LIKED:
                out["svm"] = self._svm(vectors, self.candidate_rows)
        out["authors"] = np.array(
            [min(len(self._shared_authors(p)), MAX_SHARED_AUTHORS) for p in cands], float
        )
        self.sims = np.mean(parts, axis=0) if parts else np.zeros((len(order), len(self.items)))
        return out

    def _svm(self, vectors: np.ndarray, rows: sp.csr_matrix) -> np.ndarray:
        """A per-reader linear SVM (as arxiv-sanity-lite's, on papersift's features: the tf-idf rows beside
        the dense vectors): liked items against the background sample and the "not for me" items."""
        from sklearn.svm import LinearSVC

        lex, dense = self.indexes.lexical, self.indexes.dense
        assert lex is not None and dense is not None and self.vectors is not None and self.rows is not None
        keys = self.background_keys
        back_rows = _rows(lex, keys.tolist(), [""] * len(keys))
        back_vectors = dense.vectors(keys)
        train = sp.vstack(
            [
                sp.hstack([self.rows, sp.csr_matrix(SVM_DENSE * self.vectors)]),
                sp.hstack([back_rows, sp.csr_matrix(SVM_DENSE * back_vectors)]),
            ]
        ).tocsr()
        labels = np.concatenate([np.where(self.liked, 1, 0), np.zeros(len(keys), np.int8)])
        weights = np.concatenate([self.weights, np.ones(len(keys))])
        svm = LinearSVC(class_weight="balanced", C=SVM_C, max_iter=2000, tol=1e-4)
        svm.fit(train, labels, sample_weight=weights)
        test = sp.hstack([rows, sp.csr_matrix(SVM_DENSE * vectors)]).tocsr()
        scores: np.ndarray = svm.decision_function(test)
        return scores

    def _nearest(self, sims: np.ndarray, nearest: int = 0) -> np.ndarray:
        """Per candidate: the mean of the ``nearest`` (default ``NEAREST``) best weighted similarities to
        liked items, minus the best similarity to a disliked one."""
        out = np.zeros(sims.shape[0])
        if self.liked.any():
            weighted = sims[:, self.liked] * self.weights[self.liked]
            out += np.sort(weighted, axis=1)[:, -(nearest or NEAREST) :].mean(axis=1)
        if self.disliked.any():
            out -= sims[:, self.disliked].max(axis=1)
        return out

    def _discriminant(self, mean: np.ndarray) -> np.ndarray:
        """w = (Σ + λI)⁻¹ (μ_liked − μ_disliked): liked and disliked means each taken relative to the
        background mean (a side with no items counts as the background); Σ is the background's covariance."""
        assert self.vectors is not None
        ridge = np.cov(self.background, rowvar=False) + SHRINK * np.eye(len(mean))
        target = np.zeros(len(mean))
        for mask, sign in ((self.liked, 1.0), (self.disliked, -1.0)):
            if mask.any():
                w = self.weights[mask]
                target += sign * ((w[:, None] * self.vectors[mask]).sum(axis=0) / w.sum() - mean)
        solved: np.ndarray = np.linalg.solve(ridge, target)
        return solved

    def _shared_authors(self, paper: Paper) -> tuple[str, ...]:
        return self.authors.shared(paper.authors)

    def explain(
        self, rowid: int, paper: Paper, score: float, followed: tuple[str, ...], category: str
    ) -> Recommendation:
        """The evidence for one scored candidate: closest liked items, shared terms and authors."""
        i = self.position[rowid]
        sims = self.sims[i]
        liked = np.flatnonzero(self.liked)
        best = [j for j in liked[np.argsort(-sims[liked], kind="stable")][:CLOSEST_SHOWN] if sims[j] > 0]
        lex = self.indexes.lexical
        terms: list[str] = []
        if lex is not None and best:  # phrases of the paper that its closest liked items have as written
            near = set().union(*(self._item_phrases(j) for j in best))
            found = reason_phrases(phrases(f"{paper.title} {paper.abstract}") & near, word_rarity(lex), 5)
            terms = [t for t in found if _distinctive(lex, t)][:3]
        return Recommendation(
            rowid=rowid,
            score=score,
            closest=tuple((self.items[j].rowid, self._title(j), round(float(sims[j]), 4)) for j in best),
            terms=tuple(terms),
            followed_authors=followed,
            library_authors=self._shared_authors(paper),
            followed_category=category,
        )

    def _item_phrases(self, j: int) -> set[str]:
        if j not in self._phrases:
            self._phrases[j] = set(phrases(self.items[j].text or self.items[j].title))
        return self._phrases[j]

    def _title(self, j: int) -> str:
        item = self.items[j]
        return _cut(" ".join((item.title or item.text).split()), 100)


def _distinctive(lex: Lexical, term: str) -> bool:
    """A term worth naming as shared: a phrase, or a word in under ``DISTINCTIVE_DF`` of the papers that is
    not an adverb ("manually", "substantially" are rare yet say nothing of a topic)."""
    if " " in term:
        return True
    df = int(lex.arrays["df"][term_slot(term.lower())])
    return not term.endswith("ly") and df <= DISTINCTIVE_DF * max(len(lex), 1)


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = matrix / np.where(norms > 0, norms, 1.0)
    return unit


def _cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
