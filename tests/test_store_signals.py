"""Lab signals in the store, on SQLite and PostgreSQL: counts of readers who saved / +1'd a paper, the
trending papers of a period, and readers who opt out of being counted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from papersift.store import Store
from papersift.store.records import LibraryEntry

NOW = datetime(2026, 8, 21, 12, 0, tzinfo=UTC)


def entry(pid: str, rating: int = 0, days_ago: float = 0) -> LibraryEntry:
    return LibraryEntry(
        key=pid, paper_id=pid, title=f"paper {pid}", rating=rating, added=NOW - timedelta(days=days_ago)
    )


def test_counts_saves_and_upvotes_over_readers(store: Store) -> None:
    ada, bob, cy = (store.add_account(n, "hash", f"token-{n}") for n in ("ada", "bob", "cy"))
    store.save_entries(ada.id, [entry("2608.00001", 1), entry("2608.00002")])
    store.save_entries(bob.id, [entry("2608.00001", 1), entry("2608.00003", -1)])
    store.save_entries(cy.id, [entry("2608.00001"), entry("2608.00002", 1)])
    store.save_entries(cy.id, [LibraryEntry(key="doi:10.1/x", title="outside", doi="10.1/x")])
    found = store.lab_signals(["2608.00001", "2608.00002", "2608.00003", "2608.09999"])
    assert {k: (s.saves, s.upvotes) for k, s in found.items()} == {"2608.00001": (3, 2), "2608.00002": (2, 1)}


def test_a_reader_who_opts_out_is_not_counted(store: Store) -> None:
    ada, bob = store.add_account("ada", "hash", "t-a"), store.add_account("bob", "hash", "t-b")
    store.save_entries(ada.id, [entry("2608.00001", 1)])
    store.save_entries(bob.id, [entry("2608.00001", 1)])
    assert store.counted(bob.id)
    store.set_counted(bob.id, False)
    assert not store.counted(bob.id) and store.counted(ada.id)
    assert store.lab_signals(["2608.00001"])["2608.00001"].saves == 1
    assert [s.saves for s in store.trending(NOW - timedelta(days=7))] == [1]
    store.set_counted(bob.id, True)
    assert store.lab_signals(["2608.00001"])["2608.00001"].upvotes == 2


def test_trending_is_most_signals_first_then_the_latest(store: Store) -> None:
    ada, bob = store.add_account("ada", "hash", "t-a"), store.add_account("bob", "hash", "t-b")
    store.save_entries(
        ada.id, [entry("2608.00001", 1, 1), entry("2608.00002", 0, 2), entry("2608.00003", 0, 1)]
    )
    store.save_entries(bob.id, [entry("2608.00002", 0, 3), entry("2608.00004", 1, 20)])
    found = store.trending(NOW - timedelta(days=7))
    # 00001: 1 save + 1 upvote (1 day ago); 00002: 2 saves (2 days ago); 00003: 1 save (1 day ago)
    assert [(s.paper_id, s.saves, s.upvotes) for s in found] == [
        ("2608.00001", 1, 1),
        ("2608.00002", 2, 0),
        ("2608.00003", 1, 0),
    ]
    assert [s.paper_id for s in store.trending(NOW - timedelta(days=30), limit=2)] == [
        "2608.00001",
        "2608.00002",
    ]
