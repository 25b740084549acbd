"""The current index generation kept open (``index/current.py``): opened on first use, opened again when a
new generation is published, the old one pinned while a caller holds it and released by ``close``."""

from __future__ import annotations

from pathlib import Path

from papersift.index.current import CurrentIndexes
from papersift.index.generations import current_name
from papersift.index.pipeline import refresh
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store import open_store
from tests.support.data import spread_records


def test_a_published_generation_is_switched_to_and_a_held_one_kept(tmp_path: Path, shared_data: Path) -> None:
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    papers = [paper_from_record(r, "test") for r in spread_records(shared_data, 500)[:30]]
    store.upsert(papers[:20])
    try:
        current = CurrentIndexes(settings, model=lambda: (_ for _ in ()).throw(AssertionError("no model")))
        empty = current.get(store)
        assert empty.lexical is None and empty.name == ""  # nothing built yet: keyword evidence only
        refresh(store, settings)
        first = current.get(store)
        assert first.lexical is not None and len(first.lexical) == 20
        assert first.name == current_name(settings.index_dir) and current.get(store).name == first.name
        store.upsert(papers[20:])
        refresh(store, settings)
        second = current.get(store)
        assert second.lexical is not None and len(second.lexical) == 30 and second.name != first.name
        assert first.generation is not None and first.generation.path.exists()  # held: still mapped
        assert second.store is store and second.loader is current.model
        current.close()
        assert second.generation is not None and second.generation._pin is None  # released
    finally:
        store.close()
