"""Offline evaluation on citation data: papersift's rankers against baselines computed in the same run.

``related``: a query paper's citations inside the corpus are its relevant papers; every method ranks the
whole corpus with the query paper removed. ``search``: a real citation sentence is the query and the cited
paper the answer; the citing paper is removed, and the placeholders the dataset puts where citations and
formulas stood (``CIT``, ``MAINCIT``, ``FORMULA``, ``REF``) are blanked for every method alike.

``recommend``: a citing paper is a simulated reader (``simulated_readers.py``) at each library size (1, 3,
10, 30 by default): its library is the N papers closest to it in the citation graph (its own references
first), half its references hide among random corpus papers, and each method ranks that "day" (nDCG@10 and
Recall@10 of the hidden ones). Baselines: arxiv-sanity-lite's SVM (a linear SVM on its tf-idf, C 0.01, the
library against every other corpus paper) and zotero-arxiv-daily's cosine to each library paper weighted by
a log decay of its place newest first. Readers fall in a ``tune`` and a ``heldout`` half by a hash of the
citing paper's id; papersift's weights were chosen on ``tune`` only (``bench/tune_recommend.py``).

Baselines of ``related`` and ``search``: tf-idf cosine with arxiv-sanity-lite's settings (1–2-grams,
20,000 features, min_df 5, max_df 0.1, sublinear tf, English stop words; title + abstract + authors; the
SVM of ``recommend`` uses the same), BM25 (k1 1.2, b 0.75; title + abstract), the model's plain cosine,
and reciprocal-rank fusion (k 60) of BM25 and the model. ``papersift-no-sentences`` is papersift with the
sentence match off (the ranking before sentence vectors), from the same run.

``split`` (``related`` and ``search``): ``all``, or the ``tune`` / ``heldout`` half of the queries by a hash
of the query paper's id (of the citing paper's for search; ``reader_split``): the sentence weights were chosen
on ``tune`` only (``bench/tune_sentences.py``).
"""

from __future__ import annotations

import gzip
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import orjson
from pydantic import AfterValidator, Field

from papersift.index.indexes import Indexes
from papersift.ranking.eval_corpus import Corpus, corpus_of
from papersift.ranking.recommend import LibraryItem, Profile, recommend
from papersift.ranking.related import WEIGHTS, Weights, paper_query, related
from papersift.ranking.search import MODES, SENTENCE_WEIGHTS, search
from papersift.ranking.sentence_match import SentenceWeights
from papersift.ranking.simulated_readers import (
    LIBRARY_SIZES,
    SimulatedReader,
    appeared,
    reader_split,
    simulate_readers,
    tag_readers,
)
from papersift.records.analyzer import INDEX_TOKEN
from papersift.records.json_model import Shape

K = 10
DEPTH = 100  # ranks kept per query (MRR is computed within them)
_PLACEHOLDER = re.compile(r"\b(?:MAINCIT|CIT|FORMULA|REF)\b")


@dataclass(frozen=True, slots=True)
class Score:
    method: str
    ndcg: float
    recall: float
    mrr: float
    queries: int
    library_size: int = 0  # ``recommend``: the simulated readers' library size (0 elsewhere)


Measure = Annotated[float, AfterValidator(partial(round, ndigits=4))]  # a measure as a JSON line gives it


class ScoreLine(Shape):
    """``eval related`` and ``eval search``'s JSON line of a ``Score``: the method, nDCG@10, Recall@10, MRR
    and how many queries."""

    method: str
    ndcg: Measure = Field(alias="nDCG@10")
    recall: Measure = Field(alias="Recall@10")
    mrr: Measure = Field(alias="MRR")
    queries: int


class ReaderLine(Shape):
    """``eval recommend``'s JSON line of a ``Score``: the method, the library size, nDCG@10, Recall@10 and
    how many readers."""

    method: str
    library_size: int
    ndcg: Measure = Field(alias="nDCG@10")
    recall: Measure = Field(alias="R@10")
    queries: int = Field(alias="readers")


def metrics(ranked: list[str], relevant: set[str], k: int = K) -> tuple[float, float, float]:
    """nDCG@k, Recall@k and reciprocal rank of one ranked list against binary relevance."""
    dcg = sum(1 / math.log2(i + 2) for i, pid in enumerate(ranked[:k]) if pid in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    recall = len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0
    rr = next((1 / (i + 1) for i, pid in enumerate(ranked) if pid in relevant), 0.0)
    return (dcg / ideal if ideal else 0.0), recall, rr


def _mean(method: str, rows: list[tuple[float, float, float]]) -> Score:
    arr = np.array(rows, dtype=np.float64).reshape(-1, 3)
    means = arr.mean(axis=0) if len(arr) else np.zeros(3)
    return Score(method, float(means[0]), float(means[1]), float(means[2]), len(rows))


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        for line in f:
            if line.strip():
                yield orjson.loads(line)


def read_relevance(path: Path) -> dict[str, set[str]]:
    """``{query_id, candidate_id, label}`` lines → relevant ids by query (label > 0)."""
    gold: dict[str, set[str]] = defaultdict(set)
    for row in _lines(path):
        if int(row.get("label", 1)) > 0:
            gold[str(row["query_id"])].add(str(row["candidate_id"]))
    return dict(gold)


def read_contexts(path: Path) -> list[tuple[str, str, str]]:
    """``{citing_id, cited_id, context}`` lines → (query text, cited id, citing id)."""
    return [
        (" ".join(_PLACEHOLDER.sub(" ", r["context"]).split()), str(r["cited_id"]), str(r["citing_id"]))
        for r in _lines(path)
    ]


def _top(scores: np.ndarray, exclude: int | None) -> list[int]:
    scores = scores.astype(np.float64, copy=True)
    if exclude is not None:
        scores[exclude] = -np.inf
    depth = min(DEPTH, len(scores) - 1)
    top = np.argpartition(-scores, depth)[: depth + 1]
    ranked: list[int] = top[np.argsort(-scores[top], kind="stable")].tolist()
    return ranked


def _tfidf_asl(c: Corpus) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(
        strip_accents="unicode",
        lowercase=True,
        stop_words="english",
        token_pattern=INDEX_TOKEN.pattern,  # arxiv-sanity-lite's, on lower-cased text: the index's tokens
        ngram_range=(1, 2),
        max_features=20000,
        min_df=5,
        max_df=0.1,
        sublinear_tf=True,
    )
    return vectorizer.fit_transform([f"{t} | {a}" for t, a in zip(c.texts, c.authors, strict=True)])


class _BM25:
    """Okapi BM25 over title + abstract (scikit-learn's tokenizer, English stop words)."""

    def __init__(self, texts: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        from sklearn.feature_extraction.text import CountVectorizer

        self.vectorizer = CountVectorizer(strip_accents="unicode", stop_words="english")
        counts = self.vectorizer.fit_transform(texts).tocsr().astype(np.float32)
        n = counts.shape[0]
        df = np.bincount(counts.indices, minlength=counts.shape[1])
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        lengths = np.asarray(counts.sum(axis=1)).ravel()
        rows = np.repeat(np.arange(n), np.diff(counts.indptr))
        tf = counts.data
        counts.data = (
            tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[rows] / lengths.mean())) * idf[counts.indices]
        )
        self.weights_t = counts.T.tocsr()

    def scores(self, text: str) -> np.ndarray:
        q = self.vectorizer.transform([text])
        q.data[:] = 1.0
        return np.asarray((q @ self.weights_t).todense()).ravel()


def _rrf(*rankings: list[int]) -> list[int]:
    fused: dict[int, float] = defaultdict(float)
    for ranking in rankings:
        for rank, doc in enumerate(ranking):
            fused[doc] += 1 / (60 + rank + 1)
    return sorted(fused, key=lambda d: -fused[d])[:DEPTH]


def _in_split(query_id: str, split: str) -> bool:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    return split == "all" or reader_split(query_id) == split


def related_score(
    indexes: Indexes, gold: dict[str, set[str]], weights: Weights = WEIGHTS, split: str = "all"
) -> Score:
    """papersift's related papers alone, with ``weights``, on one split of the queries."""
    rows = []
    for qid in sorted(gold):
        paper = indexes.store.get(qid) if _in_split(qid, split) else None
        if paper is not None:
            hits = related(indexes, paper_query(indexes, paper), k=DEPTH, weights=weights)
            rows.append(metrics([h.paper.id for h in hits], gold[qid]))
    return _mean("papersift", rows)


def search_score(
    indexes: Indexes,
    contexts: list[tuple[str, str, str]],
    vectors: np.ndarray,
    sentence_weights: SentenceWeights = SENTENCE_WEIGHTS,
    split: str = "all",
) -> Score:
    """papersift's hybrid search alone (``vectors``: the contexts' vectors), on one split of the queries."""
    rows = []
    for (text, cited, citing), vector in zip(contexts, vectors, strict=True):
        if _in_split(citing, split):
            hits = search(indexes, text, k=DEPTH + 1, vector=vector, sentence_weights=sentence_weights).hits
            rows.append(metrics([h.paper.id for h in hits if h.paper.id != citing][:DEPTH], {cited}))
    return _mean("papersift-hybrid", rows)


def evaluate_related(
    indexes: Indexes,
    gold: dict[str, set[str]],
    progress: Callable[[int], None] | None = None,
    split: str = "all",
) -> list[Score]:
    """papersift's related papers vs tf-idf (arxiv-sanity-lite), BM25, the model's cosine and their RRF."""
    c = corpus_of(indexes)
    queries = [q for q in sorted(gold) if q in c.position and _in_split(q, split)]
    plain = Weights(sentence=SentenceWeights())
    tfidf = _tfidf_asl(c)
    bm25 = _BM25(c.texts)
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for qid in queries:
        qi, relevant = c.position[qid], gold[qid]
        paper = indexes.store.get(qid)
        assert paper is not None
        hits = related(indexes, paper_query(indexes, paper), k=DEPTH)
        rows["papersift"].append(metrics([h.paper.id for h in hits], relevant))
        hits = related(indexes, paper_query(indexes, paper), k=DEPTH, weights=plain)
        rows["papersift-no-sentences"].append(metrics([h.paper.id for h in hits], relevant))
        t = _top(np.asarray((tfidf[qi] @ tfidf.T).todense()).ravel(), qi)
        rows["tfidf-arxiv-sanity"].append(metrics([c.ids[i] for i in t], relevant))
        b = _top(bm25.scores(c.texts[qi]), qi)
        rows["bm25"].append(metrics([c.ids[i] for i in b], relevant))
        d = _top(c.vectors @ c.vectors[qi], qi)
        rows["dense-cosine"].append(metrics([c.ids[i] for i in d], relevant))
        rows["rrf-bm25-dense"].append(metrics([c.ids[i] for i in _rrf(b, d)], relevant))
        if progress:
            progress(1)
    return [_mean(method, r) for method, r in rows.items()]


def evaluate_search(
    indexes: Indexes,
    contexts: list[tuple[str, str, str]],
    progress: Callable[[int], None] | None = None,
    split: str = "all",
) -> list[Score]:
    """papersift's hybrid, keyword and semantic search vs BM25, the model's cosine and their RRF."""
    contexts = [row for row in contexts if _in_split(row[2], split)]
    c = corpus_of(indexes)
    bm25 = _BM25(c.texts)
    encoder = indexes.encoder()
    rows: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    batch = 64
    for start in range(0, len(contexts), batch):
        chunk = contexts[start : start + batch]
        vectors = encoder.encode([text for text, _, _ in chunk])
        for (text, cited, citing), vector in zip(chunk, vectors, strict=True):
            relevant = {cited}
            exclude = c.position.get(citing)
            for mode in MODES:
                hits = search(indexes, text, mode=mode, k=DEPTH + 1, vector=vector).hits
                ranked = [h.paper.id for h in hits if h.paper.id != citing][:DEPTH]
                rows[f"papersift-{mode}"].append(metrics(ranked, relevant))
            alone = SentenceWeights()  # the same search without the sentence match
            hits = search(indexes, text, k=DEPTH + 1, vector=vector, sentence_weights=alone).hits
            ranked = [h.paper.id for h in hits if h.paper.id != citing][:DEPTH]
            rows["papersift-hybrid-no-sentences"].append(metrics(ranked, relevant))
            b = _top(bm25.scores(text), exclude)
            rows["bm25"].append(metrics([c.ids[i] for i in b], relevant))
            d = _top(c.vectors @ vector, exclude)
            rows["dense-cosine"].append(metrics([c.ids[i] for i in d], relevant))
            rows["rrf-bm25-dense"].append(metrics([c.ids[i] for i in _rrf(b, d)], relevant))
            if progress:
                progress(1)
    return [_mean(method, r) for method, r in rows.items()]


# -- recommend: simulated readers (simulated_readers.py) -------------------------------------------------
SPLITS = ("all", "tune", "heldout")
RECOMMEND_BASELINES = ("arxiv-sanity-svm", "zotero-cosine")
RECOMMEND_METHODS = ("papersift", *RECOMMEND_BASELINES)
# per tag (``simulated_readers.tag_readers``), scored on each tag's hidden papers: ranked by the tag's papers
# alone (``recommend --tag``), and the whole library's ranking beside it
TAG_METHODS = ("papersift-tag", "papersift@tag")


def _at(day: date | None, fallback: datetime) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC) if day else fallback


def _papersift_ranking(indexes: Indexes, c: Corpus, reader: SimulatedReader) -> list[int]:
    """``recommend``'s top ``K`` with the library as liked items (no followed authors or categories), on the
    day the citing paper appeared."""
    now = _at(appeared(c.papers[reader.query]), datetime.now(UTC))
    items = tuple(
        LibraryItem(
            rowid=c.rowids[i],
            text=c.texts[i],
            authors=tuple(c.papers[i].authors),
            rating=1,
            added=_at(appeared(c.papers[i]), now),
            title=c.papers[i].title,
        )
        for i in reader.library
    )
    rowids = [c.rowids[i] for i in reader.candidates]
    papers = {c.rowids[i]: c.papers[i] for i in reader.candidates}
    hits = recommend(indexes, Profile(items=items), rowids, k=K, now=now, papers=papers)
    back = {c.rowids[i]: i for i in reader.candidates}
    return [back[h.rowid] for h in hits]


def _svm_ranking(tfidf: Any, reader: SimulatedReader) -> list[int]:
    """arxiv-sanity-lite: a linear SVM on tf-idf (C 0.01, balanced classes), the library against every other
    paper of the corpus."""
    from sklearn.svm import LinearSVC

    keep = np.ones(tfidf.shape[0], bool)
    keep[reader.query] = False  # the citing paper is no part of its reader's world
    labels = np.zeros(tfidf.shape[0], np.int8)
    labels[list(reader.library)] = 1
    svm = LinearSVC(class_weight="balanced", verbose=False, max_iter=1000, tol=1e-3, C=0.01)
    svm.fit(tfidf[keep], labels[keep])
    candidates = np.array(reader.candidates)
    scores = svm.decision_function(tfidf[candidates])
    ranked: list[int] = candidates[np.argsort(-scores, kind="stable")].tolist()
    return ranked


def _zotero_ranking(c: Corpus, reader: SimulatedReader) -> list[int]:
    """zotero-arxiv-daily's idea: the cosine to each library paper, weighted by the paper's place in the
    library newest first with a log decay, 1/(1+log10(place+1)), normalised to sum 1."""
    weights = 1 / (1 + np.log10(np.arange(len(reader.library)) + 1))
    weights /= weights.sum()
    candidates = np.array(reader.candidates)
    scores = (c.vectors[candidates] @ c.vectors[list(reader.library)].T) @ weights
    ranked: list[int] = candidates[np.argsort(-scores, kind="stable")].tolist()
    return ranked


def evaluate_recommend(
    indexes: Indexes,
    gold: dict[str, set[str]],
    *,
    seed: int = 0,
    split: str = "all",
    sizes: tuple[int, ...] = LIBRARY_SIZES,
    progress: Callable[[int], None] | None = None,
) -> list[Score]:
    """papersift's Daily Papers ranking vs arxiv-sanity-lite's SVM and zotero-arxiv-daily's weighted cosine,
    on the same simulated readers at each library size (``simulate_readers``): nDCG@10 and Recall@10 of the
    hidden references, one ``Score`` per size and method (``library_size`` set), by size then method; then,
    where a library is split into tags (``tag_readers``), ``TAG_METHODS`` over each (reader, tag) pair."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    if not sizes or min(sizes) < 1:
        raise ValueError("library sizes must be whole numbers of at least 1")
    c = corpus_of(indexes)
    readers = simulate_readers(c, gold, seed, split, tuple(sorted(set(sizes))))
    tfidf = _tfidf_asl(c).tocsr() if any(readers.values()) else None
    out = []
    for n, at_size in readers.items():
        rows: dict[str, list[tuple[float, float, float]]] = {
            m: [] for m in (*RECOMMEND_METHODS, *TAG_METHODS)
        }
        for reader in at_size:
            relevant = {c.ids[i] for i in reader.hidden}
            whole = _papersift_ranking(indexes, c, reader)
            for method, ranked in (
                ("papersift", whole),
                ("arxiv-sanity-svm", _svm_ranking(tfidf, reader)),
                ("zotero-cosine", _zotero_ranking(c, reader)),
            ):
                rows[method].append(metrics([c.ids[i] for i in ranked], relevant))
            for tag in tag_readers(c, reader):
                mine = {c.ids[i] for i in tag.hidden}
                alone = _papersift_ranking(indexes, c, replace(reader, library=tag.library))
                rows["papersift-tag"].append(metrics([c.ids[i] for i in alone], mine))
                rows["papersift@tag"].append(metrics([c.ids[i] for i in whole], mine))
            if progress:
                progress(1)
        out += [
            replace(_mean(method, r), library_size=n)
            for method, r in rows.items()
            if r or method in RECOMMEND_METHODS
        ]
    return out
