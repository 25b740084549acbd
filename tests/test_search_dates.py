"""Dates in search and Daily Papers: results sorted newest first among the most relevant (the ranker, the
CLI's ``--sort``, the web's sort control), the web form's date range passed as the CLI's ``--since`` /
``--until`` are, and "new this week" by followed authors (``ranking/followed.py``) on both store
backends."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import httpx
import orjson

from papersift.index.indexes import Indexes
from papersift.ranking.followed import new_by_followed
from papersift.ranking.search import DATE_POOL, day_of, search
from papersift.store import Store
from tests.support.data import as_papers
from tests.support.inproc import invoke

QUERY = "neural network"


def test_a_date_sort_is_the_most_relevant_results_newest_first_paged(indexes: Indexes) -> None:
    for mode in ("hybrid", "keyword"):
        relevant = search(indexes, QUERY, mode=mode, k=DATE_POOL).hits
        assert len(relevant) >= 16
        newest = search(indexes, QUERY, mode=mode, k=8, sort="date").hits
        days = [day_of(h.paper) for h in newest]
        assert len(days) == 8 and days == sorted(days, reverse=True)
        # the newest of the relevant results (equal days keep their relevance order), page after page
        expected = [h.paper.id for h in sorted(relevant, key=lambda h: day_of(h.paper), reverse=True)]
        assert [h.paper.id for h in newest] == expected[:8] != [h.paper.id for h in relevant[:8]]
        second = search(indexes, QUERY, mode=mode, k=8, offset=8, sort="date").hits
        assert [h.paper.id for h in second] == expected[8:16]
        assert any(h.terms for h in newest) or mode == "keyword"  # the query's phrases, as by relevance


def test_the_cli_sorts_by_date_and_refuses_another_sort_in_both_languages(embedded_home: Path) -> None:
    out = invoke("search", QUERY, "--sort", "date", "-k", "15", "--format", "json", home=embedded_home).stdout
    hits = [orjson.loads(line) for line in out.splitlines()]
    days = [h["announced"] or h["published"] or "" for h in hits]
    assert len(hits) == 15 and days == sorted(days, reverse=True)
    ranged = invoke(
        "search",
        QUERY,
        "--sort",
        "date",
        "--since",
        "2010-01-01",
        "--until",
        "2015-12-31",
        "--format",
        "json",
        home=embedded_home,
    ).stdout
    within = [orjson.loads(line) for line in ranged.splitlines()]
    assert within and all("2010-01-01" <= (h["announced"] or h["published"]) <= "2015-12-31" for h in within)
    bad = invoke("search", QUERY, "--sort", "newest", home=embedded_home, check=False)
    assert bad.returncode == 2 and "--sort must be one of relevance, date, not 'newest'" in bad.stderr
    zh = invoke(
        "search", QUERY, "--sort", "newest", home=embedded_home, check=False, env={"PAPERSIFT_LANG": "zh"}
    )
    assert (
        zh.returncode == 2
        and "--sort" in zh.stderr
        and "relevance, date" in zh.stderr
        and "must be" not in zh.stderr
    )


def test_the_web_search_takes_a_date_range_and_a_sort(server: httpx.Client) -> None:
    params = {"q": QUERY, "since": "2010-01-01", "until": "2015-12-31", "sort": "date"}
    answer = server.get("/api/search", params=params).json()
    days = [r["announced"] or r["published"] for r in answer["results"]]
    assert (
        days and days == sorted(days, reverse=True) and all("2010-01-01" <= d <= "2015-12-31" for d in days)
    )
    relevance = server.get("/api/search", params={**params, "sort": "relevance"}).json()
    assert {r["id"] for r in relevance["results"]} != set() and [r["id"] for r in relevance["results"]] != [
        r["id"] for r in answer["results"]
    ]
    page = server.get("/search", params=params).text
    assert 'name="until" type="date" value="2015-12-31"' in page
    assert '<option value="date" selected>newest first</option>' in page
    assert (
        "&amp;until=2015-12-31&amp;sort=date" in page or "&until=2015-12-31&sort=date" in page
    )  # paging keeps them
    zh = server.get("/search", params={**params, "lang": "zh"}).text
    assert "截至" in zh and "最新优先" in zh
    assert server.get("/api/search", params={**params, "sort": "newest"}).status_code in (400, 422)
    assert server.get("/api/search", params={**params, "until": "2015-13-01"}).status_code == 400


def test_new_this_week_is_papers_by_followed_authors_of_the_last_seven_days(store: Store) -> None:
    def paper(pid: str, day: str, authors: list[str]) -> dict[str, object]:
        return {
            "id": pid,
            "title": f"Paper {pid}",
            "abstract": "An abstract.",
            "authors": authors,
            "categories": ["cs.LG"],
            "primary_category": "cs.LG",
            "published": None,
            "updated": None,
            "announced": day,
        }

    store.upsert(
        as_papers(
            [
                paper("2605.00001", "2026-05-19", ["Ada Lovelace", "Alan Turing"]),
                paper("2605.00002", "2026-05-13", ["A. Lovelace"]),  # the first day of the week
                paper("2605.00003", "2026-05-12", ["Ada Lovelace"]),  # eight days before: not new
                paper("2605.00004", "2026-05-18", ["Ada Lovelace-Byron"]),  # another name
                paper("2605.00005", "2026-05-20", ["Ada Lovelace"]),  # after the day shown
                paper("2605.00006", "2026-05-15", ["Grace Hopper"]),
            ]
        )
    )
    found = new_by_followed(store, ["Ada Lovelace", "Grace Hopper"], date(2026, 5, 19))
    assert [f.paper.id for f in found] == ["2605.00001", "2605.00006", "2605.00002"]
    assert found[0].authors == ("Ada Lovelace",) and found[1].authors == ("Grace Hopper",)
    mine = new_by_followed(store, ["Ada Lovelace"], date(2026, 5, 19), leave_out={"2605.00001"})
    assert [f.paper.id for f in mine] == ["2605.00002"]
    assert new_by_followed(store, [], date(2026, 5, 19)) == []
