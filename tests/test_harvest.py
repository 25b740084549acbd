"""The harvester against a real local HTTP server playing recorded arXiv responses."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime
from html import escape
from itertools import pairwise
from pathlib import Path

import pytest

from papersift.records.paper import Paper, RecordError
from papersift.services.harvest import (
    ArxivClient,
    HarvestError,
    fetch_ids,
    harvest_oai,
    oai_state_key,
    query_api,
    sync_rss,
)
from papersift.services.http import MAX_WAIT, retry_after_seconds
from papersift.settings import Settings
from papersift.store import IngestCounts
from papersift.store.sqlite import SqliteStore
from tests.arxiv_server import ArxivServer, Reply, Request

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FIXTURES = DATA / "fixtures"
INTERVAL = 0.2  # seconds between requests in these tests
SET = "physics:hep-th"
FROM = date(2017, 12, 14)


# --- helpers -------------------------------------------------------------------------------------


def oai_page(name: str, token: str | None, cursor: int, size: int = 6) -> bytes:
    """A real ListRecords response with a resumptionToken added (empty token = last page)."""
    data = (FIXTURES / "oai_pmh" / f"hepcrawl__arxiv-physics-{name}.xml").read_bytes()
    attrs = f'cursor="{cursor}" completeListSize="{size}"'
    tag = f"<resumptionToken {attrs}>{token or ''}</resumptionToken>"
    return data.replace(b"</ListRecords>", tag.encode() + b"\n</ListRecords>")


def oai_ids(name: str) -> list[str]:
    data = (FIXTURES / "oai_pmh" / f"hepcrawl__arxiv-physics-{name}.xml").read_bytes()
    return [m.decode() for m in re.findall(rb"<identifier>oai:arXiv.org:(.+?)</identifier>", data)]


def oai_error(code: str, message: str) -> bytes:
    """An OAI-PMH error response (the protocol's layout; no real recording of one exists)."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">\n'
        "<responseDate>2017-12-15T10:00:00Z</responseDate>\n"
        '<request verb="ListRecords">http://export.arxiv.org/oai2</request>\n'
        f'<error code="{code}">{message}</error>\n</OAI-PMH>\n'
    ).encode()


def api_body(pattern: str) -> bytes:
    return sorted((FIXTURES / "api_atom").glob(pattern))[0].read_bytes()


def gaps(requests: list[Request]) -> list[float]:
    return [b.time - a.time for a, b in pairwise(requests)]


ALL_IDS = oai_ids("hep-th") + oai_ids("hep-ex")


@pytest.fixture
def arxiv() -> Iterator[ArxivServer]:
    with ArxivServer() as s:
        yield s


def make_settings(arxiv: ArxivServer, tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "home": tmp_path,
        "oai_url": f"{arxiv.url}/oai",
        "api_url": f"{arxiv.url}/api/query",
        "rss_url": f"{arxiv.url}/rss",
        "request_interval": INTERVAL,
        "max_retries": 3,
        "timeout": 5.0,
    }
    return Settings(**(values | overrides))  # type: ignore[arg-type]


@pytest.fixture
def settings(arxiv: ArxivServer, tmp_path: Path) -> Settings:
    return make_settings(arxiv, tmp_path)


@pytest.fixture
def client(settings: Settings) -> Iterator[ArxivClient]:
    with ArxivClient(settings) as c:
        yield c


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path / "db.sqlite")
    yield s
    s.close()


def checkpoint(sqlite_store: SqliteStore, set_spec: str = SET) -> dict[str, object]:
    value = sqlite_store.get_state(oai_state_key(set_spec, "arXiv"))
    assert value is not None
    loaded: dict[str, object] = json.loads(value)
    return loaded


def harvest(client: ArxivClient, sqlite_store: SqliteStore, **kwargs: object) -> IngestCounts:
    args: dict[str, object] = {"set_spec": SET, "from_date": FROM} | kwargs
    return harvest_oai(client, sqlite_store, **args)  # type: ignore[arg-type]


# --- OAI-PMH -------------------------------------------------------------------------------------


def test_oai_follows_resumption_token_and_stores_every_record_once(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(Reply(oai_page("hep-th", "tok-1", 0)), Reply(oai_page("hep-ex", None, 3)))
    pages: list[tuple[int, int]] = []

    counts = harvest(client, sqlite_store, on_page=lambda n, c: pages.append((n, c.new)))

    assert counts.new == 6 and counts.total == 6
    assert pages == [(1, 3), (2, 3)]
    assert sqlite_store.count() == 6
    assert sorted(p.id for p in sqlite_store.get_many(ALL_IDS)) == sorted(ALL_IDS)
    first, second = arxiv.requests
    assert first.query == {
        "verb": ["ListRecords"],
        "metadataPrefix": ["arXiv"],
        "from": ["2017-12-14"],
        "set": [SET],
    }
    assert second.query == {"verb": ["ListRecords"], "resumptionToken": ["tok-1"]}
    assert first.path == "/oai"
    assert first.headers["user-agent"] == client.settings.user_agent
    assert gaps(arxiv.requests)[0] >= INTERVAL


def test_completed_oai_harvest_continues_incrementally_from_its_response_date(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(Reply(oai_page("hep-th", None, 0, 3)))
    harvest(client, sqlite_store, from_date=date(2017, 1, 1))
    assert checkpoint(sqlite_store)["token"] is None
    assert checkpoint(sqlite_store)["next_from"] == "2017-12-14"  # the response's responseDate

    arxiv.queue(Reply(oai_error("noRecordsMatch", "No records match")))
    counts = harvest(client, sqlite_store, from_date=None)

    assert counts.total == 0
    assert arxiv.requests[-1].param("from") == "2017-12-14"
    assert checkpoint(sqlite_store)["next_from"] == "2017-12-15"


def test_no_records_match_is_zero_records_not_an_error(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(Reply(oai_error("noRecordsMatch", "The combination of the values results in an empty list.")))

    counts = harvest(client, sqlite_store)

    assert counts.total == 0 and sqlite_store.count() == 0
    assert len(arxiv.requests) == 1


def test_other_oai_errors_raise_with_code_and_message(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(Reply(oai_error("badArgument", "Illegal argument: set=nope")))

    with pytest.raises(HarvestError, match=r"badArgument: Illegal argument: set=nope"):
        harvest(client, sqlite_store, set_spec="nope")


@pytest.mark.parametrize("status", [503, 429])
def test_retry_after_is_honoured_then_the_page_is_stored(
    status: int, arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(
        Reply(b"busy", status=status, headers={"Retry-After": "1"}, content_type="text/plain"),
        Reply(oai_page("hep-th", None, 0, 3)),
    )

    counts = harvest(client, sqlite_store)

    assert len(arxiv.requests) == 2
    assert gaps(arxiv.requests)[0] >= 1.0
    assert counts.new == 3 and sqlite_store.count() == 3


def test_connection_dropped_mid_page_is_retried_and_the_page_stored_once(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    body = oai_page("hep-th", None, 0, 3)
    retries: list[str] = []
    client._on_retry = retries.append
    arxiv.queue(Reply(body, drop_after=len(body) // 2), Reply(body))

    counts = harvest(client, sqlite_store)

    assert len(arxiv.requests) == 2
    assert arxiv.requests[0].query == arxiv.requests[1].query
    assert counts.new == 3 and counts.total == 3 and sqlite_store.count() == 3
    assert len(retries) == 1 and "RemoteProtocolError" in retries[0]


def test_gives_up_after_max_retries_with_a_clear_error(
    arxiv: ArxivServer, tmp_path: Path, sqlite_store: SqliteStore
) -> None:
    arxiv.handler = lambda _: Reply(b"down", status=503, headers={"Retry-After": "0"})
    with (
        ArxivClient(make_settings(arxiv, tmp_path, max_retries=2)) as client,
        pytest.raises(HarvestError, match=r"HTTP 503; gave up after 3 attempts"),
    ):
        harvest(client, sqlite_store)
    assert len(arxiv.requests) == 3
    assert min(gaps(arxiv.requests)) >= INTERVAL


def test_a_status_that_is_not_transient_fails_at_once(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(Reply(b"<html>Forbidden</html>", status=403, content_type="text/html"))

    with pytest.raises(HarvestError, match=r"HTTP 403: <html>Forbidden</html>"):
        harvest(client, sqlite_store)
    assert len(arxiv.requests) == 1


KILL_AFTER_FIRST_PAGE = """
import os, signal, sys
from datetime import date
from papersift.services.harvest import ArxivClient, harvest_oai
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore

url, db = sys.argv[1], sys.argv[2]
settings = Settings(oai_url=url, request_interval=0.2, max_retries=0, timeout=5.0)
with ArxivClient(settings) as client:
    harvest_oai(
        client, SqliteStore(db), set_spec="physics:hep-th", from_date=date(2017, 12, 14),
        on_page=lambda n, counts: os.kill(os.getpid(), signal.SIGKILL),
    )
"""


def test_killed_process_resumes_from_the_stored_token_without_duplicates(
    arxiv: ArxivServer, client: ArxivClient, tmp_path: Path
) -> None:
    arxiv.queue(Reply(oai_page("hep-th", "tok-1", 0)))
    db = tmp_path / "db.sqlite"
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AFTER_FIRST_PAGE, f"{arxiv.url}/oai", str(db)],
        capture_output=True,
        timeout=30,
    )
    assert killed.returncode == -9, killed.stderr.decode()

    sqlite_store = SqliteStore(db)
    assert sqlite_store.count() == 3
    arxiv.queue(Reply(oai_page("hep-ex", None, 3)))
    counts = harvest(client, sqlite_store)

    assert arxiv.requests[-1].query == {"verb": ["ListRecords"], "resumptionToken": ["tok-1"]}
    assert len(arxiv.requests) == 2
    assert counts.new == 3 and counts.total == 3
    assert sqlite_store.count() == 6
    assert sorted(p.id for p in sqlite_store.get_many(ALL_IDS)) == sorted(ALL_IDS)
    sqlite_store.close()


class Crash(BaseException):
    """Stands in for the process dying right after a page was stored."""


def crash_after_first_page(n: int, counts: IngestCounts) -> None:
    raise Crash


def test_expired_token_restarts_from_the_from_date(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(Reply(oai_page("hep-th", "tok-1", 0)))
    with pytest.raises(Crash):
        harvest(client, sqlite_store, on_page=crash_after_first_page)
    arxiv.queue(
        Reply(oai_error("badResumptionToken", "The value of the resumptionToken is invalid")),
        Reply(oai_page("hep-th", "tok-2", 0)),
        Reply(oai_page("hep-ex", None, 3)),
    )

    counts = harvest(client, sqlite_store)

    resumed, restarted, followed = arxiv.requests[1:]
    assert resumed.param("resumptionToken") == "tok-1"
    assert restarted.query["from"] == ["2017-12-14"] and "resumptionToken" not in restarted.query
    assert followed.param("resumptionToken") == "tok-2"
    assert counts.new == 3 and counts.total == 6  # hep-th again: idempotent, not new
    assert sqlite_store.count() == 6
    assert checkpoint(sqlite_store)["token"] is None


def test_a_different_request_does_not_resume_another_checkpoint(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    arxiv.queue(Reply(oai_page("hep-th", "tok-1", 0)))
    with pytest.raises(Crash):
        harvest(client, sqlite_store, on_page=crash_after_first_page)
    arxiv.queue(Reply(oai_page("hep-th", None, 0, 3)))

    harvest(client, sqlite_store, from_date=date(2017, 12, 1))

    assert arxiv.requests[-1].param("from") == "2017-12-01"
    assert arxiv.requests[-1].param("resumptionToken") is None


# --- client: pacing and Retry-After --------------------------------------------------------------


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_requests_to_one_host_are_spaced_by_the_interval_and_hosts_are_separate(
    arxiv: ArxivServer, tmp_path: Path
) -> None:
    fake = FakeTime()
    arxiv.handler = lambda _: Reply(b"ok")
    with (
        ArxivServer(lambda _: Reply(b"ok")) as other,
        ArxivClient(
            make_settings(arxiv, tmp_path, request_interval=3.0),
            clock=fake.clock,
            sleep=fake.sleep,
        ) as client,
    ):
        client.get(f"{arxiv.url}/a")
        client.get(f"{other.url}/a")  # another service: no wait
        fake.now += 1.0
        client.get(f"{arxiv.url}/b")
        client.get(f"{arxiv.url}/c")

    assert fake.sleeps == [pytest.approx(2.0), pytest.approx(3.0)]


def test_backoff_doubles_between_retries_without_retry_after(arxiv: ArxivServer, tmp_path: Path) -> None:
    fake = FakeTime()
    arxiv.queue(Reply(status=502), Reply(status=504), Reply(status=500), Reply(b"ok"))
    with ArxivClient(
        make_settings(arxiv, tmp_path, request_interval=3.0),
        clock=fake.clock,
        sleep=fake.sleep,
    ) as client:
        assert client.get(f"{arxiv.url}/x").content == b"ok"

    assert fake.sleeps == [3.0, 6.0, 12.0]


def test_retry_after_reads_seconds_and_http_dates_and_is_capped() -> None:
    now = datetime(2025, 9, 18, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("120", now) == 120.0
    assert retry_after_seconds("Thu, 18 Sep 2025 12:00:30 GMT", now) == 30.0
    assert retry_after_seconds("Thu, 18 Sep 2025 11:00:00 GMT", now) == 0.0
    assert retry_after_seconds("86400", now) == MAX_WAIT
    assert retry_after_seconds("Fri, 19 Sep 2025 12:00:00 GMT", now) == MAX_WAIT
    assert retry_after_seconds("soon", now) is None
    assert retry_after_seconds(None, now) is None
    # one reading for every service: never below 0 s, never above the caller's cap
    assert retry_after_seconds("-5", now) == 0.0 and retry_after_seconds("nan", now) is None
    assert retry_after_seconds("120", now, cap=60.0) == 60.0
    assert retry_after_seconds("Thu, 18 Sep 2025 12:02:00 GMT", now, cap=60.0) == 60.0


# --- query API -----------------------------------------------------------------------------------


def api_by_params(request: Request) -> Reply:
    """Serve the recorded API response matching the request's id_list or start."""
    if ids := request.param("id_list"):
        matches = list((FIXTURES / "api_atom").glob(f"id_{ids.replace('/', '_').replace(',', '_')}_s0_*.xml"))
        return Reply(matches[0].read_bytes() if matches else api_body("id_0000.0000_*.xml"))
    start = request.param("start")
    return Reply(api_body(f"q_testing_s{start}_m10_*.xml"))


def test_fetch_ids_normalises_ids_and_reports_unknown_and_invalid_ones(
    arxiv: ArxivServer, client: ArxivClient
) -> None:
    arxiv.handler = api_by_params

    items = fetch_ids(client, ["https://arxiv.org/abs/0808.05394", "arXiv:1707.08567v1", "abc"])

    assert arxiv.requests[0].param("id_list") == "0808.05394,1707.08567"
    assert arxiv.requests[0].path == "/api/query"
    errors = [i for i in items if isinstance(i, RecordError)]
    papers = [i for i in items if isinstance(i, Paper)]
    assert [p.id for p in papers] == ["1707.08567"]
    assert sorted(e.record for e in errors) == ["0808.05394", "abc"]
    assert len(items) == 3


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("astro-ph/0601001", "astro-ph/0601001"), ("hep-ex/0406020v1", "hep-ex/0406020")],
)
def test_fetch_ids_reads_old_style_ids(
    raw: str, expected: str, arxiv: ArxivServer, client: ArxivClient
) -> None:
    arxiv.handler = lambda r: Reply(api_body(f"id_{raw.replace('/', '_')}_s0_*.xml"))

    (paper,) = fetch_ids(client, [raw])

    assert isinstance(paper, Paper) and paper.id == expected
    assert arxiv.requests[0].param("id_list") == expected


def test_fetch_ids_asks_at_most_one_hundred_ids_a_request(arxiv: ArxivServer, client: ArxivClient) -> None:
    arxiv.handler = api_by_params
    ids = [f"2101.{n:05d}" for n in range(1, 151)]
    done: list[tuple[int, int]] = []

    items = fetch_ids(client, ids + ids[:5], on_batch=lambda d, t: done.append((d, t)))

    sizes = [len((r.param("id_list") or "").split(",")) for r in arxiv.requests]
    assert sizes == [100, 50]
    assert [r.param("max_results") for r in arxiv.requests] == ["100", "50"]
    assert done == [(100, 150), (150, 150)]
    assert len(items) == 150 and all(isinstance(i, RecordError) for i in items)


def test_query_api_pages_with_start_and_max_results(arxiv: ArxivServer, client: ArxivClient) -> None:
    arxiv.handler = api_by_params

    items = list(query_api(client, "testing", max_results=25, page_size=10))

    asked = [(r.param("search_query"), r.param("start"), r.param("max_results")) for r in arxiv.requests]
    assert asked == [("testing", "0", "10"), ("testing", "10", "10"), ("testing", "20", "5")]
    assert len(items) == 25 and all(isinstance(i, Paper) for i in items)
    assert len({i.id for i in items if isinstance(i, Paper)}) == 25
    assert min(gaps(arxiv.requests)) >= INTERVAL


def test_query_api_stops_at_total_results_and_on_an_empty_page(
    arxiv: ArxivServer, client: ArxivClient
) -> None:
    arxiv.handler = lambda _: Reply(api_body("id_1605.08386_*.xml"))  # totalResults 1
    assert len(list(query_api(client, "x", max_results=50, page_size=10))) == 1
    assert len(arxiv.requests) == 1

    arxiv.handler = lambda _: Reply(api_body("id_0000.0000_*.xml"))  # no entries
    assert list(query_api(client, "x", max_results=50, page_size=10)) == []
    assert len(arxiv.requests) == 2


def test_api_error_feed_raises_with_the_api_message(arxiv: ArxivServer, client: ArxivClient) -> None:
    arxiv.handler = lambda _: Reply(api_body("id_abc_*.xml"), status=400)

    with pytest.raises(HarvestError, match="incorrect id format for abc"):
        list(query_api(client, "id:abc", max_results=10))
    assert len(arxiv.requests) == 1


# --- RSS -----------------------------------------------------------------------------------------


def real_papers(category: str, n: int) -> list[dict[str, object]]:
    """The first ``n`` real papers of ``category`` (primary) in the 20k sample."""
    out: list[dict[str, object]] = []
    with gzip.open(DATA / "arxiv-20k.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            paper = json.loads(line)
            if paper["primary_category"] == category:
                out.append(paper)
                if len(out) == n:
                    break
    return out


def rss_feed(category: str, papers: list[dict[str, object]], kinds: list[str]) -> bytes:
    """The real cs.AI RSS 2.0 header (2025-09-18), renamed to ``category``, closed around items
    built from real papers."""
    text = (FIXTURES / "rss" / "rss2_real_header_fragment_cs.AI_2025-09-18.txt").read_text()
    start = text.index("<?xml")  # after the notes at the top
    header = text[start : text.index("<item>", start)].replace("cs.AI", category)
    items = []
    for paper, kind in zip(papers, kinds, strict=True):
        cats = "".join(f"<category>{c}</category>" for c in paper["categories"])  # type: ignore[attr-defined]
        items.append(
            "<item>\n"
            f"<title>{escape(str(paper['title']))}</title>\n"
            f"<link>https://arxiv.org/abs/{paper['id']}</link>\n"
            f"<description>arXiv:{paper['id']}v1 Announce Type: {kind} \n"
            f"Abstract: {escape(str(paper['abstract']))}</description>\n"
            f'<guid isPermaLink="false">oai:arXiv.org:{paper["id"]}v1</guid>\n'
            f"{cats}\n<pubDate>Thu, 18 Sep 2025 00:00:00 -0400</pubDate>\n"
            f"<arxiv:announce_type>{kind}</arxiv:announce_type>\n"
            "<dc:rights>http://creativecommons.org/licenses/by/4.0/</dc:rights>\n"
            f"<dc:creator>{escape(', '.join(paper['authors']))}</dc:creator>\n"  # type: ignore[arg-type]
            "</item>\n"
        )
    return (header + "".join(items) + "</channel>\n</rss>\n").encode()


def test_sync_rss_stores_each_feed_with_its_announcements(
    arxiv: ArxivServer, client: ArxivClient, sqlite_store: SqliteStore
) -> None:
    ai = real_papers("cs.AI", 3)
    lg = real_papers("cs.LG", 2)
    arxiv.queue(
        Reply(rss_feed("cs.AI", ai, ["new", "new", "replace"])),
        Reply(rss_feed("cs.LG", lg, ["new", "cross"])),
    )
    feeds: list[tuple[str, int]] = []

    counts = sync_rss(client, sqlite_store, ["cs.AI", "cs.LG"], on_feed=lambda c, n: feeds.append((c, n.new)))

    assert [r.path for r in arxiv.requests] == ["/rss/cs.AI", "/rss/cs.LG"]
    assert feeds == [("cs.AI", 3), ("cs.LG", 2)]
    assert counts.new == 5 and sqlite_store.count() == 5
    listing = sqlite_store.listing("cs.AI", date(2025, 9, 18))
    assert [(e.paper.id, e.kind) for e in listing] == [
        (ai[0]["id"], "new"),
        (ai[1]["id"], "new"),
        (ai[2]["id"], "replace"),
    ]
    assert [e.position for e in listing] == [1, 2, 3]
    listing = sqlite_store.listing("cs.LG", date(2025, 9, 18))
    assert [(e.paper.id, e.kind) for e in listing] == [(lg[0]["id"], "new"), (lg[1]["id"], "cross")]
