"""The store's seen papers and readers' settings (migration 10), the same on SQLite and PostgreSQL: each way
a paper was seen is kept once with its first time, a digest's day with it, ``read`` undone alone; settings
kept, replaced and forgotten per reader."""

from __future__ import annotations

from datetime import date

import pytest

from papersift.store import Store


def test_seen_marks_are_kept_once_per_way_and_per_reader(store: Store) -> None:
    ada, bob = store.add_account("ada", None, "t-a"), store.add_account("bob", None, "t-b")
    assert (
        store.mark_seen(ada.id, ["2608.00001", "2608.00002", "2608.00001"], "pushed", date(2026, 8, 21)) == 2
    )
    assert store.mark_seen(ada.id, ["2608.00001"], "pushed", date(2026, 8, 24)) == 0  # the first one stays
    assert store.mark_seen(ada.id, ["2608.00001", "2608.00003"], "read") == 2
    seen = store.seen(ada.id)
    assert sorted(seen) == ["2608.00001", "2608.00002", "2608.00003"]
    assert [(s.how, s.day) for s in seen["2608.00001"]] == [("pushed", date(2026, 8, 21)), ("read", None)]
    assert store.seen(ada.id, ["2608.00003", "2608.09999"]).keys() == {"2608.00003"}
    assert store.seen(ada.id, []) == {} and store.seen(bob.id) == {}
    assert store.unmark_seen(ada.id, ["2608.00001", "2608.00003"], "read") == 2
    assert [s.how for s in store.seen(ada.id)["2608.00001"]] == ["pushed"]
    assert "2608.00003" not in store.seen(ada.id)
    with pytest.raises(ValueError, match="seen how"):
        store.mark_seen(ada.id, ["2608.00001"], "liked")


def test_reader_settings_are_kept_replaced_and_forgotten(store: Store) -> None:
    ada, bob = store.add_account("ada", None, "t-a"), store.add_account("bob", None, "t-b")
    assert store.reader_setting(ada.id, "min_score") is None
    store.set_reader_setting(ada.id, "min_score", "0.5")
    store.set_reader_setting(ada.id, "min_score", "1.25")
    store.set_reader_setting(bob.id, "min_score", "2")
    assert (store.reader_setting(ada.id, "min_score"), store.reader_setting(bob.id, "min_score")) == (
        "1.25",
        "2",
    )
    store.set_reader_setting(ada.id, "min_score", None)
    assert (
        store.reader_setting(ada.id, "min_score") is None and store.reader_setting(bob.id, "min_score") == "2"
    )
