"""Topic names on the busiest days of the data: for cs.LG, cs.CV and cs.CL the day of the 300k file with
the most papers listing the category (picked by its numbers, not by hand), every such paper ingested and
embedded by the real CLI; each day's topics are named by phrases a third of the topic's papers hold and
at most a quarter of the day's papers (``test_topics.check_names``: never the listing's own category's
name, acronyms as the papers write them, no topic over 40 % of the day), never a lone generic word, each
name once a day, every name two to five words or an arXiv category's name, the groups no such name fits
one unnamed group of the day's other papers."""

from __future__ import annotations

import gzip
from collections import Counter
from datetime import date
from pathlib import Path

import orjson
import pytest

from papersift.index.indexes import Indexes
from papersift.ranking.phrases import occurs
from papersift.ranking.related import paper_query, related
from papersift.ranking.topics import listing_entries, topic_map
from papersift.ranking.topics.book import name_key, name_keys
from papersift.records.taxonomy import category_named
from tests.support.data import write_jsonl
from tests.support.homes import seeded
from tests.support.inproc import invoke
from tests.test_topics import check_names

pytestmark = pytest.mark.slow  # about 900 papers embedded: 1-2 minutes on 2 shared cores

CATEGORIES = ("cs.LG", "cs.CV", "cs.CL")


def busiest_days(records: list[dict[str, object]]) -> dict[str, str]:
    """Each category's day with the most papers listing it (ties: the later day)."""
    counts: dict[str, Counter[str]] = {c: Counter() for c in CATEGORIES}
    for r in records:
        for c in r["categories"]:  # type: ignore[attr-defined]
            if c in counts:
                counts[c][str(r["announced"])] += 1
    return {c: max(counts[c], key=lambda d: (counts[c][d], d)) for c in CATEGORIES}


@pytest.fixture(scope="module")
def busy(shared_data: Path) -> tuple[dict[str, str], list[dict[str, object]]]:
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        listed = [
            r for r in (orjson.loads(line) for line in f if b'"announced": "' in line) if r["announced"]
        ]
    days = busiest_days(listed)
    chosen = [
        r for r in listed if any(r["announced"] == days[c] and c in r["categories"] for c in CATEGORIES)
    ]  # type: ignore[operator]
    return days, chosen


@pytest.fixture(scope="module")
def busy_home(
    tmp_path_factory: pytest.TempPathFactory, busy: tuple[dict[str, str], list[dict[str, object]]]
) -> Path:
    home = seeded(tmp_path_factory.mktemp("busy"), tmp_path_factory)
    invoke("ingest", str(write_jsonl(home / "busy.jsonl", busy[1])), home=home)
    invoke("embed", home=home)
    return home


INDEXES_HOME = "busy_home"


def test_the_busiest_days_are_picked_by_their_numbers(
    busy: tuple[dict[str, str], list[dict[str, object]]],
) -> None:
    days, chosen = busy
    for category, day in days.items():
        on_day = sum(r["announced"] == day and category in r["categories"] for r in chosen)  # type: ignore[operator]
        assert on_day >= 100, (category, day, on_day)  # a busy day, not a quiet one


def test_every_topic_name_of_the_busiest_days_is_a_phrase_a_third_of_its_topic_holds(
    busy: tuple[dict[str, str], list[dict[str, object]]], indexes: Indexes
) -> None:
    for category, day in busy[0].items():
        papers = [e.paper for e in listing_entries(indexes.store, category, date.fromisoformat(day))]
        tmap = topic_map(indexes, papers)
        assert len(tmap.clusters) >= 3, (category, day)
        check_names(tmap, papers)  # each name in at least a third of its topic's papers, fewer elsewhere
        # every name two to five words as shown ("multi-agent" is one word) or an arXiv category's name;
        # the groups no such name fits (cs.CL's: about language models, sharing no phrase beyond "large
        # language model") are the day's other papers, one unnamed group, last, under a third of the day
        named = [t for t in tmap.clusters if t.label]
        assert all(2 <= len(t.label.split()) <= 5 or category_named(t.label) for t in named), [
            t.label for t in named
        ]
        assert tmap.clusters[: len(named)] == named and len(tmap.clusters) - len(named) <= 1
        others = sum(len(t.papers) for t in tmap.clusters if not t.label)
        assert others < len(papers) / 3, (category, day, others)


def test_a_hyphenated_phrase_holds_its_words_and_one_with_a_stop_word_stays_whole() -> None:
    keys = name_keys("Vision-language models and chain-of-thought prompting for multi-agent systems")
    assert {"vision language model", "language model", "multi agent system"} <= keys
    assert "chain-of-thought prompting" in keys and "chain" not in keys
    assert name_key("Multi-Agent Systems") == "multi agent system"


def test_every_shared_term_of_40_busy_day_papers_related_lists_is_in_both_texts(
    busy: tuple[dict[str, str], list[dict[str, object]]], indexes: Indexes
) -> None:
    checked = 0
    for category, day in busy[0].items():  # the first papers of each busy day's listing: 14 + 13 + 13
        entries = listing_entries(indexes.store, category, date.fromisoformat(day))
        for entry in entries[: 14 if category == CATEGORIES[0] else 13]:
            paper = entry.paper
            mine = f"{paper.title} {paper.abstract}"
            for hit in related(indexes, paper_query(indexes, paper), k=5):
                assert hit.reasons(), (paper.id, hit.paper.id)
                theirs = f"{hit.paper.title} {hit.paper.abstract}"
                for term in hit.terms:
                    assert occurs(term, mine) and occurs(term, theirs), (term, paper.id, hit.paper.id)
                    checked += 1
    assert checked > 100
