"""Sentence vectors: the splitter, roles, int8 rows, the incremental arrays, and their use by the rankers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import numpy as np
import pytest

from papersift.index.encoder import load_encoder
from papersift.index.indexes import Indexes, open_indexes
from papersift.index.pipeline import embed_missing, refresh, sentence_source
from papersift.index.runtime import open_papersift
from papersift.index.sentences import (
    FACETS,
    TITLE,
    Segment,
    Sentences,
    paper_sentences,
    quantize,
    roles,
    split_sentences,
)
from papersift.ranking.related import paper_query, related, text_query
from papersift.ranking.search import search
from papersift.ranking.sentence_match import SentenceWeights, sentence_match, sentence_term
from papersift.services.ingest import ingest_paths
from papersift.settings import Settings
from papersift.store import open_store
from papersift.store.cache import VectorCache
from tests.support.data import write_jsonl
from tests.support.inproc import invoke

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]


def test_split_keeps_latex_abbreviations_and_initials_inside_a_sentence() -> None:
    text = (
        "Recent work (e.g. Smith et al. 2020) found $x \\approx 2.5$ in Fig. 2 of Ref. [3]. "
        "We propose a method, cf. Eq. (4), following J. Doe and i.i.d. sampling. "
        "The bound $\\|f\\|_{L^2} \\leq C. D$ holds! Is it tight? Yes, in all 12 cases we tried."
    )
    assert split_sentences(text) == [
        "Recent work (e.g. Smith et al. 2020) found $x \\approx 2.5$ in Fig. 2 of Ref. [3].",
        "We propose a method, cf. Eq. (4), following J. Doe and i.i.d. sampling.",
        "The bound $\\|f\\|_{L^2} \\leq C. D$ holds! Is it tight?",
        "Yes, in all 12 cases we tried.",
    ]
    assert split_sentences("  ") == []
    assert paper_sentences("A  title", "One sentence here, no period")[0] == "A title"


def test_real_abstracts_split_into_sentences_that_join_back(real_records: list[dict[str, object]]) -> None:
    for record in real_records[:300]:
        abstract = " ".join(str(record["abstract"]).split())
        sentences = split_sentences(abstract)
        assert " ".join(sentences) == abstract
        assert all(s.count("$") % 2 == 0 for s in sentences) or abstract.count("$") % 2
    counts = [len(paper_sentences(str(r["title"]), str(r["abstract"]))) for r in real_records[:300]]
    assert 4 <= float(np.mean(counts)) <= 10


def test_roles_follow_position_and_cue_words() -> None:
    sentences = [
        "A title",
        "Transformers have recently attracted wide interest, but long inputs remain a challenge.",
        "We propose a sparse attention scheme based on locality-sensitive hashing.",
        "Experiments show that it outperforms dense attention and reduces memory by 4x.",
    ]
    assert roles(sentences) == [TITLE, 0, 1, 2]
    assert FACETS == ("background", "method", "result")


def test_int8_rows_keep_the_cosine() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(50, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    q, scales = quantize(vectors)
    assert q.dtype == np.int8 and q.nbytes == 50 * 384
    back = q.astype(np.float32) * scales[:, None]
    assert np.abs(back @ vectors.T - vectors @ vectors.T).max() < 0.01


def test_sentence_match_is_the_best_sentence_and_the_mean_of_the_abstract() -> None:
    rng = np.random.default_rng(1)
    unit = rng.normal(size=(4, 384)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    title, first, second, other_title = unit
    vectors, scales = quantize(np.stack([title, first, second, other_title]))
    segment = Segment(  # paper 5: a title and two sentences; paper 7: a title alone; paper 9: none
        np.array([5, 7], np.int64),
        np.array([0, 3, 4], np.int64),
        vectors,
        scales,
        np.array([TITLE, 0, 1, TITLE], np.int8),
    )
    sentences = Sentences([segment])
    keys = np.array([5, 7, 9], np.int64)
    query = first[None, :]
    best, mean, covered = sentence_match(sentences, keys, query)
    assert covered.tolist() == [True, True, False]
    assert best[0] == pytest.approx(1.0, abs=0.01)  # the query is its first sentence
    assert mean[0] == pytest.approx((1.0 + float(first @ second)) / 2, abs=0.01)  # the title left out
    assert best[1] == pytest.approx(float(first @ other_title), abs=0.01) == mean[1]  # a title alone
    assert best[2] == mean[2] == 0.0
    dense = np.array([0.3, 0.2, 0.1], np.float32)
    weights = SentenceWeights(best=0.25, mean=1.0)
    term = sentence_term(sentences, keys, query, np.array([3.0, 2.0, 1.0]), dense, weights, top=1)
    assert term[0] == pytest.approx(0.25 * best[0] + mean[0])  # re-ranked
    assert term[1:] == pytest.approx(1.25 * dense[1:])  # past the top, or no sentences: the dense cosine
    assert (
        not SentenceWeights()
        and sentence_term(sentences, keys, query, dense, dense, SentenceWeights()).sum() == 0
    )


@pytest.fixture(scope="module")
def small_home(tmp_path_factory: pytest.TempPathFactory, real_records: list[dict[str, object]]) -> Path:
    """40 real papers embedded and indexed with their sentences (the home's vector cache spares the tests
    re-encoding them)."""
    home = tmp_path_factory.mktemp("sentences")
    settings = Settings(home=home)
    store = open_store(settings)
    ingest_paths(store, [write_jsonl(home / "a.jsonl", real_records[:40])], chunk=100)
    cache = VectorCache(settings.cache_path)
    embed_missing(store, settings, cache=cache)
    refresh(store, settings, sentences=sentence_source(settings, cache))
    cache.close()
    store.close()
    return home


def test_sentence_vectors_are_built_and_added_incrementally(
    small_home: Path, real_records: list[dict[str, object]]
) -> None:
    settings = Settings(home=small_home)
    store = open_store(settings)
    first = open_indexes(store, settings)
    assert first.sentences is not None and len(first.sentences) == 40
    assert first.generation is not None and first.generation.manifest["sentences"] is True
    main = first.generation.path / "sentences" / "main" / "vectors.npy"
    # 3 more papers: without a sentence source the arrays are kept as they were
    ingest_paths(store, [write_jsonl(small_home / "b.jsonl", real_records[40:43])], chunk=100)
    cache = VectorCache(settings.cache_path)
    embed_missing(store, settings, cache=cache)
    refresh(store, settings)
    kept = open_indexes(store, settings)
    assert kept.sentences is not None and len(kept.sentences) == 40
    assert kept.generation is not None and kept.generation.manifest["sentences"] is False
    # with one, the new papers go to a delta (under DELTA_MAX_SHARE) beside the same (hard-linked) main arrays
    refresh(store, settings, sentences=sentence_source(settings, cache, load_encoder(settings)))
    cache.close()
    grown = open_indexes(store, settings)
    assert grown.sentences is not None and len(grown.sentences) == 43
    assert grown.generation is not None
    assert os.path.samefile(main, grown.generation.path / "sentences" / "main" / "vectors.npy")
    assert (grown.generation.path / "sentences" / "delta" / "keys.npy").exists()
    rowid = store.rowid(str(real_records[41]["id"]))
    assert rowid is not None
    own = grown.sentences.of(rowid)
    assert own is not None
    paper = store.get(str(real_records[41]["id"]))
    assert paper is not None and len(own[0]) == len(paper_sentences(paper.title, paper.abstract))
    # a paper matches itself best, sentence for sentence
    keys = np.array(sorted(store.rowid(str(r["id"])) or 0 for r in real_records[:43]), np.int64)
    scores, _, covered = sentence_match(grown.sentences, keys, own[0])
    assert covered.all() and keys[int(np.argmax(scores))] == rowid
    assert scores.max() == pytest.approx(1.0, abs=0.01)
    for ix in (first, kept, grown):
        ix.generation.close() if ix.generation else None
    store.close()


@pytest.fixture(scope="module")
def sentence_home(tmp_path_factory: pytest.TempPathFactory, embedded_home: Path) -> Path:
    """The embedded corpus with sentence vectors: ``papersift embed`` with ``PAPERSIFT_SENTENCES=true``."""
    home = tmp_path_factory.mktemp("sentence-home")
    shutil.copytree(embedded_home, home, dirs_exist_ok=True)
    invoke("embed", home=home, env={"PAPERSIFT_SENTENCES": "true"})
    return home


def test_embed_builds_sentence_vectors_only_when_asked(embedded_home: Path, sentence_home: Path) -> None:
    for home, wanted in ((embedded_home, False), (sentence_home, True)):
        with open_papersift(Settings(home=home)) as opened:
            indexes = opened.indexes()
            assert (indexes.sentences is not None) is wanted
            assert indexes.generation is not None
            assert bool(indexes.generation.manifest.get("sentences")) is wanted


INDEXES_HOME = "sentence_home"  # the home the shared `indexes` fixture opens


def test_related_explains_which_sentence_matched_which(indexes: Indexes, citation_corpus: Corpus) -> None:
    assert indexes.sentences is not None
    paper = indexes.store.get(sorted(citation_corpus[1])[0])
    assert paper is not None
    hits = related(indexes, paper_query(indexes, paper), k=10)
    matches = [h for h in hits if h.match is not None]
    assert matches
    for hit in matches:
        assert hit.match is not None
        mine, theirs, cosine = hit.match
        assert 0 <= mine <= len(paper_sentences(paper.title, paper.abstract))
        assert 0 <= theirs <= len(paper_sentences(hit.paper.title, hit.paper.abstract))
        if cosine >= 0.5:
            assert any(" ↔ " in reason for reason in hit.reasons())


def test_a_facet_uses_only_its_sentences(indexes: Indexes, citation_corpus: Corpus) -> None:
    paper = indexes.store.get(sorted(citation_corpus[1])[1])
    assert paper is not None
    whole = paper_query(indexes, paper)
    codes = roles(paper_sentences(paper.title, paper.abstract))
    for facet in FACETS:
        query = paper_query(indexes, paper, facet=facet)
        assert query.facet == facet
        assert query.sentences is not None
        own = [n for n, c in enumerate(codes) if c == FACETS.index(facet)]
        if own:
            assert query.numbers == own
            assert query.vector is not None and whole.vector is not None
            assert not np.allclose(query.vector, whole.vector)
        else:
            assert query.notes
        hits = related(indexes, query, k=5)
        assert paper.id not in {h.paper.id for h in hits}
    with pytest.raises(ValueError, match="facet"):
        paper_query(indexes, paper, facet="intro")
    text = text_query(indexes, "Deep networks are widely used. We propose a new optimiser.", facet="method")
    assert text.sentences is not None and len(text.sentences) == 1


def test_search_by_a_sentence_of_an_abstract_finds_its_paper(
    indexes: Indexes, citation_corpus: Corpus
) -> None:
    found = 0
    for record in citation_corpus[0][:20]:
        sentences = split_sentences(str(record["abstract"]))
        middle = sentences[len(sentences) // 2]
        hits = search(indexes, middle, k=3).hits
        found += record["id"] in {h.paper.id for h in hits}
    assert found >= 17


def test_cli_related_facet(sentence_home: Path, citation_corpus: Corpus) -> None:
    qid = sorted(citation_corpus[1])[0]
    out = invoke("related", qid, "--facet", "method", "-k", "3", home=sentence_home).stdout
    assert out.startswith(f"Related to [{qid}]") and "  1. [" in out
    bad = invoke("related", qid, "--facet", "intro", home=sentence_home, check=False)
    assert bad.returncode == 2 and "--facet must be one of background, method, result" in bad.stderr


def test_paper_page_and_api_take_a_facet(server: httpx.Client, citation_corpus: Corpus) -> None:
    qid = sorted(citation_corpus[1])[0]
    data = server.get(f"/api/abs/{qid}", params={"facet": "result", "k": 3}).json()
    assert data["facet"] == "result" and len(data["related"]) == 3
    assert server.get(f"/api/abs/{qid}", params={"facet": ""}).json()["facet"] is None
    assert server.get(f"/api/abs/{qid}", params={"facet": "intro"}).status_code == 400
    page = server.get(f"/abs/{qid}", params={"facet": "method"}).text
    assert '<option value="method" selected>' in page
