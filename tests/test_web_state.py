"""What the web face shares between requests: a page cache keyed by what each page depends on, per-thread
read connections with a time limit, one writer, and index generations switched to between requests."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from papersift.index.pipeline import refresh
from papersift.library.saved import save_paper
from papersift.services.accounts import create_account
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store import StoreBusy, open_store
from papersift.web import state as web_state
from papersift.web.state import AppState
from tests.support.data import spread_records


@pytest.fixture
def app_state(tmp_path: Path, shared_data: Path) -> Iterator[AppState]:
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    store.upsert([paper_from_record(r, "test") for r in spread_records(shared_data, 400)[:40]])
    store.close()
    state = web_state.open_state(settings)
    yield state
    state.close()


def test_a_save_or_a_login_keeps_listings_cached_and_new_papers_do_not(
    app_state: AppState, shared_data: Path
) -> None:
    computed: list[str] = []

    def compute(name: str) -> str:
        computed.append(name)
        return name

    def ask() -> None:
        app_state.cached(("list",), lambda: compute("list"))
        app_state.cached(("abs",), lambda: compute("abs"), index=True)

    ask()
    ask()
    assert computed == ["list", "abs"]
    with app_state.writing() as store:  # a reader's save and a failed login: not the papers
        reader = create_account(store, "ada", None)
        save_paper(store, reader, next(store.iter_papers()).id)
        store.add_login_failure("mallory")
    ask()
    assert computed == ["list", "abs"]
    refresh(app_state.store, app_state.settings)  # a new index generation: rankings only
    time.sleep(web_state.RELOAD_SECONDS + 0.1)
    ask()
    assert computed == ["list", "abs", "abs"]
    with app_state.writing() as store:  # new papers: everything
        store.upsert([paper_from_record(r, "test") for r in spread_records(shared_data, 400)[40:41]])
    ask()
    assert computed == ["list", "abs", "abs", "list", "abs"]


def test_each_thread_reads_through_its_own_connection_and_slow_reads_are_stopped(
    app_state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(app_state.store)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(s) for s in seen}) == 3 and app_state.store is app_state.store
    monkeypatch.setattr(app_state.papersift.connections, "query_seconds", 0.05)
    store = app_state.store
    slow = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    with pytest.raises(StoreBusy, match="interrupted"):
        store._rows(slow)  # type: ignore[attr-defined]


def test_a_server_without_a_generation_answers_with_keywords_and_switches_when_one_is_published(
    app_state: AppState,
) -> None:
    first = app_state.indexes()
    assert first.lexical is None and first.name == ""
    refresh(app_state.store, app_state.settings)
    time.sleep(web_state.RELOAD_SECONDS + 0.1)
    second = app_state.indexes()
    assert second.lexical is not None and len(second.lexical) == 40 and second.name
    assert first.lexical is None  # a request that began before the switch keeps what it had


def test_an_entry_being_computed_is_computed_once_for_everyone_asking(app_state: AppState) -> None:
    """A day's topic map takes seconds: drawn at start (``web/app.warm_maps``) while the first reader asks
    for it, it is drawn once and both get it."""
    started, release, made = threading.Event(), threading.Event(), []

    def slow() -> str:
        made.append(1)
        started.set()
        release.wait(10)
        return "the map"

    answers: list[str] = []
    first = threading.Thread(target=lambda: answers.append(app_state.cached(("topic-map", "x"), slow)))
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=lambda: answers.append(app_state.cached(("topic-map", "x"), slow)))
    second.start()
    second.join(0.3)
    assert second.is_alive()  # waiting for the first's answer, not drawing it again
    release.set()
    first.join(10)
    second.join(10)
    assert answers == ["the map", "the map"] and made == [1]
    with pytest.raises(RuntimeError):  # a computation that fails is not kept, and the next ask tries again
        app_state.cached(("topic-map", "y"), lambda: (_ for _ in ()).throw(RuntimeError("no map")))
    assert app_state.cached(("topic-map", "y"), lambda: "drawn") == "drawn"


def test_a_value_keep_refuses_is_returned_not_kept_and_holds_says_what_is_kept(app_state: AppState) -> None:
    """A page drawn before its map (``PROVISIONAL_MARK``) is rendered again on the next view."""
    made: list[str] = []

    def page() -> str:
        made.append("page")
        return "with a placeholder" if len(made) == 1 else "with its map"

    def keep(value: str) -> bool:
        return value != "with a placeholder"

    assert not app_state.holds(("list",))
    assert app_state.cached(("list",), page, keep=keep) == "with a placeholder"
    assert not app_state.holds(("list",))
    assert app_state.cached(("list",), page, keep=keep) == "with its map" and app_state.holds(("list",))
    assert app_state.cached(("list",), page, keep=keep) == "with its map" and len(made) == 2
    assert not app_state.holds(("list",), index=True)  # another entry: one that depends on the generation


def test_soon_computes_beside_the_requests_once_and_close_waits_for_it(
    app_state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A day's map is drawn beside the requests after its first view (``soon``): queued once, drawn once
    (a reader asking meanwhile waits for it), and a server stopping waits for it: no index closed under
    it."""
    monkeypatch.setattr(web_state, "SOON_SECONDS", 0.01)
    started, release = threading.Event(), threading.Event()
    made: list[int] = []
    done: list[int] = []
    answers: list[str] = []

    def slow() -> str:
        made.append(1)
        started.set()
        release.wait(10)
        time.sleep(0.2)
        done.append(1)
        return "the map"

    app_state.soon(("topic-map", "z"), slow)
    app_state.soon(("topic-map", "z"), slow)  # queued already: not again
    assert started.wait(10)
    asker = threading.Thread(target=lambda: answers.append(app_state.cached(("topic-map", "z"), slow)))
    asker.start()
    asker.join(0.3)
    assert asker.is_alive()  # waiting for the drawing beside it, not drawing it again
    release.set()
    asker.join(10)
    assert answers == ["the map"] and made == [1] and app_state.holds(("topic-map", "z"))
    app_state.soon(("topic-map", "w"), slow)
    started.clear()
    assert started.wait(10)
    app_state.close()  # waits for the drawing under way
    assert made == done == [1, 1]
