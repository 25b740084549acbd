"""The store, both backends: idempotent upserts, version and announcement rules, listings, keyword search."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from papersift.records.catalogs import said
from papersift.records.paper import Announcement, Deleted, Paper, RecordError, Version
from papersift.store import IngestCounts, Store, StoreError
from papersift.store.fts_query import fts_query
from papersift.store.paper_rows import PaperTables
from papersift.store.sqlite import MIGRATIONS, SqliteStore
from tests.support.data import ROOT
from tests.support.keyword import keyword_ids


def paper(pid: str = "2601.00001", **kw: object) -> Paper:
    fields: dict[str, object] = {
        "title": "Sparse attention for long context",
        "authors": ["Ada Lovelace", "Alan Turing"],
        "abstract": "We study sparse attention in transformers.",
        "categories": ["cs.LG", "cs.CL"],
        "announced": date(2026, 1, 21),
        "source": "test",
    }
    fields.update(kw)
    return Paper(pid, **fields)  # type: ignore[arg-type]


def test_same_records_twice_change_nothing(store: Store) -> None:
    first = store.upsert([paper(), paper("2601.00002", title="Other")])
    second = store.upsert([paper(), paper("2601.00002", title="Other")])
    assert (first.new, second.new, second.updated, second.skipped) == (2, 0, 0, 2)
    assert store.count() == 2


def test_newest_version_wins_and_earliest_announcement_is_kept(store: Store) -> None:
    store.upsert([paper(version=2, title="v2 title", announced=date(2026, 1, 21))])
    counts = store.upsert([paper(version=1, title="v1 title", announced=date(2026, 1, 20))])
    got = store.get("2601.00001")
    assert got is not None and counts.updated == 1
    assert (got.title, got.version, got.announced) == ("v2 title", 2, date(2026, 1, 20))
    store.upsert([paper(version=3, title="v3 title", comments="accepted")])
    got = store.get("2601.00001")
    assert got is not None and (got.title, got.comments, got.version) == ("v3 title", "accepted", 3)
    assert keyword_ids(store, "v3") == ["2601.00001"]
    assert keyword_ids(store, "v2") == []  # the FTS index follows updates


def test_versions_merge_across_sources(store: Store) -> None:
    t1 = datetime(2026, 1, 19, 10, tzinfo=UTC)
    t2 = datetime(2026, 2, 1, 10, tzinfo=UTC)
    store.upsert([paper(version=1, versions=[Version(1, t1)], announced=None)])
    store.upsert([paper(version=2, versions=[Version(2, t2)], announced=None)])
    got = store.get("2601.00001")
    assert got is not None
    assert [(v.version, v.submitted) for v in got.versions] == [(1, t1), (2, t2)]
    assert got.announced == date(2026, 1, 20)  # derived from v1 by arXiv's schedule


def test_bad_records_fail_alone(store: Store) -> None:
    counts = store.upsert(
        [
            paper("2601.00001"),
            paper("2601.00002", title="  "),
            RecordError("f.xml", "3", "broken"),
            paper("2601.00003", categories=[]),
        ]
    )
    assert (counts.new, counts.failed) == (1, 3)
    assert "no title" in str(counts.errors[1]) or "no title" in str(counts.errors[0])


def test_deleted_records_leave_listings_and_search(store: Store) -> None:
    store.upsert([paper()])
    counts = store.upsert([Deleted("2601.00001")])
    assert counts.deleted == 1
    assert store.get("2601.00001") is None
    assert keyword_ids(store, "sparse") == []
    assert store.listing("cs.LG", date(2026, 1, 21)) == []


def test_listing_orders_new_then_cross_then_replacements(store: Store) -> None:
    day = date(2026, 1, 21)
    store.upsert(
        [
            paper("2601.00005", categories=["cs.LG"]),
            paper("2601.00003", categories=["cs.LG"]),
            paper("2601.00004", categories=["cs.CL", "cs.LG"]),
            paper(
                "2512.00001",
                announced=None,
                listings=[Announcement(day, "cs.LG", "replace", 9)],
            ),
        ]
    )
    entries = store.listing("cs.LG", day)
    assert [(e.paper.id, e.kind) for e in entries] == [
        ("2601.00003", "new"),
        ("2601.00005", "new"),
        ("2601.00004", "cross"),
        ("2512.00001", "replace"),
    ]
    assert store.listing("cs", day)[0].paper.id == "2601.00003"  # archive-wide listing
    assert store.announcement_days("cs.LG") == [day]


def test_the_latest_day_of_new_submissions_is_known_apart_from_days_of_cross_lists(store: Store) -> None:
    monday, tuesday = date(2026, 1, 19), date(2026, 1, 20)
    store.upsert(
        [
            paper("2601.00011", categories=["cs.CV"], announced=monday),
            paper("2601.00012", categories=["cs.LG", "cs.CV"], announced=tuesday),  # cs.CV: a cross-list
        ]
    )
    assert store.announcement_days("cs.CV") == [monday, tuesday]
    assert store.latest_new_day("cs.CV") == monday  # where `list cs.CV` opens: not a day of cross-lists only
    assert store.latest_new_day("cs") == tuesday and store.latest_new_day("math.NT") is None


def test_published_positions_order_the_listing(store: Store) -> None:
    day = date(2026, 1, 21)
    items = [
        paper(pid, categories=["cs.LG"], listings=[Announcement(day, "cs.LG", "new", pos)])
        for pid, pos in (("2601.00001", 3), ("2601.00002", 1), ("2601.00003", 2))
    ]
    store.upsert(items)
    assert [e.paper.id for e in store.listing("cs.LG", day)] == [
        "2601.00002",
        "2601.00003",
        "2601.00001",
    ]


def test_search_ranks_title_matches_and_filters(store: Store) -> None:
    store.upsert(
        [
            paper("2601.00001", title="Graph neural networks", abstract="Message passing."),
            paper(
                "2601.00002",
                title="Vision",
                abstract="We use graph features here.",
                authors=["Grace Hopper"],
            ),
            paper(
                "2001.00003",
                title="Graph theory",
                categories=["math.CO"],
                announced=None,
                published=date(2020, 1, 2),
            ),
        ]
    )
    assert keyword_ids(store, "graph", k=2)[0] in {"2601.00001", "2001.00003"}
    assert keyword_ids(store, "graph", category="math") == ["2001.00003"]
    assert set(keyword_ids(store, "graph", since=date(2025, 1, 1))) == {
        "2601.00001",
        "2601.00002",
    }
    assert keyword_ids(store, '"graph neural"') == ["2601.00001"]
    assert keyword_ids(store, "graph -vision -theory") == ["2601.00001"]
    assert keyword_ids(store, "graph", author="hopper") == ["2601.00002"]
    assert keyword_ids(store, "graph", k=1, offset=1)[0] != keyword_ids(store, "graph", k=1)[0]


@pytest.mark.parametrize(
    "query", ['"', "*", "AND(", "NEAR(a b", "title:", "a OR", "-", "'; DROP TABLE papers; --", "^x"]
)
def test_fts_syntax_in_queries_is_never_an_error(store: Store, query: str) -> None:
    store.upsert([paper()])
    keyword_ids(store, query)  # must not raise
    assert store.count() == 1


def test_query_translation_quotes_words() -> None:
    # in the keyword index's tokens (stemmed; a prefix only folded)
    assert fts_query("Graph nets*") == '"graph" AND "nets"*'
    assert fts_query('"neural net" OR gnn') == '("neural net" OR "gnn")'
    assert fts_query("!!!") is None


def test_any_terms_queries_match_any_informative_word() -> None:
    q = fts_query("The quasi-one-dimensional Bose gas, see e.g. the Lieb model -fermions", any_terms=True)
    assert q == '(("quasi" OR "dimension" OR "bose" OR "ga" OR "lieb" OR "model")) NOT "fermion"'  # Porter's
    assert fts_query("the of and", any_terms=True) == '("the" OR "of" OR "and")'  # nothing else to match on


def test_any_terms_queries_leave_out_words_the_store_finds_common() -> None:
    common = {"model", "learning"}.__contains__
    q = fts_query("A learning model of Bose gas -fermions", any_terms=True, common=common)
    assert q == '(("bose" OR "ga")) NOT "fermion"'
    # only common words: the papers having them all, not every paper having one
    assert fts_query("the learning model", any_terms=True, common=common) == '"learn" AND "model"'
    assert fts_query("learning model", common=common) == '"learn" AND "model"'  # all words: untouched


def test_unicode_latex_and_huge_fields_round_trip(store: Store) -> None:
    huge = "x " * 500_000
    p = paper(
        title="$^{210}$Fr isotope shifts — 中文標題 — שלום",
        authors=["Zoë Müller", "王小明"],
        abstract=huge,
    )
    assert store.upsert([p]).new == 1
    got = store.get("2601.00001")
    assert got is not None and got.title == p.title and got.authors == p.authors
    assert len(got.abstract) == len(huge)
    assert keyword_ids(store, "Müller") == ["2601.00001"]
    assert keyword_ids(store, "muller") == ["2601.00001"]


def test_state_is_written_with_the_records(store: Store) -> None:
    store.upsert([paper()], state={"oai:cs": "token-1"})
    assert store.get_state("oai:cs") == "token-1"


def test_failed_transaction_stores_nothing(store: Store) -> None:
    def items():  # type: ignore[no-untyped-def]
        yield paper("2601.00001")
        raise RuntimeError("reader crashed")

    with pytest.raises(RuntimeError):
        store.upsert(items(), state={"k": "v"})
    assert store.count() == 0 and store.get_state("k") is None


def test_newer_schema_and_garbage_files_are_clear_errors(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable papersift database"):
        SqliteStore(garbage)
    future = tmp_path / "future.db"
    sqlite3.connect(future).execute("PRAGMA user_version=99").connection.close()
    with pytest.raises(StoreError, match="newer than this papersift") as too_new:
        SqliteStore(future)
    assert str(too_new.value) == (
        f"{future}: schema version 99 is newer than this papersift ({len(MIGRATIONS)}); upgrade papersift"
    )  # its English as before, said in the reader's language
    assert said(too_new.value, "zh") == (
        f"{future}：数据库结构版本 99 比这个 papersift 支持的（{len(MIGRATIONS)}）更新；请升级 papersift"
    )


def test_reopening_keeps_data(tmp_path: Path) -> None:
    s = SqliteStore(tmp_path / "db")
    s.upsert([paper()])
    s.close()
    s = SqliteStore(tmp_path / "db")
    assert s.count() == 1 and keyword_ids(s, "sparse")
    s.close()


def test_records_with_lone_surrogates_or_bad_listings_fail_alone(store: Store) -> None:
    day = date(2026, 1, 21)
    bad = [
        paper("2601.00002", title="lone \ud800 surrogate"),
        paper("2601.00003", authors=["Ada \udfff"]),
        paper("2601.00004", comments="\udc80"),
        paper("2601.00005", listings=[Announcement(day, 'cs."LG', "new", 1)]),
        paper("2601.00006", listings=[Announcement(day, "cs.LG", "bogus", 1)]),  # type: ignore[arg-type]
        paper("2601.00007", listings=[Announcement(day, "cs.LG", "new", -3)]),
        paper("2601.00008", versions=[Version(2**40)]),
        paper("x" * 5000),
    ]
    counts = store.upsert([paper("2601.00001"), *bad, paper("2601.00009"), Deleted("\ud800")])
    assert (counts.new, counts.failed) == (2, len(bad) + 1), [str(e) for e in counts.errors]
    assert store.count() == 2 and store.get("2601.00009") is not None
    assert {e.paper.id for e in store.listing("cs.LG", day)} == {"2601.00001", "2601.00009"}


def test_a_record_the_database_refuses_is_skipped_alone_and_the_chunk_kept(store: Store) -> None:
    """The last line of defence, for what ``validate`` does not foresee: a batch the database refuses is
    written again record by record, each in its own savepoint (here the batch writer is given a record that
    ``validate`` would have stopped: a lone surrogate the driver cannot encode)."""
    papers = [paper("2601.00001"), paper("2601.00002", title="lone \ud800"), paper("2601.00003")]
    counts = IngestCounts()
    assert isinstance(store, PaperTables)
    with store._tx() as tx:
        store._write_isolated(tx, papers, 1, counts)
    assert (counts.new, counts.failed) == (2, 1) and "2601.00002" in str(counts.errors[0])
    assert store.count() == 2 and store.get("2601.00003") is not None
    assert {e.paper.id for e in store.listing("cs.CL", date(2026, 1, 21))} == {"2601.00001", "2601.00003"}


OPEN_AT = """
import sys, time
from papersift.store.sqlite import SqliteStore
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))  # every process opens the store at the same moment
SqliteStore(sys.argv[1]).close()
"""


@pytest.mark.process
def test_processes_opening_a_fresh_store_at_once_migrate_it_once_without_error(tmp_path: Path) -> None:
    for attempt in range(4):
        path = tmp_path / f"fresh-{attempt}.db"
        start = f"{time.time() + 3:.3f}"  # after the three have imported papersift
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AT, str(path), start],
                cwd=ROOT,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0], "\n".join(errors)
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        assert len(tables) == len(set(tables)) and "papers" in tables and "vectors" in tables
        db.close()
