"""Daily Papers ranking over a real, embedded store: library topics, ratings, keywords, follows, cold start,
and ``papersift eval recommend`` on a tiny corpus."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from papersift.index.indexes import Indexes
from papersift.index.lexical import author_key
from papersift.ranking.eval_corpus import corpus_of
from papersift.ranking.evaluate import TAG_METHODS, evaluate_recommend
from papersift.ranking.recommend import LibraryItem, Profile, keyword_pattern, passes, recommend
from papersift.ranking.related import paper_query, related
from papersift.ranking.simulated_readers import simulate_readers, tag_readers
from papersift.records.catalogs import said
from papersift.records.messages import say
from papersift.records.paper import Paper
from tests.support.data import write_jsonl
from tests.support.inproc import invoke

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]
NOW = datetime(2026, 8, 21, tzinfo=UTC)


@dataclass
class Topic:
    """Three papers one query cites (one primary category), and 30 stored papers of other categories."""

    cited: list[int]
    unrelated: list[int]
    papers: dict[int, Paper]


@pytest.fixture(scope="module")
def topic(indexes: Indexes, citation_corpus: Corpus) -> Topic:
    papers = dict(indexes.store.iter_rows())
    rowid = {p.id: r for r, p in papers.items()}
    for query in sorted(citation_corpus[1]):
        cited = sorted(rowid[c] for c in citation_corpus[1][query] if c in rowid)
        primaries = {papers[r].primary_category for r in cited}
        if len(cited) >= 3 and len(primaries) == 1:
            unrelated = [r for r in sorted(papers) if papers[r].primary_category not in primaries][:30]
            return Topic(cited[:3], unrelated, papers)
    raise AssertionError("no query cites three papers of one category")


def item(paper: Paper, rowid: int | None, rating: int = 1, days: int = 10) -> LibraryItem:
    return LibraryItem(
        rowid=rowid,
        text=f"{paper.title}. {paper.abstract}",
        authors=tuple(paper.authors),
        rating=rating,
        added=NOW - timedelta(days=days),
        title=paper.title,
    )


def ranked(indexes: Indexes, profile: Profile, candidates: list[int]) -> list[int]:
    return [r.rowid for r in recommend(indexes, profile, candidates, k=len(candidates), now=NOW)]


def test_a_library_on_one_topic_ranks_an_unseen_paper_of_that_topic_above_unrelated_ones(
    indexes: Indexes, topic: Topic
) -> None:
    liked = tuple(item(topic.papers[r], r) for r in topic.cited[:2])
    hidden = topic.cited[2]
    candidates = [*topic.unrelated, hidden]  # last in the input order
    hits = recommend(indexes, Profile(items=liked), candidates, k=5, now=NOW)
    assert len(hits) == 5 and hits[0].rowid == hidden
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    best = hits[0]
    assert best.closest and {c[0] for c in best.closest} <= set(topic.cited[:2])
    assert any(line.startswith("close to “") for line in best.reasons())
    text = " ".join(
        topic.papers[r].title + " " + topic.papers[r].abstract for r in [hidden, *topic.cited[:2]]
    )
    for term in best.terms:  # shared terms are words of the paper and of the library
        assert term.split()[0] in text.lower()


def test_a_not_for_me_rating_pushes_similar_papers_down(indexes: Indexes, topic: Topic) -> None:
    liked = tuple(item(topic.papers[r], r) for r in topic.cited[:2])
    candidates = [*topic.unrelated, topic.cited[2]]
    before = ranked(indexes, Profile(items=liked), candidates)
    target = before[1]  # the best unrelated paper
    twin = next(  # the stored paper closest to it, outside the candidates and the library
        h.paper
        for h in related(indexes, paper_query(indexes, topic.papers[target]), k=10)
        if indexes.store.rowid(h.paper.id) not in {*candidates, *topic.cited}
    )
    disliked = item(twin, indexes.store.rowid(twin.id), rating=-1)
    after = ranked(indexes, Profile(items=(*liked, disliked)), candidates)
    assert after.index(target) > before.index(target)
    assert after[0] == topic.cited[2]


def test_keyword_patterns_match_whole_words_and_phrases_ignoring_case() -> None:
    def paper(title: str, abstract: str = "") -> Paper:
        return Paper(id="2401.00001", title=title, authors=[], abstract=abstract, categories=["hep-ph"])

    pattern = keyword_pattern(["Neutrino  Mass", "  ", "B-meson"])
    assert pattern is not None and keyword_pattern(["", "   "]) is None
    assert passes(paper("On the neutrino\nmass hierarchy"), pattern, None)
    assert passes(paper("x", "Decays of the b-meson (LHCb)"), pattern, None)
    assert not passes(paper("Antineutrino mass bounds"), pattern, None)  # inside a word: no match
    assert not passes(paper("Neutrinos massive"), pattern, None)
    assert not passes(paper("NEUTRINO MASS sum rules"), None, pattern)
    assert passes(paper("Dark photons"), None, pattern) and passes(paper("Dark photons"), None, None)


def test_never_words_drop_papers_and_must_words_keep_only_matching_ones(
    indexes: Indexes, topic: Topic
) -> None:
    candidates = [*topic.unrelated, *topic.cited]
    texts = {r: f"{topic.papers[r].title}\n{topic.papers[r].abstract}" for r in candidates}
    liked = (item(topic.papers[topic.cited[0]], topic.cited[0]),)
    words = (w for r in candidates for w in re.findall(r"[a-z]{6,}", texts[r].lower()))
    word = next(
        w for w in words if 3 <= sum(bool(re.search(rf"\b{w}\b", t, re.I)) for t in texts.values()) < 10
    )
    having = {r for r, t in texts.items() if re.search(rf"\b{word}\b", t, re.I)}
    kept = ranked(indexes, Profile(items=liked, never=(word.upper(),)), candidates)
    assert set(kept) == set(candidates) - having - {topic.cited[0]}  # the liked paper: already saved
    only = ranked(indexes, Profile(items=liked, must=(word.title(), "zzzunseen")), candidates)
    assert set(only) == having - {topic.cited[0]}
    cold = ranked(indexes, Profile(items=(), must=(word,)), candidates)
    assert cold == [r for r in candidates if r in having]  # no library: the input order, filtered


def test_followed_authors_lift_their_papers_and_are_named_in_the_reasons(
    indexes: Indexes, topic: Topic
) -> None:
    liked = tuple(item(topic.papers[r], r) for r in topic.cited[:2])
    candidates = [*topic.unrelated, topic.cited[2]]
    order = ranked(indexes, Profile(items=liked), candidates)
    alone = [
        r for r in order if sum(topic.papers[r].authors[0] in topic.papers[c].authors for c in order) == 1
    ]
    last = alone[-1]  # the lowest ranked paper whose first author wrote no other candidate
    author = topic.papers[last].authors[0]
    hits = recommend(indexes, Profile(items=liked, authors=(author.upper(),)), candidates, k=3, now=NOW)
    assert hits[0].rowid == last
    assert author in hits[0].followed_authors
    assert f"followed authors: {', '.join(hits[0].followed_authors)}" in hits[0].reasons()


def test_an_outside_item_without_a_rowid_counts(indexes: Indexes, topic: Topic) -> None:
    source = topic.papers[topic.cited[0]]
    outside = item(source, None)  # e.g. a Zotero item: only its own title, abstract and authors
    candidates = [topic.cited[2], *topic.unrelated]
    hits = recommend(indexes, Profile(items=(outside,)), candidates, k=3, now=NOW)
    assert hits[0].rowid == topic.cited[2]
    assert hits[0].closest[0][:2] == (None, source.title)


def test_an_empty_library_orders_by_followed_authors_then_categories_then_input(
    indexes: Indexes, topic: Topic
) -> None:
    papers = topic.papers
    category = papers[topic.cited[0]].primary_category
    others = {author_key(a) for r in topic.unrelated[:-1] for a in papers[r].authors}
    by_author = next(r for r in topic.unrelated if not {author_key(a) for a in papers[r].authors} & others)
    rest = [r for r in topic.unrelated if r != by_author]
    candidates = [*rest[:5], topic.cited[1], *rest[5:10], by_author, topic.cited[0]]
    profile = Profile(items=(), authors=(papers[by_author].authors[0],), categories=(category,))
    order = ranked(indexes, profile, candidates)
    assert order == [by_author, topic.cited[1], topic.cited[0], *rest[:10]]
    hits = recommend(indexes, profile, candidates, k=2, now=NOW)
    assert hits[1].reasons() == [f"followed category ({category})"]
    assert recommend(indexes, Profile(items=()), candidates, k=4) == recommend(
        indexes, Profile(items=()), candidates[:4], k=10
    )
    assert recommend(indexes, profile, [], k=5) == [] and recommend(indexes, profile, [10**9], k=5) == []


def test_simulated_readers_split_into_tune_and_heldout_halves_at_each_library_size(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    scores = {
        split: evaluate_recommend(indexes, citation_corpus[1], split=split, sizes=(1, 2))
        for split in ("all", "tune", "heldout")
    }
    readers = {split: {s.queries for s in by} for split, by in scores.items()}
    assert all(len(r) == 1 for r in readers.values())  # the same readers at every size, for every method
    count = {split: r.pop() for split, r in readers.items()}
    assert count["all"] == count["tune"] + count["heldout"] and min(count.values()) > 0
    for by in scores.values():
        assert [(s.library_size, s.method) for s in by] == [
            (n, m) for n in (1, 2) for m in ("papersift", "arxiv-sanity-svm", "zotero-cosine")
        ]
        assert all(0 <= s.ndcg <= 1 and 0 <= s.recall <= 1 for s in by)
    with pytest.raises(ValueError, match="split"):
        evaluate_recommend(indexes, citation_corpus[1], split="train")


def test_readers_libraries_grow_around_the_citing_paper_and_hide_half_its_references(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    c = corpus_of(indexes)
    by_size = simulate_readers(c, citation_corpus[1], 0, "all", (1, 3))
    assert len(by_size[1]) == len(by_size[3]) > 0
    for small, large in zip(by_size[1], by_size[3], strict=True):
        refs = {c.position[r] for r in citation_corpus[1][c.ids[small.query]] if r in c.position}
        assert small.query == large.query and small.candidates == large.candidates
        assert small.hidden == large.hidden and small.hidden <= refs and small.hidden <= set(small.candidates)
        assert (
            len(small.library) == 1 and len(large.library) == 3 and set(small.library) <= set(large.library)
        )
        assert set(small.library) <= refs - small.hidden  # its own kept references come first
        assert not set(large.library) & set(large.candidates) and small.query not in large.candidates


def test_a_readers_library_splits_into_tags_each_with_the_hidden_papers_nearest_it(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    c = corpus_of(indexes)
    readers = simulate_readers(c, citation_corpus[1], 0, "all", (2, 10))
    assert all(tag_readers(c, r) == [] for r in readers[2])  # too small a library to split
    split = [(r, tag_readers(c, r)) for r in readers[10]]
    assert any(len(tags) == 2 for _, tags in split)
    for reader, tags in split:
        assert tags and all(t.reader is reader and t.library and t.hidden for t in tags)
        assert set().union(*(t.hidden for t in tags)) == reader.hidden  # each hidden paper in one tag
        assert sum(len(t.hidden) for t in tags) == len(reader.hidden)
        assert all(set(t.library) <= set(reader.library) for t in tags)
        if len(tags) == 2:  # the two tags part the library, each in its newest-first order
            assert sorted(tags[0].library + tags[1].library) == sorted(reader.library)
            assert all([p for p in reader.library if p in t.library] == list(t.library) for t in tags)
    scores = evaluate_recommend(indexes, citation_corpus[1], sizes=(10,))
    by = {s.method: s for s in scores}
    assert by["papersift-tag"].queries == by["papersift@tag"].queries == sum(len(t) for _, t in split)
    assert all(0 <= by[m].ndcg <= 1 for m in TAG_METHODS)
    note = said(say("eval_tags_note", tags=2, least=3, pairs="10: 4"), "zh")  # the table's note in 中文
    assert note.startswith("按标签：每个有 3 篇或更多论文的文库") and note.endswith("10: 4")


def test_eval_recommend_prints_one_json_line_per_method_and_library_size(
    tmp_path: Path, embedded_home: Path, citation_corpus: Corpus
) -> None:
    records, gold = citation_corpus
    shutil.copy(embedded_home / "vector-cache.db", tmp_path / "vector-cache.db")  # nothing to embed
    corpus = write_jsonl(tmp_path / "corpus.jsonl", records)
    pairs = [{"query_id": q, "candidate_id": c, "label": 1} for q in sorted(gold) for c in sorted(gold[q])]
    relevance = write_jsonl(tmp_path / "rel.jsonl", pairs)
    args = ["eval", "recommend", "--relevance", str(relevance), "--corpus", str(corpus)]
    out = invoke(*args, "--library-sizes", "2,1", "--format", "json", "--seed", "3", home=tmp_path).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    methods = ["papersift", "arxiv-sanity-svm", "zotero-cosine"]
    assert [(row["library_size"], row["method"]) for row in rows] == [(n, m) for n in (1, 2) for m in methods]
    for row in rows:
        assert row.keys() == {"method", "library_size", "nDCG@10", "R@10", "readers"}
        assert 0 < row["readers"] <= len(gold) and 0 <= row["nDCG@10"] <= 1 and 0 <= row["R@10"] <= 1
    table = invoke(*args, "--library-sizes", "1", "--half", "tune", home=tmp_path).stdout.splitlines()
    assert "size 1" in table[1] and [line.split()[0] for line in table[2:]] == methods
    table = invoke(*args, "--library-sizes", "3", home=tmp_path).stdout.splitlines()
    assert [line.split()[0] for line in table[2:-1]] == [*methods, *TAG_METHODS]
    assert table[-1].startswith("per tag: each library of 3 or more papers split into 2 tags by k-means")
    for bad, option in ((["--half", "train"], "--half"), (["--library-sizes", "0,x"], "--library-sizes")):
        result = invoke(*args, *bad, home=tmp_path, check=False)
        assert result.returncode == 2 and option in result.stderr
    (tmp_path / "broken.jsonl").write_text('{"query_id": "2401.00001"\n')
    broken = invoke(
        "eval", "recommend", "--relevance", str(tmp_path / "broken.jsonl"), home=tmp_path, check=False
    )
    assert broken.returncode == 1 and "broken.jsonl" in broken.stderr and "Traceback" not in broken.stderr


def test_papers_already_in_the_library_are_never_recommended(indexes: Indexes, topic: Topic) -> None:
    saved = (
        *(item(topic.papers[r], r) for r in topic.cited[:2]),
        item(topic.papers[topic.cited[2]], topic.cited[2], 0),
    )
    candidates = [*topic.cited, *topic.unrelated]
    hits = recommend(indexes, Profile(items=saved), candidates, k=len(candidates), now=NOW)
    assert {h.rowid for h in hits} == set(topic.unrelated)
    assert all(not any(sim >= 0.99 for _, _, sim in h.closest) for h in hits)


def test_authors_in_the_library_are_matched_by_whole_given_names(indexes: Indexes, topic: Topic) -> None:
    liked = topic.papers[topic.cited[0]]
    first = liked.authors[0]
    given, surname = first.split()[0], first.split()[-1]
    namesake = replace(topic.papers[topic.unrelated[0]], authors=[f"{given}x {surname}"])
    same = replace(topic.papers[topic.unrelated[1]], authors=[f"{given[0]}. {surname}"])
    papers = {topic.unrelated[0]: namesake, topic.unrelated[1]: same}
    hits = recommend(
        indexes, Profile(items=(item(liked, topic.cited[0]),)), list(papers), k=2, now=NOW, papers=papers
    )
    shared = {h.rowid: h.library_authors for h in hits}
    assert shared == {topic.unrelated[0]: (), topic.unrelated[1]: (f"{given[0]}. {surname}",)}


def test_reasons_name_only_the_closest_library_paper_and_distinctive_terms(
    indexes: Indexes, topic: Topic
) -> None:
    liked = tuple(item(topic.papers[r], r) for r in topic.cited[:2])
    hits = recommend(indexes, Profile(items=liked), [*topic.unrelated, topic.cited[2]], k=10, now=NOW)
    lex = indexes.lexical
    assert lex is not None
    for hit in hits:
        close = [r for r in hit.reasons() if r.startswith("close to ")]
        assert len(close) <= 1 and all("; “" not in r for r in close)  # one paper named
        if close:
            assert hit.closest[0][2] >= 0.25 and f"({hit.closest[0][2]:.2f})" in close[0]
        for term in hit.terms:
            assert " " in term or not term.endswith("ly")
