"""One open papersift (``index/runtime.py``): leaving it closes every store connection and the index
generation it opened (on both backends), and a newer generation published meanwhile is picked up."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest

from papersift.index.generations import current_name, remove_unused
from papersift.index.pipeline import refresh
from papersift.index.runtime import open_papersift
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store import open_store
from tests.support.data import spread_records


def _papers(shared_data: Path, n: int) -> list[Paper]:
    return [paper_from_record(r, "test") for r in spread_records(shared_data, 500)[:n]]


def test_leaving_it_closes_every_connection_and_unpins_the_generation(
    tmp_path: Path, shared_data: Path
) -> None:
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    store.upsert(_papers(shared_data, 20))
    refresh(store, settings)
    first = current_name(settings.index_dir)
    with open_papersift(settings) as opened:
        threads = [threading.Thread(target=lambda: opened.store.count()) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with opened.writing() as writer:
            writer.set_state("probe", "1")
        assert opened.indexes().name == first and opened.store.count() == 20
        store.upsert(_papers(shared_data, 30)[20:])
        refresh(store, settings)  # a newer generation: the held one stays pinned…
        assert first is not None and (settings.index_dir / first).exists()
        assert remove_unused(settings.index_dir) == []
    assert remove_unused(settings.index_dir) == [first]  # …until the block ends
    store.close()
    # every connection is closed: the last one to close checkpoints and removes SQLite's WAL files
    assert not settings.db_path.with_name(settings.db_path.name + "-wal").exists()


def test_a_newer_generation_is_picked_up(tmp_path: Path, shared_data: Path) -> None:
    settings = Settings(home=tmp_path)
    papers = _papers(shared_data, 30)
    with open_papersift(settings, model=lambda: pytest.fail("no model is loaded")) as opened:
        assert opened.indexes().lexical is None  # nothing built yet: keyword evidence only
        opened.store.upsert(papers[:20])
        refresh(opened.store, settings)
        first = opened.indexes()
        assert first.lexical is not None and len(first.lexical) == 20
        opened.store.upsert(papers[20:])
        refresh(opened.store, settings)
        second = opened.indexes()
        assert second.lexical is not None and len(second.lexical) == 30 and second.name != first.name
        assert second.name == current_name(settings.index_dir)


def test_leaving_it_closes_its_postgresql_connections(tmp_path: Path, pg_dsn: str, shared_data: Path) -> None:
    def connections() -> int:
        with psycopg.connect(pg_dsn) as watcher:
            row = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        assert row is not None
        return int(row[0])

    settings = Settings(home=tmp_path, db=pg_dsn)
    with open_papersift(settings, query_seconds=5.0) as opened:
        opened.store.upsert(_papers(shared_data, 5))
        other = threading.Thread(target=lambda: opened.store.count())
        other.start()
        other.join()
        with opened.writing() as writer:
            writer.set_state("probe", "1")
        assert connections() == 3  # this thread's, the other thread's, the writer
    assert connections() == 0
