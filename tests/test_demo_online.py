"""The online demo's earlier days: one API query of the default categories' recent submissions, newest
first, served here from a recorded real API response; their announcement days follow from arXiv's schedule."""

from __future__ import annotations

import gzip
import json
import re
import time
from datetime import date
from pathlib import Path

import pytest

from papersift.records.schedule import derive_announced
from papersift.services.demo import API_MOST, LOADING, earlier_days
from papersift.services.harvest import HarvestError
from papersift.settings import Settings
from papersift.store import open_store
from tests.arxiv_server import ArxivServer, Reply, Request

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
        with pytest.raises(HarvestError, match="503"):
            earlier_days(settings, store, ["cs.LG"], 5, today=date(2026, 8, 21))
        assert store.count() == 0
        store.close()


def test_the_online_demo_lists_todays_feeds_then_loads_the_earlier_days_in_the_background(
    tmp_path: Path,
) -> None:
    """``papersift demo`` as ``make demo`` runs it, against a local arXiv: each default category's
    RSS feed (assembled from real records, the real channel header) is stored and listed first, then the
    detached ``--part rest`` asks the API for the earlier days (a recorded real answer) and stores them."""
    from tests.support.processes import run_cli
    from tests.test_sources_rss import rss_feed, rss_item

    with gzip.open(FIXTURES.parents[1] / "arxiv-20k.jsonl.gz", "rt", encoding="utf-8") as f:
        cs_ai = [r for r in map(json.loads, f) if r["primary_category"] == "cs.AI"][:3]
    feed = rss_feed(*(rss_item(r, "new") for r in cs_ai))
    recorded = sorted(FIXTURES.glob("q_testing_s0_m100_*.xml"))[0].read_bytes()
    empty = sorted(FIXTURES.glob("id_0000.0000_*.xml"))[0].read_bytes()

    def answer(request: Request) -> Reply:
        if request.path.startswith("/rss"):
            return Reply(feed if request.path.endswith("/cs.AI") else rss_feed())
        return Reply(recorded if request.param("start") == "0" else empty)

    home = tmp_path / "demo"
    with ArxivServer(answer) as server:
        env = {
            "PAPERSIFT_RSS_URL": f"{server.url}/rss",
            "PAPERSIFT_API_URL": f"{server.url}/api/query",
            "PAPERSIFT_REQUEST_INTERVAL": "0.1",
            "PAPERSIFT_MAX_RETRIES": "1",
            "PAPERSIFT_DEFAULT_CATEGORIES": '["cs.AI", "cs.LG"]',
        }
        shown = run_cli(
            "demo", "--no-embed", "--days", "3", "--shared", str(tmp_path / "none"), home=home, env=env
        )
        assert "from arXiv's API in the background" in shown.stdout, shown.stdout
        log = home / "demo.log"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and "demo: loaded" not in (log.read_text() if log.exists() else ""):
            time.sleep(0.5)
        assert "demo: loaded" in log.read_text(), log.read_text()
        asked = [r.path for r in server.requests]
    assert {"/rss/cs.AI", "/rss/cs.LG"} <= set(asked) and "/api/query" in asked
    assert not (home / LOADING).exists()
    listing = run_cli("list", "cs.AI", "--date", "2025-09-18", "--format", "json", home=home)
    rows = [json.loads(line) for line in listing.stdout.splitlines()]
    assert [(r["number"], r["id"]) for r in rows][:3] == [(n, r["id"]) for n, r in enumerate(cs_ai, 1)]
    store = open_store(Settings(home=home))
    ids = re.findall(rb"<id>https?://arxiv.org/abs/([^<]+?)(?:v\d+)?</id>", recorded)
    assert store.count() == 3 + len(ids)
    assert all((p := store.get(i.decode())) is not None and p.announced for i in ids)
    store.close()
