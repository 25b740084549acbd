"""The online demo's earlier days: one API query of the default categories' recent submissions, newest
first, served here from a recorded real API response; their announcement days follow from arXiv's schedule."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from papersift.demo import API_MOST, earlier_days
from papersift.schedule import derive_announced
from papersift.settings import Settings
from papersift.store import open_store
from tests.arxiv_server import ArxivServer, Reply

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "fixtures" / "api_atom"


def _settings(server: ArxivServer, home: Path) -> Settings:
    return Settings(home=home, api_url=f"{server.url}/api/query", request_interval=0.2, max_retries=1)


def test_the_earlier_days_come_from_one_api_query_of_recent_submissions(tmp_path: Path) -> None:
    recorded = sorted(FIXTURES.glob("q_testing_s0_m100_*.xml"))[0].read_bytes()  # 100 real entries
    empty = sorted(FIXTURES.glob("id_0000.0000_*.xml"))[0].read_bytes()  # a real answer with none
    with ArxivServer(lambda r: Reply(recorded if r.param("start") == "0" else empty)) as server:
        settings = _settings(server, tmp_path)
        store = open_store(settings)
        counts = earlier_days(settings, store, ["cs.LG", "cs.CL"], 5, today=date(2026, 8, 21))
        asked = server.requests
    assert counts is not None and counts.new == 100
    query = asked[0].param("search_query")
    assert query == "(cat:cs.LG OR cat:cs.CL) AND submittedDate:[202608110000 TO 202608212359]"
    assert (asked[0].param("sortBy"), asked[0].param("sortOrder")) == ("submittedDate", "descending")
    assert int(asked[0].param("max_results") or 0) <= API_MOST
    assert [r.param("start") for r in asked] == ["0", "100"]  # paged on, up to the first empty page
    ids = re.findall(rb"<id>https?://arxiv.org/abs/([^<]+?)(?:v\d+)?</id>", recorded)
    papers = [store.get(pid.decode()) for pid in ids[:20]]
    assert len(papers) == 20
    assert all(
        p is not None and p.announced is not None and p.announced == derive_announced(p) for p in papers
    )
    store.close()


def test_an_api_error_leaves_the_demo_with_today_only(tmp_path: Path) -> None:
    with ArxivServer(lambda _: Reply(b"unavailable", status=503)) as server:
        settings = _settings(server, tmp_path)
        store = open_store(settings)
        assert earlier_days(settings, store, ["cs.LG"], 5, today=date(2026, 8, 21)) is None
        assert store.count() == 0
        store.close()
