"""The lexical arrays: folded terms and author keys, tf-idf cosines from the memory-mapped posting lists,
shared authors and terms, and a saved directory that is rebuilt whole or not read at all."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from papersift.index.lexical import (
    _ARRAYS,
    KEYWORD_MAX_DF,
    QUERY_MAX_DF,
    Lexical,
    author_key,
    author_slot,
    author_slots,
    lexical_count,
    open_lexical,
    shared_terms,
    term_names,
    terms,
)
from papersift.index.lexical_build import build_delta, build_lexical
from papersift.records.paper import Deleted, Paper
from papersift.store.sqlite import SqliteStore
from tests.support.data import as_papers, spread_records

Indexed = tuple[SqliteStore, Lexical, list[tuple[int, Paper]]]


SPREAD = 99  # `records`: 201 real papers spread over the 20k file, many fields and years


papers = as_papers


def text(p: Paper) -> str:
    return f"{p.title} | {p.abstract}"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, object]]) -> Iterator[Indexed]:
    """A store of the real papers less one deleted (a gap in the rowids), its arrays, and its rows."""
    home = tmp_path_factory.mktemp("lexical")
    store = SqliteStore(home / "papersift.db")
    store.upsert(papers(records))
    store.upsert([Deleted(str(records[50]["id"]))])
    assert build_lexical(store, home / "lexical") == len(records) - 1
    lex = open_lexical(home / "lexical")
    assert lex is not None
    yield store, lex, list(store.iter_rows())
    store.close()


def cosine(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    _, ia, ib = np.intersect1d(a[0], b[0], return_indices=True)
    return float(np.dot(a[1][ia].astype(np.float64), b[1][ib].astype(np.float64)))


def similarity(lex: Lexical, slots: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Overlap of a query's key terms with every indexed row, through ``cosine``."""
    return lex.cosine(*lex.key_terms(slots, weights), np.arange(len(lex)))


def test_terms_fold_accents_and_case_drop_stop_words_and_add_pairs() -> None:
    assert terms("The Naïve BAYES of Élan") == ["naive", "bayes", "elan", "naive bayes", "bayes elan"]
    assert terms("We propose a 3D U-Net for the MRI of knees") == [
        "propose",
        "net",
        "mri",
        "knees",
        "propose net",
        "net mri",
        "mri knees",
    ]
    assert terms("of the and a") == []


def test_author_key_is_first_initial_and_folded_surname() -> None:
    assert author_key("Jane Q. Doe") == "j doe"
    assert author_key("J. Doe") == author_key("JANE DOE") == "j doe"
    assert author_key("José Ñúñez-García") == "j nunez-garcia"
    assert author_key("Conan O'Brien") == "c o'brien"
    assert author_key("  ") == "" and author_slot("  ") == -1
    assert author_slot("Jane Doe") == author_slot("J. Q. Doe") >= 0
    assert author_slots(["Jane Doe", "J. Doe", "", "Alan Turing"]).tolist() == sorted(
        {author_slot("Jane Doe"), author_slot("Alan Turing")}
    )


def test_a_paper_is_most_similar_to_itself(indexed: Indexed) -> None:
    _, lex, rows = indexed
    assert len(lex) == len(rows) and lex.keys.tolist() == [r for r, _ in rows]
    for i, (_, p) in enumerate(rows):
        slots, weights = lex.vectorize(text(p))
        saved_slots, saved_weights = lex.row(i)
        assert np.array_equal(slots, saved_slots)  # a query vector is built like a saved row
        assert np.allclose(weights, saved_weights, atol=1e-6)
        sim = similarity(lex, slots, weights)
        assert len(sim) == len(rows)
        assert int(sim.argmax()) == i


def test_similarity_is_the_cosine_of_the_saved_rows(indexed: Indexed) -> None:
    _, lex, rows = indexed
    for i in (0, 17, 88, 150):
        query = lex.row(i)
        assert float(np.dot(query[1], query[1])) == pytest.approx(1.0, abs=1e-5)  # rows are unit length
        sim = similarity(lex, *query)
        # the cosine over the query's terms that are not common (QUERY_MAX_DF): common ones are skipped
        df = np.diff(np.asarray(lex.arrays["p_indptr"]))[query[0]]
        rare = df <= max(QUERY_MAX_DF * len(lex), 1)
        kept = (query[0][rare], query[1][rare])
        brute = np.array([cosine(kept, lex.row(j)) for j in range(len(rows))])
        assert np.allclose(sim, brute, atol=1e-5)
        assert np.count_nonzero(brute) > 1  # it overlaps with other papers, not only itself
    empty = lex.vectorize("of the and")
    assert len(empty[0]) == 0 and not similarity(lex, *empty).any()


def test_positions_map_rowids_to_rows(indexed: Indexed) -> None:
    store, lex, rows = indexed
    keys = np.array([r for r, _ in rows])
    assert lex.positions(keys).tolist() == list(range(len(rows)))
    deleted = store.db.execute("SELECT rowid FROM papers WHERE deleted = 1").fetchone()[0]
    assert keys[0] < deleted < keys[-1]  # a gap inside the range
    unknown = np.array([0, deleted, keys[-1] + 1, keys[5]])
    assert lex.positions(unknown).tolist() == [-1, -1, -1, 5]


def test_coauthors_count_shared_author_keys(indexed: Indexed) -> None:
    _, lex, rows = indexed
    keys = [{author_key(a) for a in p.authors} - {""} for _, p in rows]
    shared_with_another = 0
    for i, (_, p) in enumerate(rows):
        own = author_slots(p.authors)
        if len(own):  # the paper is found by its own authors, all of them
            rows, counts = lex.coauthors(own)
            assert counts[rows.tolist().index(i)] == len(own)
        found, counts = lex.coauthors(author_slots(p.authors))
        expected = [len(keys[i] & k) for k in keys]
        assert found.tolist() == [j for j, c in enumerate(expected) if c]
        assert counts.tolist() == [c for c in expected if c]
        shared_with_another += int(len(found) > 1)
    assert shared_with_another >= 2  # the sample holds real pairs of papers with a common author
    nobody, _ = lex.coauthors(author_slots(["Q. Nobody", "Zed Nowhere"]))
    assert len(nobody) == 0


def test_document_frequencies_say_which_words_are_common(indexed: Indexed) -> None:
    _, lex, rows = indexed
    texts = [text(p).lower() for _, p in rows]
    assert any(lex.common(w) for w in ("study", "quantum", "model", "field"))  # so both answers are checked
    for word in ("the", "study", "quantum", "model", "field", "gravitino"):
        share = sum(word in terms(t) for t in texts) / len(texts)
        assert lex.common(word) == (share > KEYWORD_MAX_DF), word
    assert lex.common("Study") == lex.common("study")  # folded like the papers' words


def test_day_and_primary_category_of_each_row(indexed: Indexed) -> None:
    _, lex, rows = indexed
    for i, (_, p) in enumerate(rows):
        assert lex.categories[int(lex.primary[i])] == p.primary_category
        day = p.announced or p.published
        assert int(lex.day[i]) == (day.toordinal() if day else 0)
    assert lex.categories == sorted({p.primary_category for _, p in rows})


def test_shared_terms_are_the_query_words_both_papers_weigh(
    indexed: Indexed,
) -> None:
    _, lex, rows = indexed
    i = 0
    q_text = text(rows[i][1])
    q_slots, q_weights = lex.key_terms(*lex.vectorize(q_text))
    sim = similarity(lex, q_slots, q_weights)
    sim[i] = 0
    j = int(sim.argmax())
    assert sim[j] > 0
    doc = lex.row(j)
    picked = shared_terms(term_names(q_text), q_slots, q_weights, doc, n=5)
    assert 1 <= len(picked) <= 5
    doc_terms = set(terms(text(rows[j][1])))
    assert all(t in terms(q_text) and t in doc_terms for t in picked)
    assert not any(a != b and (a in b) for a in picked for b in picked)  # no word repeated inside a pair
    unrelated = next(k for k in range(len(rows)) if sim[k] == 0 and k != i)
    assert shared_terms(term_names(q_text), q_slots, q_weights, lex.row(unrelated)) == []


def test_missing_or_corrupt_arrays_read_as_none(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    assert lexical_count(tmp_path / "nowhere") is None and open_lexical(tmp_path / "nowhere") is None
    store.upsert(papers(records[:20]))
    directory = tmp_path / "lexical"
    assert build_lexical(store, directory) == 20
    assert lexical_count(directory) == 20 and open_lexical(directory) is not None
    meta = directory / "meta.json"
    good = meta.read_bytes()
    meta.write_bytes(b'{"version": 1, "cou')  # torn write
    assert lexical_count(directory) is None and open_lexical(directory) is None
    meta.write_text(json.dumps({**json.loads(good), "version": 999}))  # another layout
    assert lexical_count(directory) is None and open_lexical(directory) is None
    meta.write_text(json.dumps({**json.loads(good), "count": 21}))  # arrays that do not match
    assert open_lexical(directory) is None
    meta.write_bytes(good)
    idf = directory / "idf.npy"
    idf.write_bytes(idf.read_bytes()[:1000])  # a truncated array
    assert open_lexical(directory) is None
    idf.unlink()
    assert open_lexical(directory) is None


def test_rebuilding_replaces_the_arrays_whole(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    directory = tmp_path / "lexical"
    store.upsert(papers(records[:100]))
    assert build_lexical(store, directory) == 100
    old = open_lexical(directory)
    assert old is not None
    store.upsert(papers(records[100:150]))
    assert build_lexical(store, directory) == 150
    new = open_lexical(directory)
    assert new is not None and len(new) == lexical_count(directory) == 150
    assert not (tmp_path / "lexical.tmp").exists() and not (tmp_path / "lexical.old").exists()
    # a reader that opened the old arrays keeps a whole, consistent old index
    assert len(old) == 100 and len(similarity(old, *old.row(3))) == 100
    assert int(similarity(old, *old.row(3)).argmax()) == 3
    last = list(store.iter_rows())[-1][1]
    assert int(similarity(new, *new.vectorize(text(last))).argmax()) == 149


def test_cosine_of_chosen_rows_is_exact_and_candidates_find_the_closest(indexed: Indexed) -> None:
    _, lex, rows = indexed
    for i in (3, 40, 120):
        q_slots, q_weights = lex.vectorize(text(rows[i][1]))
        picks = np.array([i, 0, 7, len(rows) - 1])
        got = lex.cosine(q_slots, q_weights, picks)
        brute = [cosine((q_slots, q_weights), lex.row(j)) for j in picks.tolist()]
        assert np.allclose(got, brute, atol=1e-5) and got[0] == pytest.approx(1.0, abs=1e-5)
        found = lex.candidates(q_slots, q_weights, n=5)
        assert i in found.tolist() and len(found) <= 5
    none = lex.vectorize("of the and")
    assert len(lex.candidates(*none, n=5)) == 0 and not lex.cosine(*none, np.array([0, 1])).any()


def test_a_build_in_small_passes_writes_the_same_arrays_as_one_pass(
    store: SqliteStore, tmp_path: Path, records: list[dict[str, object]]
) -> None:
    store.upsert(papers(records[:120]))
    store.upsert([Deleted(str(records[7]["id"]))])
    assert build_lexical(store, tmp_path / "whole") == 119
    assert build_lexical(store, tmp_path / "passes", rows_per_pass=13) == 119
    for name in _ARRAYS:
        whole, passes = (
            np.load(tmp_path / "whole" / f"{name}.npy"),
            np.load(tmp_path / "passes" / f"{name}.npy"),
        )
        assert whole.dtype == passes.dtype and np.array_equal(whole, passes), name
    assert not list(tmp_path.glob("*/*.raw"))  # scratch files gone


def test_a_delta_segment_ranks_like_a_full_rebuild_within_the_idf_drift(
    tmp_path: Path, shared_data: Path
) -> None:
    """Main arrays over 1,000 papers plus a delta of the next 50 (frozen idf) against one build of all."""
    records = spread_records(shared_data, 19)[:1050]
    store = SqliteStore(tmp_path / "papersift.db")
    store.upsert(papers(records[:1000]))
    assert build_lexical(store, tmp_path / "main") == 1000
    main = open_lexical(tmp_path / "main")
    assert main is not None
    store.upsert(papers(records[1000:]))
    assert build_delta(store, tmp_path / "delta", main, int(main.keys[-1]), started=0.0) == 50
    assert build_lexical(store, tmp_path / "full") == 1050
    both, full = open_lexical(tmp_path / "main", tmp_path / "delta"), open_lexical(tmp_path / "full")
    assert both is not None and full is not None and both.delta is not None
    assert len(both) == len(full) == 1050 and np.array_equal(both.keys, full.keys)
    assert np.array_equal(both.primary, full.primary) or both.categories != full.categories
    assert [both.categories[c] for c in both.primary] == [full.categories[c] for c in full.primary]
    assert np.array_equal(both.day, full.day)
    rows = list(store.iter_rows())
    overlaps = []
    for i in [*range(0, 1000, 97), *range(1000, 1050, 5)]:  # queries from the main arrays and the delta
        query = text(rows[i][1])
        ranked = []
        for lex in (both, full):
            slots, weights = lex.vectorize(query)
            found = lex.candidates(slots, weights, n=50)
            scores = lex.cosine(slots, weights, found)
            ranked.append(found[np.argsort(-scores)][:10].tolist())
            assert ranked[-1][0] == i  # each paper finds itself first, wherever its row is
        overlaps.append(len(set(ranked[0]) & set(ranked[1])) / 10)
    assert np.mean(overlaps) >= 0.8
    # the delta's rows weigh their terms with the main idf; the drift from the full build's weights is the
    # words first seen twice with the delta (idf 0 in the main arrays): large in 1,000 papers, small in 300k
    drift = []
    for i in range(1000, 1050):
        a, b = dict(zip(*both.row(i), strict=True)), dict(zip(*full.row(i), strict=True))
        drift.append(sum(a[s] * b[s] for s in set(a) & set(b)))
    assert np.median(drift) >= 0.75 and min(drift) > 0.5
    authors = author_slots(rows[1010][1].authors)
    assert 1010 in both.coauthors(authors)[0].tolist() and 1010 in full.coauthors(authors)[0].tolist()
    assert both.common("the") == full.common("the")
    store.close()
