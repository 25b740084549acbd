"""The language model's bookkeeping in the store, on both backends: tokens per (day, model) add up, days and
models stay apart, failures come back newest first and old ones are forgotten; they survive reopening."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from papersift.store import Store
from tests.support.fixtures import reopen


def test_usage_adds_up_per_day_and_model(store: Store) -> None:
    day = date(2026, 12, 1)
    store.add_llm_usage(day, "deepseek-chat", 100, 20)
    store.add_llm_usage(day, "deepseek-chat", 50, 5)
    store.add_llm_usage(day, "qwen-plus", 7, 3)
    store.add_llm_usage(day - timedelta(days=1), "deepseek-chat", 1000, 1000)
    today = store.llm_usage(day)
    assert [(u.model, u.calls, u.prompt_tokens, u.completion_tokens) for u in today] == [
        ("deepseek-chat", 2, 150, 25),
        ("qwen-plus", 1, 7, 3),
    ]
    assert today[0].tokens == 175
    both = store.llm_usage(day - timedelta(days=1), day)
    assert [(u.day, u.model) for u in both] == [
        (day - timedelta(days=1), "deepseek-chat"),
        (day, "deepseek-chat"),
        (day, "qwen-plus"),
    ]
    assert store.llm_usage(day + timedelta(days=1)) == []
    again = reopen(store)
    try:
        assert [u.calls for u in again.llm_usage(day)] == [2, 1]
    finally:
        again.close()


def test_failures_newest_first_and_old_ones_forgotten(store: Store) -> None:
    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    store.add_llm_failure("m", "old one", at=now - timedelta(days=40))
    store.add_llm_failure("m", "the endpoint answered 429 three times", at=now - timedelta(minutes=5))
    store.add_llm_failure("other", "timed out after 60 s", at=now)
    failures = store.llm_failures()
    assert [(f.model, f.reason) for f in failures] == [
        ("other", "timed out after 60 s"),
        ("m", "the endpoint answered 429 three times"),
    ]
    assert failures[0].at == now
    assert [f.reason for f in store.llm_failures(limit=1)] == ["timed out after 60 s"]
    recent = store.llm_failures(since=now - timedelta(minutes=1))
    assert [f.reason for f in recent] == ["timed out after 60 s"]
