"""Related papers and search over a real, embedded store: ranking, filters, reasons, bad input."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from papersift.index.indexes import Indexes, ModelMismatchError, check_model, open_indexes
from papersift.index.pipeline import refresh
from papersift.ranking.evaluate import evaluate_related, metrics
from papersift.ranking.pool import Hit, how_much_earlier
from papersift.ranking.related import paper_query, related, text_query
from papersift.ranking.search import search
from papersift.records.paper import Paper, Submitted, first_submitted, id_month, months_between
from papersift.settings import Settings
from papersift.store import Filters, open_store

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]


def test_related_never_returns_the_query_paper_and_ranks_by_score(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    for qid in sorted(citation_corpus[1])[:5]:
        paper = indexes.store.get(qid)
        assert paper is not None
        hits = related(indexes, paper_query(indexes, paper), k=7)
        assert len(hits) == 7
        assert qid not in {h.paper.id for h in hits}
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)


def test_related_finds_cited_papers_better_than_the_dense_cosine_alone(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    scores = {s.method: s for s in evaluate_related(indexes, citation_corpus[1])}
    assert scores["papersift"].queries == len(citation_corpus[1])
    assert scores["papersift"].ndcg > scores["dense-cosine"].ndcg
    assert scores["papersift"].ndcg >= scores["tfidf-arxiv-sanity"].ndcg
    assert scores["papersift"].recall > 0.4


def test_related_filters_by_category_and_date(indexes: Indexes, citation_corpus: Corpus) -> None:
    paper = indexes.store.get(sorted(citation_corpus[1])[0])
    assert paper is not None
    query = paper_query(indexes, paper)
    for hit in related(indexes, query, k=5, filters=Filters(category="math")):
        assert any(c.startswith("math") for c in hit.paper.categories)
    since = date(2015, 1, 1)
    for hit in related(indexes, query, k=5, filters=Filters(since=since)):
        day = hit.paper.announced or hit.paper.published
        assert day is not None and day >= since


def test_related_reasons_name_shared_terms_and_authors(indexes: Indexes, citation_corpus: Corpus) -> None:
    reasons = []
    for qid in sorted(citation_corpus[1]):
        paper = indexes.store.get(qid)
        assert paper is not None
        for hit in related(indexes, paper_query(indexes, paper), k=10):
            reasons.extend(hit.reasons())
            for term in hit.terms:  # a shared term is a word of the query paper's text
                assert term.split()[0] in (paper.title + " " + paper.abstract).lower()
    assert any(r.startswith("shared terms: ") for r in reasons)
    assert any(r.startswith("same authors: ") for r in reasons)


def test_text_query_cuts_a_huge_text_and_says_so(indexes: Indexes) -> None:
    text = "Measurements of neutrino oscillation parameters with reactor antineutrinos. " * 14_000
    assert len(text) > 1_000_000
    query = text_query(indexes, text)
    assert any("cut to the model's" in note for note in query.notes)
    hits = related(indexes, query, k=5)
    assert len(hits) == 5


def test_search_modes_and_filters(indexes: Indexes) -> None:
    for mode in ("keyword", "semantic", "hybrid"):
        result = search(indexes, "quark mass", mode=mode, k=5)  # type: ignore[arg-type]
        assert result.mode == mode and 0 < len(result.hits) <= 5
    hybrid = search(indexes, "quark mass", k=5, filters=Filters(category="hep-ph"))
    assert all("hep-ph" in h.paper.categories for h in hybrid.hits)
    first = search(indexes, "quark mass", k=3).hits
    second = search(indexes, "quark mass", k=3, offset=3).hits
    assert not {h.paper.id for h in first} & {h.paper.id for h in second}
    for query in ['"', "AND(", "a* OR", "NEAR(x", "-", "*"]:
        search(indexes, query, k=3)  # no exception: user syntax is never an error


def test_a_short_query_whose_words_never_meet_still_finds_papers(indexes: Indexes) -> None:
    assert indexes.store.match("quark gravitino", k=5) == []  # no paper holds both words
    hits = search(indexes, "quark gravitino", k=5).hits
    assert len(hits) == 5
    assert any("quark" in f"{h.paper.title} {h.paper.abstract}".lower() for h in hits)


def test_a_sentence_leaves_common_words_out_of_its_keyword_side(indexes: Indexes) -> None:
    lex, store = indexes.lexical, indexes.store
    assert lex is not None
    assert lex.common("model") and lex.common("Results")  # in over 10% of the papers
    assert not lex.common("gravitino") and not lex.common("") and not lex.common("!!")
    title = next(p.title for _, p in store.iter_rows() if "neutrino" in p.title.lower())
    rare = next(w for w in re.findall(r"[a-z]{6,}", title.lower()) if not lex.common(w))
    sentence = f"a model of the {rare} with results"
    every_word = store.match(sentence, k=1000, any_terms=True)
    rare_words = store.match(sentence, k=1000, any_terms=True, common=lex.common)
    assert 0 < len(rare_words) < len(every_word)
    assert {r for r, _ in rare_words} == {r for r, _ in store.match(rare, k=1000)}
    assert any(
        rare in f"{h.paper.title} {h.paper.abstract}".lower() for h in search(indexes, sentence, k=5).hits
    )


def test_without_vectors_related_and_search_fall_back_to_keywords(
    tmp_path: Path, embedded_home: Path, citation_corpus: Corpus
) -> None:
    settings = Settings(home=tmp_path)
    shutil.copy(embedded_home / "papersift.db", tmp_path / "papersift.db")
    store = open_store(settings)
    store.reset_vectors("none-yet")
    bare = open_indexes(store, settings)
    assert bare.dense is None and bare.lexical is None
    paper = store.get(sorted(citation_corpus[1])[0])
    assert paper is not None
    query = paper_query(bare, paper)
    hits = related(bare, query, k=5)
    assert hits and paper.id not in {h.paper.id for h in hits}
    assert any("run `papersift embed`" in n for n in query.notes)
    result = search(bare, "quark mass", k=3)
    assert result.mode == "keyword" and any("papersift embed" in n for n in result.notes)
    store.close()


def test_a_model_change_is_refused_not_mixed(embedded_home: Path) -> None:
    other = Settings(home=embedded_home, quantize=False)
    store = open_store(other)
    with pytest.raises(ModelMismatchError, match="papersift embed --reset"):
        check_model(store, other)
    store.close()


def test_a_damaged_generation_is_never_served_and_the_next_refresh_replaces_it(
    tmp_path: Path, embedded_home: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(embedded_home, home)
    settings = Settings(home=home)
    generation = home / "index" / (home / "index" / "current").read_text().strip()
    (generation / "dense.usearch").write_bytes(b"\x00garbage" * 100)
    store = open_store(settings)
    served = open_indexes(store, settings)
    assert served.dense is None and served.lexical is None and served.generation is None
    assert refresh(store, settings) == (store.count(), store.count())
    rebuilt = open_indexes(store, settings)
    assert rebuilt.dense is not None and len(rebuilt.dense) == store.count()
    assert rebuilt.lexical is not None and len(rebuilt.lexical) == store.count()
    assert rebuilt.name != generation.name and not generation.exists()  # the damaged one is gone
    key = store.rowid(next(store.iter_papers()).id)
    assert key is not None
    vector = rebuilt.dense.vectors(np.array([key]))[0]
    assert rebuilt.dense.search(vector, 1)[0][0] == key
    store.close()


def test_metrics_match_hand_computed_values() -> None:
    ndcg, recall, rr = metrics(["x", "a", "y", "b"], {"a", "b"})
    ideal = 1 + 1 / np.log2(3)
    assert ndcg == pytest.approx((1 / np.log2(3) + 1 / np.log2(5)) / ideal)
    assert recall == 1.0 and rr == 0.5
    assert metrics(["x"], {"a"}) == (0.0, 0.0, 0.0)


def test_search_fills_a_page_under_a_narrow_filter_and_rejects_empty_queries(indexes: Indexes) -> None:
    # few papers of the store are in this category: the pool widens until the page is full or none are left
    rare = Filters(category="math.AG")
    hits = search(indexes, "algebraic varieties", mode="semantic", k=3, filters=rare).hits
    assert hits and all("math.AG" in h.paper.categories for h in hits)
    assert search(indexes, "   ", k=3).hits == [] and search(indexes, "", k=3).notes == ["empty query"]


def said_earlier(hit: Hit) -> list[str]:
    return [r for r in hit.reasons() if r.endswith((" earlier", ", submitted before"))]


def truly_earlier(hit: Hit, query: Paper) -> tuple[bool, tuple[int | None, int | None]]:
    """Whether ``hit`` was first submitted before ``query`` by the rule (``first_submitted``; a day, or a
    month where one date is known only to its month; a lower id on the same day or month), and the gap."""
    theirs, mine = first_submitted(hit.paper), first_submitted(query)
    assert theirs is not None and mine is not None
    order = [(0, i) if "/" in i else (len(i), i) for i in (hit.paper.id, query.id)]  # old-style ids first
    lower = order[0] < order[1]
    if theirs.exact and mine.exact:
        days = (mine.day - theirs.day).days
        return days > 0 or (days == 0 and lower), (days, None)
    months = months_between(theirs.day, mine.day)
    return months > 0 or (months == 0 and lower), (None, months)


def test_earlier_work_is_only_said_of_papers_first_submitted_before_the_query(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    for qid in sorted(citation_corpus[1]):
        paper = indexes.store.get(qid)
        assert paper is not None
        hits = related(indexes, paper_query(indexes, paper), k=10)
        later = [h for h in hits if first_submitted(h.paper) and h.paper.id > qid and "/" not in h.paper.id]
        if later:
            break
    else:
        raise AssertionError("no related paper with a later id")
    target = later[0].paper
    submitted = first_submitted(target)
    assert submitted is not None and submitted.exact
    # the query submitted the day the hit was, announced long after: its submission is what counts
    same_day = replace(paper, published=submitted.day, announced=submitted.day + timedelta(days=400))
    hits = related(indexes, paper_query(indexes, same_day), k=10)
    for hit in hits:
        truly, gap = truly_earlier(hit, same_day)
        said = said_earlier(hit)
        assert hit.earlier == truly and bool(said) == truly
        if truly:  # the gap as it matters: "3 years earlier", never "earlier work" for a week
            assert said == [how_much_earlier(*gap)] and (hit.days_earlier, hit.months_earlier) == gap
        if hit.paper.id == target.id:
            assert not hit.earlier  # same day, later id: not earlier work
    assert any(h.earlier for h in hits) and not all(h.earlier for h in hits)


def test_a_re_listed_old_paper_is_dated_by_its_id_and_its_gaps_said_in_months(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    # an old paper re-listed years later with no submission date (as 2309.x and 2407.x announced on
    # 2025-05-27 in the 300k file): its id's month is when it was submitted, never the re-listing day
    for qid in sorted(citation_corpus[1], reverse=True):
        stored = indexes.store.get(qid)
        assert stored is not None
        if "/" in qid:
            continue
        relisted = replace(stored, published=None, versions=[], announced=date(2031, 5, 27))
        month = id_month(qid)
        assert month is not None and first_submitted(relisted) == Submitted(month, False)
        hits = related(indexes, paper_query(indexes, relisted), k=10)
        if any(h.earlier for h in hits) and not all(h.earlier for h in hits):
            break
    else:
        raise AssertionError("no query with related papers both before and after it")
    for hit in hits:
        truly, (days, months) = truly_earlier(hit, relisted)
        said = said_earlier(hit)
        assert days is None and months is not None  # one date is a month: the gap in months or years
        assert hit.earlier == truly and bool(said) == truly
        assert not any("day" in r or "week" in r for r in said)  # never "the same day" from an id
        if truly:
            assert said == [how_much_earlier(None, months)] and hit.months_earlier == months


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_exclusions_hold_in_every_mode(indexes: Indexes, mode: str) -> None:
    having = [h.paper for h in search(indexes, "quark", mode="keyword", k=30).hits]
    word = "mass"
    assert any(re.search(rf"\b{word}", f"{p.title} {p.abstract}", re.I) for p in having)
    for query in (f"quark -{word}", f'quark -"{word}"', 'quark -"quark masses"'):
        excluded = query.split("-", 1)[1].strip('"')
        hits = search(indexes, query, mode=mode, k=20).hits  # type: ignore[arg-type]
        assert hits
        for h in hits:
            text = " ".join(f"{h.paper.title} {h.paper.abstract}".split())
            assert not re.search(rf"(?<!\w){re.escape(excluded)}(?!\w)", text, re.I), (query, h.paper.title)


@pytest.mark.parametrize("query", ["xqzvbn plorkt", "😀", "(", "机器学习"])
@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
def test_queries_matching_nothing_say_so_instead_of_listing_unrelated_papers(
    indexes: Indexes, query: str, mode: str
) -> None:
    # 机器学习 is understood as "machine learning" (tests/test_understand.py); searched as typed it matches
    # nothing
    result = search(indexes, query, mode=mode, k=10, exact=query == "机器学习")  # type: ignore[arg-type]
    assert result.hits == [] and "no good matches" in result.notes


def test_an_arxiv_id_has_one_result_and_no_second_page(indexes: Indexes, citation_corpus: Corpus) -> None:
    pid = sorted(citation_corpus[1])[0]
    assert [h.paper.id for h in search(indexes, pid, k=10).hits] == [pid]
    assert search(indexes, pid, k=10, offset=10).hits == []
    assert search(indexes, f"arXiv:{pid}", k=10, offset=490).hits == []


def test_a_gap_known_to_the_month_is_said_in_months_or_years() -> None:
    said = [how_much_earlier(None, m) for m in (0, 1, 10, 14, 20)]
    assert said == [
        "the same month, submitted before",
        "1 month earlier",
        "10 months earlier",
        "1 year earlier",
        "2 years earlier",
    ]


def test_a_gap_is_said_in_the_unit_that_matters() -> None:
    said = [how_much_earlier(d) for d in (0, 1, 5, 7, 20, 45, 400, 1100)]
    assert said == [
        "the same day, submitted before",
        "1 day earlier",
        "5 days earlier",
        "1 week earlier",
        "3 weeks earlier",
        "2 months earlier",
        "1 year earlier",
        "3 years earlier",
    ]


def test_every_related_paper_has_a_reason_and_its_shared_terms_are_in_both_texts(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    from papersift.ranking.phrases import occurs

    checked = 0
    queries = sorted(citation_corpus[1])  # the corpus's 30 query papers, then others of it: 40 in all
    others = [str(r["id"]) for r in citation_corpus[0] if r["id"] not in citation_corpus[1]]
    assert len(queries) < 40 <= len(queries) + len(others)
    for qid in [*queries, *others][:40]:  # 40 papers' related lists
        paper = indexes.store.get(qid)
        assert paper is not None
        mine = f"{paper.title} {paper.abstract}"
        for hit in related(indexes, paper_query(indexes, paper), k=5):
            assert hit.reasons()
            theirs = f"{hit.paper.title} {hit.paper.abstract}"
            assert len(hit.terms) <= 3
            for term in hit.terms:
                assert occurs(term, mine) and occurs(term, theirs), (term, qid, hit.paper.id)
                checked += 1
    assert checked > 300


def test_every_related_paper_of_a_pasted_text_has_a_reason(indexes: Indexes) -> None:
    text = (  # a text query has no authors, category or day: the reasons are its shared phrases or content
        "HC-RAG: hierarchical clustering of retrieved passages for retrieval-augmented generation, "
        "answering questions over long documents with fewer hallucinations."
    )
    hits = related(indexes, text_query(indexes, text), k=10)
    assert len(hits) == 10
    assert all(h.reasons() for h in hits), [h.paper.id for h in hits if not h.reasons()]
