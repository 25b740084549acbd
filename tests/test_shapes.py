"""One JSON shape per thing (``library/shapes.py``) and the day's picks assembled once
(``ranking.daily.daily_picks``), which the API, the feeds and the CLI all use."""

from __future__ import annotations

from datetime import date

import pytest

from papersift.library.shapes import DailyPickShape, PaperShape, RelatedHitShape, SearchHitShape
from papersift.ranking.daily import DailyPick, NoDailyPapers, daily_picks
from papersift.ranking.pool import Hit
from papersift.records.paper import Paper
from papersift.store import Store
from papersift.store.records import LibraryEntry

DAY = date(2026, 1, 21)


def paper(pid: str = "2601.00001", **kw: object) -> Paper:
    fields: dict[str, object] = {
        "title": "Sparse attention for long context",
        "authors": ["Ada Lovelace", "Alan Turing"],
        "abstract": "We study sparse attention in transformers.",
        "categories": ["cs.LG"],
        "announced": DAY,
        "source": "test",
    }
    fields.update(kw)
    return Paper(pid, **fields)  # type: ignore[arg-type]


def test_a_related_hit_is_the_paper_with_its_score_and_evidence() -> None:
    hit = Hit(paper(), 0.123456, ["attention"], 0.7, 0.2, ["Ada Lovelace"], True, False)
    shaped = RelatedHitShape.of_hit(hit, rank=3).dump()
    assert shaped == {
        **PaperShape.of(hit.paper).dump(),
        "rank": 3,
        "score": 0.1235,
        "why": hit.reasons(),
        "terms": ["attention"],
        "shared_authors": ["Ada Lovelace"],
    }
    assert "rank" not in RelatedHitShape.of_hit(hit).dump()  # the web's related list is not numbered


def test_a_search_hit_is_the_paper_with_its_rank_score_and_terms() -> None:
    shaped = SearchHitShape.of_hit(Hit(paper(), 2.0 / 3, ["sparse"]), 1).dump()
    assert shaped == {**PaperShape.of(paper()).dump(), "rank": 1, "score": 0.6667, "terms": ["sparse"]}


def test_a_daily_pick_has_a_rounded_score_or_none_in_arxiv_order() -> None:
    ranked = DailyPickShape.of_pick(
        DailyPick(paper(), 0.987654, ("shared terms: attention",)), number=1
    ).dump()
    assert (ranked["number"], ranked["score"], ranked["why"]) == (1, 0.9877, ["shared terms: attention"])
    plain = DailyPickShape.of_pick(DailyPick(paper(), None), rank=2, date=DAY.isoformat()).dump()
    assert (plain["rank"], plain["score"], plain["why"], plain["date"]) == (2, None, [], "2026-01-21")


def test_the_days_picks_say_why_there_are_none(store: Store) -> None:
    with pytest.raises(NoDailyPapers, match=r"^no listings for the followed categories yet$"):
        daily_picks(store, None, None, ["cs.LG"])
    store.upsert([paper("2601.00002"), paper("2601.00001")])
    view = daily_picks(store, None, None, ["cs.LG"])
    assert (view.day, view.ranking) == (DAY, "arXiv order")
    assert [p.paper.id for p in view.picks] == ["2601.00001", "2601.00002"]
    with pytest.raises(NoDailyPapers, match=r"^no listing of cs\.LG on 2026-01-22$"):
        daily_picks(store, None, None, ["cs.LG"], date(2026, 1, 22))


def test_a_tags_library_is_read_only_to_rank_by_that_tag(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.upsert([paper("2601.00002"), paper("2601.00001")])
    reader = store.add_account("ada", None, "t-ada")
    store.save_entries(reader.id, [LibraryEntry("2601.00003", "Saved", tags=("gnn",))])
    asked: list[str | None] = []
    library = store.library

    def counted(reader_id: int, tag: str | None = None) -> list[LibraryEntry]:
        asked.append(tag)
        return library(reader_id, tag)

    monkeypatch.setattr(store, "library", counted)
    view = daily_picks(store, None, reader, ["cs.LG"], tag="GNN")  # no index: arXiv order, no ranking
    assert (view.tag, view.ranking) == ("gnn", "arXiv order")
    assert asked == [None]  # the whole library (what is saved is never a pick), not the tag's
