"""Readers in the store, on both backends: accounts, sessions, libraries kept apart, tags, digests."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta

import pytest

from papersift.library.saved import export_items, import_references
from papersift.library.shapes import LibraryEntryShape
from papersift.services.accounts import LoginError, create_account, login, open_session, session_account
from papersift.settings import Settings
from papersift.sources.bibliography import read_bibliography, to_bibtex
from papersift.store import Store, StoreError
from papersift.store.records import DigestText, Interests, LibraryEntry, entry_key
from tests.test_store import paper


def entry(key: str, **kw: object) -> LibraryEntry:
    return LibraryEntry(key=key, title=f"Title of {key}", **kw)  # type: ignore[arg-type]


def test_readers_are_unique_by_name_and_found_by_feed_token(store: Store) -> None:
    ada = store.add_account("ada", None, "token-a", "ada@example.org")
    with pytest.raises(StoreError, match="already exists"):
        store.add_account("ada", None, "token-b")
    assert store.account("ada") == ada and store.account_by_token("token-a") == ada
    assert store.account_by_token("nope") is None
    store.update_account(ada.id, feed_token="token-c")
    assert store.account_by_token("token-c") == store.account_by_id(ada.id)


def test_one_readers_library_is_never_seen_or_changed_by_another(store: Store) -> None:
    a = store.add_account("a", None, "ta")
    b = store.add_account("b", None, "tb")
    store.save_entries(a.id, [entry("2601.00001", tags=("gnn",), rating=1)])
    assert store.library(b.id) == [] and store.library_entry(b.id, "2601.00001") is None
    assert not store.update_entry(b.id, "2601.00001", rating=-1)
    assert not store.remove_entry(b.id, "2601.00001")
    assert store.tags(b.id) == []
    kept = store.library_entry(a.id, "2601.00001")
    assert kept is not None and kept.rating == 1 and kept.tags == ("gnn",)


def test_saving_again_adds_tags_and_keeps_a_rating_unless_a_new_one_is_given(store: Store) -> None:
    r = store.add_account("r", None, "t")
    assert store.save_entries(r.id, [entry("x", tags=("a",), rating=1, note="first")]) == 1
    assert store.save_entries(r.id, [entry("x", tags=("b",))]) == 0
    got = store.library_entry(r.id, "x")
    assert got is not None and got.tags == ("a", "b") and got.rating == 1 and got.note == "first"
    store.save_entries(r.id, [entry("x", rating=-1)])
    assert store.library_entry(r.id, "x").rating == -1  # type: ignore[union-attr]


def test_tags_filter_and_entries_come_newest_first(store: Store) -> None:
    r = store.add_account("r", None, "t")
    now = datetime.now(UTC)
    store.save_entries(
        r.id, [entry("old", added=now - timedelta(days=2), tags=("x",)), entry("new", added=now)]
    )
    assert [e.key for e in store.library(r.id)] == ["new", "old"]
    assert [e.key for e in store.library(r.id, "x")] == ["old"]
    assert store.update_entry(r.id, "new", add_tags=["x", "y"], note="read it", read=True)
    assert store.tags(r.id) == [("x", 2), ("y", 1)]
    store.update_entry(r.id, "new", remove_tags=["x"])
    assert [e.key for e in store.library(r.id, "x")] == ["old"]
    assert store.remove_entry(r.id, "old") and [e.key for e in store.library(r.id)] == ["new"]
    assert store.tags(r.id) == [("y", 1)]


def test_a_rating_outside_minus_one_to_one_is_refused(store: Store) -> None:
    r = store.add_account("r", None, "t")
    store.save_entries(r.id, [entry("x")])
    with pytest.raises(StoreError, match="rating"):
        store.update_entry(r.id, "x", rating=5)


def test_interests_round_trip(store: Store) -> None:
    r = store.add_account("r", None, "t")
    assert store.interests(r.id) == Interests()
    wanted = Interests(("cs.LG",), ("Yoshua Bengio",), ("diffusion",), ("survey",))
    store.set_interests(r.id, wanted)
    assert store.interests(r.id) == wanted


def test_a_digest_is_queued_once_per_reader_day_and_channel_until_sent(store: Store) -> None:
    r = store.add_account("r", None, "t")
    day = date(2026, 1, 21)
    first = store.queue_digest(r.id, day, "email", DigestText("s", "text", "<p>html</p>", ("2601.00001",)))
    again = store.queue_digest(r.id, day, "email", DigestText("other", "other", "other", ()))
    assert again.id == first.id and again.subject == "s" and again.papers == ("2601.00001",)
    assert [d.id for d in store.unsent_digests("email")] == [first.id]
    store.mark_digest(first.id, sent=False, error="connection refused")
    failed = store.unsent_digests("email")[0]
    assert failed.attempts == 1 and failed.error == "connection refused"
    store.mark_digest(first.id, sent=True)
    assert store.unsent_digests("email") == [] and store.digests(r.id)[0].sent is not None


def test_imported_references_find_stored_papers_by_doi_and_title(store: Store) -> None:
    store.upsert([paper("2601.00001", doi="10.1000/XYZ.1", title="Sparse Attention:  for Long-Context")])
    assert store.paper_id_by_doi("10.1000/xyz.1") == "2601.00001"
    assert store.paper_id_by_doi("10.1000/other") is None
    assert store.paper_ids_by_title("sparse attention for long context.") == ["2601.00001"]
    assert store.paper_ids_by_title("sparse attention") == []
    assert store.paper_ids_by_title("") == []


def test_entry_keys_are_the_arxiv_id_else_the_doi_else_the_folded_title() -> None:
    assert entry_key("2601.00001", "10.1/x", "T") == "2601.00001"
    assert entry_key(None, "10.1/X", "T") == "doi:10.1/x"
    assert entry_key(None, None, "A  Title") == entry_key(None, None, "a title")


def test_sessions_name_their_reader_until_they_expire_or_are_dropped(store: Store) -> None:
    r = store.add_account("r", None, "t")
    store.add_session(r.id, "h1", datetime.now(UTC) + timedelta(hours=1))
    store.add_session(r.id, "h2", datetime.now(UTC) - timedelta(seconds=1))
    assert store.session_account("h1") == r and store.session_account("h2") is None
    store.drop_session("h1")
    assert store.session_account("h1") is None


def test_login_checks_the_argon2_hash_and_locks_a_name_after_repeated_failures(store: Store) -> None:
    settings = Settings(login_attempts=3)
    reader = create_account(store, "ada", "correct horse")
    assert reader.password_hash is not None and "correct horse" not in reader.password_hash
    assert reader.password_hash.startswith("$argon2id$")
    assert login(store, settings, "ada", "correct horse") == reader
    token = open_session(store, settings, reader)
    assert session_account(store, token) == reader and session_account(store, "forged") is None
    for _ in range(3):
        with pytest.raises(LoginError, match="wrong name or password"):
            login(store, settings, "ada", "wrong password")
    with pytest.raises(LoginError, match="too many"):
        login(store, settings, "ada", "correct horse")
    with pytest.raises(LoginError, match="wrong name or password"):
        login(store, settings, "nobody", "whatever1")


def test_short_passwords_are_refused(store: Store) -> None:
    with pytest.raises(StoreError, match="at least 8"):
        create_account(store, "ada", "short")


def test_logins_back_off_per_name_without_locking_the_name_out(store: Store) -> None:
    from papersift.services.accounts import LoginThrottled, login_wait

    settings = Settings(login_attempts=2, login_backoff=0.3)
    reader = create_account(store, "ada", "correct horse")
    for i in range(2):  # guessed from two addresses
        with pytest.raises(LoginError, match="wrong name or password"):
            login(store, settings, "ada", "wrong password", address=f"10.0.0.{i}")
    with pytest.raises(LoginThrottled) as throttled:
        login(store, settings, "ada", "correct horse", address="10.0.0.9")
    assert throttled.value.wait == 1  # seconds, rounded up
    time.sleep(0.35)
    assert login(store, settings, "ada", "correct horse", address="10.0.0.9") == reader
    store.add_login_failure("ada", "10.0.0.1")  # one more: the wait doubles
    assert 0.4 < login_wait(store, settings, "ada", "10.0.0.9") <= 0.6


def test_one_address_spraying_many_names_is_slowed_down(store: Store) -> None:
    from papersift.services.accounts import LoginThrottled

    settings = Settings(login_attempts=2, login_backoff=30)
    reader = create_account(store, "ada", "correct horse")
    for i in range(8):  # four times a name's allowance, each name only once
        with pytest.raises(LoginError, match="wrong name or password"):
            login(store, settings, f"name{i}", "spray-password", address="10.6.6.6")
    with pytest.raises(LoginThrottled):
        login(store, settings, "ada", "correct horse", address="10.6.6.6")
    assert login(store, settings, "ada", "correct horse", address="10.0.0.1") == reader
    count, last = store.login_failures(datetime.now(UTC) - timedelta(hours=1), address="10.6.6.6")
    assert count == 8 and last is not None


def test_old_login_failures_and_expired_sessions_are_pruned(store: Store) -> None:
    now = datetime.now(UTC)
    r = store.add_account("r", None, "t")
    store.add_login_failure("r", "10.0.0.1")
    store.add_session(r.id, "live", now + timedelta(hours=1))
    store.add_session(r.id, "dead", now - timedelta(seconds=1))
    assert store.prune_logins(now - timedelta(days=1)) == 1  # the expired session; the failure is recent
    assert store.prune_logins(datetime.now(UTC) + timedelta(seconds=1)) == 1  # now the failure too
    assert store.login_failures(now - timedelta(days=1), name="r") == (0, None)
    assert store.session_account("live") == r


def test_imported_javascript_and_data_links_never_reach_the_library_json(store: Store) -> None:
    r = store.add_account("ada", None, "t")
    bib = (
        "@misc{a, title = {Script link}, url = {javascript:alert(document.cookie)}}\n"
        "@misc{b, title = {Data link}, howpublished = {data:text/html,<script>alert(1)</script>}}\n"
        "@misc{c, title = {Good link}, url = {https://example.org/paper}}\n"
        "@misc{d, title = {DOI link}, url = {doi:10.1000/xyz}}\n"
    )
    report = import_references(store, r, read_bibliography(bib, "bibtex").references)
    assert report.kept == 4
    # an entry saved before imports checked their links (or by another tool) is shown without it
    store.save_entries(r.id, [entry("old", url="javascript:alert(2)")])
    links = {e.title: e.url for e in map(LibraryEntryShape.of, store.library(r.id))}
    assert links == {
        "Script link": None,
        "Data link": None,
        "Good link": "https://example.org/paper",
        "DOI link": "https://doi.org/10.1000/xyz",
        "Title of old": None,
    }
    exported = to_bibtex(export_items(store, store.library(r.id)))
    assert "javascript:" not in exported and "data:" not in exported
