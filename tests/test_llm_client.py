"""The model client against a local server answering as the hosted APIs document: the key reaches that server
only (never a redirect's target, an error, a log line or a repr); 429 with Retry-After and 5xx are retried
and then fail saying so; a 400 naming the max_tokens limit is retried once within it and the limit kept;
a stream cut halfway and a timeout fail as such; usage and failures land in the store; the budget holds."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from papersift.llm import client
from papersift.llm.client import complete, stream, token_limit
from papersift.llm.errors import ModelError
from papersift.services.http import retry_after_seconds
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore
from tests.llm_server import Answer, completion, error, fake_model, stream_of

KEY = "sk-test-0123456789abcdef"
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hi."}]


def settings_for(tmp_path: Path, url: str, **more: Any) -> Settings:
    values: dict[str, Any] = {
        "home": tmp_path / "home",
        "llm_url": url,
        "llm_model": "deepseek-chat",
        "llm_key": KEY,
        "llm_retry_max": 0.05,
        "llm_timeout": 5.0,
    }
    values.update(more)
    return Settings(**values)


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path / "llm.db")
    yield s
    s.close()


def test_a_completion_sends_the_key_to_the_endpoint_and_counts_its_usage(
    tmp_path: Path, sqlite_store: SqliteStore
) -> None:
    with fake_model([completion("Hi.", prompt_tokens=30, completion_tokens=2)]) as model:
        reply = complete(settings_for(tmp_path, model.url), MESSAGES, max_tokens=64, store=sqlite_store)
    assert reply == client.Reply(text="Hi.", model="deepseek-chat", prompt_tokens=30, completion_tokens=2)
    (seen,) = model.seen
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.body["model"] == "deepseek-chat"
    assert seen.body["messages"] == MESSAGES
    assert seen.body["max_tokens"] == 64
    assert seen.body["stream"] is False
    (usage,) = sqlite_store.llm_usage(client._today())
    assert (usage.model, usage.calls, usage.prompt_tokens, usage.completion_tokens) == (
        "deepseek-chat",
        1,
        30,
        2,
    )
    assert sqlite_store.llm_failures() == []


def test_no_key_no_authorization_header(tmp_path: Path) -> None:
    with fake_model([completion("ok")]) as model:
        complete(settings_for(tmp_path, model.url, llm_key=None), MESSAGES)
    assert "authorization" not in model.seen[0].headers


def test_429_waits_as_retry_after_says_then_succeeds(tmp_path: Path) -> None:
    answers = [
        error(429, "Rate limit reached", "rate_limit_exceeded", **{"Retry-After": "1"}),
        completion("ok"),
    ]
    with fake_model(answers) as model:
        started = time.monotonic()
        reply = complete(settings_for(tmp_path, model.url, llm_retry_max=30), MESSAGES)
        waited = time.monotonic() - started
    assert reply.text == "ok"
    assert len(model.seen) == 2
    assert waited >= 1.0


def test_429_every_time_fails_saying_so_and_is_recorded(tmp_path: Path, sqlite_store: SqliteStore) -> None:
    answers = [error(429, "Rate limit reached", "rate_limit_exceeded", **{"Retry-After": "0"})] * 3
    with fake_model(answers) as model, pytest.raises(ModelError) as failed:
        complete(settings_for(tmp_path, model.url, llm_retries=2), MESSAGES, store=sqlite_store)
    assert str(failed.value).startswith("the endpoint answered 429 three times")
    assert len(model.seen) == 3
    (failure,) = sqlite_store.llm_failures()
    assert failure.model == "deepseek-chat"
    assert failure.reason == str(failed.value)
    assert sqlite_store.llm_usage(client._today()) == []


def test_500_is_retried_and_then_answered(tmp_path: Path) -> None:
    answers = [
        error(500, "The server had an error", "server_error"),
        error(503, "overloaded", "server_error"),
    ]
    with fake_model([*answers, completion("fine")]) as model:
        assert complete(settings_for(tmp_path, model.url), MESSAGES).text == "fine"
    assert len(model.seen) == 3


def test_500_every_time_fails_with_the_servers_reason(tmp_path: Path) -> None:
    failing = fake_model([error(500, "The server had an error", "server_error")] * 2)
    wanted = r"^the endpoint answered 500 twice: The server had an error$"
    with failing as model, pytest.raises(ModelError, match=wanted):
        complete(settings_for(tmp_path, model.url, llm_retries=1), MESSAGES)


@pytest.mark.parametrize(
    "message",
    [
        "Invalid max_tokens value, the valid range of max_tokens is [1, 8192]",  # DeepSeek
        "max_tokens: must be less than or equal to `8192`",
        "Range of max_tokens should be [1, 8192]",  # DashScope
        "max_tokens is too large: 9000. This model supports at most 8192 completion tokens, whereas you "
        "provided 9000.",  # OpenAI
    ],
)
def test_a_400_naming_the_max_tokens_limit_is_retried_once_within_it_and_remembered(
    tmp_path: Path, message: str
) -> None:
    with fake_model([error(400, message), completion("ok"), completion("again")]) as model:
        s = settings_for(tmp_path, model.url)
        assert complete(s, MESSAGES, max_tokens=9000).text == "ok"
        assert complete(s, MESSAGES, max_tokens=9000).text == "again"
    assert [seen.body["max_tokens"] for seen in model.seen] == [9000, 8192, 8192]


def test_a_second_400_is_not_retried_again(tmp_path: Path) -> None:
    limit = "Invalid max_tokens value, the valid range of max_tokens is [1, 4096]"
    answers = [error(400, limit), error(400, "Invalid max_tokens value, still wrong [1, 100]")]
    wanted = r"^the endpoint answered 400: Invalid max_tokens value, still"
    with fake_model(answers) as model, pytest.raises(ModelError, match=wanted):
        complete(settings_for(tmp_path, model.url), MESSAGES, max_tokens=5000)
    assert len(model.seen) == 2


def test_other_400s_fail_at_once_with_the_reason(tmp_path: Path) -> None:
    wanted = r"^the endpoint answered 400: Model Not Exist$"
    with fake_model([error(400, "Model Not Exist")]) as model, pytest.raises(ModelError, match=wanted):
        complete(settings_for(tmp_path, model.url), MESSAGES)
    assert len(model.seen) == 1


@pytest.mark.parametrize(
    ("message", "asked", "limit"),
    [
        ("Invalid max_tokens value, the valid range of max_tokens is [1, 8192]", 10000, 8192),
        ("max_tokens must be less than or equal to `8192`", 10000, 8192),
        ("<400> InternalError.Algo.InvalidParameter: Range of max_tokens should be [1, 8192]", 9000, 8192),
        ("max_tokens is too large: 6000. This model supports at most 4096 completion tokens", 6000, 4096),
        (
            "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens "
            "(100 in the messages, 2000 in the completion).",
            2000,
            1948,
        ),
        (
            "'max_tokens' or 'max_completion_tokens' is too large: 64000. This model's maximum context "
            "length is 64001 tokens and your request has 24235 input tokens (64000 > 64001 - 24235).",
            64000,
            39766,
        ),
        (
            "The parameter max_tokens specified in the request is not valid: integer above maximum value, "
            "expected a value <= 32768, but got 64000 instead.",
            64000,
            32768,
        ),
        ("Invalid max_tokens value, the valid range of max_tokens is [1, 8192]", 512, None),  # not about it
        ("Model Not Exist", 10000, None),
        ("messages: field required", 10000, None),
    ],
)
def test_token_limit_reads_each_providers_wording(message: str, asked: int, limit: int | None) -> None:
    assert token_limit(message, asked) == limit


def test_llm_max_tokens_caps_what_is_asked(tmp_path: Path) -> None:
    with fake_model([completion("ok")]) as model:
        complete(settings_for(tmp_path, model.url, llm_max_tokens=100), MESSAGES, max_tokens=4000)
    assert model.seen[0].body["max_tokens"] == 100


def test_a_stream_yields_its_deltas_and_counts_usage(tmp_path: Path, sqlite_store: SqliteStore) -> None:
    with fake_model([stream_of(["Hel", "lo", ", 世界"])]) as model:
        parts = list(stream(settings_for(tmp_path, model.url), MESSAGES, store=sqlite_store))
    assert parts == ["Hel", "lo", ", 世界"]
    body = model.seen[0].body
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert model.seen[0].headers["authorization"] == f"Bearer {KEY}"
    (usage,) = sqlite_store.llm_usage(client._today())
    assert (usage.prompt_tokens, usage.completion_tokens) == (20, 3)


def test_a_stream_without_usage_is_counted_by_estimate(tmp_path: Path, sqlite_store: SqliteStore) -> None:
    with fake_model([stream_of(["a" * 40], usage=False)]) as model:
        assert "".join(stream(settings_for(tmp_path, model.url), MESSAGES, store=sqlite_store)) == "a" * 40
    (usage,) = sqlite_store.llm_usage(client._today())
    assert usage.completion_tokens == 11  # 40 characters / 4 + 1


def test_a_stream_cut_halfway_fails_as_cut(tmp_path: Path, sqlite_store: SqliteStore) -> None:
    got: list[str] = []
    cut = fake_model([stream_of(["The ", "method ", "works"], cut_after=2)])
    with cut as model, pytest.raises(ModelError, match=r"^the stream was cut after 11 characters") as failed:
        for part in stream(settings_for(tmp_path, model.url), MESSAGES, store=sqlite_store):
            got.append(part)
    assert got == ["The ", "method "]
    assert [f.reason for f in sqlite_store.llm_failures()] == [str(failed.value)]
    assert sqlite_store.llm_usage(client._today()) == []


def test_a_stream_that_ends_early_without_finishing_is_cut_too(tmp_path: Path) -> None:
    cut = stream_of(["half"], cut_after=1)
    cut.cut = False  # a clean end of the body, but no finish_reason and no [DONE]
    with (
        fake_model([cut]) as model,
        pytest.raises(ModelError, match=r"^the stream was cut after 4 characters$"),
    ):
        list(stream(settings_for(tmp_path, model.url), MESSAGES))


def test_a_stream_retries_a_429_before_it_starts(tmp_path: Path) -> None:
    with fake_model([error(429, "slow down", **{"Retry-After": "0"}), stream_of(["ok"])]) as model:
        assert list(stream(settings_for(tmp_path, model.url), MESSAGES)) == ["ok"]
    assert len(model.seen) == 2


def test_a_slow_endpoint_times_out(tmp_path: Path, sqlite_store: SqliteStore) -> None:
    slow = completion("late")
    slow.delay = 2.0
    with fake_model([slow]) as model, pytest.raises(ModelError, match=r"^timed out after 0.5 s$"):
        complete(settings_for(tmp_path, model.url, llm_timeout=0.5), MESSAGES, store=sqlite_store)
    assert [f.reason for f in sqlite_store.llm_failures()] == ["timed out after 0.5 s"]


def test_an_unreachable_endpoint_fails_after_its_retries(tmp_path: Path) -> None:
    with fake_model([]) as model:
        url = model.url
    with pytest.raises(ModelError, match=r"^could not reach 127\.0\.0\.1:\d+ \(ConnectError, twice\)$"):
        complete(settings_for(tmp_path, url, llm_retries=1), MESSAGES)


def test_the_key_never_follows_a_redirect(tmp_path: Path) -> None:
    with fake_model([completion("elsewhere")]) as other:
        moved = Answer(status=307, body={}, headers={"Location": f"{other.url}/chat/completions"})
        with fake_model([moved]) as model, pytest.raises(ModelError, match=r"^the endpoint answered 307"):
            complete(settings_for(tmp_path, model.url), MESSAGES)
    assert other.seen == []


def test_the_key_is_in_no_error_log_or_repr(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    echo = error(401, f"Incorrect API key provided: {KEY}", "invalid_api_key")
    with fake_model([echo, error(500, f"upstream rejected {KEY}", "server_error")] * 2) as model:
        s = settings_for(tmp_path, model.url, llm_retries=1)
        with pytest.raises(ModelError) as unauthorized:
            complete(s, MESSAGES)
        with pytest.raises(ModelError) as broken:
            list(stream(s, MESSAGES))
    assert str(unauthorized.value) == "the endpoint answered 401: Incorrect API key provided: **********"
    assert KEY not in str(broken.value)
    assert model.seen[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in caplog.text
    assert KEY not in repr(s) and KEY not in str(s)
    assert KEY not in repr(client.endpoint(s))


def test_the_daily_budget_stops_calls_before_they_are_made(tmp_path: Path, sqlite_store: SqliteStore) -> None:
    sqlite_store.add_llm_usage(client._today(), "deepseek-chat", 80, 20)
    with fake_model([completion("never")]) as model:
        s = settings_for(tmp_path, model.url, llm_daily_tokens=100)
        with pytest.raises(ModelError, match=r"^daily token budget of 100 reached$"):
            complete(s, MESSAGES, store=sqlite_store)
        with pytest.raises(ModelError, match=r"^daily token budget of 100 reached$"):
            list(stream(s, MESSAGES, store=sqlite_store))
    assert model.seen == []
    assert client.tokens_today(sqlite_store) == 100


def test_the_budget_leaves_calls_under_it_alone(tmp_path: Path, sqlite_store: SqliteStore) -> None:
    sqlite_store.add_llm_usage(client._today(), "other", 50, 0)
    with fake_model([completion("ok")]) as model:
        complete(settings_for(tmp_path, model.url, llm_daily_tokens=100), MESSAGES, store=sqlite_store)
    assert client.tokens_today(sqlite_store) == 50 + 12 + 5


def test_concurrency_is_limited_per_process(tmp_path: Path) -> None:
    import threading

    slow = [completion(str(n)) for n in range(4)]
    for answer in slow:
        answer.delay = 0.3
    with fake_model(slow) as model:
        s = settings_for(tmp_path, model.url, llm_concurrency=1)
        started = time.monotonic()
        threads = [threading.Thread(target=complete, args=(s, MESSAGES)) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.monotonic() - started
    assert len(model.seen) == 4
    assert took >= 1.2  # one at a time: 4 x 0.3 s


def test_nothing_configured_is_a_clear_error(tmp_path: Path) -> None:
    s = Settings(home=tmp_path, llm_url=None, llm_local=False)
    assert not client.available(s)
    assert client.model_name(s) == "default"
    with pytest.raises(ModelError, match="no language model is configured: set PAPERSIFT_LLM_URL"):
        complete(s, MESSAGES)


def test_model_name_is_the_configured_one_or_the_local_gguf_files(tmp_path: Path) -> None:
    assert client.model_name(Settings(home=tmp_path, llm_url="http://127.0.0.1:1/v1", llm_model="x")) == "x"
    local_gguf = Settings(home=tmp_path, llm_local=True, llm_gguf=tmp_path / "qwen2.5-0.5b-q4.gguf")
    assert client.model_name(local_gguf) == "qwen2.5-0.5b-q4"
    assert not client.available(Settings(home=tmp_path, llm_local=True))  # no GGUF named: nothing to serve
    assert client.available(Settings(home=tmp_path, llm_url="http://127.0.0.1:1/v1"))


def test_a_reasoning_models_thoughts_are_left_out(tmp_path: Path) -> None:
    with fake_model([completion("<think>the user wants hi</think>\n\nHi.")]) as model:
        assert complete(settings_for(tmp_path, model.url), MESSAGES).text == "Hi."


def test_a_long_retry_after_is_capped_by_llm_retry_max(tmp_path: Path) -> None:
    answers = [error(429, "Rate limit reached", **{"Retry-After": "3600"}), completion("ok")]
    with fake_model(answers) as model:
        started = time.monotonic()
        complete(settings_for(tmp_path, model.url, llm_retry_max=0.2), MESSAGES)
    assert time.monotonic() - started < 5


def test_retry_after_is_read_as_seconds_or_an_http_date_within_llm_retry_max() -> None:
    from email.utils import format_datetime

    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert retry_after_seconds("7", cap=60.0) == 7.0
    assert 20 < (retry_after_seconds(soon, cap=60.0) or 0) <= 30
    assert retry_after_seconds(soon, cap=5.0) == 5.0  # the model's cap, the same reading as arXiv's
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", cap=60.0) == 0.0  # past: no wait
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


def test_calls_share_one_pooled_client_and_reuse_its_connection(tmp_path: Path) -> None:
    with fake_model([completion("one"), completion("two"), stream_of(["three"])]) as model:
        s = settings_for(tmp_path, model.url)
        pooled = client._PROCESS.http(s)
        assert complete(s, MESSAGES).text == "one"
        assert complete(s, MESSAGES).text == "two"
        assert "".join(stream(s, MESSAGES)) == "three"
        assert client._PROCESS.http(s) is pooled
    ports = [seen.port for seen in model.seen]
    assert ports[0] and ports == [ports[0]] * 3  # one connection, kept alive from call to call
