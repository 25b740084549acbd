"""Query understanding (ranking/understand.py) on a small store of real papers: 中文 translated, misspellings
corrected (never a known word, an id, a quoted phrase or a name), gibberish left alone with its floor in
every mode, acronyms matched both ways; and what the CLI, the API and the page say of it."""

from __future__ import annotations

import gzip
import itertools
import json
import re
from pathlib import Path

import numpy as np
import orjson
import pytest

from papersift.index.indexes import Indexes, open_indexes
from papersift.index.pipeline import refresh
from papersift.index.vocabulary import Vocabulary, acronym_pairs, open_vocabulary
from papersift.ranking import to_english as to_english_module
from papersift.ranking.feedback import FEEDBACK_DOCS, rocchio
from papersift.ranking.search import NO_GOOD_MATCHES, search
from papersift.ranking.searchers import Probe, keys_of, searchers
from papersift.ranking.to_english import (
    HanRun,
    ModelAnswer,
    Offline,
    dictionary_english,
    offline_reading,
    to_english,
)
from papersift.ranking.understand import understand
from papersift.reading.checks import check
from papersift.reading.query_translation import SYSTEM, checked, translator
from papersift.records.catalogs import said
from papersift.settings import Settings
from papersift.store import Filters, open_store
from tests.llm_server import FakeModel, completion, fake_model
from tests.reading_server import LlmServer
from tests.support.data import write_jsonl
from tests.support.homes import seeded
from tests.support.inproc import app_client, invoke
from tests.support.processes import run_cli

TOPICS = re.compile(
    r"retrieval.augmented generation|graph neural network|\bGRPO\b|\bAdam\b|diffusion model|"
    r"protein design|reinforcement learning|\bGNNs?\b",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def topic_records(shared_data: Path) -> list[dict[str, object]]:
    """Real papers of the 20k file on a few topics (20 of each at most) plus a spread of 100 others: a
    small slice, embedded once for the module."""
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        records = list(map(orjson.loads, f))
    chosen: list[dict[str, object]] = []
    per: dict[str, int] = {}
    for r in records:
        found = TOPICS.findall(f"{r['title']} {r['abstract']}")
        key = found[0].lower() if found else ""
        if key and per.get(key, 0) < 20:
            per[key] = per.get(key, 0) + 1
            chosen.append(r)
    ids = {r["id"] for r in chosen}
    return chosen + [r for r in records[::100] if r["id"] not in ids][:100]


@pytest.fixture(scope="module")
def home(
    tmp_path_factory: pytest.TempPathFactory, topic_records: list[dict[str, object]], embedded_home: Path
) -> Path:
    """The topic records, embedded: the spread of the 20k file among them (about 100) takes its vectors from
    ``embedded_home``, built first (``seeded``)."""
    home = seeded(tmp_path_factory.mktemp("understand"), tmp_path_factory)
    invoke("ingest", str(write_jsonl(home / "papers.jsonl", topic_records)), home=home)
    invoke("embed", home=home)
    return home


INDEXES_HOME = "home"  # the home the shared `indexes` fixture opens (tests/support/fixtures.py)


def test_acronyms_are_learned_from_a_long_form_and_its_parenthesised_short_form() -> None:
    text = "We train graph neural networks (GNNs) with large language models (LLMs); see (Fig. 2) and (SOTA)."
    assert acronym_pairs(text) == [("GNN", "graph neural networks"), ("LLM", "large language models")]


def test_the_vocabulary_is_built_with_the_lexical_index(indexes: Indexes, home: Path) -> None:
    vocabulary = indexes.vocabulary
    assert vocabulary is not None and vocabulary.papers == indexes.store.count()
    assert vocabulary.df("retrieval") >= 3 and vocabulary.df("retreival") == 0
    assert "graph neural network" in vocabulary.acronyms["GNN"]
    assert indexes.generation is not None
    assert open_vocabulary(indexes.generation.path / "vocabulary") is not None


def test_a_chinese_query_is_searched_in_english(indexes: Indexes) -> None:
    u = understand(indexes, "图神经网络")
    assert u.text_used == "graph neural network"
    assert u.translation == "graph neural network"
    assert any(note.startswith("translated by the offline dictionary: 图神经网络 → ") for note in u.applied)
    assert u.translated_by == "dictionary"
    result = search(indexes, "图神经网络", mode="keyword")
    assert result.hits and all(
        "graph neural network" in (h.paper.title + h.paper.abstract).lower() or "GNN" in h.paper.abstract
        for h in result.hits
    )


def test_a_configured_model_translates_the_query_once_and_a_failing_one_leaves_the_dictionary(
    indexes: Indexes, tmp_path: Path
) -> None:
    with LlmServer() as llm:
        translate = translator(Settings(home=tmp_path, llm_url=llm.url("ok")))
        assert translate is not None
        u = understand(indexes, "扩散模型 蛋白质设计", translate=translate)
        assert u.translation == u.text_used == "diffusion models for protein design"
        assert u.translated_by == "model" and u.applied[0].startswith("translated by the model: ")
        assert search(indexes, "扩散模型 蛋白质设计", mode="keyword", translate=translate).hits
        assert llm.calls["ok"] == 1  # asked once: the answer is kept
        failing = translator(Settings(home=tmp_path, llm_url=llm.url("fail"), llm_retries=0))
        assert failing is not None
        u = understand(indexes, "图神经网络", translate=failing)
        assert u.text_used == "graph neural network" and u.translated_by == "dictionary"
    assert translator(Settings(home=tmp_path)) is None  # no model: the dictionary alone


QUERY = "扩散模型"  # the dictionary reads it whole: "diffusion model"
JUNK = {  # what a model has answered for a query's translation, each set aside by the query's checks
    "empty": "",
    "the query echoed": QUERY,
    "the prompt echoed": "You translate a search query of a researcher into an English search query",
    "a lead-in": "Translation: diffusion models",
    "10 kB": "diffusion " * 1000,
    "a sentence about something else": "The authors show that a simple learned routing rule cuts latency.",
    "another topic": "reinforcement learning",
    "a prompt tag": "<query>diffusion models</query>",
    "Markdown": "**diffusion models**",
}
GOOD = {  # translations a careful model gives: searched for as they are
    QUERY: "diffusion models",
    "图神经网络": "graph neural networks",
    "大语言模型的对齐": "alignment of large language models",
    "GRPO 强化学习": "GRPO reinforcement learning",
    "扩散模型 蛋白质设计": "diffusion models for protein design",
}


def _model_env(url: str) -> dict[str, str]:
    return {"PAPERSIFT_LLM_URL": url, "PAPERSIFT_LLM_MODEL": "m", "PAPERSIFT_LLM_RETRIES": "0"}


def _asked(model: FakeModel) -> int:
    return sum(s.path.endswith("/chat/completions") for s in model.seen)


@pytest.mark.parametrize("junk", list(JUNK.values()), ids=list(JUNK))
def test_a_model_answering_junk_never_changes_what_a_chinese_query_finds(
    indexes: Indexes, tmp_path: Path, junk: str
) -> None:
    alone = search(indexes, QUERY, mode="keyword")
    with fake_model([completion(junk)]) as model:
        translate = translator(Settings(home=tmp_path, llm_url=model.url, llm_model="m", llm_retries=0))
        found = search(indexes, QUERY, mode="keyword", translate=translate)
        assert _asked(model) == 1
    u, before = found.understood, alone.understood
    assert u is not None and before is not None
    assert u.text_used == before.text_used == u.translation and u.translated_by == "dictionary"
    assert [h.paper.id for h in found.hits] == [h.paper.id for h in alone.hits] and found.hits
    refused = [n for n in u.applied if n.key == "translation_refused"]
    assert len(refused) == (1 if junk else 0)
    assert any(n.startswith(f"translated by the offline dictionary: {QUERY} → ") for n in u.applied)


def test_the_dictionary_english_is_chosen_only_when_the_model_answer_is_not_taken(
    indexes: Indexes, monkeypatch: pytest.MonkeyPatch
) -> None:
    vocabulary = indexes.vocabulary
    assert vocabulary is not None
    offline = offline_reading(indexes, vocabulary, "图神经网络")
    assert dictionary_english(indexes, vocabulary, offline) == "graph neural network"
    assert offline.covered == 1.0 and "graph" in offline.senses  # what a model's answer is checked against
    chosen: list[HanRun] = []
    english = to_english_module._dictionary_english

    def counted(indexes: Indexes, vocabulary: Vocabulary, run: HanRun) -> str | None:
        chosen.append(run)
        return english(indexes, vocabulary, run)

    monkeypatch.setattr(to_english_module, "_dictionary_english", counted)
    taken = to_english(
        indexes, vocabulary, "图神经网络", lambda query, offline: ModelAnswer("graph neural networks")
    )
    assert (taken.text, taken.by, chosen) == ("graph neural networks", "model", [])  # no path was read
    left = to_english(indexes, vocabulary, "图神经网络", lambda query, offline: ModelAnswer(None))
    assert (left.text, left.by, len(chosen)) == ("graph neural network", "dictionary", 1)


def test_a_model_translation_that_passes_the_checks_is_searched_for(indexes: Indexes, tmp_path: Path) -> None:
    with fake_model([completion(f'"{english}."') for english in GOOD.values()]) as model:
        translate = translator(Settings(home=tmp_path, llm_url=model.url, llm_model="m", llm_retries=0))
        for query, english in GOOD.items():
            u = understand(indexes, query, translate=translate)
            assert (u.text_used, u.translated_by) == (english, "model"), query
            assert not [n for n in u.applied if n.key == "translation_refused"]


def test_the_query_checks_name_why_a_translation_is_set_aside() -> None:
    reading, covered = "diffusion diffuse spread model mold pattern", 1.0

    def why(answer: str) -> str | None:
        verdict = check("query", answer, "en", query=QUERY, prompt=SYSTEM, reading=reading, covered=covered)
        return verdict.reason

    assert [why(junk) for junk in JUNK.values()] == [
        "empty",
        "wrong_language",
        "echoes_prompt",
        "echoes_prompt",
        "too_long",
        "not_a_query",
        "off_topic",
        "markup",
        "markup",
    ]
    assert why("diffusion models") is None and why("diffusion model") is None
    # a query the dictionary reads little of is not held to its reading; length still is
    loose = check("query", "protein folding", "en", query="蛋白质折叠", reading="", covered=0.2)
    assert loose.ok
    assert check("query", "protein " * 14, "en", query="蛋白质折叠", covered=0.0).reason == "length_off"
    refused = checked(
        "The authors show that a simple learned routing rule cuts latency.",
        QUERY,
        Offline(1.0, ("diffusion", "model")),
    ).refused
    assert refused is not None and said(refused, "zh").startswith("未采用模型的译文“The authors show")


@pytest.mark.process
def test_a_search_process_with_a_junk_model_prints_what_the_dictionary_finds(home: Path) -> None:
    alone_env = {"PAPERSIFT_RESIDENT_MINUTES": "0"}
    alone = run_cli("search", QUERY, "-k", "5", home=home, env=alone_env)
    sentence = JUNK["a sentence about something else"]
    with fake_model([completion(sentence), completion(sentence)]) as model:
        env = {**alone_env, **_model_env(model.url)}
        junk = run_cli("search", QUERY, "-k", "5", home=home, env=env)
        zh = run_cli("search", QUERY, "-k", "5", home=home, env={**env, "PAPERSIFT_LANG": "zh"})
        assert _asked(model) == 2
    assert junk.stdout == alone.stdout and junk.stdout.startswith("  1. [")
    assert "searched for: diffusion model" in junk.stderr and "The authors show" not in junk.stdout
    assert f"note: translated by the offline dictionary: {QUERY} → diffusion model" in junk.stderr
    assert (
        "the model's translation “The authors show that a simple learned routing rule cuts lat…”"
        in junk.stderr
    )
    assert "was set aside: the translation is a sentence, not a search query" in junk.stderr
    assert f"已用离线词典翻译：{QUERY} → diffusion model" in zh.stderr and "未采用模型的译文" in zh.stderr
    # kept local: the model set up, but no query goes to it
    with fake_model([completion("diffusion models")]) as model:
        local = run_cli("search", QUERY, "-k", "5", home=home, env={**env, "PAPERSIFT_QUERY_MODEL": "false"})
        assert _asked(model) == 0
    assert local.stdout == alone.stdout


def test_the_web_search_with_a_junk_model_finds_what_the_dictionary_finds(home: Path) -> None:
    params = {"q": QUERY, "mode": "keyword"}
    with app_client(home) as client:
        alone = client.get("/api/search", params=params).json()
    sentence = JUNK["a sentence about something else"]
    with fake_model([completion(sentence)]) as model, app_client(home, env=_model_env(model.url)) as client:
        api = client.get("/api/search", params=params).json()
        page = client.get("/search", params=params).text
        zh = client.get("/search", params={**params, "lang": "zh"}).text
        assert _asked(model) == 1  # asked once: the answer is kept, and checked each time
    assert [r["id"] for r in api["results"]] == [r["id"] for r in alone["results"]] and api["results"]
    understood = api["understood"]
    assert understood["text_used"] == "diffusion model" and understood["translated_by"] == "dictionary"
    assert understood["applied"][0].startswith("the model's translation “The authors show")
    assert "The authors show" not in page.split('class="applied"')[0]  # never in the box or "showing"
    assert "translated by the offline dictionary: 扩散模型 → diffusion model" in page
    assert "已用离线词典翻译：扩散模型 → diffusion model" in zh and "未采用模型的译文" in zh


def test_a_mixed_query_keeps_its_english_words(indexes: Indexes) -> None:
    u = understand(indexes, "GRPO 强化学习")
    assert u.text_used.startswith("GRPO ")
    assert "GRPO" in u.text_used and not re.search(r"[\u4e00-\u9fff]", u.text_used)


def test_a_misspelled_query_is_corrected_and_finds_what_the_right_one_finds(indexes: Indexes) -> None:
    u = understand(indexes, "retreival augmented generaton")
    assert u.text_used == "retrieval augmented generation"
    assert ("retreival", "retrieval") in u.corrections and ("generaton", "generation") in u.corrections
    for mode in ("keyword", "hybrid"):
        wrong = search(indexes, "retreival augmented generaton", mode=mode)
        right = search(indexes, "retrieval augmented generation", mode=mode)
        assert [h.paper.id for h in wrong.hits] == [h.paper.id for h in right.hits]
        assert wrong.hits


@pytest.mark.parametrize(
    "query",
    ["Adam", "GRPO", "2405.06917", '"retreival augmented"', "Vaswani attention"],
)
def test_known_words_ids_quoted_phrases_and_names_are_never_corrected(indexes: Indexes, query: str) -> None:
    assert understand(indexes, query).corrections == []


def test_an_author_filter_and_a_stored_surname_are_never_corrected(indexes: Indexes) -> None:
    vocabulary = indexes.vocabulary
    assert vocabulary is not None
    surname = next(s for s in sorted(vocabulary.authors) if len(s) > 5 and vocabulary.df(s) == 0)
    assert understand(indexes, f"{surname} retrieval").corrections == []
    assert understand(indexes, "retreival", author="Retreival").corrections == []


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
def test_gibberish_is_not_corrected_and_gets_no_good_matches_in_every_mode(
    indexes: Indexes, mode: str
) -> None:
    result = search(indexes, "qwxzvplork blorptangle frumious", mode=mode)  # type: ignore[arg-type]
    assert result.understood is not None and result.understood.corrections == []
    assert result.hits == [] and NO_GOOD_MATCHES in result.notes
    assert not any("." in s for s in result.understood.suggestions)  # near words only, never category codes


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_an_acronym_and_its_long_form_meet_both_ways(indexes: Indexes, mode: str) -> None:
    short = search(indexes, "GNN", mode=mode, k=20)  # type: ignore[arg-type]
    long = search(indexes, "graph neural networks", mode=mode, k=20)  # type: ignore[arg-type]
    assert short.understood is not None and long.understood is not None
    assert ("GNN", "graph neural network") in short.understood.acronyms
    assert short.understood.acronyms and long.understood.acronyms
    assert {"GNN", "graph", "neural", "network"} <= set(short.understood.highlight)
    typed = {
        q: {h.paper.id for h in search(indexes, q, mode="keyword", k=100, exact=True).hits}
        for q in ("GNN", '"graph neural networks"')
    }
    assert typed["GNN"] - typed['"graph neural networks"']  # papers that write only the short form
    only_short = typed["GNN"] - typed['"graph neural networks"']
    only_long = typed['"graph neural networks"'] - typed["GNN"]
    for result in (short, long):
        query = result.understood.original
        wide = {h.paper.id for h in search(indexes, query, mode=mode, k=100).hits}  # type: ignore[arg-type]
        if mode == "keyword":  # the FTS side matches either form
            assert typed["GNN"] | typed['"graph neural networks"'] <= wide
        else:  # papers of either form, at least those the query as typed finds
            exact = {h.paper.id for h in search(indexes, query, mode=mode, k=100, exact=True).hits}  # type: ignore[arg-type]
            assert wide & only_short and wide & only_long
            assert len(wide & only_short) >= len(exact & only_short)
            assert len(wide & only_long) >= len(exact & only_long)
    exact = search(indexes, "GNN", mode="keyword", k=20, exact=True)
    assert exact.understood is not None and exact.understood.acronyms == []
    assert len(short.hits) >= len(exact.hits)


def test_the_cli_says_what_it_searched_for_and_its_json_carries_it(home: Path, tmp_path: Path) -> None:
    out = invoke("search", "retreival augmented generaton", "--mode", "keyword", home=home)
    assert "searched for: retrieval augmented generation" in out.stderr
    assert "note: corrected: retreival → retrieval" in out.stderr
    assert "search instead for: retreival augmented generaton (--exact)" in out.stderr
    exact = invoke("search", "retreival augmented generaton", "--exact", "--mode", "keyword", home=home)
    assert "searched for" not in exact.stderr
    queries = tmp_path / "q.txt"
    queries.write_text("图神经网络\nretreival augmented generaton\n")
    lines = [
        json.loads(line)
        for line in invoke(
            "search", "--queries-from", str(queries), "--mode", "keyword", home=home
        ).stdout.splitlines()
    ]
    assert lines[0]["understood"]["text_used"] == "graph neural network"
    assert lines[0]["understood"]["translation"] == "graph neural network"
    assert lines[0]["understood"]["translated_by"] == "dictionary"
    assert {"from": "retreival", "to": "retrieval"} in lines[1]["understood"]["corrections"]
    assert lines[1]["results"]


def test_related_text_is_understood(home: Path) -> None:
    out = invoke("related", "--text", "检索增强生成 retreival augmented generaton", "-k", "3", home=home)
    assert "note: translated by the offline dictionary: " in out.stderr
    assert "note: corrected: retreival → retrieval" in out.stderr


def test_the_page_and_the_api_show_the_query_used(home: Path) -> None:
    with app_client(home) as client:
        api = client.get("/api/search", params={"q": "retreival augmented generaton", "mode": "keyword"})
        understood = api.json()["understood"]
        assert understood["text_used"] == "retrieval augmented generation"
        assert understood["applied"][0] == "corrected: retreival → retrieval"
        page = client.get("/search", params={"q": "GNN", "mode": "keyword"}).text
        assert 'name="q" value="GNN"' in page  # the typed query in the box
        assert "acronym: GNN = graph neural network" in page
        assert "verbatim=1" in page and "Search only for GNN" in page  # the typed query alone, verbatim
        assert "Showing results for" not in page  # never "Showing results for GNN · search instead for GNN"
        page = client.get("/search", params={"q": "retreival augmented generaton"}).text
        assert 'value="retrieval augmented generation"' in page  # the query used, editable
        assert "Showing results for" in page and "search instead for" in page
        assert page.count('name="q"') == 1  # one search box: no second "Searched for:" form
        marked = client.get("/search", params={"q": "GNN", "mode": "keyword"}).text
        assert "<mark>GNN</mark>" in marked and re.search(r"<mark>graph</mark>", marked, re.IGNORECASE)
        none = client.get("/search", params={"q": "qwxzvplork blorptangle frumious"}).text
        assert '<a href="/categories">Browse the categories</a>' in none and 'class="suggestions"' not in none
        verbatim = client.get("/search", params={"q": "retreival augmented generaton", "verbatim": "1"})
        assert "Showing results for" not in verbatim.text
        zh = client.get("/search", params={"q": "图神经网络", "lang": "zh"}).text  # last: it sets a cookie
        assert "已用离线词典翻译：图神经网络 → graph neural network" in zh and "显示的是以下查询的结果" in zh


def test_the_vocabulary_follows_the_store_through_a_delta(tmp_path: Path, shared_data: Path) -> None:
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        records = [orjson.loads(line) for line in itertools.islice(f, 3000)]
    defining = next(r for r in records if ("(GNN" in str(r["abstract"])))
    first = [r for r in records if r is not defining][:200]
    invoke("ingest", str(write_jsonl(tmp_path / "a.jsonl", first)), home=tmp_path)
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    try:
        refresh(store, settings)
        before = open_indexes(store, settings).vocabulary
        assert before is not None and before.papers == 200 and "GNN" not in before.acronyms
        invoke("ingest", str(write_jsonl(tmp_path / "b.jsonl", [defining])), home=tmp_path)
        refresh(store, settings)
        indexes = open_indexes(store, settings)
        assert indexes.generation is not None and (indexes.generation.path / "delta").exists()
        after = indexes.vocabulary
        assert after is not None and after.papers == 201 and "GNN" in after.acronyms
    finally:
        store.close()


def test_a_compound_missing_from_the_dictionary_reads_as_the_phrase_the_store_writes(
    indexes: Indexes,
) -> None:
    # 强化学习 is no CC-CEDICT entry: 强化 "strengthen" + 学习 "study" word by word; 强化 shares
    # "strengthen" with 加强, which also "reinforce"s, and the papers write "reinforcement learning"
    assert understand(indexes, "强化学习").text_used == "reinforcement learning"
    hits = search(indexes, "强化学习", mode="keyword").hits
    texts = [" ".join(f"{h.paper.title} {h.paper.abstract}".split()) for h in hits]
    # the phrase, or its short form, which the store's abstracts define as it ("... learning (RL)")
    assert texts and all("reinforcement learning" in t.lower() or re.search(r"\bRL\b", t) for t in texts)


def test_a_pair_counts_the_papers_writing_it_not_the_pairs_sharing_its_hashed_slot(indexes: Indexes) -> None:
    from papersift.index.lexical import term_slot, terms
    from papersift.ranking.to_english import pair_df

    lex = indexes.lexical
    assert lex is not None
    written: dict[str, int] = {}
    for _, paper in indexes.store.iter_rows(after=0):
        for term in set(terms(f"{paper.title} {paper.abstract}")):
            if " " in term:
                written[term] = written.get(term, 0) + 1
    for pair in ("reinforcement learning", "neural network", "diffusion models"):
        assert pair_df(indexes, *pair.split()) == written[pair] > 0
    vocabulary = indexes.vocabulary
    assert vocabulary is not None
    common = sorted((w for w in vocabulary.words if w.isalpha()), key=lambda w: -vocabulary.df(w))[:300]
    collisions = [
        (a, b)
        for a, b in itertools.product(common, common)
        if f"{a} {b}" not in written and lex.arrays["df"][term_slot(f"{a} {b}")] > 0
    ]
    assert collisions  # pairs no paper writes whose slot another pair fills
    assert all(pair_df(indexes, a, b) == 0 for a, b in collisions[:50])


def test_a_capitalised_word_is_no_short_form_but_the_short_form_and_its_lower_case_are(
    tmp_path: Path,
) -> None:
    from papersift.index.vocabulary import Vocabulary
    from papersift.ranking.acronyms import short_form

    vocabulary = Vocabulary(tmp_path, papers=100, last=100)
    vocabulary.__dict__["words"] = {"deep": 40, "gnn": 3}
    vocabulary.__dict__["acronyms"] = {
        "DEEP": {"dynamically extending exclusion process": 2},
        "GNN": {"graph neural network": 9},
    }
    assert short_form(vocabulary, "Deep") is None  # a title's "Deep" is not DEEP
    assert short_form(vocabulary, "DEEP") == ("DEEP", "dynamically extending exclusion process")
    assert short_form(vocabulary, "GNN") == ("GNN", "graph neural network")
    assert short_form(vocabulary, "gnn") == ("gnn", "graph neural network")


def test_capitalised_names_joined_by_a_hyphen_are_never_corrected(indexes: Indexes) -> None:
    assert understand(indexes, "grah theory").corrections == [("grah", "graph")]
    assert understand(indexes, "Grah-Hopf conjecture").corrections == []  # as Boros-Moll is no "boron"


def test_semantic_search_moves_a_dictionary_translation_toward_its_keyword_matches(indexes: Indexes) -> None:
    query = "扩散模型 蛋白质设计"
    u = understand(indexes, query)
    assert u.loose  # the dictionary's word-by-word reading
    keyword = {h.paper.id for h in search(indexes, query, mode="keyword", k=FEEDBACK_DOCS).hits}
    assert keyword
    plain_vector = indexes.encoder().encode([u.text_used])[0]  # a given vector is searched as it is
    plain = [h.paper.id for h in search(indexes, query, mode="semantic", vector=plain_vector).hits]
    moved = [h.paper.id for h in search(indexes, query, mode="semantic").hits]
    assert moved != plain

    def ranks(ids: list[str]) -> float:  # the keyword matches' mean rank (one missing: after the last)
        return sum(ids.index(pid) if pid in ids else len(ids) for pid in keyword) / len(keyword)

    assert len(keyword & set(moved)) >= len(keyword & set(plain)) and ranks(moved) < ranks(plain)


def test_an_english_query_in_semantic_mode_keeps_its_own_vector(indexes: Indexes) -> None:
    query = "diffusion models for protein design"
    assert not understand(indexes, query).loose
    vector = indexes.encoder().encode([query])[0]
    given = [h.paper.id for h in search(indexes, query, mode="semantic", vector=vector).hits]
    assert [h.paper.id for h in search(indexes, query, mode="semantic").hits] == given


def test_rocchio_moves_the_vector_toward_the_mean_of_the_best_keyword_matches(indexes: Indexes) -> None:
    found = searchers(indexes)
    assert found.dense is not None
    vector = indexes.encoder().encode(["protein design diffusion"])[0]
    moved = rocchio(found, vector, "protein design diffusion", Filters())
    assert abs(float(np.linalg.norm(moved)) - 1.0) < 1e-5
    rows = found.keyword.candidates(Probe(keyword="protein design diffusion", any_terms=True), 5, Filters())
    centroid = found.dense.index.vectors(keys_of(rows)).mean(axis=0)
    assert float(moved @ centroid) > float(vector @ centroid) / float(np.linalg.norm(vector))
    # nothing matches (or no paper passes the filters): the vector as it was
    assert rocchio(found, vector, "qwxzvplork", Filters()) is vector
    assert rocchio(found, vector, "protein", Filters(category="zz.none")) is vector


def test_a_chinese_query_reads_the_same_in_every_mode_of_the_cli_and_in_the_api(
    tmp_path: Path, shared_data: Path
) -> None:
    """A store where "map" is commoner than "graph" (the demo store's case): 图 alone reads "map", so only
    the pair counts of "graph neural" make 图神经网络 "graph neural network"; keyword mode skipped them."""
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        records = list(map(orjson.loads, f))
    gnn = [r for r in records if "graph neural network" in str(r["abstract"]).lower()][:12]
    maps = [r for r in records if re.search(r"\bmaps?\b", str(r["abstract"])) and r not in gnn][:40]
    home = tmp_path / "home"
    invoke("ingest", str(write_jsonl(tmp_path / "papers.jsonl", gnn + maps)), home=home)
    invoke("embed", home=home)
    queries = tmp_path / "q.txt"
    queries.write_text("图神经网络\n")
    used = {
        mode: json.loads(
            invoke("search", "--queries-from", str(queries), "--mode", mode, home=home).stdout.splitlines()[0]
        )["understood"]["text_used"]
        for mode in ("keyword", "semantic", "hybrid")
    }
    with app_client(home) as client:
        api = client.get("/api/search", params={"q": "图神经网络", "mode": "keyword"}).json()
    assert used == dict.fromkeys(used, "graph neural network")
    assert api["understood"]["text_used"] == "graph neural network"


def test_the_search_page_says_what_it_did_with_a_long_query_an_unknown_category_and_its_count(
    home: Path,
) -> None:
    long = "graph neural network " * 60  # 1,260 characters: searched by its first 1,000, not a 400
    with app_client(home) as client:
        page = client.get("/search", params={"q": long, "mode": "keyword"})
        assert page.status_code == 200
        assert f"Your query was {len(long)} characters long: searched its first" in page.text
        api = client.get("/api/search", params={"q": long, "mode": "keyword"}).json()
        assert api["shortened"]["from"] == len(long) and api["shortened"]["to"] <= 1000
        assert not api["query"].endswith(" gra")  # cut at a word's end
        foo = client.get("/search", params={"q": "transformer", "category": "cs.FOO", "lang": "en"}).text
        assert "cs.FOO is not an arXiv category." in foo and 'href="/categories"' in foo
        zh = client.get("/search", params={"q": "transformer", "category": "cs.FOO", "lang": "zh"}).text
        assert "cs.FOO 不是 arXiv 的分类。" in zh
        near = client.get("/api/search", params={"q": "graph", "category": "cs.LGG"}).json()
        assert (
            near["unknown_category"]["category"] == "cs.LGG"
            and near["unknown_category"]["nearest"][0] == "cs.LG"
        )
        keyword = client.get("/api/search", params={"q": "graph neural network", "mode": "keyword"}).json()
        hybrid = client.get("/api/search", params={"q": "graph neural network", "mode": "hybrid"}).json()
        assert hybrid["total"] == keyword["total"]  # the papers having the words, in both modes
        semantic = client.get("/api/search", params={"q": "graph neural network", "mode": "semantic"}).json()
        assert semantic["total"] is None
        shown = client.get("/search", params={"q": "graph neural network", "lang": "en"}).text
        assert f"{keyword['total']['count']} papers have your words" in shown


def test_the_cli_refuses_a_category_arxiv_does_not_have(home: Path) -> None:
    out = invoke("search", "transformer", "--category", "cs.FOO", home=home, check=False)
    assert out.returncode == 2 and "cs.FOO is not an arXiv category" in out.stderr
    for command in (("list", "cs.FOO"), ("topics", "cs.FOO"), ("follow", "-c", "cs.FOO"), ("sync", "cs.FOO")):
        refused = invoke(*command, home=home, check=False)
        assert refused.returncode == 2 and "cs.FOO is not an arXiv category" in refused.stderr, command
    assert "did you mean cs.LG" in invoke("list", "cs.LGG", home=home, check=False).stderr
    near = invoke("related", "--text", "graph neural network", "-c", "cs.lgg", home=home, check=False)
    assert near.returncode == 2 and "did you mean cs.LG" in near.stderr
    assert invoke("search", "graph", "--category", "CS.lg", "--mode", "keyword", home=home).returncode == 0
