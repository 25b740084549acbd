"""The listing days the store fetched (store/listing_days.py) and what a face says of a day with no listing
(ranking/daily.py ``quiet_day``): a day never fetched is not stored here (never a holiday), a holiday only
where arXiv's own feed for the day was empty, a weekend and a day still to come as such; on both backends,
written by the services that store listings (sync's feeds, ingest's files)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from papersift.ranking.daily import day_quiet
from papersift.records.catalogs import said
from papersift.services.harvest import ArxivClient, sync_rss
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.records import FetchedDay
from papersift.store.sqlite import SqliteStore
from tests.arxiv_server import ArxivServer, Reply
from tests.support.data import as_papers, spread_records, write_jsonl
from tests.support.inproc import app_client, invoke
from tests.test_harvest import make_settings, real_papers, rss_feed

FRIDAY = date(2026, 8, 21)
THURSDAY = date(2026, 8, 20)
TUESDAY = date(2026, 8, 18)  # never fetched
NOW = datetime(2026, 8, 22, 12, tzinfo=UTC)  # a Saturday: Monday 2026-08-24 is still to come


def _papers(shared_data: Path, day: date, n: int = 3) -> list[dict[str, object]]:
    chosen = spread_records(shared_data, 700)[:n]
    return [
        {**r, "announced": day.isoformat(), "categories": ["cs.LG"], "primary_category": "cs.LG"}
        for r in chosen
    ]


def test_fetched_days_are_kept_by_category_day_and_source(store: Store) -> None:
    kept = [
        FetchedDay("cs.LG", FRIDAY, "rss", 120),
        FetchedDay("cs.LG", FRIDAY, "snapshot", 118),
        FetchedDay("cs", THURSDAY, "rss", 0),
        FetchedDay("math.PR", THURSDAY, "api", 7),
    ]
    assert store.record_fetched(kept) == 4
    assert store.fetched_days(FRIDAY) == kept[:2]
    assert store.fetched_days(FRIDAY, ["cs.AI"]) == []
    # the archive's feed holds its categories' listings; a category's fetch is part of the archive's
    assert store.fetched_days(THURSDAY, ["cs.LG"]) == [kept[2]] and kept[2].empty
    assert store.fetched_days(THURSDAY, ["math"]) == [kept[3]]
    store.record_fetched([FetchedDay("cs.LG", FRIDAY, "rss", 121)])  # fetched again: its count replaced
    assert [d.papers for d in store.fetched_days(FRIDAY, ["cs.LG"])] == [121, 118]
    assert store.fetched_days(TUESDAY) == []


def test_a_day_is_said_as_far_as_the_store_knows_it(store: Store, shared_data: Path) -> None:
    store.upsert(as_papers(_papers(shared_data, FRIDAY)))
    store.record_fetched([FetchedDay("cs.LG", FRIDAY, "rss", 3), FetchedDay("cs.LG", THURSDAY, "rss", 0)])
    cs_lg = ["cs.LG"]
    assert day_quiet(store, cs_lg, FRIDAY, NOW) is None  # it has a listing
    never = day_quiet(store, cs_lg, TUESDAY, NOW)
    assert never is not None and never.reason == "not_stored"
    assert never.line() == (
        "The listing of Tuesday 2026-08-18 is not stored here; run `papersift sync` to fetch arXiv's latest "
        "listings."
    )
    zh = "本机没有存储周二 2026-08-18 的列表；请运行 `papersift sync` 获取 arXiv 的最新列表。"
    assert said(never.line(), "zh") == zh
    holiday = day_quiet(store, cs_lg, THURSDAY, NOW)  # its feed was seen empty: arXiv's own word
    assert holiday is not None and holiday.reason == "holiday" and holiday.next_day == FRIDAY
    assert "(a holiday)" in holiday.line()
    assert day_quiet(store, ["cs.AI"], THURSDAY, NOW).reason == "not_stored"  # type: ignore[union-attr]
    weekend = day_quiet(store, cs_lg, date(2026, 8, 22), NOW)
    assert weekend is not None and weekend.reason == "weekend"
    future = day_quiet(store, cs_lg, date(2026, 8, 25), NOW)
    assert future is not None and future.reason == "future"
    assert future.line().startswith("Tuesday 2026-08-25 is still to come: arXiv announces its listing ")
    assert "还没有到来" in said(future.line(), "zh")
    # fetched with papers, none of them in the category asked for: no reason to give (the face says none)
    store.record_fetched([FetchedDay("math.PR", TUESDAY, "api", 4)])
    assert day_quiet(store, ["math.PR"], TUESDAY, NOW) is None


def test_sync_keeps_each_feeds_day_and_an_empty_feed_as_arxivs_word(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite")
    empty = rss_feed("cs.LG", [], [])  # the real header (Thu 18 Sep 2025), no item: nothing announced
    broken = b"<html><body>502 Bad Gateway</body></html>"  # not a feed: says nothing of the day
    with ArxivServer() as server:
        server.queue(Reply(rss_feed("cs.AI", real_papers("cs.AI", 2), ["new", "cross"])), Reply(empty))
        server.queue(Reply(broken))
        settings: Settings = make_settings(server, tmp_path)
        with ArxivClient(settings) as client:
            sync_rss(client, store, ["cs.AI", "cs.LG", "cs.CV"])
    day = date(2025, 9, 18)
    assert store.fetched_days(day) == [
        FetchedDay("cs.AI", day, "rss", 2),
        FetchedDay("cs.LG", day, "rss", 0),
    ]
    quiet = day_quiet(store, ["cs.LG"], day)
    assert quiet is not None and quiet.reason == "holiday"
    assert day_quiet(store, ["cs.CV"], day).reason == "not_stored"  # type: ignore[union-attr]
    store.close()


def test_ingest_keeps_the_listing_days_a_file_holds(tmp_path: Path, shared_data: Path) -> None:
    records = _papers(shared_data, FRIDAY, 4)
    invoke("ingest", str(write_jsonl(tmp_path / "papers.jsonl", records)), home=tmp_path)
    store = SqliteStore(tmp_path / "papersift.db")
    assert store.fetched_days(FRIDAY) == [FetchedDay("cs.LG", FRIDAY, "snapshot", 4)]
    store.close()
    listed = invoke("list", "cs.LG", "--date", TUESDAY.isoformat(), home=tmp_path, check=False)
    assert listed.returncode == 1
    assert "not stored here; run `papersift sync`" in listed.stderr and "holiday" not in listed.stderr


def test_every_face_says_a_day_never_stored_as_such(tmp_path: Path, shared_data: Path) -> None:
    records = _papers(shared_data, FRIDAY, 4)
    invoke("ingest", str(write_jsonl(tmp_path / "papers.jsonl", records)), home=tmp_path)
    line = "The listing of Tuesday 2026-08-18 is not stored here; run `papersift sync`"
    with app_client(tmp_path) as web:
        page = web.get(f"/list/cs.LG/{TUESDAY}")
        api = web.get(f"/api/list/cs.LG/{TUESDAY}")
        zh = web.get(f"/list/cs.LG/{TUESDAY}", params={"lang": "zh"})
        daily = web.get(f"/api/daily/{TUESDAY}").json()["quiet"]
        weekend = web.get("/api/list/cs.LG/2026-08-22")
    assert page.status_code == api.status_code == 404 and line in page.text and line in api.text
    assert "本机没有存储周二 2026-08-18 的列表" in zh.text
    assert daily["reason"] == "not_stored" and daily["line"].startswith(line)
    assert "arXiv announces nothing for Saturday 2026-08-22" in weekend.text  # a weekend stays a weekend
    recommend = invoke("recommend", "--date", TUESDAY.isoformat(), home=tmp_path, check=False)
    atom = tmp_path / "day.atom"
    digest = invoke("digest", "--atom", str(atom), "--date", TUESDAY.isoformat(), home=tmp_path)
    for ran in (recommend, digest):
        assert line in ran.stderr and "holiday" not in ran.stderr
    assert b"holiday" not in atom.read_bytes()
