"""`papersift migrate`: a real SQLite install moved into a real PostgreSQL server row for row, and checked."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np
import orjson
import pytest

from papersift.records.paper import Announcement, Deleted
from papersift.store.migrate import TABLES, verify
from papersift.store.postgres import PostgresStore
from papersift.store.records import DigestText, LibraryEntry
from papersift.store.sqlite import SqliteStore
from tests.support.data import as_papers, spread_records
from tests.support.inproc import invoke
from tests.support.keyword import keyword_ids


@pytest.fixture(scope="module")
def sqlite_home(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A SQLite store of 400 real papers: listings with positions, one deleted paper, state and vectors."""
    home = tmp_path_factory.mktemp("sqlite-home")
    papers = as_papers(spread_records(shared_data, 50))
    papers[0].listings = [Announcement(date(2026, 1, 21), "cs.LG", "replace", 4)]
    store = SqliteStore(home / "papersift.db")
    store.upsert(papers, state={"oai:cs": "token-7"})
    store.reset_vectors("model-x")
    rowids = [r for r, _ in store.iter_rows()]
    vectors = np.random.default_rng(3).standard_normal((len(rowids), 32)).astype(np.float32)
    store.put_vectors(rowids, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    store.upsert([Deleted(papers[5].id)])
    ada = store.add_account("ada", "hash", "feed-a", "ada@example.org")
    store.save_entries(
        ada.id, [LibraryEntry(papers[1].id, papers[1].title, tags=("gnn", "to-read"), rating=1)]
    )
    store.add_session(ada.id, "session-hash", datetime(2099, 1, 1, tzinfo=UTC))
    store.queue_digest(
        ada.id, date(2026, 1, 21), "email", DigestText("Your papers", "text", "<p>html</p>", (papers[1].id,))
    )
    store.add_llm_usage(date(2026, 1, 21), "deepseek-chat", 1200, 80)
    store.add_llm_failure(
        "deepseek-chat", "the endpoint answered 429 three times", datetime(2026, 1, 21, tzinfo=UTC)
    )
    store.close()
    return home


def test_migrate_copies_every_table_and_the_checksums_match(sqlite_home: Path, pg_dsn: str) -> None:
    db = sqlite_home / "papersift.db"
    result = invoke("migrate", "--from", f"sqlite://{db}", "--to", pg_dsn, home=sqlite_home)
    lines = {line.split()[0]: line.split() for line in result.stdout.splitlines() if line.strip()}
    source = SqliteStore(db)
    target = PostgresStore(pg_dsn)
    try:
        for table in TABLES:
            expected = source.db.execute(f"SELECT COUNT(*) FROM {table.name}").fetchone()[0]
            assert lines[table.name][1:3] == [str(expected), str(expected)]
            assert lines[table.name][-1] == "ok"
        assert int(lines["papers"][1]) == 400 and int(lines["vectors"][1]) == 400
        assert target.count() == source.count() == 399  # the deleted paper travels, still deleted
        assert [p for _, p in target.iter_rows()] == [p for _, p in source.iter_rows()]
        assert [r for r, _ in target.iter_rows()] == [r for r, _ in source.iter_rows()]
        (want,) = source.iter_vectors()
        (got,) = target.iter_vectors()
        assert np.array_equal(got.keys, want.keys) and np.array_equal(got.vectors, want.vectors)
        assert target.vector_model() == "model-x" and target.get_state("oai:cs") == "token-7"
        assert target.listing("cs.LG", date(2026, 1, 21)) == source.listing("cs.LG", date(2026, 1, 21))
        first = next(iter(source.iter_papers()))
        assert first.id in set(keyword_ids(target, first.title, k=5))
        dims = target.conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attname = 'vec' AND attrelid = 'vectors'::regclass"
        ).fetchone()
        assert dims == (want.vectors.shape[1],)  # the column's dimension is fixed to the copied vectors'
        ada = target.account("ada")
        assert ada is not None and ada == source.account("ada")
        assert target.library(ada.id) == source.library(ada.id) and target.tags(ada.id) == [
            ("gnn", 1),
            ("to-read", 1),
        ]
        assert target.session_account("session-hash") == ada
        assert target.digests(ada.id) == source.digests(ada.id)
        assert target.llm_usage(date(2026, 1, 21)) == source.llm_usage(date(2026, 1, 21)) != []
        assert target.llm_failures() == source.llm_failures() != []
        assert (
            target.add_account("bob", None, "feed-b").id == ada.id + 1
        )  # ids continue after the copied ones
    finally:
        source.close()
        target.close()
    # the migrated database serves the commands through PAPERSIFT_DB
    shown = invoke("show", first.id, "--format", "json", home=sqlite_home, env={"PAPERSIFT_DB": pg_dsn})
    assert orjson.loads(shown.stdout)["title"] == first.title


def test_a_non_empty_target_is_refused_without_force_and_a_forced_copy_said_in_the_readers_language(
    sqlite_home: Path, pg_dsn: str
) -> None:
    db = sqlite_home / "papersift.db"
    invoke("migrate", "--from", str(db), "--to", pg_dsn, home=sqlite_home)
    again = invoke("migrate", "--from", str(db), "--to", pg_dsn, home=sqlite_home, check=False)
    assert again.returncode == 1 and "already holds papers" in again.stderr and "--force" in again.stderr
    zh = {"PAPERSIFT_LANG": "zh"}  # and its table said in the reader's language
    forced = invoke("migrate", "--from", str(db), "--to", pg_dsn, "--force", home=sqlite_home, env=zh)
    header, *rows, closing = forced.stdout.splitlines()
    assert header.split() == ["表", "源行数", "目标行数", "源校验和", "目标校验和"]
    assert all(row.split()[-1] == "一致" for row in rows)
    assert closing == f"已迁移 {db} -> PostgreSQL：每张表都一致"
    target = PostgresStore(pg_dsn)
    try:
        assert target.count() == 399  # replaced, not doubled
    finally:
        target.close()


def test_a_target_that_lost_rows_fails_the_check(sqlite_home: Path, pg_dsn: str) -> None:
    invoke("migrate", "--from", str(sqlite_home / "papersift.db"), "--to", pg_dsn, home=sqlite_home)
    source, target = SqliteStore(sqlite_home / "papersift.db"), PostgresStore(pg_dsn)
    try:
        with target.transaction() as cur:
            cur.execute("DELETE FROM vectors WHERE paper = (SELECT MIN(paper) FROM vectors)")
            cur.execute("UPDATE state SET value = 'token-8' WHERE key = 'oai:cs'")
        checks = {c.table: c for c in verify(source, target)}
    finally:
        source.close()
        target.close()
    assert checks["papers"].ok and checks["announcements"].ok
    assert not checks["vectors"].ok and checks["vectors"].target_rows == checks["vectors"].source_rows - 1
    assert not checks["state"].ok and checks["state"].target_rows == checks["state"].source_rows


def test_bad_arguments_are_clear_errors(tmp_path: Path, sqlite_home: Path, pg_dsn: str) -> None:
    missing = invoke(
        "migrate", "--from", str(tmp_path / "nope.db"), "--to", pg_dsn, home=tmp_path, check=False
    )
    assert missing.returncode == 1 and "no SQLite store" in missing.stderr
    wrong = invoke("migrate", "--from", "x.db", "--to", "mysql://h/db", home=tmp_path, check=False)
    assert wrong.returncode == 2 and "postgresql://" in wrong.stderr
    db = sqlite_home / "papersift.db"
    down = invoke(
        "migrate",
        "--from",
        str(db),
        "--to",
        "postgresql://u:secret@127.0.0.1:1/db",
        home=tmp_path,
        check=False,
    )
    assert down.returncode == 1 and "cannot connect to PostgreSQL" in down.stderr
    assert "secret" not in down.stderr  # the password is not echoed
