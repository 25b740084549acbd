"""Ingesting files: format detection, bad input, idempotence, and surviving kill -9."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import orjson
import pytest

from papersift.records.analyzer import keyword_text
from papersift.records.paper import Paper, RecordError, clean_text
from papersift.services.ingest import ingest_paths
from papersift.sources import UnknownFormatError, detect, read_path
from papersift.store.sqlite import SqliteStore
from tests.support.data import ROOT, write_jsonl

FIXTURES = ("fixtures/oai_pmh", "fixtures/api_atom", "fixtures/rss", "fixtures/listing_email")


@pytest.mark.parametrize(
    ("relative", "fmt"),
    [
        ("fixtures/oai_pmh/hepcrawl__arxiv-physics-hep-th.xml", "oai"),
        ("fixtures/api_atom/id_1707.08567_s0_m100_6a1afebfc6a3.xml", "atom"),
        ("fixtures/api_atom_legacy/aioarxiv__legacy_api_all-electron_manual_example.xml", "atom"),
        ("fixtures/rss/legacy_rss1.0_rdf_hep-ex_2018-05-23__physbiblio_trimmed.xml", "rss"),
        ("fixtures/listing_email/arxiv-subscription-viewer__2026-01-23.txt", "mailing"),
        ("fixtures/abs_files_listings/q-fin_new", "mailing"),
        ("fixtures/abs_files_listings/math-ph_9701", "listing"),
    ],
)
def test_formats_are_detected_from_content(shared_data: Path, relative: str, fmt: str) -> None:
    path = shared_data / relative
    assert detect(path.read_bytes()[:8192], path.name) == fmt


def test_unknown_format_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UnknownFormatError):
        detect(b"%PDF-1.5 ...")
    odd = tmp_path / "notes.txt"
    odd.write_text("hello")
    [err] = list(read_path(odd))
    assert isinstance(err, RecordError) and "unknown format" in err.message


def test_every_real_fixture_ingests_and_a_rerun_changes_nothing(
    shared_data: Path, store: SqliteStore
) -> None:
    paths = [p for f in FIXTURES for p in sorted((shared_data / f).iterdir()) if p.suffix != ".json"]
    paths.append(shared_data / "fixtures/abs_files/ftp")
    first = ingest_paths(store, paths)
    assert first.new > 1200 and first.failed < 20
    again = ingest_paths(store, paths)
    assert again.new == 0 and again.updated == 0
    assert again.skipped + again.failed == first.new + first.updated + first.skipped + first.failed
    p = store.get("hep-th/9901001")
    assert p is not None and p.version is not None and p.version >= 2


def test_snapshot_layouts_plain_and_gzip(
    tmp_path: Path, store: SqliteStore, real_records: list[dict[str, object]]
) -> None:
    ours = write_jsonl(tmp_path / "ours.jsonl.gz", real_records[:300], gz=True)
    kaggle_rec = {
        "id": "0704.0001",
        "submitter": "Pavel Nadolsky",
        "authors": "C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan",
        "title": "Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies",
        "comments": "37 pages, 15 figures",
        "journal-ref": "Phys.Rev.D76:013009,2007",
        "doi": "10.1103/PhysRevD.76.013009",
        "categories": "hep-ph",
        "license": None,
        "abstract": "  A fully differential calculation in perturbative quantum chromodynamics is\n",
        "versions": [
            {"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"},
            {"version": "v2", "created": "Tue, 24 Jul 2007 20:10:27 GMT"},
        ],
        "update_date": "2008-11-13",
        "authors_parsed": [["Balázs", "C.", ""], ["Berger", "E. L.", ""]],
    }
    kaggle = write_jsonl(tmp_path / "arxiv-metadata-oai-snapshot.json", [kaggle_rec])
    counts = ingest_paths(store, [ours, kaggle])
    overlap = any(r["id"] == "0704.0001" for r in real_records[:300])
    assert counts.failed == 0 and counts.new == 300 + (not overlap)
    p = store.get("0704.0001")
    assert p is not None and p.version == 2 and p.doi == "10.1103/PhysRevD.76.013009"
    assert p.title.endswith("Tevatron and LHC energies")
    assert (
        p.announced is not None and p.announced.isoformat() == "2007-04-04"
    )  # 15:18 EDT: after the deadline


def test_bad_lines_fail_alone_with_file_and_line(tmp_path: Path, store: SqliteStore) -> None:
    good = {
        "id": "2601.00001",
        "title": "Good",
        "abstract": "a",
        "authors": [],
        "categories": ["cs.LG"],
    }
    lines = [
        orjson.dumps(good),
        b'{"id": "2601.00002", "title": ',  # malformed JSON
        orjson.dumps({**good, "id": "2601.00003", "title": ""}),  # no title
        orjson.dumps({**good, "id": "not-an-id"}),
        orjson.dumps({"title": "no id"}),
        orjson.dumps({**good, "id": "2601.00004", "abstract": "é" * 1_000_000}),
        b"[1, 2]",
    ]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    counts = ingest_paths(store, [path])
    assert (counts.new, counts.failed) == (2, 5)
    messages = [str(e) for e in counts.errors]
    assert messages[0].startswith("mixed.jsonl: record line 2: malformed JSON")
    assert any("line 3" in m and "no title" in m for m in messages)
    assert any("line 5" in m and "missing field" in m for m in messages)


def test_truncated_gzip_keeps_the_good_records(
    tmp_path: Path, store: SqliteStore, real_records: list[dict[str, object]]
) -> None:
    whole = gzip.compress(b"".join(orjson.dumps(r) + b"\n" for r in real_records[:1000]))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    counts = ingest_paths(store, [cut])
    assert counts.new > 100 and counts.failed == 1
    assert "truncated or corrupt gzip" in str(counts.errors[-1])


def test_missing_path_is_an_error(tmp_path: Path, store: SqliteStore) -> None:
    counts = ingest_paths(store, [tmp_path / "nope.jsonl"])
    assert counts.failed == 1 and "no such file" in str(counts.errors[0])


def test_kill_9_during_ingest_leaves_a_consistent_store_and_rerun_completes(
    shared_data: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "PAPERSIFT_HOME": str(home), "PAPERSIFT_INGEST_CHUNK": "1000"}
    snapshot = shared_data / "arxiv-20k.jsonl.gz"
    cmd = [sys.executable, "-m", "papersift.cli", "ingest", str(snapshot)]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    db = home / "papersift.db"
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and proc.poll() is None:  # wait for the first chunks
        time.sleep(0.05)
        if db.exists():
            try:
                s = SqliteStore(db)
                stored = s.count()
                s.close()
            except Exception:
                stored = 0
            if stored:
                break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 0 < stored < 20_000, "the kill should land mid-ingest"
    s = SqliteStore(db)
    assert s.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    partial = s.count()
    s.close()
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    s = SqliteStore(db)
    assert s.count() == 20_000 > partial
    # the keyword index is whole: FTS5's integrity check raises on any inconsistency, it holds one row per
    # paper, and a paper ingested before the kill is found by a word of its title (in the index's tokens)
    # once, not twice
    s.db.execute("INSERT INTO papers_fts(papers_fts) VALUES('integrity-check')")
    assert s.db.execute("SELECT COUNT(*) FROM papers_fts").fetchone()[0] == 20_000
    first = s.db.execute("SELECT rowid, title FROM papers ORDER BY rowid LIMIT 1").fetchone()
    word = keyword_text(max(first[1].split(), key=len))
    found = s.db.execute("SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?", (f'title:"{word}"',))
    assert [r[0] for r in found].count(first[0]) == 1
    s.close()


def test_paper_objects_from_readers_are_papers(shared_data: Path) -> None:
    items = list(read_path(shared_data / "fixtures/oai_pmh/hepcrawl__arxiv-physics-hep-ex.xml"))
    assert items and all(isinstance(i, Paper) for i in items)


ODD_UNICODE = (
    "Odd \u202etext\u202c, zero\u200bwidth, e\u0301, \U0001f600, \ufffe\uffff, \U0010ffff, \u2028 line"
)


def test_a_malformed_field_fails_its_record_alone_never_its_chunk(tmp_path: Path, store: SqliteStore) -> None:
    good = [
        {
            "id": f"2601.{n:05d}",
            "title": ODD_UNICODE if n == 7 else f"Good paper {n}",
            "abstract": "a",
            "authors": ["Zoë Müller"],
            "categories": ["cs.LG", "stat.ML"],
            "announced": "2026-01-21",
        }
        for n in range(1, 31)
    ]
    base = {**good[0], "id": "2601.09999"}
    bad = [
        {**base, "categories": ['cs."LG']},  # built into JSON by string concatenation before
        {**base, "categories": ["cs.LG", "x" * 5000]},  # over PostgreSQL's btree row limit
        {**base, "categories": ["cs.LG\u0000"]},
        {**base, "categories": ["cs LG"]},
        {**base, "categories": [1, 2]},
        {**base, "authors": [1, {"a": 2}]},
        {**base, "version": "abc"},
        {**base, "version": 2**62},  # over PostgreSQL's INTEGER
        {**base, "version": {"a": 1}},
        {**base, "title": "t" * 6_000_000},
    ]
    lines = [orjson.dumps(r) for r in good]
    for n, record in enumerate(bad):  # one bad record every three good ones
        lines.insert(3 * n + 1, orjson.dumps({**record, "id": f"2601.{90000 + n}"}))
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    counts = ingest_paths(store, [path], chunk=1000)
    assert (counts.new, counts.failed) == (len(good), len(bad)), [str(e) for e in counts.errors]
    reported = " ".join(str(e) for e in counts.errors)
    assert all(f"2601.{90000 + n}" in reported or f"line {3 * n + 2}" in reported for n in range(len(bad)))
    assert store.count() == len(good)
    listed = {e.paper.id for e in store.listing("cs.LG", date(2026, 1, 21))}
    assert listed == {r["id"] for r in good}  # the chunk's announcements were written too
    odd = store.get("2601.00007")
    assert odd is not None and odd.title == clean_text(ODD_UNICODE)
    again = ingest_paths(store, [path], chunk=1000)
    assert (again.new, again.updated, again.failed) == (0, 0, len(bad))
