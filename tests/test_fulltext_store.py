"""The full-text store on both backends (the ``store`` fixture: SQLite and a real PostgreSQL): a version's
text compressed and read back, its references as edges with the paper they name, replaced by a newer
version's and kept against an older one's, cited-by, code links, failures, citation counts."""

from __future__ import annotations

from datetime import date

from papersift.records.paper import Paper
from papersift.sources.fulltext import CodeLink, FullText, Reference, Section
from papersift.store import Store
from papersift.store.fulltext_rows import CitationCount


def _paper(pid: str, title: str) -> Paper:
    return Paper(
        pid, title, authors=["Ada Lovelace"], abstract="We study it.", categories=["cs.CL"], source="t"
    )


def _text(*refs: Reference, words: str = "one two three") -> FullText:
    return FullText(
        source="tex",
        sections=(Section("Introduction", 1, words), Section("Method", 1, "four five")),
        references=refs,
        code=(CodeLink("https://github.com/a/b", "github", own=True),),
    )


def test_versions_edges_cited_by_code_and_counts(store: Store) -> None:
    store.upsert([_paper("2401.00001", "Citing paper"), _paper("1409.0473", "Cited paper")])
    v1 = _text(
        Reference("a", "Bahdanau et al. 2014", arxiv_id="1409.0473", resolved="1409.0473"),
        Reference("b", "Someone else", title="A book"),
        words="one two three " * 100,
    )
    info = store.put_fulltext("2401.00001", 1, v1)
    assert (info.words, info.sections, info.source) == (302, 2, "tex") and 0 < info.size < 400
    assert store.fulltext("2401.00001") == v1
    assert [c.paper_id for c in store.cited_by("1409.0473")] == ["2401.00001"]
    assert store.code_links("2401.00001") == [CodeLink("https://github.com/a/b", "github", True)]
    links = store.paper_links(["2401.00001", "1409.0473", "2401.99999"])
    assert set(links) == {"2401.00001", "1409.0473"}
    assert links["1409.0473"].cited_by[0].title == "Citing paper" and links["1409.0473"].fulltext is None
    v2 = _text(Reference("c", "Only this one", title="Another"))
    store.put_fulltext("2401.00001", 2, v2)
    assert [r.key for r in store.references("2401.00001")] == ["c"] and store.cited_by("1409.0473") == []
    store.put_fulltext("2401.00001", 1, v1)  # an older version read again: the newer edges stay
    assert [r.key for r in store.references("2401.00001")] == ["c"]
    assert store.fulltext_info(["2401.00001"])["2401.00001"].version == 2
    store.put_fulltext_failure("1409.0473", 0, "no source")
    assert store.fulltext_states(["1409.0473", "2401.00001"]) == {
        ("1409.0473", 0): "failed",
        ("2401.00001", 1): "done",
        ("2401.00001", 2): "done",
    }
    assert store.fulltext("1409.0473") is None
    unresolved = store.unresolved_references()
    assert [(p, n) for p, n, _ in unresolved] == [("2401.00001", 1)]
    assert store.set_resolved([("2401.00001", 1, "1409.0473")]) == 1
    assert store.cited_by("1409.0473")[0].paper_id == "2401.00001"
    store.put_citation_counts([CitationCount("1409.0473", 12, 30, "abc", date(2026, 12, 1))])
    store.put_citation_counts([CitationCount("1409.0473", 13, 30, "abc", date(2026, 12, 2))])
    assert store.citation_counts(["1409.0473"])["1409.0473"].citations == 13


def test_references_resolve_by_id_doi_and_title_on_both_backends(store: Store) -> None:
    from papersift.services.eprints import resolve

    store.upsert(
        [
            _paper("1409.0473", "Neural Machine Translation by Jointly Learning to Align and Translate"),
            _paper("1703.03130", "A Structured Self-attentive Sentence Embedding"),
            _paper("2001.00001", "The citing paper itself"),
            Paper(
                "2002.00002",
                "A paper with a journal DOI",
                authors=["B"],
                abstract="x",
                categories=["cs.CL"],
                source="t",
                doi="10.1000/XYZ.1",
            ),
        ]
    )
    refs = [
        Reference("a", "Bahdanau", arxiv_id="1409.0473"),
        Reference("b", "Lin et al.", title="A structured self-attentive sentence embedding."),
        Reference("c", "Lin et al. (typo)", title="A structured self attentive sentence embeddings"),
        Reference("d", "Journal", doi="10.1000/xyz.1"),
        Reference("e", "arXiv DOI", doi="10.48550/arXiv.1409.0473"),
        Reference("f", "Unrelated", title="Sentence embeddings for structured attention in vision"),
        Reference("g", "Itself", arxiv_id="2001.00001"),
    ]
    got = [r.resolved for r in resolve(store, refs, "2001.00001")]
    assert got == ["1409.0473", "1703.03130", "1703.03130", "2002.00002", "1409.0473", None, None]
