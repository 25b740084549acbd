"""The topic map of a real listing (the cs.AI papers of two real days, embedded by ``papersift embed``):
every paper in exactly one topic, named by terms most of its papers contain, the same map for the same
papers, papers without a vector placed by their tf-idf row, and ``papersift topics`` as text and JSON."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from papersift.index.indexes import Indexes
from papersift.index.lexical import N_FEATURES, Lexical, term_slot, terms
from papersift.ranking.phrases import occurs
from papersift.ranking.topics import TopicMap, listing_entries, name_topics, topic_map
from papersift.ranking.topics.book import name_key, name_keys, phrase_book, shown
from papersift.ranking.topics.clusters import absorbed, bounded, claimed, kmeans, refine, regrouped, unphrased
from papersift.ranking.topics.layout import layout
from papersift.ranking.topics.naming import label_topics, named
from papersift.reading.topic_names import parse, topic_namer
from papersift.records.analyzer import fold
from papersift.records.paper import Paper
from papersift.records.taxonomy import canonical, category_name, category_named
from papersift.settings import Settings
from tests.reading_server import LlmServer
from tests.support.data import DAILY_DAYS
from tests.support.inproc import invoke

CATEGORY = "cs.AI"
DAY = DAILY_DAYS[1]


INDEXES_HOME = "topics_home"  # the home the shared `indexes` fixture opens (tests/support/fixtures.py)


@pytest.fixture(scope="module")
def day_papers(indexes: Indexes) -> list[Paper]:
    return [e.paper for e in listing_entries(indexes.store, CATEGORY, date.fromisoformat(DAY))]


def check_cover(tmap: TopicMap, ids: list[str]) -> None:
    """Every paper in exactly one topic; one point each, inside the unit square, in its topic."""
    clustered = [pid for topic in tmap.clusters for pid in topic.papers]
    assert sorted(clustered) == sorted(ids) and len(set(clustered)) == len(ids)
    assert [p.id for p in tmap.points] == ids
    for point in tmap.points:
        assert 0.0 <= point.x <= 1.0 and 0.0 <= point.y <= 1.0
        assert point.id in tmap.clusters[point.cluster].papers


def test_every_paper_of_a_real_listing_is_in_exactly_one_topic(
    day_papers: list[Paper], indexes: Indexes
) -> None:
    assert len(day_papers) >= 50
    tmap = topic_map(indexes, day_papers)
    check_cover(tmap, [p.id for p in day_papers])
    assert len(tmap.clusters) >= 2
    sizes = [len(t.papers) for t in tmap.clusters if t.label]  # largest first, the other papers last
    assert sizes == sorted(sizes, reverse=True)
    assert all(t.label for t in tmap.clusters[: len(sizes)])


def test_topic_names_are_phrases_a_third_of_the_topic_has_and_the_rest_of_the_day_less(
    day_papers: list[Paper], indexes: Indexes
) -> None:
    for papers in (day_papers, [*day_papers, *other_day_papers(indexes)]):
        tmap = topic_map(indexes, papers)
        check_names(tmap, papers)


def test_no_topic_nor_the_other_papers_hold_over_two_fifths_of_a_real_day(
    day_papers: list[Paper], indexes: Indexes
) -> None:
    # cs.AI 2026-08-21 (its new papers and cross-lists here) once drew "large language models" over
    # half the day: every name now meets the measure, and no group holds over 40 % of the day
    tmap = topic_map(indexes, day_papers)
    check_names(tmap, day_papers)
    assert all(5 * len(t.papers) <= 2 * len(day_papers) for t in tmap.clusters)


def other_day_papers(indexes: Indexes) -> list[Paper]:
    return [e.paper for e in listing_entries(indexes.store, CATEGORY, date.fromisoformat(DAILY_DAYS[0]))]


def check_names(tmap: TopicMap, papers: list[Paper]) -> None:
    """The measure every name meets: a phrase (two to five words as written, no ellipsis) or an arXiv
    category's name, in at least a third of its topic's papers, in at most a quarter of the day's papers
    and in a smaller share of the other papers; never the name of a category over a quarter of the day
    lists (the listing's own); an acronym as the papers write it (``LLM``); no two topics share a name;
    no topic holds over 40 % of the day; the papers no name fits, one unnamed group, last."""
    bags = {p.id: name_keys(f"{p.title} {p.abstract}") for p in papers}
    listed = Counter(c for p in papers for c in {canonical(c) for c in p.categories})
    wide = {name_key(category_name(c) or "") for c, n in listed.items() if 4 * n > len(papers)}
    named = [t for t in tmap.clusters if t.label]
    assert named, "a real day's topics have names"
    assert len({t.label for t in named}) == len(named)
    assert (
        tmap.clusters[: len(named)] == named and len(tmap.clusters) - len(named) <= 1
    )  # one other group, last
    for topic in named:
        words = topic.label.split()
        key, category = name_key(topic.label), category_named(topic.label)
        assert (2 <= len(words) <= 5 or category) and "…" not in topic.label and topic.label in topic.terms
        assert key not in wide, (topic.label, "the listing's own category")
        mine = set(topic.papers)
        assert 5 * len(mine) <= 2 * len(papers), (topic.label, len(mine), len(papers))
        # an arXiv category's name: listed by a third, rarer elsewhere; a phrase: held alike
        held = {
            p.id
            for p in papers
            if (category in {canonical(c) for c in p.categories} if category else key in bags[p.id])
        }
        having = len(held & mine)
        elsewhere = len(held - mine)
        assert having * 3 >= len(mine), (topic.label, having, len(mine))
        assert len(held) * 4 <= len(papers), (topic.label, len(held), len(papers))
        assert elsewhere / max(len(papers) - len(mine), 1) < having / len(mine), topic.label
        texts = [f"{p.title} {p.abstract}" for p in papers if p.id in mine]
        for term in topic.terms:
            if term != topic.label or not category:
                assert any(occurs(fold(term), text) for text in texts), term
        if not category:
            for word in words:  # a word the papers write only with capitals inside it is so named
                pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)
                written = {m[0] for text in texts for m in pattern.finditer(text)}
                if written and all(any(c.isupper() for c in w[1:]) for w in written):
                    assert word in written, (topic.label, word, written)


def test_the_same_papers_give_the_same_map_in_any_order(day_papers: list[Paper], indexes: Indexes) -> None:
    first = topic_map(indexes, day_papers)
    again = topic_map(indexes, list(reversed(day_papers)))
    assert again.clusters == first.clusters
    assert sorted(again.points, key=lambda p: p.id) == sorted(first.points, key=lambda p: p.id)


def unstored(id: str, title: str, abstract: str, categories: tuple[str, ...] = ()) -> Paper:
    """A real paper's text under an id the store does not have: no vector, no tf-idf row."""
    return Paper(id, title, [], abstract, list(categories))


def test_papers_without_vectors_are_placed_by_their_terms(day_papers: list[Paper], indexes: Indexes) -> None:
    others = [unstored(f"new-{p.id}", p.title, p.abstract) for p in day_papers[:5]]
    tmap = topic_map(indexes, [*day_papers, *others])
    check_cover(tmap, [p.id for p in day_papers] + [o.id for o in others])
    where = {pid: n for n, topic in enumerate(tmap.clusters) for pid in topic.papers}
    # the same text lands in the same topic as its stored twin, found through tf-idf alone
    assert sum(where[o.id] == where[o.id.removeprefix("new-")] for o in others) >= 3


def test_without_any_vectors_the_tfidf_rows_make_the_map(day_papers: list[Paper], indexes: Indexes) -> None:
    lexical_only = replace(indexes, dense=None)
    tmap = topic_map(lexical_only, day_papers)
    check_cover(tmap, [p.id for p in day_papers])
    assert len(tmap.clusters) >= 2
    assert topic_map(lexical_only, day_papers) == tmap


def test_too_few_papers_make_one_topic(day_papers: list[Paper], indexes: Indexes) -> None:
    tmap = topic_map(indexes, day_papers[:4])
    assert len(tmap.clusters) == 1 and len(tmap.points) == 4
    assert topic_map(indexes, []) == TopicMap.make(category="", date="", clusters=[], points=[])
    alone = topic_map(indexes, day_papers[:1])  # one paper, with a vector: a one-paper topic, no crash
    assert [t.papers for t in alone.clusters] == [[day_papers[0].id]] and len(alone.points) == 1


@pytest.mark.parametrize("n", [2, 3])
def test_two_or_three_papers_make_a_map_without_failing(
    n: int, day_papers: list[Paper], indexes: Indexes
) -> None:
    for papers in (day_papers[:n], [*day_papers[: n - 1], unstored("new-1", "A title", "Its abstract.")]):
        tmap = topic_map(indexes, papers)
        check_cover(tmap, [p.id for p in papers])
        assert len(tmap.clusters) == 1


def test_the_topics_command_prints_the_map_as_json_and_text(topics_home: Path) -> None:
    out = invoke("topics", CATEGORY, "--date", DAY, "--format", "json", home=topics_home).stdout
    data = json.loads(out)
    assert set(data) == {"category", "date", "clusters", "points"}
    assert data["category"] == CATEGORY and data["date"] == DAY
    assert all(set(c) == {"label", "terms", "papers"} for c in data["clusters"])
    assert all(set(p) == {"id", "x", "y", "cluster"} for p in data["points"])
    ids = [pid for c in data["clusters"] for pid in c["papers"]]
    assert sorted(ids) == sorted(p["id"] for p in data["points"]) and len(set(ids)) == len(ids)
    text = invoke("topics", CATEGORY, "--date", DAY, home=topics_home).stdout
    assert text.startswith(f"{CATEGORY} {DAY}: {len(ids)} papers in {len(data['clusters'])} topics")
    two = json.loads(
        invoke("topics", CATEGORY, "--date", DAY, "--days", "2", "-f", "json", home=topics_home).stdout
    )
    assert len(two["points"]) > len(data["points"])  # the day before's listing too
    missing = invoke("topics", "math.AG", home=topics_home, check=False)
    assert missing.returncode == 1 and "no listings" in missing.stderr
    unknown = invoke("topics", "no.SUCH", home=topics_home, check=False)
    assert unknown.returncode == 2 and "no.SUCH is not an arXiv category" in unknown.stderr


def test_a_configured_model_names_the_topics_and_a_failing_one_leaves_the_phrases(
    day_papers: list[Paper], indexes: Indexes, tmp_path: Path
) -> None:
    phrased = topic_map(indexes, day_papers)
    with LlmServer() as llm:
        named = topic_map(indexes, day_papers, namer=topic_namer(Settings(home=tmp_path, llm_url=llm.url())))
        failing = topic_namer(Settings(home=tmp_path, llm_url=llm.url("fail"), llm_retries=0))
        kept = topic_map(indexes, day_papers, namer=failing)
    assert {t.label for t in named.clusters} == {
        f"model topic {n}" for n in range(1, len(named.clusters) + 1)
    }
    assert [t.label for t in kept.clusters] == [t.label for t in phrased.clusters]
    assert topic_namer(Settings(home=tmp_path)) is None
    with pytest.raises(ValueError):
        parse('["one name"]', 2)
    assert parse('```json\n["a b", "c  d"]\n```', 2) == ["a b", "c d"]


def _word(n: int) -> str:
    """A made-up word for each ``n`` (letters only, one of its own: a phrase no other paper shares)."""
    letters = "zu"
    while True:
        n, r = divmod(n, 20)
        letters += "bcdfghjklmnpqrstvwxy"[r] + "aeio"[r % 4]
        if not n:
            return letters


def rest_of_day(n: int = 24, categories: tuple[str, ...] = ()) -> list[Paper]:
    """``n`` papers sharing no phrase with any other: the rest of a synthetic day, so that a topic's name
    is written by at most a quarter of the day (a topic of 12 papers, a day of 48)."""
    return [
        unstored(f"q{i:03d}", f"{_word(2000 + 2 * i).capitalize()}.", f"{_word(2001 + 2 * i)}.", categories)
        for i in range(n)
    ]


REST = [2] * 24  # the rest of the day's topic number in a day of two topics of 12


def test_a_topic_no_phrase_names_is_split_by_the_papers_holding_one_of_its_phrases() -> None:
    # topic 0: 30 papers spread wide along one axis, all saying "speech", 8 of them (off to one side on
    # another axis) "speech recognition"; k-means halves it along the wide axis (no phrase names a half),
    # the split seeded by the 8 holders of "speech recognition" gives them a topic of their own; 60 more
    # papers, far off, share no phrase (the rest of the day: "speech" is in a quarter of it)
    rng = np.random.default_rng(0)
    docs, rows = [], []
    for i in range(30):
        held = i < 8
        docs.append(
            unstored(
                f"a{i:02d}",
                f"{_word(3 * i).capitalize()} and speech.",
                f"The speech of {_word(3 * i + 1)}." + (" Speech recognition." if held else ""),
            )
        )
        rows.append(
            [rng.uniform(-1.2, 1.2), (1.0 if held else 0.0) + rng.normal(0, 0.05), rng.normal(0, 0.05)]
        )
    for i in range(30):
        docs.append(
            unstored(f"b{i:02d}", f"Graph neural networks of {_word(3 * i + 2)}.", "Graph neural networks.")
        )
        rows.append([rng.normal(0, 0.05), rng.normal(0, 0.05), 10.0 + rng.normal(0, 0.05)])
    docs += rest_of_day(60)
    rows += [[rng.normal(0, 0.05), -10.0 + rng.normal(0, 0.05), rng.normal(0, 0.05)] for _ in range(60)]
    vectors, book = np.array(rows), phrase_book(None, docs)
    labels = np.array([0] * 30 + [1] * 30 + [2] * 60)
    names = [naming.name for naming in label_topics(book, labels).values()]
    assert names == ["", "speech", "graph neural network"]  # the rest (largest) first
    refined = refine(vectors, labels, book)
    found = label_topics(book, refined)
    holders = {int(refined[i]) for i in range(8)}
    assert len(holders) == 1 and found[holders.pop()].name == "speech recognition"
    assert sum(refined == refined[0]) <= 12  # the holders and few others


def test_a_hyphenated_modifier_names_a_topic_only_when_no_other_phrase_does() -> None:
    # 12 papers: 8 say "high-resolution", 5 "remote sensing" (one of them both); the other 12 neither
    def doc(i: int, text: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.")

    texts = [f"High-resolution {_word(100 + i)}." for i in range(7)]
    texts += ["High-resolution remote sensing."] + ["Remote sensing."] * 4
    others = [doc(12 + i, "Graph neural networks.") for i in range(12)] + rest_of_day()
    book = phrase_book(None, [doc(i, t) for i, t in enumerate(texts)] + others)
    labels = np.array([0] * 12 + [1] * 12 + REST)
    assert label_topics(book, labels)[0].name == "remote sensing"
    # … and one held by a longer phrase that qualifies extends to it
    texts = ["Multi-agent systems."] * 5 + [f"Multi-agent {_word(100 + i)}." for i in range(7)]
    book = phrase_book(None, [doc(i, t) for i, t in enumerate(texts)] + others)
    assert label_topics(book, labels)[0].name == "multi agent system"
    # … and no name when nothing else qualifies: half a phrase names nothing
    book = phrase_book(None, [doc(i, f"Fine-grained {_word(100 + i)}.") for i in range(12)] + others)
    assert not named(book, label_topics(book, labels)[0].name)


def test_a_topic_no_phrase_names_is_named_by_the_category_a_third_of_its_papers_list() -> None:
    # topic 0: 12 papers sharing no phrase, all listed in cs.CL, 5 of them also in eess.AS (math.IT as
    # cs.IT: an alias counts as its canonical id); topic 1: 12 papers on graph neural networks, cs.CL and
    # cs.LG; the rest of the day, 24 papers, cs.CL. The day's own category (cs.CL, every paper) never
    # names a topic; only the last naming asks
    def doc(i: int, text: str, categories: tuple[str, ...]) -> Paper:
        return unstored(
            f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.", categories
        )

    rest = rest_of_day(categories=("cs.CL",))
    quiet = [
        doc(i, _word(100 + i).capitalize(), ("cs.CL", "eess.AS") if i < 5 else ("cs.CL",)) for i in range(12)
    ]
    graphs = [doc(12 + i, "Graph neural networks.", ("cs.CL", "cs.LG")) for i in range(12)] + rest
    book = phrase_book(None, quiet + graphs)
    labels = np.array([0] * 12 + [1] * 12 + REST)
    assert label_topics(book, labels)[0].name == ""  # while topics are formed: only phrases name them
    names = label_topics(book, labels, final=True)
    assert names[0].name == "arxiv:eess.AS" and names[1].name == "graph neural network"
    assert shown(book, names[0].name) == "Audio and Speech Processing"
    # four of twelve is a third; three is not; listed as often in the rest of the day: not distinctive
    for listed, expected in ((4, "arxiv:cs.IT"), (3, "")):
        quiet = [
            doc(i, _word(100 + i).capitalize(), ("cs.CL", "math.IT") if i < listed else ("cs.CL",))
            for i in range(12)
        ]
        book = phrase_book(None, quiet + graphs)
        assert label_topics(book, labels, final=True)[0].name == expected
    graphs = [doc(12 + i, "Graph neural networks.", ("cs.CL", "eess.AS")) for i in range(12)] + rest
    quiet = [
        doc(i, _word(100 + i).capitalize(), ("cs.CL", "eess.AS") if i < 5 else ("cs.CL",)) for i in range(12)
    ]
    assert label_topics(phrase_book(None, quiet + graphs), labels, final=True)[0].name == ""


def test_a_phrase_over_a_quarter_of_the_day_writes_names_no_topic() -> None:
    # "large language models": in every paper of topic 0 (12) and in some of topic 1's; the day is 48
    # papers. Written by 16 (a third of the day): the field's vocabulary of the day, no name; by 12 (a
    # quarter): topic 0's name
    def doc(i: int, text: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.")

    llm = [doc(i, "Large language models.") for i in range(12)]
    labels = np.array([0] * 12 + [1] * 12 + REST)
    for elsewhere, expected in ((4, ""), (1, ""), (0, "large language model")):
        graphs = [
            doc(12 + i, "Graph neural networks." + (" Large language models." if i < elsewhere else ""))
            for i in range(12)
        ]
        book = phrase_book(None, llm + graphs + rest_of_day())
        assert label_topics(book, labels)[0].name == expected, elsewhere


def test_the_name_of_a_category_the_day_lists_widely_names_no_topic() -> None:
    # topic 0: 12 papers writing "machine learning"; the day (48 papers) lists cs.LG (Machine Learning).
    # Listed by over a quarter of the day, its name is the day's vocabulary: no name; listed by a quarter
    # (topic 0's papers only), the phrase names topic 0 (a lone word is no name)
    def doc(i: int, text: str, categories: tuple[str, ...]) -> Paper:
        return unstored(
            f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.", categories
        )

    labels = np.array([0] * 12 + [1] * 12 + REST)
    for rest_lists, expected in ((("cs.LG",), False), ((), True)):
        topic = [doc(i, "Machine learning.", ("cs.LG",)) for i in range(12)]
        graphs = [doc(12 + i, "Graph neural networks.", ("cs.SI",)) for i in range(12)]
        book = phrase_book(None, topic + graphs + rest_of_day(categories=rest_lists))
        name = label_topics(book, labels, final=True)[0].name
        assert named(book, name) is expected and (name == "machine learning") is expected, rest_lists


@pytest.mark.parametrize(
    ("text", "junk"),
    [
        ("The analysis reveals that {w} helps.", "analysis reveals"),  # a verb
        ("Our findings suggest {w}.", "findings suggest"),  # … one of every abstract
        ("Scenarios spanning {w}.", "scenarios spanning"),  # a plural and a participle: a clause
        ("Gemini 1.5 on {w}.", "gemini 1"),  # a number cut off
        ("High-fidelity 3D {w}.", "high-fidelity 3d"),  # a measure: no head
        ("Agents increasingly use {w}.", "agents increasingly"),  # an adverb
        ("On 206 movies of {w}.", "206 movies"),  # a count opening it
        ("Gains of 5 percentage points on {w}.", "percentage points"),  # a measure
        ("The models performing best on {w}.", "performing best"),  # a superlative
        ("Language agents reuse information on {w}.", "agents reuse information"),  # a plural, then a verb
        ("Each text defines {w}; a grammar is used to define it.", "text defines"),  # a verb's -s form
        ("Research papers on {w}.", "research papers"),  # generic words alone, the plural folded
    ],
)
def test_a_topic_is_never_named_by_a_clause_a_cut_number_or_a_verb(text: str, junk: str) -> None:
    def doc(i: int, body: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{body} {_word(2 * i + 1)}.")

    topic = [doc(i, text.format(w=_word(100 + i))) for i in range(12)]
    graphs = [doc(12 + i, "Graph neural networks.") for i in range(12)] + rest_of_day()
    labels = np.array([0] * 12 + [1] * 12 + REST)
    names = label_topics(phrase_book(None, topic + graphs), labels)
    assert names[0].name != name_key(junk) and names[1].name == "graph neural network"


def test_a_topic_of_over_two_fifths_of_the_day_is_split_into_the_groups_its_phrases_name() -> None:
    # topic 0 holds 50 of 100 papers: 25 on speech recognition, 25 on machine translation (apart on one
    # axis), 20 of them saying "sequence models"; topic 1: 10 on graph neural networks; the rest of the
    # day, 40 papers far off, share no phrase. Topic 0 is named, but over 40 % of the day in one topic is
    # split like a topic no phrase names
    rng = np.random.default_rng(0)
    docs, rows = [], []
    for i in range(50):
        subject = "Speech recognition" if i < 25 else "Machine translation"
        said = "Sequence models. " if i % 5 < 2 else ""
        docs.append(unstored(f"a{i:02d}", f"{subject} of {_word(2 * i)}.", f"{said}{_word(2 * i + 1)}."))
        rows.append([(0.0 if i < 25 else 1.0) + rng.normal(0, 0.05), rng.normal(0, 0.05)])
    for i in range(10):
        docs.append(
            unstored(f"b{i:02d}", f"Graph neural networks of {_word(200 + i)}.", "Graph neural networks.")
        )
        rows.append([rng.normal(0, 0.05), 5.0 + rng.normal(0, 0.05)])
    docs += rest_of_day(40)
    rows += [[rng.normal(0, 0.05), -5.0 + rng.normal(0, 0.05)] for _ in range(40)]
    book, labels = phrase_book(None, docs), np.array([0] * 50 + [1] * 10 + [2] * 40)
    assert named(book, label_topics(book, labels)[0].name)
    assert unphrased(book, labels) == 50 + 2 * 40  # named, yet counted until it is split
    refined = refine(np.array(rows), labels, book)
    names = {naming.name for naming in label_topics(book, refined).values()}
    assert {"speech recognition", "machine translation", "graph neural network"} <= names
    assert unphrased(book, refined) == 2 * 40  # the rest of the day only
    assert max(np.bincount(refined)) <= 40


def test_no_topic_keeps_over_two_fifths_of_the_day() -> None:
    rng = np.random.default_rng(0)
    vectors = np.concatenate([rng.normal(0, 1, (70, 3)), rng.normal(8, 1, (30, 3))])
    labels = bounded(vectors, np.array([0] * 70 + [1] * 30))
    assert max(np.bincount(labels)) <= 40 and len(set(labels[70:].tolist())) == 1
    same = bounded(np.zeros((50, 2)), np.zeros(50, np.int64))  # identical vectors: halved by order
    assert max(np.bincount(same)) <= 20


def test_a_phrase_cut_short_of_a_longer_one_names_no_topic() -> None:
    # "large language" in 4 of 12 papers (a third), 3 of them "large language models" (a quarter): the
    # longer phrase cut short, not a name
    def doc(i: int, body: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{body} {_word(2 * i + 1)}.")

    bodies = ["Large language models."] * 3 + ["Large language tasks."] + [_word(100 + i) for i in range(8)]
    topic = [doc(i, b) for i, b in enumerate(bodies)]
    graphs = [doc(12 + i, "Graph neural networks.") for i in range(12)] + rest_of_day()
    labels = np.array([0] * 12 + [1] * 12 + REST)
    assert label_topics(phrase_book(None, topic + graphs), labels)[0].name != "large language"


def _store(texts: list[str]) -> Lexical:
    """Lexical arrays of a store of ``texts``: the papers writing each term (``df``), what names read."""
    df = np.zeros(N_FEATURES, np.int32)
    for text in texts:
        df[sorted({term_slot(t) for t in terms(text)})] += 1
    return Lexical(arrays={"keys": np.arange(len(texts)), "df": df}, categories=[])


def test_a_final_name_is_a_phrase_the_store_writes_together() -> None:
    # topic 0: 6 of 12 papers say "quality datasets", 4 "depth maps"; the store's papers on image quality
    # and on large datasets write the two words apart (6 of 206 together, 3%: no collocation), those on
    # depth maps together: the final name is "depth maps", while topics are formed "quality datasets"
    def doc(i: int, body: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{body} {_word(2 * i + 1)}.")

    bodies = ["Quality datasets."] * 6 + ["Depth maps."] * 4 + [_word(100 + i) for i in range(2)]
    day = [doc(i, b) for i, b in enumerate(bodies)] + [
        doc(12 + i, "Graph neural networks.") for i in range(12)
    ]
    day += rest_of_day()
    background = ["Image quality."] * 200 + ["Large datasets."] * 200 + ["Depth maps."] * 30
    book = phrase_book(_store(background + [f"{d.title} {d.abstract}" for d in day]), day)
    labels = np.array([0] * 12 + [1] * 12 + REST)
    assert label_topics(book, labels)[0].name == "quality dataset"
    assert label_topics(book, labels, final=True)[0].name == "depth map"
    # a phrase holding a hyphenated compound is the field's own, whatever the store writes apart
    day[:6] = [doc(i, "High-quality datasets.") for i in range(6)]
    book = phrase_book(_store(background + [f"{d.title} {d.abstract}" for d in day]), day)
    assert label_topics(book, labels, final=True)[0].name == "high quality dataset"


def test_a_phrase_written_only_inside_hyphenated_compounds_names_a_topic_last() -> None:
    # "level preference" in 5 of 12 papers, each inside a compound ("sentence-level preference", …), none
    # of them a third: a topic is named by "computational costs" (4) first, by it only when nothing else
    def doc(i: int, body: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{body} {_word(2 * i + 1)}.")

    compounds = (
        ["Sentence-level preference."] * 2 + ["Token-level preference."] * 2 + ["Step-level preference."]
    )
    graphs = [doc(12 + i, "Graph neural networks.") for i in range(12)] + rest_of_day()
    labels = np.array([0] * 12 + [1] * 12 + REST)
    for costs, expected in ((4, "computational cost"), (0, "level preference")):
        bodies = compounds + ["Computational costs."] * costs + [_word(100 + i) for i in range(7 - costs)]
        book = phrase_book(None, [doc(i, b) for i, b in enumerate(bodies)] + graphs)
        assert label_topics(book, labels, final=True)[0].name == expected


def test_one_papers_phrase_names_no_topic() -> None:
    # a topic of one paper (what ``claimed`` may leave of a topic no phrase names) holds its own phrases,
    # and its category, alone: no name; two papers sharing the phrase name theirs
    def doc(i: int, text: str, categories: tuple[str, ...] = ("cs.CL",)) -> Paper:
        return unstored(
            f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.", categories
        )

    graphs = [doc(i, "Graph neural networks.") for i in range(12)]
    alone = doc(12, "Raster data captures.", ("cs.CL", "q-bio.NC"))
    rest = rest_of_day(36)
    names = label_topics(
        phrase_book(None, [*graphs, alone, *rest]), np.array([0] * 12 + [1] + [2] * 36), final=True
    )
    assert names[0].name == "graph neural network" and names[1].name == ""
    pair = [alone, doc(13, "Raster data captures.")]
    labels = np.array([0] * 12 + [1] * 2 + [2] * 36)
    names = label_topics(phrase_book(None, [*graphs, *pair, *rest]), labels, final=True)
    assert names[1].name == "raster data capture"


def test_a_topic_of_one_paper_is_among_the_other_papers_and_a_day_of_one_paper_maps() -> None:
    # one paper's phrases are its own: its topic has no name (the day's other papers), and the map of a
    # day of one paper (no store: words alone) is that one group with its one point
    alone = unstored("p1", "Raster data captures", "Raster data captures of maps.")
    clusters, labels = name_topics(phrase_book(None, [alone]), [alone], np.zeros(1, np.int64))
    assert [(c.label, c.papers) for c in clusters] == [("", ["p1"])] and labels.tolist() == [0]
    assert layout(np.zeros((1, 1)), np.zeros(1, np.int64)).tolist() == [[0.5, 0.5]]


def test_no_phrase_runs_from_a_title_into_its_abstract() -> None:
    book = phrase_book(None, [unstored("p1", "Robust Graph Networks", "Language models read graphs.")])
    assert "graph network" in book.column and "language model" in book.column
    assert not any("network language" in key for key in book.column)


def test_a_few_outlying_papers_join_the_nearest_topic() -> None:
    # two groups of 30 and three papers far from both: k-means may set the three apart; a topic of fewer
    # than four papers is drawn as noise and named by one paper's words, so they join the nearest group
    rng = np.random.default_rng(0)
    rows = [[rng.normal(0, 0.05), rng.normal(0, 0.05)] for _ in range(30)]
    rows += [[5 + rng.normal(0, 0.05), rng.normal(0, 0.05)] for _ in range(30)]
    rows += [[2.5 + rng.normal(0, 0.05), 4 + rng.normal(0, 0.05)] for _ in range(3)]
    vectors = np.array(rows)
    labels = absorbed(vectors, kmeans(vectors, 3))
    assert min(np.bincount(labels)) >= 4 and len(set(labels[:30].tolist())) == 1


def test_the_groups_no_phrase_names_are_the_days_other_papers_one_unnamed_group() -> None:
    # topic 0: graph neural networks; topic 1: 12 papers sharing only the word "speech"; topic 2: 24 sharing
    # nothing. A lone word names no topic: 1 and 2 are pooled into one unnamed group, its words its terms;
    # a configured model names every group itself (none pooled)
    def doc(i: int, text: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.")

    docs = [doc(i, "Graph neural networks.") for i in range(12)]
    docs += [doc(12 + i, f"Speech of {_word(300 + i)}.") for i in range(12)]
    docs += [doc(24 + i, _word(400 + i).capitalize()) for i in range(24)]
    book, labels = phrase_book(None, docs), np.array([0] * 12 + [1] * 12 + [2] * 24)
    topics, pooled = name_topics(book, docs, labels)
    assert [(t.label, len(t.papers)) for t in topics] == [("graph neural networks", 12), ("", 36)]
    assert topics[1].terms == ["speech"] and set(topics[1].papers) == {d.id for d in docs[12:]}
    assert pooled.tolist() == [0] * 12 + [1] * 36
    named, kept = name_topics(
        book, docs, labels, namer=lambda asked: [f"group {n}" for n in range(len(asked))]
    )
    assert [t.label for t in named] == ["group 0", "group 1", "group 2"] and kept.tolist() == labels.tolist()


def test_other_papers_forming_a_separate_group_a_name_fits_are_offered_as_a_topic() -> None:
    # topic 0: graph neural networks; topic 1 (no name: 12 sharing nothing and, far from them, 10 writing
    # "protein folding", a third of 22 is 8): regrouped, the 10 are a topic of their own
    def doc(i: int, text: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.")

    docs = [doc(i, "Graph neural networks.") for i in range(12)]
    docs += [doc(12 + i, "Protein folding." if i < 10 else _word(500 + i)) for i in range(22)]
    docs += rest_of_day(20)
    rng = np.random.default_rng(0)
    vectors = np.concatenate(
        [rng.normal(0, 0.1, (12, 2)), rng.normal(5, 0.1, (10, 2)), rng.normal(-5, 0.1, (32, 2))]
    )
    labels = np.array([0] * 12 + [1] * 42)
    book = phrase_book(None, docs)
    assert label_topics(book, labels, final=True)[1].name == ""  # 10 of 42 write it: under a third
    again = regrouped(vectors, labels, book)
    found = label_topics(book, again, final=True)
    assert len(set(again[12:22].tolist())) == 1 and found[int(again[12])].name == "protein folding"
    assert not named(book, found[int(again[30])].name)


def test_a_name_keeps_the_case_its_papers_write() -> None:
    def doc(i: int, text: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.")

    topic = [doc(i, f"We compress the KV cache of {_word(100 + i)} LLM agents.") for i in range(6)]
    topic += [doc(6 + i, f"Splats of {_word(100 + i)} by Gaussian splatting.") for i in range(6)]
    graphs = [doc(12 + i, "Graph neural networks.") for i in range(12)]
    book = phrase_book(None, topic + graphs + rest_of_day())
    assert shown(book, "kv cache") == "KV cache" and shown(book, "llm agent") == "LLM agents"
    assert shown(book, "gaussian splatting") == "Gaussian splatting"
    assert shown(book, "graph neural network") == "graph neural networks"  # a sentence's first word


def test_a_paper_no_phrase_groups_joins_the_nearest_topic_whose_name_it_writes() -> None:
    # topic 0: 12 papers on graph neural networks; topic 1: 12 sharing no phrase, 3 of them also writing
    # "graph neural networks", 1 "speech recognition" (topic 2's name): they join those topics, the rest
    # stay the day's other papers (with 24 more, far off). A topic grows only up to 40 % of the day
    def doc(i: int, text: str) -> Paper:
        return unstored(f"p{i:02d}", f"{_word(2 * i).capitalize()}.", f"{text} {_word(2 * i + 1)}.")

    docs = [doc(i, "Graph neural networks.") for i in range(12)]
    docs += [
        doc(12 + i, "Graph neural networks." if i < 3 else "Speech recognition." if i == 3 else "")
        for i in range(12)
    ]
    docs += [doc(24 + i, "Speech recognition.") for i in range(12)]
    rest = rest_of_day(24)
    rng = np.random.default_rng(0)
    vectors = np.concatenate(
        [rng.normal(c, 0.1, (n, 2)) for c, n in ((0.0, 12), (3.0, 12), (6.0, 12), (9.0, 24))]
    )
    labels = np.array([0] * 12 + [1] * 12 + [2] * 12 + [3] * 24)
    book = phrase_book(None, docs + rest)
    joined, moved = claimed(vectors, labels, book)
    assert moved == 4 and joined[12:15].tolist() == [0] * 3 and joined[15] == joined[24]
    assert len(set(joined[16:24].tolist())) == 1 and joined[16] not in {joined[0], joined[24]}
    # 7 of topic 1 write "graph neural networks" (19 of 60: over a quarter of the day, no name); with 3
    # more, 15 of 60: a name, and topic 0 grows to 15
    for writing, grown_to in ((7, None), (3, 15)):
        many = docs[:12] + [doc(12 + i, "Graph neural networks." if i < writing else "") for i in range(12)]
        grown, moved = claimed(vectors, labels, phrase_book(None, many + docs[24:] + rest))
        if grown_to is None:
            assert moved == 0  # no name: nothing to join
        else:
            assert np.bincount(grown)[grown[0]] == grown_to
