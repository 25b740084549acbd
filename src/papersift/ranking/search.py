"""Search: keyword (BM25 over FTS5, the user's syntax), semantic (the query's vector) or hybrid (both).

Hybrid, the default, pools the best BM25 matches (of all of a short query's words, of any of a
sentence's but the words in over 10% of the papers), the nearest vectors and the best tf-idf matches, and
scores each paper as

    0.5 · cosine of the dense vectors + 0.5 · tf-idf cosine + 0.5 · BM25 / best BM25 of the query
    + 0.25 · the best cosine of the query with one sentence of the paper
    + 0.5 · the mean cosine of the query with the paper's abstract sentences

where the store has sentence vectors (``PAPERSIFT_SENTENCES``). The weights were chosen on the dev citation
sentences only, the two sentence weights on their ``tune`` half (``bench/tune_sentences.py``, a grid of 16
pairs): hybrid Recall@10 0.5345 → 0.5517 there and 0.6215 → 0.6341 on the other half. A citation sentence
often echoes one sentence of the cited abstract (the best match); the mean over the abstract's sentences
sees all of it, where the paper's one vector sees the model's first 256 word pieces. The sentence terms
re-rank the best ``RERANK`` candidates by the other terms; the rest, and a paper without sentence vectors
yet, count their dense cosine instead.

Filters (category, dates, author) and exclusions
(``-word``, ``-"a phrase"``) hold in every mode; the vectors and tf-idf see only the words wanted. A paper
with no word of the query (no BM25 match, no shared tf-idf term) must be close in content
(cosine ≥ ``DENSE_FLOOR``) to be shown at all: gibberish, an emoji or a lone ``(`` get "no good matches",
not ten unrelated papers; a query none of whose words the store's vocabulary knows (so that no lexical
evidence is possible, and a hashed term slot it shares by chance counts for nothing) needs
``UNKNOWN_WORDS_FLOOR``. Pages are slices of one ranking.

Every query is first understood (``ranking.understand``, unless ``exact``): 中文 translated, misspellings
corrected, acronyms joined with their long forms. The keyword side matches ``keyword_text`` (acronyms as
``a OR b``), the tf-idf side ``lexical_text`` (the known words and the other forms), the dense vector the
text used; ``SearchResult.understood`` says what was done.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from papersift.index.indexes import Indexes
from papersift.index.sentences import SentenceWeights, sentence_term
from papersift.paper import Paper, is_arxiv_id, normalize_id
from papersift.ranking.phrases import best_phrases, phrases, word_rarity
from papersift.ranking.understand import Translate, Understood, suggest, understand, verbatim
from papersift.store import Filters

Mode = Literal["keyword", "semantic", "hybrid"]
MODES: tuple[Mode, ...] = ("keyword", "semantic", "hybrid")
W_DENSE = 0.5
W_LEXICAL = 0.5
W_BM25 = 0.5
SENTENCE_WEIGHTS = SentenceWeights(best=0.25, mean=0.5)  # chosen on the tune half (see above)
POOL = 200
KEYWORD_POOL = 1000  # BM25 matches a sentence-long query can rank the answer deep in
SHORT_QUERY = 4  # words
MAX_QUERY_CHARS = 10_000
# the least cosine for a paper sharing no word with the query: above what gibberish, emoji and CJK text
# reach on 1,500 real papers (0.27 at most), below real one- and two-word queries' best (0.35 and up)
DENSE_FLOOR = 0.3
# …and when not one word of the query is in two papers of the store (the vocabulary's test), so there can be
# no lexical evidence at all: a four-letter "zxqv" reached 0.33 on 3,584 real papers, word pieces echoing
# an acronym; a real query always has some word the papers use
UNKNOWN_WORDS_FLOOR = 0.45
NO_GOOD_MATCHES = "no good matches"
_TOKEN = re.compile(r'(-?)"([^"]+)"|(-?)([\w][\w.+\'-]*\*?)', re.UNICODE)


def exclusions(query: str) -> tuple[str, re.Pattern[str] | None]:
    """The query without its ``-word`` / ``-"phrase"`` parts, and a pattern matching those parts (whole
    words, case-insensitive, plural and -ed/-ing forms too, as the keyword side's stemmer counts them)."""
    kept, parts = query, []
    for m in _TOKEN.finditer(query):
        if m.group(1) or m.group(3):
            words = re.findall(r"\w+", m.group(2) or m.group(4) or "")
            if words:
                parts.append(r"\W+".join(re.escape(w) + r"(?:s|es|ed|ing)?" for w in words))
            kept = kept.replace(m.group(0), " ", 1)
    if not parts:
        return query, None
    return " ".join(kept.split()), re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


def _excluded(paper: Paper, pattern: re.Pattern[str] | None) -> bool:
    return pattern is not None and pattern.search(f"{paper.title}\n{paper.abstract}") is not None


@dataclass(frozen=True, slots=True)
class SearchHit:
    paper: Paper
    score: float
    terms: list[str] = field(default_factory=list)


@dataclass
class SearchResult:
    hits: list[SearchHit]
    mode: Mode
    notes: list[str] = field(default_factory=list)
    understood: Understood | None = None  # what the query was read as (``ranking.understand``)


def search(
    indexes: Indexes,
    query: str,
    *,
    mode: Mode = "hybrid",
    k: int = 10,
    offset: int = 0,
    filters: Filters | None = None,
    vector: np.ndarray | None = None,
    sentence_weights: SentenceWeights = SENTENCE_WEIGHTS,
    exact: bool = False,
    translate: Translate | None = None,
) -> SearchResult:
    """One page of results; a mode the indexes cannot serve falls back to keyword, with a note.

    A query that is an arXiv id or URL of a stored paper opens that paper. The query is understood first
    (translated, corrected, its acronyms expanded: ``ranking.understand``, ``translate`` its model seam)
    unless ``exact``; a query that matches nothing carries suggestions of near terms.
    """
    filters = filters or Filters()
    query = query[:MAX_QUERY_CHARS]
    if not query.strip():
        return SearchResult([], mode, ["empty query"])
    if is_arxiv_id(query) and (paper := indexes.store.get(normalize_id(query))) is not None:
        return SearchResult([SearchHit(paper, 0.0)] if offset == 0 else [], mode, ["an arXiv id: that paper"])
    understood = (
        verbatim(query) if exact else understand(indexes, query, author=filters.author, translate=translate)
    )
    result = _search(indexes, understood, mode, k, offset, filters, vector, sentence_weights)
    if not result.hits and offset == 0 and not exact:
        understood = replace(understood, suggestions=suggest(indexes, understood))
    result.understood = understood
    return result


def _search(
    indexes: Indexes,
    understood: Understood,
    mode: Mode,
    k: int,
    offset: int,
    filters: Filters,
    vector: np.ndarray | None,
    sentence_weights: SentenceWeights,
) -> SearchResult:
    notes: list[str] = []
    query = understood.keyword_text or understood.text_used
    if mode != "keyword" and indexes.dense is None:
        notes.append("no vectors yet: keyword results only (run `papersift embed`)")
        if mode == "semantic" or indexes.lexical is None:
            mode = "keyword"
    if mode == "keyword" and understood.loose:
        rows = indexes.store.match(query, k=k, offset=offset, filters=filters, any_terms=True)
        papers = indexes.store.by_rowids([rowid for rowid, _ in rows])
        loose = [SearchHit(papers[rowid], score) for rowid, score in rows if rowid in papers]
        if not loose and offset == 0:
            notes.append(NO_GOOD_MATCHES)
        return SearchResult(loose, "keyword", notes)
    if mode == "keyword":
        found = indexes.store.search(
            query,
            k=k,
            offset=offset,
            category=filters.category,
            since=filters.since,
            until=filters.until,
            author=filters.author,
        )
        if not found and offset == 0:
            notes.append(NO_GOOD_MATCHES)
        return SearchResult([SearchHit(h.paper, h.score) for h in found], "keyword", notes)
    want = offset + k
    excluded = exclusions(query)[1]
    floor = DENSE_FLOOR
    if indexes.vocabulary is not None and not understood.verbatim and not understood.lexical_text.strip():
        floor = UNKNOWN_WORDS_FLOOR
    dense_text = exclusions(understood.text_used)[0] or understood.text_used
    wanted = understood.lexical_text
    lazy: np.ndarray | Callable[[], np.ndarray] | None = vector
    if vector is None and indexes.dense is not None:
        encoded: list[np.ndarray] = []

        def query_vector() -> np.ndarray:  # encoded on first use: hybrid runs its keyword match first
            if not encoded:
                encoded.append(indexes.encoder().encode([dense_text])[0])
            return encoded[0]

        lazy = query_vector
    size = max(len(indexes.dense) if indexes.dense else 0, len(indexes.lexical) if indexes.lexical else 0)
    pool = max(POOL, 2 * want)
    while True:
        hits = _collect(
            indexes, query, mode, lazy, pool, want, filters, excluded, sentence_weights, wanted, floor
        )
        if len(hits) >= want or pool >= size:
            break
        pool *= 8  # the filters left too few: widen the pool
    lex = indexes.lexical
    page = hits[offset:want]
    if not hits:
        notes.append(NO_GOOD_MATCHES)
    if lex is not None:  # the query's phrases each result contains as written
        mine, rarity = phrases(wanted), word_rarity(lex)
        return SearchResult(
            [
                SearchHit(h.paper, h.score, best_phrases(mine & phrases(paper_text(h.paper)), rarity, 5))
                for _, h in page
            ],
            mode,
            notes,
        )
    return SearchResult([h for _, h in page], mode, notes)


def paper_text(paper: Paper) -> str:
    return f"{paper.title} {paper.abstract}"


def _collect(
    indexes: Indexes,
    query: str,
    mode: Mode,
    vector: np.ndarray | Callable[[], np.ndarray] | None,
    pool: int,
    want: int,
    filters: Filters,
    excluded: re.Pattern[str] | None = None,
    sentence_weights: SentenceWeights = SENTENCE_WEIGHTS,
    lexical_text: str | None = None,
    floor: float = DENSE_FLOOR,
) -> list[tuple[int, SearchHit]]:
    """The best ``want`` (rowid, hit) pairs that pass the filters, the exclusions and the relevance floor,
    from a pool of ``pool`` candidates. ``lexical_text``: what the tf-idf side sees (default: the query's
    wanted words)."""
    keyword_rows: set[int] = set()
    wanted = exclusions(query)[0] if lexical_text is None else lexical_text
    if mode == "semantic":
        assert indexes.dense is not None and vector is not None
        keys, sims = indexes.dense.search(_value(vector), pool)
        scores = dict(zip(keys.tolist(), sims.tolist(), strict=True))
        weak = _weak(indexes, wanted, keys, sims, floor)
    else:
        scores, keyword_rows, weak = _hybrid_scores(
            indexes, query, vector, pool, filters, sentence_weights, wanted, floor
        )
    ranked = sorted((key for key in scores if key not in weak), key=lambda key: -scores[key])
    hits: list[tuple[int, SearchHit]] = []
    for start in range(0, len(ranked), 4 * want):
        chunk = ranked[start : start + 4 * want]
        papers = indexes.store.by_rowids(chunk)
        for key in chunk:
            paper = papers.get(key)
            if paper is None or (key not in keyword_rows and not filters.admit(paper)):
                continue
            if _excluded(paper, excluded):
                continue
            hits.append((key, SearchHit(paper, scores[key])))
        if len(hits) >= want:
            break
    return hits


def _value(vector: np.ndarray | Callable[[], np.ndarray]) -> np.ndarray:
    """The query's vector, encoding it if it has not been yet."""
    return vector() if callable(vector) else vector


def _weak(
    indexes: Indexes, query: str, keys: np.ndarray, dense: np.ndarray, floor: float = DENSE_FLOOR
) -> set[int]:
    """Of ``keys``, those sharing no tf-idf term with ``query`` and below ``floor`` in content."""
    lex = indexes.lexical
    shared = np.zeros(len(keys), bool)
    if lex is not None and len(lex) and len(keys):
        slots, weights = lex.vectorize(query)
        positions = lex.positions(keys)
        inside = positions >= 0
        shared[inside] = lex.cosine(slots, weights, positions[inside]) > 0
    return set(keys[~shared & (dense < floor)].tolist())


def _hybrid_scores(
    indexes: Indexes,
    query: str,
    lazy_vector: np.ndarray | Callable[[], np.ndarray] | None,
    pool: int,
    filters: Filters,
    sentence_weights: SentenceWeights = SENTENCE_WEIGHTS,
    lexical_text: str | None = None,
    floor: float = DENSE_FLOOR,
) -> tuple[dict[int, float], set[int], set[int]]:
    store, lex, dense = indexes.store, indexes.lexical, indexes.dense

    def match(any_terms: bool) -> list[tuple[int, float]]:
        common = lex.common if any_terms and lex is not None and len(lex) else None
        return store.match(query, k=KEYWORD_POOL, filters=filters, any_terms=any_terms, common=common)

    # a short query: BM25 for the papers with all its words, however few (ranking every paper with any
    # of its words cost 2-3× the whole query at 300k; the vectors and tf-idf find the rest); a sentence,
    # which no paper holds whole: any of its words but those in over 10% of the papers
    keyword = match(len(query.split()) > SHORT_QUERY)
    keyword_rows = {rowid for rowid, _ in keyword}
    best = max((score for _, score in keyword), default=0.0)
    bm25 = {rowid: score / best for rowid, score in keyword if best > 0}
    parts = [np.fromiter(bm25, dtype=np.int64, count=len(bm25))]
    vector = _value(lazy_vector) if lazy_vector is not None else None  # after the keyword match
    if dense is not None and vector is not None:
        parts.append(dense.search(vector, pool)[0])
    wanted = exclusions(query)[0] if lexical_text is None else lexical_text
    empty = (np.zeros(0, np.int32), np.zeros(0))
    slots, weights = lex.vectorize(wanted) if lex is not None else empty
    if lex is not None and len(lex):
        parts.append(lex.keys[lex.candidates(slots, weights, pool)])
    keys = np.unique(np.concatenate(parts))
    total = np.array([bm25.get(key, 0.0) for key in keys.tolist()]) * W_BM25
    evidence = total > 0  # a BM25 match or a shared tf-idf term
    if lex is not None and len(lex) and len(keys):
        positions = lex.positions(keys)
        cosine = lex.cosine(slots, weights, positions[positions >= 0])
        total[positions >= 0] += W_LEXICAL * cosine
        evidence[positions >= 0] |= cosine > 0
    close = np.ones(len(keys), bool)
    if dense is not None and vector is not None and len(keys):
        sims = dense.vectors(keys) @ vector.astype(np.float32)
        total += W_DENSE * sims
        close = sims >= floor
        if sentence_weights and indexes.sentences is not None:
            total += sentence_term(indexes.sentences, keys, vector[None, :], total, sims, sentence_weights)
    scores = dict(zip(keys.tolist(), total.tolist(), strict=True))
    return scores, keyword_rows, set(keys[~evidence & ~close].tolist())
