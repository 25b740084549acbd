"""Related papers (相关论文): for a paper or any text, the most related papers of the whole store, and why.

Candidates come from the ANN index (closest in content), the lexical arrays (most shared key terms) and
the author postings (same authors). Each candidate is then scored by a weighted sum of what a paper carries:

    0.5 · cosine of the dense vectors + 0.5 · tf-idf cosine of title and abstract
    + W_SENTENCE · sentence match
    + 0.1 · shared authors (at most 2) + 0.03 · same primary category + 0.06 · earlier work
    + W_COUPLING · bibliographic coupling (only where the query paper's references are stored)

The sentence match compares the papers sentence by sentence (multi-vector matching, as in Mysore et al.
2022): the mean over the query's sentences of the best cosine with one of the candidate's sentences
(``ranking/sentence_match.py``), for the best ``RERANK`` candidates by the other terms (a re-ranker); the
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
"Earlier work" (first submitted before the query, ``paper.first_submitted``; the index's arrays hold the
announcement day, and each result is set right) reflects that a paper's closest relatives are mostly
the ones it builds on; it is a small nudge, not a filter. Text queries have no authors, category or date:
they are ranked by the first two terms alone.

Bibliographic coupling (``ranking/evidence.py``: Salton's cosine of the two reference lists) counts only
where the query paper's full text was fetched: a paper without references is scored exactly as without the
term (``tests/test_reference_evidence.py`` pins it). Its weight, 0.1, is not tuned: the dev pairs' store
has no reference lists (and giving it the cited papers' lists would leak the labels); at 0.1 a candidate
sharing every reference gains as much as one shared author. Co-citation (store papers citing both) is
said in the reasons, not scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from papersift.index.encoder import paper_text
from papersift.index.indexes import Indexes
from papersift.index.sentences import FACETS, TITLE, facet_code, paper_sentences, roles
from papersift.ranking import evidence
from papersift.ranking.phrases import phrases, reason_phrases, word_rarity
from papersift.ranking.pool import Hit, admitted, widen
from papersift.ranking.searchers import Probe, Searchers, keys_of, searchers
from papersift.ranking.sentence_match import RERANK, SentenceWeights, best_pair, sentence_term
from papersift.ranking.to_english import Translate
from papersift.ranking.understand import SENTENCE_WORDS, understand
from papersift.records.analyzer import STOP_WORDS, letter_words
from papersift.records.messages import Message, say
from papersift.records.names import AuthorSet
from papersift.records.paper import Paper, Submitted, first_submitted, months_between
from papersift.store import Filters

W_DENSE = 0.5
W_LEXICAL = 0.5
W_AUTHOR = 0.1
W_CATEGORY = 0.03
W_EARLIER = 0.06
W_COUPLING = 0.1  # Salton's cosine of the reference lists; not tuned (see above)
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
    notes: list[Message] = field(default_factory=list)
    sentences: np.ndarray | None = None  # the query's sentence vectors (rows), facet applied
    numbers: list[int] = field(default_factory=list)  # each row's sentence number (0: the title)
    facet: str | None = None


@dataclass(frozen=True, slots=True)
class Weights:
    """The weights of the fused score's content terms (the rest are constants above)."""

    dense: float = W_DENSE
    lexical: float = W_LEXICAL
    sentence: SentenceWeights = W_SENTENCE
    coupling: float = W_COUPLING


WEIGHTS = Weights()


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
            query.notes.append(say("no_facet_sentence", facet=say(f"facet_{FACETS[code]}")))
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
    query = Query(label=text[:80], text=text, notes=[n for n in understood.applied if n.key != "acronym"])
    if indexes.dense is not None:
        encoder = indexes.encoder()
        clipped, cut = encoder.clip(text)
        if cut:
            query.notes.append(say("text_cut", tokens=encoder.max_tokens, chars=f"{len(text):,}"))
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
    filters: Filters | None = None,
    weights: Weights = WEIGHTS,
) -> list[Hit]:
    """The ``k`` best related papers (never the query paper itself) that pass ``filters``."""
    k = max(1, min(k, MAX_K))
    filters = filters or Filters()
    if indexes.lexical is None and indexes.dense is None:
        return _keyword_fallback(indexes, query, k, filters)
    found = searchers(indexes)
    probe = Probe(terms=query.text, vector=query.vector, authors=query.paper.authors if query.paper else ())

    def collect(pool: int) -> list[Hit]:
        return _take(indexes, query, _score(indexes, found, query, probe, pool, weights), k, filters)

    return widen(collect, max(CANDIDATES, 4 * k), k, found.size)[0]


@dataclass
class _Scored:
    keys: np.ndarray
    score: np.ndarray
    dense: np.ndarray | None
    lexical: np.ndarray
    coauthors: np.ndarray
    same_category: np.ndarray
    earlier: np.ndarray
    coupling: evidence.Coupling | None = None


def _score(
    indexes: Indexes, found: Searchers, query: Query, probe: Probe, pool: int, weights: Weights = WEIGHTS
) -> _Scored:
    lex, paper, no_filter = indexes.lexical, query.paper, Filters()
    parts: list[np.ndarray] = []
    if found.dense is not None and query.vector is not None:
        parts.append(keys_of(found.dense.candidates(probe, pool // 2 + 1, no_filter)))
    if found.lexical is not None and lex is not None and len(lex):
        parts.append(keys_of(found.lexical.candidates(probe, pool, no_filter)))
        if paper is not None and found.authors is not None:
            parts.append(keys_of(found.authors.candidates(probe, pool // 2, no_filter)))
    keys = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
    if query.rowid is not None:
        keys = keys[keys != query.rowid]
    n = len(keys)
    lexical = found.lexical.scores(probe, keys) if found.lexical is not None else np.zeros(n, np.float32)
    coauthors = np.zeros(n, np.float32)
    same_category = np.zeros(n, bool)
    earlier = np.zeros(n, bool)
    if lex is not None and len(lex) and paper is not None:
        if found.authors is not None:
            coauthors = found.authors.scores(probe, keys)
        positions = lex.positions(keys)
        inside = positions >= 0
        code = (
            lex.categories.index(paper.primary_category) if paper.primary_category in lex.categories else -1
        )
        same_category[inside] = lex.primary[positions[inside]] == code
        day = paper.announced or paper.published
        if day:
            days = lex.day[positions[inside]]
            earlier[inside] = (days > 0) & (days <= day.toordinal())
    score = weights.lexical * lexical + W_AUTHOR * np.minimum(coauthors, MAX_SHARED_AUTHORS)
    score += W_CATEGORY * same_category + W_EARLIER * earlier
    coupled = evidence.coupling(indexes.store, paper.id, keys) if paper is not None else None
    if coupled is not None and weights.coupling:
        score += weights.coupling * coupled.array(keys)
    dense_scores: np.ndarray | None = None
    if found.dense is not None and query.vector is not None:
        dense_scores = found.dense.scores(probe, keys)  # zero rows: no vector
        score += weights.dense * dense_scores
        if weights.sentence and query.sentences is not None and indexes.sentences is not None:
            top = max(RERANK, pool // 4)  # the k asked for, and more
            sentences, match = indexes.sentences, weights.sentence
            score += sentence_term(sentences, keys, query.sentences, score, dense_scores, match, top)
    return _Scored(keys, score, dense_scores, lexical, coauthors, same_category, earlier, coupled)


def _take(indexes: Indexes, query: Query, s: _Scored, k: int, filters: Filters) -> list[Hit]:
    order = np.argsort(-s.score, kind="stable")
    query_id = query.paper.id if query.paper else None
    query_authors = AuthorSet(query.paper.authors if query.paper else ())
    query_day = first_submitted(query.paper) if query.paper else None
    mine = phrases(query.text)  # the reasons' shared terms: phrases of both texts as written
    rarity = word_rarity(indexes.lexical)
    at = {int(key): i for i, key in enumerate(s.keys.tolist())}
    step = k if filters == Filters() else 4 * k
    ranked = s.keys[order].tolist()
    hits: list[Hit] = []
    picked = admitted(indexes.store, ranked, filters, k, step, keep=lambda p: p.id != query_id)
    together = evidence.cocited(indexes.store, query_id, [p.id for _, p in picked]) if query_id else {}
    for key, paper in picked:
        i = at[key]
        day = first_submitted(paper)
        terms = reason_phrases(mine & phrases(f"{paper.title} {paper.abstract}"), rarity, 3)
        authors = list(query_authors.shared(paper.authors))
        # the author postings bucket by initial + surname, and the days have no order within a day:
        # take back what a namesake or a later paper of the same day added
        score = float(s.score[i]) - W_AUTHOR * (
            min(float(s.coauthors[i]), MAX_SHARED_AUTHORS) - min(len(authors), MAX_SHARED_AUTHORS)
        )
        # the index's nudge compares announcement days; what is said compares first submissions
        earlier = _earlier(paper, day, query_id, query_day)
        score += W_EARLIER * (int(earlier) - int(bool(s.earlier[i])))
        days, months = _gap(day, query_day) if earlier else (None, None)
        hits.append(
            Hit(
                paper=paper,
                score=score,
                terms=terms,
                dense=float(s.dense[i]) if s.dense is not None else None,
                lexical=float(s.lexical[i]),
                authors=authors,
                same_category=bool(s.same_category[i]),
                earlier=earlier,
                match=_match(indexes, query, key),
                days_earlier=days,
                months_earlier=months,
                coupling=s.coupling.shared.get(key, 0) if s.coupling is not None else 0,
                cocited=together.get(paper.id, 0),
            )
        )
    return sorted(hits, key=lambda h: -h.score)


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


def _earlier(paper: Paper, day: Submitted | None, query_id: str | None, query_day: Submitted | None) -> bool:
    """First submitted before the query paper (``paper.first_submitted``): on an earlier day, or in an
    earlier month where a date is known only to its month; on the same day or in the same month, a lower
    arXiv id (ids are given in the order papers are submitted)."""
    if day is None or query_day is None:
        return False
    if day.exact and query_day.exact:
        before, same = day.day < query_day.day, day.day == query_day.day
    else:
        gap = months_between(day.day, query_day.day)
        before, same = gap > 0, gap == 0
    return before or (same and query_id is not None and _id_order(paper.id) < _id_order(query_id))


def _gap(day: Submitted | None, query_day: Submitted | None) -> tuple[int | None, int | None]:
    """How much earlier: (days, None) when both dates are days, (None, months) when one is a month."""
    if day is None or query_day is None:
        return None, None
    if day.exact and query_day.exact:
        return (query_day.day - day.day).days, None
    return None, months_between(day.day, query_day.day)


def _id_order(paper_id: str) -> tuple[int, str]:
    return (len(paper_id), paper_id) if "/" not in paper_id else (0, paper_id)


def _keyword_fallback(indexes: Indexes, query: Query, k: int, filters: Filters) -> list[Hit]:
    """No index built yet: BM25 over FTS5 with the query's key words (title words first)."""
    words: list[str] = []
    for word in letter_words(query.text.lower()):
        if len(word) >= 4 and word not in STOP_WORDS and word not in words:
            words.append(word)
        if len(words) == 16:
            break
    if not words:
        return []
    query.notes.append(say("no_index_yet"))
    query_id = query.paper.id if query.paper else None
    rows = searchers(indexes).keyword.candidates(Probe(keyword=" OR ".join(words)), k + 1, filters)
    papers = indexes.store.by_rowids([rowid for rowid, _ in rows])
    hits = [Hit(papers[rowid], score) for rowid, score in rows if rowid in papers]
    return [h for h in hits if h.paper.id != query_id][:k]
