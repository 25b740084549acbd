"""A query past the store's time limit ends with one ``StoreBusy`` on both backends (SQLite interrupted by
its progress handler, PostgreSQL cancelled by ``statement_timeout``), and the web answers it with a 503."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from papersift.store import Store, StoreBusy
from papersift.store.sqlite import SqliteStore
from papersift.web.pages import ERROR_HANDLERS

# a read that takes far longer than the limit on each backend (SQLite counts forever until stopped)
SLOW = {
    "sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) AS c FROM n",
    "postgres": "SELECT pg_sleep(30) AS c",
}
QUICK = "SELECT 1 AS c"


def _backend(store: Store) -> str:
    return "sqlite" if isinstance(store, SqliteStore) else "postgres"


def test_a_read_past_the_limit_is_store_busy_and_the_connection_answers_after(store: Store) -> None:
    store.limit_queries(0.2)
    with pytest.raises(StoreBusy):
        store._rows(SLOW[_backend(store)])  # type: ignore[attr-defined]
    store.limit_queries(5)  # the next request's clock
    assert [dict(r) for r in store._rows(QUICK)] == [{"c": 1}]  # type: ignore[attr-defined]


def test_a_read_past_the_limit_is_a_503_on_both_backends(store: Store) -> None:
    app = FastAPI(exception_handlers=ERROR_HANDLERS)

    @app.get("/api/slow")
    def slow() -> list[object]:
        store.limit_queries(0.2)
        return list(store._rows(SLOW[_backend(store)]))  # type: ignore[attr-defined]

    with TestClient(app) as client:
        response = client.get("/api/slow")
    assert response.status_code == 503
    assert "the store is busy" in response.json()["error"]
