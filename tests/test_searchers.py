"""The searcher seam (``ranking/searchers.py``) and the candidate pool (``ranking/pool.py``): each index
answers candidates and scores for a query, the pool widens once for search and related, and a search
counts its total from its own pool."""

from __future__ import annotations

import numpy as np
import pytest

from papersift.index.indexes import Indexes
from papersift.ranking.pool import widen
from papersift.ranking.search import search
from papersift.ranking.searchers import Probe, keys_of, searchers
from papersift.store import Filters


def test_each_searcher_ranks_its_candidates_best_first_and_scores_them_as_it_ranked_them(
    indexes: Indexes,
) -> None:
    found = searchers(indexes)
    assert found.lexical is not None and found.dense is not None and found.authors is not None
    paper = indexes.store.by_rowids([1])[1]
    vector = indexes.encoder().encode(["graph neural networks for molecules"])[0]
    terms = "graph neural networks molecules"
    probe = Probe(keyword="graph", terms=terms, vector=vector, authors=paper.authors)
    for name, searcher in [
        ("keyword", found.keyword),
        ("lexical", found.lexical),
        ("dense", found.dense),
        ("authors", found.authors),
    ]:
        pairs = searcher.candidates(probe, 20, Filters())
        assert pairs, name
        scores = np.array([score for _, score in pairs])
        if name != "lexical":  # tf-idf candidates come by shared key-term weight, not by cosine
            assert np.all(np.diff(scores) <= 1e-6), name
        again = searcher.scores(probe, keys_of(pairs))
        assert np.allclose(again, scores, atol=1e-4), name
        assert searcher.scores(probe, np.array([10**9]))[0] == 0, name  # a key it does not hold


def test_a_search_counts_the_papers_having_its_words_in_keyword_and_hybrid_mode(indexes: Indexes) -> None:
    """The total is what keyword mode finds (hybrid adds neighbours by meaning after them, uncounted: never
    "100+ results" where 11 papers have the words); semantic results are not counted."""
    cases = [("graph", Filters()), ("learning", Filters(category="cs.LG")), ("zxqv", Filters())]
    for query, filters in cases:
        deeper = search(indexes, query, mode="keyword", k=101, filters=filters)
        for mode in ("keyword", "semantic", "hybrid"):
            counted = search(indexes, query, mode=mode, k=10, filters=filters, count=101)
            plain = search(indexes, query, mode=mode, k=10, filters=filters)
            assert [(h.paper.id, h.score) for h in counted.hits] == [
                (h.paper.id, h.score) for h in plain.hits
            ]
            assert counted.total == (None if mode == "semantic" else len(deeper.hits)), (query, mode)
            assert plain.total is None
        hybrid = search(indexes, query, mode="hybrid", k=101, filters=filters)
        assert len(hybrid.hits) >= len(deeper.hits)


@pytest.mark.parametrize(
    ("found_at", "want", "count", "pools", "page_pool"),
    [
        ({200: 3, 1600: 12, 12800: 150}, 10, 0, [200, 1600], 1600),  # widened until the page is full
        ({200: 12, 1600: 40, 12800: 150}, 10, 101, [200, 1600, 12800], 200),  # the page stays the first's
        ({200: 3, 1600: 5}, 10, 101, [200, 1600], 1600),  # every paper in the pool: what there is
    ],
)
def test_the_pool_widens_for_the_page_then_for_the_count(
    found_at: dict[int, int], want: int, count: int, pools: list[int], page_pool: int
) -> None:
    asked: list[int] = []

    def collect(pool: int) -> list[int]:
        asked.append(pool)
        return [pool] * found_at[pool]

    page, counted = widen(collect, 200, want, 1500 if 12800 not in found_at else 100_000, count)
    assert asked == pools
    assert page == [page_pool] * found_at[page_pool]
    assert counted == min(found_at[pools[-1]], count)
