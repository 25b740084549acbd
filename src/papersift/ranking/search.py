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
``UNKNOWN_WORDS_FLOOR``. Pages are slices of one ranking; ``count`` counts the results (the page's total)
from the same candidate pool. The indexes are read through their searchers (``ranking/searchers.py``), the
pool widened and filtered as related's is (``ranking/pool.py``). Sorted by date (``sort="date"``), the
``DATE_POOL`` most relevant results are shown newest first (``newest_first`` says why so many).

Every query is first understood (``ranking.understand``, unless ``exact``): 中文 translated, misspellings
corrected, acronyms joined with their long forms. The keyword side matches ``keyword_text`` (acronyms as
``a OR b``), the tf-idf side ``lexical_text`` (the known words and the other forms), the dense vector the
text used; ``SearchResult.understood`` says what was done. In semantic mode a dictionary's translation
(``Understood.loose``) has its vector moved toward its best keyword matches' (``ranking.feedback``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Literal

import numpy as np

from papersift.index.indexes import Indexes
from papersift.ranking.feedback import rocchio
from papersift.ranking.phrases import best_phrases, phrases, word_rarity
from papersift.ranking.pool import Hit, admitted, widen
from papersift.ranking.searchers import Probe, Searchers, keys_of, searchers
from papersift.ranking.sentence_match import SentenceWeights, sentence_term
from papersift.ranking.to_english import Translate
from papersift.ranking.understand import Understood, suggest, understand, verbatim
from papersift.records.analyzer import words
from papersift.records.messages import Message, say
from papersift.records.paper import Paper, is_arxiv_id, normalize_id
from papersift.records.query import query_tokens
from papersift.store import Filters

Mode = Literal["keyword", "semantic", "hybrid"]
MODES: tuple[Mode, ...] = ("keyword", "semantic", "hybrid")
Sort = Literal["relevance", "date"]
SORTS: tuple[Sort, ...] = ("relevance", "date")
# sorted by date: the most relevant this many, newest first (see ``newest_first``)
DATE_POOL = 200
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
NO_GOOD_MATCHES = say("no_good_matches")


def exclusions(query: str) -> tuple[str, re.Pattern[str] | None]:
    """The query without its ``-word`` / ``-"phrase"`` parts, and a pattern matching those parts (whole
    words, case-insensitive, plural and -ed/-ing forms too, as the keyword side's stemmer counts them)."""
    kept, parts = query, []
    for token in query_tokens(query):
        if token.negated:
            if found := words(token.body):
                parts.append(r"\W+".join(re.escape(w) + r"(?:s|es|ed|ing)?" for w in found))
            kept = kept.replace(token.text, " ", 1)
    if not parts:
        return query, None
    return " ".join(kept.split()), re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


def _excluded(paper: Paper, pattern: re.Pattern[str] | None) -> bool:
    return pattern is not None and pattern.search(f"{paper.title}\n{paper.abstract}") is not None


@dataclass
class SearchResult:
    hits: list[Hit]
    mode: Mode
    notes: list[Message] = field(default_factory=list)
    understood: Understood | None = None  # what the query was read as (``ranking.understand``)
    # how many papers have the query's words, up to the ``count`` asked for (None: not counted, as in
    # semantic mode); hybrid shows them first, then papers close in meaning
    total: int | None = None


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
    count: int = 0,
    sort: Sort = "relevance",
) -> SearchResult:
    """One page of results; a mode the indexes cannot serve falls back to keyword, with a note.

    A query that is an arXiv id or URL opens that paper (no results, with a note, when it is not stored).
    The query is understood first (translated, corrected, its acronyms expanded: ``ranking.understand``,
    ``translate`` its model seam) unless ``exact``; a query that matches nothing carries suggestions of
    near terms. ``count``: also count the results up to that many (``SearchResult.total``), from the same
    candidate pool. ``sort``: by relevance, or by date (``newest_first``).
    """
    filters = filters or Filters()
    query = query[:MAX_QUERY_CHARS]
    if not query.strip():
        return SearchResult([], mode, [say("empty_query")], total=0 if count else None)
    if is_arxiv_id(query):  # that paper, or none: the words of an id match nothing worth showing
        pid = normalize_id(query)
        if (paper := indexes.store.get(pid)) is None:
            return SearchResult([], mode, [say("not_in_store", id=pid)], total=0 if count else None)
        hits = [Hit(paper, 0.0)] if offset == 0 else []
        return SearchResult(hits, mode, [say("an_arxiv_id")], total=min(1, count) if count else None)
    understood = (
        verbatim(query) if exact else understand(indexes, query, author=filters.author, translate=translate)
    )
    if sort == "date":
        result = _search(
            indexes, understood, mode, DATE_POOL, 0, filters, vector, sentence_weights, count, False
        )
        result = newest_first(result, offset, k)
        result.hits = with_terms(indexes, understood, result.hits)
    else:
        result = _search(indexes, understood, mode, k, offset, filters, vector, sentence_weights, count)
    if not result.hits and offset == 0 and not exact:
        understood = replace(understood, suggestions=suggest(indexes, understood))
    result.understood = understood
    return result


def search_page(
    indexes: Indexes,
    query: str,
    page: int,
    k: int,
    *,
    mode: Mode,
    filters: Filters,
    exact: bool,
    translate: Translate | None,
    count: int = 0,
    sort: Sort = "relevance",
) -> SearchResult:
    """Page ``page`` (from 1) of ``k`` results, as the faces ask for one (see ``search``)."""
    return search(
        indexes,
        query,
        mode=mode,
        k=k,
        offset=(page - 1) * k,
        filters=filters,
        exact=exact,
        translate=translate,
        count=count,
        sort=sort,
    )


def day_of(paper: Paper) -> date:
    """The day a result is dated by: its announcement, else its first version (as the date filters);
    an undated paper comes last."""
    return paper.announced or paper.published or date.min


def newest_first(result: SearchResult, offset: int, k: int) -> SearchResult:
    """Page ``offset``…``offset + k`` of ``result``'s hits (the ``DATE_POOL`` most relevant, best first)
    sorted newest first, equal days in relevance order; a note says so when the pool was full, that is
    when less relevant results were left out.

    Why the most relevant 200 and not every match: a date sort of every paper with any word of the query
    (or, in hybrid and semantic mode, of every neighbour in meaning) puts this week's loosest match first;
    the 200 best are the results a reader would page through by relevance (20 pages of 10), and the
    candidate pool search scores first (``POOL``) holds them without widening."""
    hits = sorted(result.hits, key=lambda h: day_of(h.paper), reverse=True)  # stable: ties by relevance
    notes = list(result.notes)
    if len(result.hits) >= DATE_POOL:
        notes.append(say("newest_of_relevant", n=DATE_POOL))
    return replace(result, hits=hits[offset : offset + k], notes=notes)


def with_terms(indexes: Indexes, understood: Understood, hits: list[Hit]) -> list[Hit]:
    """``hits`` with the query's phrases each contains as written (none without the tf-idf arrays)."""
    lex = indexes.lexical
    if lex is None:
        return hits
    mine, rarity = phrases(understood.lexical_text), word_rarity(lex)
    return [Hit(h.paper, h.score, best_phrases(mine & phrases(paper_text(h.paper)), rarity, 5)) for h in hits]


def _search(
    indexes: Indexes,
    understood: Understood,
    mode: Mode,
    k: int,
    offset: int,
    filters: Filters,
    vector: np.ndarray | None,
    sentence_weights: SentenceWeights,
    count: int = 0,
    terms: bool = True,
) -> SearchResult:
    notes: list[Message] = []
    query = understood.keyword_text or understood.text_used
    if mode != "keyword" and indexes.dense is None:
        notes.append(say("no_vectors_yet"))
        if mode == "semantic" or indexes.lexical is None:
            mode = "keyword"
    want = offset + k
    found = searchers(indexes)
    if mode == "keyword":  # BM25 alone: the store ranks and filters
        probe = Probe(keyword=query, any_terms=understood.loose)
        rows = found.keyword.candidates(probe, max(want, count), filters)
        papers = indexes.store.by_rowids([rowid for rowid, _ in rows[offset:want]])
        shown = [Hit(papers[rowid], score) for rowid, score in rows[offset:want] if rowid in papers]
        if not shown and offset == 0:
            notes.append(NO_GOOD_MATCHES)
        return SearchResult(shown, "keyword", notes, total=min(len(rows), count) if count else None)
    asked, count = count, 0  # not counted from the pool: see ``total`` below
    kept, excluded = exclusions(query)
    floor = DENSE_FLOOR
    if indexes.vocabulary is not None and not understood.verbatim and not understood.lexical_text.strip():
        floor = UNKNOWN_WORDS_FLOOR
    dense_text = (kept if understood.text_used == query else exclusions(understood.text_used)[0]) or (
        understood.text_used
    )
    probe = Probe(keyword=query, terms=understood.lexical_text, vector=vector)
    if vector is None and indexes.dense is not None:  # encoded on first use: hybrid matches keywords first

        def encode() -> np.ndarray:
            encoded: np.ndarray = indexes.encoder().encode([dense_text])[0]
            if mode == "semantic" and understood.loose:  # a dictionary's bag of words: see ranking.feedback
                return rocchio(found, encoded, query, filters)
            return encoded

        probe.vector = encode
    probe.any_terms = probe.skip_common = len(query.split()) > SHORT_QUERY
    keep = (lambda paper: not _excluded(paper, excluded)) if excluded is not None else None

    def collect(pool: int) -> list[tuple[int, Hit]]:
        scores, prefiltered, weak = _scores(
            found, probe, mode, pool, filters, sentence_weights, floor, indexes
        )
        ranked = sorted((key for key in scores if key not in weak), key=lambda key: -scores[key])
        target = max(want, count)
        taken = admitted(
            indexes.store, ranked, filters, target, 4 * target, prefiltered=prefiltered, keep=keep
        )
        return [(key, Hit(paper, scores[key])) for key, paper in taken]

    hits, _ = widen(collect, max(POOL, 2 * want), want, found.size, count)
    page = hits[offset:want]
    if not hits:
        notes.append(NO_GOOD_MATCHES)
    # a total means the papers having the query's words (as keyword mode counts them): the neighbours by
    # meaning hybrid adds after them have no natural end ("100+ results" where 11 papers have the words);
    # semantic results are not counted at all
    total = None
    if asked and mode == "hybrid":
        matched = found.keyword.candidates(Probe(keyword=query, any_terms=understood.loose), asked, filters)
        total = min(len(matched), asked)
    shown = [h for _, h in page]
    return SearchResult(with_terms(indexes, understood, shown) if terms else shown, mode, notes, total=total)


def paper_text(paper: Paper) -> str:
    return f"{paper.title} {paper.abstract}"


def _scores(
    found: Searchers,
    probe: Probe,
    mode: Mode,
    pool: int,
    filters: Filters,
    sentence_weights: SentenceWeights,
    floor: float,
    indexes: Indexes,
) -> tuple[dict[int, float], set[int], set[int]]:
    """Each candidate's score, the candidates the store filtered already, and the weak ones: those with no
    word of the query (no BM25 match, no shared tf-idf term) and below ``floor`` in content."""
    if mode == "semantic":
        assert found.dense is not None
        nearest = found.dense.candidates(probe, pool, filters)
        keys = keys_of(nearest)
        sims = np.array([sim for _, sim in nearest], np.float32)
        shared = (
            found.lexical.scores(probe, keys) > 0 if found.lexical is not None else np.zeros(len(keys), bool)
        )
        return dict(nearest), set(), set(keys[~shared & (sims < floor)].tolist())
    # a short query: BM25 for the papers with all its words, however few (ranking every paper with any
    # of its words cost 2-3× the whole query at 300k; the vectors and tf-idf find the rest); a sentence,
    # which no paper holds whole: any of its words but those in over 10% of the papers
    keyword = found.keyword.candidates(probe, KEYWORD_POOL, filters)
    best = max((score for _, score in keyword), default=0.0)
    bm25 = {rowid: score / best for rowid, score in keyword if best > 0}
    parts = [np.fromiter(bm25, dtype=np.int64, count=len(bm25))]
    vector = probe.dense()  # after the keyword match
    if found.dense is not None and vector is not None:
        parts.append(keys_of(found.dense.candidates(probe, pool, filters)))
    if found.lexical is not None:
        parts.append(keys_of(found.lexical.candidates(probe, pool, filters)))
    keys = np.unique(np.concatenate(parts))
    total = np.array([bm25.get(key, 0.0) for key in keys.tolist()]) * W_BM25
    evidence = total > 0  # a BM25 match or a shared tf-idf term
    if found.lexical is not None and len(keys):
        cosine = found.lexical.scores(probe, keys)
        total += W_LEXICAL * cosine
        evidence |= cosine > 0
    close = np.ones(len(keys), bool)
    if found.dense is not None and vector is not None and len(keys):
        sims = found.dense.scores(probe, keys)
        total += W_DENSE * sims
        close = sims >= floor
        if sentence_weights and indexes.sentences is not None:
            total += sentence_term(indexes.sentences, keys, vector[None, :], total, sims, sentence_weights)
    scores = dict(zip(keys.tolist(), total.tolist(), strict=True))
    return scores, {rowid for rowid, _ in keyword}, set(keys[~evidence & ~close].tolist())
