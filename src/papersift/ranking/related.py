"""Related papers (相关论文): for a paper or any text, the most related papers of the whole store, and why.

Candidates come from the ANN index (closest in content), the lexical arrays (most shared key terms) and
the author postings (same authors). Each candidate is then scored by a weighted sum of what a paper carries:

    0.5 · cosine of the dense vectors + 0.5 · tf-idf cosine of title and abstract
    + W_SENTENCE · sentence match
    + 0.1 · shared authors (at most 2) + 0.03 · same primary category + 0.06 · earlier work

The sentence match compares the papers sentence by sentence (multi-vector matching, as in Mysore et al.
2022): the mean over the query's sentences of the best cosine with one of the candidate's sentences
(``sentences.sentence_match``), for the best ``RERANK`` candidates by the other terms (a re-ranker); the
rest, and a candidate without sentence vectors yet, count their dense cosine instead. Its weight is 0: on
the ``tune`` half of the dev pairs (``bench/tune_sentences.py``, 669 of the 1,342 queries) every weight
from 0.25 to 1.5 lowered nDCG@10, steadily (0.4218 → 0.4158 at 0.25, 0.3626 at 1.0): citation pairs are
alike as wholes, not sentence for sentence. The sentence vectors still say which sentence matched which
("your sentence 3 ↔ their sentence 1") and carry the facets. A facet (``background``, ``method``,
``result``) keeps only the query sentences of that role, for every term: the
dense vector is their mean, the key terms are theirs.

The weights were chosen on the dev citation pairs only (a coarse grid, the largest step that mattered; the
sentence weight on their ``tune`` half), and each term shows up in a result's reasons: the shared terms,
the shared authors, the category, the date.
"Earlier work" (announced no later than the query) reflects that a paper's closest relatives are mostly
the ones it builds on; it is a small nudge, not a filter. Text queries have no authors, category or date:
they are ranked by the first two terms alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from papersift.index.encoder import paper_text
from papersift.index.indexes import Indexes
from papersift.index.lexical import author_slots
from papersift.index.sentences import (
    FACETS,
    RERANK,
    TITLE,
    SentenceWeights,
    best_pair,
    facet_code,
    paper_sentences,
    roles,
    sentence_term,
)
from papersift.names import AuthorSet
from papersift.paper import Paper, in_category
from papersift.ranking.phrases import best_phrases, phrases, word_rarity
from papersift.ranking.understand import SENTENCE_WORDS, Translate, understand
from papersift.text import STOP_WORDS

W_DENSE = 0.5
W_LEXICAL = 0.5
W_AUTHOR = 0.1
W_CATEGORY = 0.03
W_EARLIER = 0.06
W_SENTENCE = SentenceWeights()  # chosen on the tune half: every weight above 0 lowered nDCG@10 (see above)
MAX_SHARED_AUTHORS = 2
CANDIDATES = 200
MAX_K = 1000


@dataclass
class Query:
    """What related papers are sought for: a stored paper, or free text (``paper`` None)."""

    label: str
    text: str
    paper: Paper | None = None
    rowid: int | None = None
    vector: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    sentences: np.ndarray | None = None  # the query's sentence vectors (rows), facet applied
    numbers: list[int] = field(default_factory=list)  # each row's sentence number (0: the title)
    facet: str | None = None


@dataclass(frozen=True, slots=True)
class Weights:
    """The weights of the fused score's content terms (the rest are constants above)."""

    dense: float = W_DENSE
    lexical: float = W_LEXICAL
    sentence: SentenceWeights = W_SENTENCE


WEIGHTS = Weights()


@dataclass(frozen=True, slots=True)
class RelatedHit:
    """One related paper, its score and the evidence behind it."""

    paper: Paper
    score: float
    dense: float | None
    lexical: float
    terms: list[str]
    authors: list[str]
    same_category: bool
    earlier: bool
    match: tuple[int, int, float] | None = None  # (query sentence, their sentence, cosine); 0 = title
    days_earlier: int | None = None  # how long before the query paper it was announced (when ``earlier``)

    def reasons(self) -> list[str]:
        """Why it is related, in words; never empty (at least how close it is in content or wording)."""
        out = []
        if self.match is not None and self.match[2] >= 0.5:
            mine, theirs, cosine = self.match
            out.append(f"{_sentence_name('your', mine)} ↔ {_sentence_name('their', theirs)} ({cosine:.2f})")
        if self.authors:
            out.append("same authors: " + ", ".join(self.authors))
        if self.terms:
            out.append("shared terms: " + ", ".join(self.terms))
        if self.dense is not None and self.dense >= 0.5:
            out.append(f"close in content ({self.dense:.2f})")
        if self.same_category:
            out.append(f"same category ({self.paper.primary_category})")
        if self.earlier:
            out.append(_how_much_earlier(self.days_earlier))
        if not any(r.startswith(("shared terms", "close in content", "same authors")) for r in out):
            if self.dense is not None and self.dense > 0:
                out.insert(0, f"close in content ({self.dense:.2f})")
            else:
                out.insert(0, f"similar wording ({self.lexical:.2f})")
        return out


def _how_much_earlier(days: int | None) -> str:
    """``3 years earlier``, ``2 weeks earlier``, ``the same day, submitted before``: what a gap means."""
    if days is None:
        return "earlier work"
    if days <= 0:
        return "the same day, submitted before"
    for size, unit in ((365, "year"), (30, "month"), (7, "week"), (1, "day")):
        if days >= size:
            n = round(days / size) if size > 1 else days
            return f"{n} {unit}{'s' if n != 1 else ''} earlier"
    return "earlier work"


def _sentence_name(whose: str, number: int) -> str:
    return f"{whose} title" if number == 0 else f"{whose} sentence {number}"


def paper_query(indexes: Indexes, paper: Paper, facet: str | None = None) -> Query:
    """A stored paper as a query; its vectors come from the index (or the model when it has none yet).

    ``facet``: only the sentences of that role speak for the paper (``ValueError`` for an unknown facet).
    """
    code = facet_code(facet) if facet else None
    rowid = indexes.store.rowid(paper.id)
    query = Query(label=paper.id, text=paper_text(paper.title, paper.abstract), paper=paper, rowid=rowid)
    if indexes.dense is not None and rowid is not None:
        vector = indexes.dense.vectors(np.array([rowid]))[0]
        if np.any(vector):
            query.vector = vector
    if query.vector is None and indexes.dense is not None:
        query.vector = indexes.encoder().encode([query.text])[0]
    if indexes.sentences is not None or code is not None:
        texts = paper_sentences(paper.title, paper.abstract)
        stored = indexes.sentences.of(rowid) if indexes.sentences is not None and rowid is not None else None
        if stored is not None and len(stored[0]) == len(texts):
            vectors, codes = stored[0], stored[1].tolist()
        elif indexes.dense is not None:
            vectors, codes = indexes.encoder().encode(texts), roles(texts, has_title=bool(paper.title))
        else:
            return query
        has_title = bool(paper.title.strip())
        _set_sentences(query, texts, vectors, codes, code, has_title)
    return query


def _set_sentences(
    query: Query, texts: list[str], vectors: np.ndarray, codes: list[int], code: int | None, has_title: bool
) -> None:
    """The query's sentence rows, numbered (0: the title); a facet keeps its own rows and speaks for the
    whole query (dense vector, key terms)."""
    numbers = list(range(0 if has_title else 1, len(texts) + (0 if has_title else 1)))
    keep = [i for i, c in enumerate(codes) if code is None or c == code]
    if code is not None:
        query.facet = FACETS[code]
        if not keep:
            query.notes.append(f"no {FACETS[code]} sentence found: the whole text is used")
            keep = [i for i, c in enumerate(codes) if c != TITLE] or list(range(len(codes)))
        else:
            mean = np.asarray(vectors, np.float32)[keep].mean(axis=0)
            query.vector = mean / max(float(np.linalg.norm(mean)), 1e-12)
            query.text = " ".join(texts[i] for i in keep)
    query.sentences = np.asarray(vectors, np.float32)[keep]
    query.numbers = [numbers[i] for i in keep]


def text_query(
    indexes: Indexes, text: str, facet: str | None = None, translate: Translate | None = None
) -> Query:
    """Free text as a query, cut to the model's window (a note says so when it was cut); its sentences
    are encoded one by one as well (``facet``: only those of that role count); ``translate``: the model
    seam of ``ranking.understand``."""
    code = facet_code(facet) if facet else None
    # 中文 translated; a pasted passage keeps its own spelling (its vector is then the stored paper's), a few
    # words of a topic are corrected as in search
    short = len(text.split()) <= SENTENCE_WORDS
    understood = understand(indexes, text[:100_000], translate=translate, correct=short)
    if understood.text_used != understood.original:
        text = understood.text_used
    query = Query(
        label=text[:80], text=text, notes=[n for n in understood.applied if not n.startswith("acronym:")]
    )
    if indexes.dense is not None:
        encoder = indexes.encoder()
        clipped, cut = encoder.clip(text)
        if cut:
            query.notes.append(
                f"text cut to the model's {encoder.max_tokens}-token window for the dense match "
                f"({len(text):,} characters given); key terms use the first 100,000 characters"
            )
        query.vector = encoder.encode([clipped])[0]
        if indexes.sentences is not None or code is not None:
            texts = paper_sentences("", text[:100_000])[:64]
            vectors = encoder.encode(texts)
            _set_sentences(query, texts, vectors, roles(texts, has_title=False), code, has_title=False)
    if query.facet is None or query.text == text:
        query.text = text[:100_000]
    return query


def related(
    indexes: Indexes,
    query: Query,
    *,
    k: int = 10,
    category: str | None = None,
    since: date | None = None,
    weights: Weights = WEIGHTS,
) -> list[RelatedHit]:
    """The ``k`` best related papers (never the query paper itself), filtered by category and date."""
    k = max(1, min(k, MAX_K))
    if indexes.lexical is None and indexes.dense is None:
        return _keyword_fallback(indexes, query, k, category, since)
    pool = max(CANDIDATES, 4 * k)
    while True:
        scored = _score(indexes, query, pool, weights)
        hits = _take(indexes, query, scored, k, category, since)
        if len(hits) >= k or pool >= _size(indexes):
            return hits
        pool *= 8  # the filters left too few: widen the candidate pool


def _size(indexes: Indexes) -> int:
    return max(len(indexes.lexical) if indexes.lexical else 0, len(indexes.dense) if indexes.dense else 0)


@dataclass
class _Scored:
    keys: np.ndarray
    score: np.ndarray
    dense: np.ndarray | None
    lexical: np.ndarray
    coauthors: np.ndarray
    same_category: np.ndarray
    earlier: np.ndarray
    q_slots: np.ndarray
    q_weights: np.ndarray
    positions: np.ndarray


def _score(indexes: Indexes, query: Query, pool: int, weights: Weights = WEIGHTS) -> _Scored:
    lex, dense, paper = indexes.lexical, indexes.dense, query.paper
    parts: list[np.ndarray] = []
    if dense is not None and query.vector is not None:
        parts.append(dense.search(query.vector, pool // 2 + 1)[0])
    q_slots, q_weights = np.zeros(0, np.int32), np.zeros(0, np.float32)
    author_rows, author_counts = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if lex is not None and len(lex):
        q_slots, q_weights = lex.vectorize(query.text)
        parts.append(lex.keys[lex.candidates(q_slots, q_weights, pool)])
        if paper is not None:
            author_rows, author_counts = lex.coauthors(author_slots(paper.authors))
            most = np.argsort(-author_counts, kind="stable")[: pool // 2]
            parts.append(lex.keys[author_rows[most]])
    keys = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
    if query.rowid is not None:
        keys = keys[keys != query.rowid]
    n = len(keys)
    positions = lex.positions(keys) if lex is not None else np.full(n, -1)
    inside = positions >= 0
    lexical = np.zeros(n, np.float32)
    coauthors = np.zeros(n, np.float32)
    same_category = np.zeros(n, bool)
    earlier = np.zeros(n, bool)
    if lex is not None and len(lex):
        lexical[inside] = lex.cosine(q_slots, q_weights, positions[inside])
        if len(author_rows):
            at = np.minimum(np.searchsorted(author_rows, positions), len(author_rows) - 1)
            shared = inside & (author_rows[at] == positions)
            coauthors[shared] = author_counts[at[shared]]
        if paper is not None:
            code = (
                lex.categories.index(paper.primary_category)
                if paper.primary_category in lex.categories
                else -1
            )
            same_category[inside] = lex.primary[positions[inside]] == code
            day = paper.announced or paper.published
            if day:
                days = lex.day[positions[inside]]
                earlier[inside] = (days > 0) & (days <= day.toordinal())
    score = weights.lexical * lexical + W_AUTHOR * np.minimum(coauthors, MAX_SHARED_AUTHORS)
    score += W_CATEGORY * same_category + W_EARLIER * earlier
    dense_scores: np.ndarray | None = None
    if dense is not None and query.vector is not None:
        dense_scores = dense.vectors(keys) @ query.vector.astype(np.float32)  # zero rows: no vector
        score += weights.dense * dense_scores
        if weights.sentence and query.sentences is not None and indexes.sentences is not None:
            top = max(RERANK, pool // 4)  # the k asked for, and more
            sentences, match = indexes.sentences, weights.sentence
            score += sentence_term(sentences, keys, query.sentences, score, dense_scores, match, top)
    if lex is not None:
        q_slots, q_weights = lex.key_terms(q_slots, q_weights)  # what explanations name
    return _Scored(
        keys, score, dense_scores, lexical, coauthors, same_category, earlier, q_slots, q_weights, positions
    )


def _take(
    indexes: Indexes, query: Query, s: _Scored, k: int, category: str | None, since: date | None
) -> list[RelatedHit]:
    order = np.argsort(-s.score, kind="stable")
    query_id = query.paper.id if query.paper else None
    query_authors = AuthorSet(query.paper.authors if query.paper else ())
    query_day = (query.paper.announced or query.paper.published) if query.paper else None
    mine = phrases(query.text)  # the reasons' shared terms: phrases of both texts as written
    rarity = word_rarity(indexes.lexical)
    hits: list[RelatedHit] = []
    step = k if not (category or since) else 4 * k
    for start in range(0, len(order), step):
        chunk = order[start : start + step]
        papers = indexes.store.by_rowids(s.keys[chunk].tolist())
        for i in chunk.tolist():
            paper = papers.get(int(s.keys[i]))
            if paper is None or paper.id == query_id:
                continue
            if category and not in_category(paper.categories, category):
                continue
            day = paper.announced or paper.published
            if since and (day is None or day < since):
                continue
            terms = best_phrases(mine & phrases(f"{paper.title} {paper.abstract}"), rarity, 3)
            authors = list(query_authors.shared(paper.authors))
            # the author postings bucket by initial + surname, and the days have no order within a day:
            # take back what a namesake or a later paper of the same day added
            score = float(s.score[i]) - W_AUTHOR * (
                min(float(s.coauthors[i]), MAX_SHARED_AUTHORS) - min(len(authors), MAX_SHARED_AUTHORS)
            )
            earlier = bool(s.earlier[i]) and _earlier(paper, day, query_id, query_day)
            score -= W_EARLIER * (bool(s.earlier[i]) and not earlier)
            match = _match(indexes, query, int(s.keys[i]))
            hits.append(
                RelatedHit(
                    paper=paper,
                    score=score,
                    dense=float(s.dense[i]) if s.dense is not None else None,
                    lexical=float(s.lexical[i]),
                    terms=terms,
                    authors=authors,
                    same_category=bool(s.same_category[i]),
                    earlier=earlier,
                    match=match,
                    days_earlier=(query_day - day).days if earlier and query_day and day else None,
                )
            )
            if len(hits) == k:
                return _by_score(hits)
    return _by_score(hits)


def _match(indexes: Indexes, query: Query, key: int) -> tuple[int, int, float] | None:
    """Which query sentence matched which of the candidate's best (numbered as ``Query.numbers``)."""
    if query.sentences is None or not len(query.sentences) or indexes.sentences is None:
        return None
    theirs = indexes.sentences.of(key)
    if theirs is None:
        return None
    mine, other, cosine = best_pair(query.sentences, theirs[0])
    title = int(theirs[1][0]) == TITLE
    return query.numbers[mine], other + (0 if title else 1), cosine


def _by_score(hits: list[RelatedHit]) -> list[RelatedHit]:
    return sorted(hits, key=lambda h: -h.score)


def _earlier(paper: Paper, day: date | None, query_id: str | None, query_day: date | None) -> bool:
    """Announced before the query paper (on the same day: a lower arXiv id, i.e. submitted before)."""
    if day is None or query_day is None or day > query_day:
        return False
    return day < query_day or (query_id is not None and _id_order(paper.id) < _id_order(query_id))


def _id_order(paper_id: str) -> tuple[int, str]:
    return (len(paper_id), paper_id) if "/" not in paper_id else (0, paper_id)


_WORD = re.compile(r"[^\W\d_]{4,}")


def _keyword_fallback(
    indexes: Indexes, query: Query, k: int, category: str | None, since: date | None
) -> list[RelatedHit]:
    """No index built yet: BM25 over FTS5 with the query's key words (title words first)."""
    words: list[str] = []
    for word in _WORD.findall(query.text.lower()):
        if word not in STOP_WORDS and word not in words:
            words.append(word)
        if len(words) == 16:
            break
    if not words:
        return []
    query.notes.append("no index yet: keyword matches only (run `papersift embed`)")
    query_id = query.paper.id if query.paper else None
    hits = indexes.store.search(" OR ".join(words), k=k + 1, category=category, since=since)
    return [
        RelatedHit(h.paper, h.score, None, 0.0, [], [], False, False) for h in hits if h.paper.id != query_id
    ][:k]
