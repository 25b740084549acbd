"""Venues' accept lists in the store (``store/venue_rows.py``), the same on SQLite and PostgreSQL: COLM
2025's real list over its real arXiv papers, each record linked to its paper by title and authors or kept
as a venue paper; a re-import that changes nothing, an updated list, a paper arriving after its venue, a
record naming its arXiv id, and search filtered by venue."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from papersift.records.analyzer import fold_title
from papersift.records.names import same_author
from papersift.records.paper import Paper
from papersift.records.venues import VenueRecord, is_venue_id
from papersift.services.venue_import import import_file
from papersift.sources.paperlists import Skipped, read_paperlist, source_of
from papersift.store import PAPERS_CHANGED, Filters, Store, venue_rows
from papersift.store.venue_rows import VenueMark
from tests.support.data import as_papers
from tests.support.venues import COLM, COLM_RECORDS, colm_arxiv_records


@pytest.fixture(scope="module")
def colm_papers(shared_data: Path) -> list[Paper]:
    """The papers of arxiv-300k with a title of COLM 2025's list (case and punctuation folded)."""
    return as_papers(colm_arxiv_records(shared_data))


def exact(records: list[VenueRecord], papers: list[Paper]) -> dict[str, str]:
    """Record key → the paper with the same folded title and an author in common."""
    by_title: dict[str, list[Paper]] = {}
    for p in papers:
        by_title.setdefault(fold_title(p.title), []).append(p)
    out = {}
    for r in records:
        for p in by_title.get(fold_title(r.title), []):
            if any(same_author(a, b) for a in r.authors for b in p.authors):
                out[r.key] = p.id
    return out


def colm_records() -> list[VenueRecord]:
    return [r for r in read_paperlist(COLM, source_of(COLM)) if isinstance(r, VenueRecord)]


def test_a_list_links_its_arxiv_papers_and_keeps_the_others_as_venue_papers(
    store: Store, colm_papers: list[Paper]
) -> None:
    store.upsert(colm_papers)
    done = import_file(store, COLM)
    records = colm_records()
    truth = exact(records, colm_papers)
    assert len(truth) >= 200
    entries = store.venue_entries("colm", 2025)
    assert len(entries) == done.counts.records == COLM_RECORDS
    linked = {e.record.key: e.arxiv for e in entries if e.arxiv}
    assert {k: linked.get(k) for k in truth} == truth  # every exact match linked to its paper
    assert done.counts.linked == len(linked) and done.counts.venue_papers == COLM_RECORDS - len(linked)
    assert len(set(linked.values())) == len(linked)  # one record per paper
    for e in entries:  # a linked record is shown as its paper, the others as their venue paper
        assert e.paper_id == (e.arxiv or e.record.id)
    only = next(e for e in entries if not e.arxiv)
    paper = store.get(only.paper_id)
    assert paper is not None and is_venue_id(paper.id) and paper.title == only.record.title
    assert paper.categories == [] and paper.authors == list(only.record.authors)
    assert paper.abstract == only.record.abstract
    some = next(iter(truth.values()))
    marks = store.venues_of([some, only.paper_id, "2501.00001"])
    assert marks[some] == [VenueMark("COLM", 2025, "Poster", "main", marks[some][0].url, None, ())]
    assert marks[some][0].url and marks[some][0].url.startswith("https://openreview.net/forum?id=")
    assert set(marks) == {some, only.paper_id}
    (summary,) = store.venue_list()
    assert (summary.venue, summary.year, summary.records, summary.linked) == ("COLM", 2025, 418, len(linked))
    assert summary.statuses == (("Poster", 418),) and store.venue_statuses("COLM", 2025) == [("Poster", 418)]
    assert (
        len(store.venue_entries("COLM", 2025, "poster")) == 418
        and store.venue_entries("COLM", 2025, "Oral") == []
    )
    assert store.venue_entries("CoRL", 2025) == []


def test_the_same_list_again_changes_nothing(store: Store, colm_papers: list[Paper]) -> None:
    store.upsert(colm_papers[:50])
    import_file(store, COLM)
    before = (store.get_state(PAPERS_CHANGED), store.count(), store.venue_entries("COLM", 2025))
    again = import_file(store, COLM).counts
    assert (again.new, again.changed, again.removed, again.unchanged) == (0, 0, 0, COLM_RECORDS)
    assert (again.papers.new, again.papers.updated) == (0, 0)
    assert (store.get_state(PAPERS_CHANGED), store.count(), store.venue_entries("COLM", 2025)) == before


def test_an_updated_list_updates_statuses_and_links_and_drops_what_it_no_longer_lists(
    store: Store, colm_papers: list[Paper], tmp_path: Path
) -> None:
    store.upsert(colm_papers)
    import_file(store, COLM)
    first = {e.record.key: e for e in store.venue_entries("COLM", 2025)}
    with gzip.open(COLM, "rt", encoding="utf-8") as f:
        items = json.load(f)
    linked = [i for i in items if first[i["id"]].arxiv]
    oral, renamed, gone = linked[0], linked[1], items[-1]
    oral["status"] = "Oral"
    renamed["title"] = "An Entirely Different Title Nobody Wrote"
    items.remove(gone)
    (tmp_path / "colm2025.json").write_text(json.dumps(items), encoding="utf-8")
    done = import_file(store, tmp_path / "colm2025.json").counts
    assert (done.changed, done.removed, done.new) == (2, 1, 0)
    after = {e.record.key: e for e in store.venue_entries("COLM", 2025)}
    assert after[oral["id"]].record.status == "Oral" and after[oral["id"]].arxiv == first[oral["id"]].arxiv
    assert store.venues_of([first[oral["id"]].paper_id])[first[oral["id"]].paper_id][0].status == "Oral"
    unlinked = after[renamed["id"]]  # its title no longer agrees: a venue paper of its own now
    assert unlinked.arxiv is None and store.get(unlinked.paper_id) is not None
    assert first[renamed["id"]].arxiv not in store.venues_of([first[renamed["id"]].arxiv or ""])
    assert gone["id"] not in after and store.venue_statuses("COLM", 2025) == [("Poster", 416), ("Oral", 1)]
    if not first[gone["id"]].arxiv:
        assert store.get(first[gone["id"]].paper_id) is None  # its venue paper retired


def test_a_paper_arriving_after_its_venue_is_linked_then(store: Store, colm_papers: list[Paper]) -> None:
    import_file(store, COLM)
    assert not any(e.arxiv for e in store.venue_entries("COLM", 2025))
    truth = exact(colm_records(), colm_papers)
    key, pid = next(iter(truth.items()))
    venue_id = next(e.paper_id for e in store.venue_entries("COLM", 2025) if e.record.key == key)
    assert store.get(venue_id) is not None
    store.upsert([p for p in colm_papers if p.id == pid])  # ingest, harvest and sync all write here
    entry = next(e for e in store.venue_entries("COLM", 2025) if e.record.key == key)
    assert (entry.arxiv, entry.paper_id) == (pid, pid)
    assert store.get(venue_id) is None  # the venue paper gave way to its arXiv version
    assert [m.venue for m in store.venues_of([pid])[pid]] == ["COLM"]
    assert import_file(store, COLM).counts.changed == 0  # a re-import keeps that link


def test_a_record_naming_its_arxiv_id_is_linked_when_its_title_agrees(store: Store, tmp_path: Path) -> None:
    wacv = [
        {"id": "w1", "title": "Seeing Through Fog: A Study", "author": "Ada Lovelace", "arxiv": "2409.08397"},
        {"id": "w2", "title": "Another Paper Altogether", "author": "Alan Turing", "arxiv": "2412.04247"},
    ]
    path = tmp_path / "wacv2025.json"
    path.write_text(json.dumps(wacv), encoding="utf-8")
    store.upsert(
        [
            Paper("2409.08397", "Seeing through Fog", ["Someone Else"], "", ["cs.CV"]),
            Paper("2412.04247", "Unrelated Work", ["Alan Turing"], "", ["cs.CV"]),
        ]
    )
    import_file(store, path)
    links = {e.record.key: e.arxiv for e in store.venue_entries("WACV", 2025)}
    assert links == {"w1": "2409.08397", "w2": None}  # named and agreeing; named but another title


def test_search_filters_by_venue(store: Store, colm_papers: list[Paper]) -> None:
    store.upsert(colm_papers)
    import_file(store, COLM)
    papers = set(store.venue_papers("COLM", 2025))
    found = store.match("language models", k=50, filters=Filters(venue="COLM"))
    assert found and {p.id for p in store.by_rowids([r for r, _ in found]).values()} <= papers
    assert len(found) == len(store.match("language models", k=50, filters=Filters(venue="colm 2025")))
    assert store.match("language models", k=50, filters=Filters(venue="COLM 2024")) == []
    assert store.match("language models", k=50, filters=Filters(venue="CoRL")) == []
    everything = store.match("language models", k=500)
    assert len(everything) > len(found)


def test_bad_input_leaves_the_store_as_it_was(store: Store, tmp_path: Path) -> None:
    from papersift.sources.paperlists import PaperlistError

    (tmp_path / "colm2025.json").write_text('{"not": "a list"}', encoding="utf-8")
    with pytest.raises(PaperlistError):
        import_file(store, tmp_path / "colm2025.json")
    assert store.venue_list() == [] and store.count() == 0
    skipped = [r for r in read_paperlist(COLM, source_of(COLM)) if isinstance(r, Skipped)]
    assert skipped == []


def test_the_title_index_is_read_once_across_imports_until_a_paper_is_written(
    store: Store, colm_papers: list[Paper], monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[str] = []
    made = venue_rows.TitleIndex

    def counted(version: str) -> venue_rows.TitleIndex:
        reads.append(version)
        return made(version)

    monkeypatch.setattr(venue_rows, "TitleIndex", counted)
    store.upsert(colm_papers[:50])
    import_file(store, COLM)
    import_file(store, COLM)  # the same titles: the index kept
    assert len(reads) == 1
    store.upsert(colm_papers[50:60])  # a paper written: read again, and it holds the new titles
    import_file(store, COLM)
    assert len(reads) == 2 and reads[0] != reads[1]
