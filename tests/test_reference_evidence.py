"""Reference evidence in related papers and Daily Papers (``ranking/evidence.py``): bibliographic coupling
scored and said ("cites 2 of the same papers"), co-citation said ("cited together by 1 paper"), a reader's
library cited or citing ("cites 1 paper of your library"), in English and 中文; and a paper without
references ranked exactly as before (same papers, same order, same scores, same reasons), whatever the other
papers' references. On a copy of the real embedded citation corpus and on both store backends."""

from __future__ import annotations

import math
import shutil
from contextlib import closing
from datetime import date
from pathlib import Path

import pytest

from papersift.index.indexes import Indexes
from papersift.index.runtime import open_papersift
from papersift.library.shapes import DailyPickShape, RelatedHitShape
from papersift.ranking.daily import daily_picks
from papersift.ranking.evidence import reference_key
from papersift.ranking.pool import Hit
from papersift.ranking.related import W_COUPLING, WEIGHTS, paper_query, related
from papersift.records.catalogs import said
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.sources.fulltext import FullText, Reference, Section
from papersift.store import Store, open_store

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]


def _text(*refs: Reference) -> FullText:
    return FullText("tex", (Section("Introduction", 1, "Words."),), references=refs)


def _ref(
    key: str, arxiv: str | None = None, resolved: str | None = None, title: str | None = None
) -> Reference:
    return Reference(key, f"Entry {key}", arxiv_id=arxiv, resolved=resolved, title=title)


def _seen(hits: list[Hit]) -> list[tuple[str, float, list[str]]]:
    return [(h.paper.id, h.score, h.reasons()) for h in hits]


@pytest.fixture
def home(tmp_path: Path, embedded_home: Path) -> Path:
    """A copy of the embedded corpus: the references written here never reach other tests."""
    copy = tmp_path / "home"
    shutil.copytree(embedded_home, copy)
    return copy


def test_a_paper_without_references_ranks_exactly_as_before(home: Path, citation_corpus: Corpus) -> None:
    queries = sorted(citation_corpus[1])[:4]
    settings = Settings(home=home)
    with open_papersift(settings) as opened:
        indexes = opened.indexes()
        before = {q: related(indexes, paper_query(indexes, _get(indexes, q)), k=10) for q in queries}
    # every other paper gets references (sharing some), none of them the query papers or naming them
    others = {h.paper.id for hits in before.values() for h in hits} - set(queries)
    with closing(open_store(settings)) as store:
        for n, pid in enumerate(sorted(others)):
            store.put_fulltext(pid, 1, _text(_ref("a", "1111.0000" + str(n % 3)), _ref("b", "1111.00009")))
    with open_papersift(settings) as opened:
        indexes = opened.indexes()
        for q in queries:
            query = paper_query(indexes, _get(indexes, q))
            after = related(indexes, query, k=10)
            assert _seen(after) == _seen(before[q])
            unweighted = related(indexes, query, k=10, weights=type(WEIGHTS)(coupling=0.0))
            assert _seen(unweighted) == _seen(before[q])


def _get(indexes: Indexes, pid: str) -> Paper:
    paper = indexes.store.get(pid)
    assert paper is not None
    return paper


def test_coupling_is_scored_and_said_and_co_citation_said(home: Path, citation_corpus: Corpus) -> None:
    q = sorted(citation_corpus[1])[0]
    settings = Settings(home=home)
    with open_papersift(settings) as opened:
        indexes = opened.indexes()
        before = related(indexes, paper_query(indexes, _get(indexes, q)), k=10)
    low = before[-1]
    citing = next(
        str(r["id"]) for r in citation_corpus[0] if str(r["id"]) not in {q, *(h.paper.id for h in before)}
    )
    title = "Attention is all you need in a paper title"
    with closing(open_store(settings)) as store:
        store.put_fulltext(
            q, 1, _text(_ref("x", "1409.0473"), _ref("y", title=title), _ref("z", "1706.0000"))
        )
        store.put_fulltext(low.paper.id, 1, _text(_ref("1", "1409.0473"), _ref("2", title=title.upper())))
        store.put_fulltext(citing, 1, _text(_ref("q", q, resolved=q), _ref("c", low.paper.id, low.paper.id)))
    with open_papersift(settings) as opened:
        indexes = opened.indexes()
        after = {h.paper.id: h for h in related(indexes, paper_query(indexes, _get(indexes, q)), k=10)}
    hit = after[low.paper.id]
    assert hit.score == pytest.approx(low.score + W_COUPLING * 2 / math.sqrt(3 * 2), abs=1e-5)
    assert hit.coupling == 2 and hit.cocited == 1
    assert "cites 2 of the same papers" in hit.reasons() and "cited together by 1 paper" in hit.reasons()
    assert RelatedHitShape.of_hit(hit).dump()["why"] == hit.reasons()
    zh = [
        said(r, "zh")
        for r in hit.reasons()
        if r in ("cites 2 of the same papers", "cited together by 1 paper")
    ]
    assert zh == ["引用了 2 篇相同的论文", "被 1 篇论文同时引用"]
    unchanged = [h for h in before if h.paper.id != low.paper.id and h.paper.id in after]
    assert all(after[h.paper.id].score == h.score for h in unchanged)  # only the coupled paper moved


def test_a_reference_is_the_same_work_by_arxiv_id_doi_or_long_title() -> None:
    assert reference_key(_ref("a", "1409.0473")) == reference_key(_ref("b", None, "1409.0473"))
    assert reference_key(Reference("c", "x", doi="10.1/ABC")) == "doi:10.1/abc"
    assert reference_key(_ref("d", title="Deep Residual Learning!")) is None  # too short to tell
    assert reference_key(_ref("e", title="Deep residual learning for images")) == reference_key(
        _ref("f", title="Deep Residual Learning for Images.")
    )


DAY = date(2026, 1, 21)


def _listed(pid: str, title: str) -> Paper:
    return Paper(pid, title, ["Ada Lovelace"], "We study it.", ["cs.LG"], announced=DAY, source="t")


def test_daily_papers_say_which_papers_of_your_library_they_cite_or_are_cited_by(store: Store) -> None:
    from papersift.store.records import LibraryEntry

    new, other, saved, old = "2601.00001", "2601.00002", "2601.00003", "1409.0473"
    store.upsert([_listed(new, "New"), _listed(other, "Other"), _listed(saved, "Saved")])
    store.upsert([Paper(old, "Old", ["B. Author"], "Old work.", ["cs.CL"], source="t")])
    reader = store.add_account("ada", None, "token-a")
    store.save_entries(reader.id, [LibraryEntry(k, k, paper_id=k) for k in (saved, old)])
    before = daily_picks(store, None, reader, ["cs.LG"])
    assert [(p.paper.id, p.reasons) for p in before.picks] == [(new, ()), (other, ())]
    store.put_fulltext(new, 1, _text(_ref("a", old, old), _ref("b", saved, saved), _ref("c", "2000.00001")))
    store.put_fulltext(saved, 1, _text(_ref("n", new, new)))
    store.put_fulltext(other, 1, _text(_ref("z", "2000.00001")))  # cites nothing of the library
    after = daily_picks(store, None, reader, ["cs.LG"])
    assert [(p.paper.id, p.score) for p in after.picks] == [(p.paper.id, p.score) for p in before.picks]
    picks = {p.paper.id: p for p in after.picks}
    assert picks[new].reasons == ("cites 2 papers of your library", "cited by 1 paper of your library")
    assert picks[other].reasons == ()
    assert DailyPickShape.of_pick(picks[new]).dump()["why"] == list(picks[new].reasons)
    assert [said(r, "zh") for r in picks[new].reasons] == [
        "引用了你文库中的 2 篇论文",
        "被你文库中的 1 篇论文引用",
    ]
