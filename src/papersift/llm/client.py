"""The one model client: OpenAI-compatible ``POST {base}/chat/completions`` over httpx, streamed (SSE) or not.

The settings alone say where it goes: ``llm_url``, ``llm_model`` and ``llm_key``, or, with no ``llm_url`` and
``llm_local`` on, the local default model (``local.py``), started on 127.0.0.1 on first use and called
through this same HTTP code. Every call gets:

- the key as a Bearer token to ``llm_url`` only (redirects are not followed), never in an error, a log line,
  a repr or the store;
- a timeout (``llm_timeout``) and at most ``llm_concurrency`` requests in flight per process;
- retries of a 429, a 5xx or an unreachable endpoint (``llm_retries``), after ``Retry-After`` or 1, 2, 4… s,
  never waiting longer than ``llm_retry_max``;
- ``max_tokens`` kept within what the provider accepts: a 400 whose message names its limit is retried once
  within it, and the limit is remembered for the rest of the process (``llm_max_tokens`` caps it too);
- the daily token budget (``llm_daily_tokens``, all models, UTC days), counted in the store when one is given,
  where each failure is recorded too (``papersift llm status`` lists both).

A call that fails raises ``ModelError`` with a message (``records/messages.py``: its English one line a
reader can be shown, and in the reader's language where a face says it).

Kept libraries and the one HTTP policy (``services/http.py``) do the generic parts: one pooled
``httpx.Client`` per process (connections reused across calls and threads; made again in a forked child),
tenacity's retry loop (its wait reads ``Retry-After``, capped at ``llm_retry_max``), ``httpx-sse`` for the
event stream. What stays here is what those do not know: which
answers are worth a retry, the ``max_tokens`` narrowing, the budget and the one-line wording of failures
(reading what an endpoint answers, an error's reason included, is ``answers.py``'s).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

import httpx
import orjson
from pydantic import SecretStr

from papersift.llm import answers
from papersift.llm.errors import ModelError
from papersift.records.messages import Arg, Message, counted, reason, say
from papersift.services import http

if TYPE_CHECKING:
    from papersift.settings import Settings
    from papersift.store import Store

log = logging.getLogger(__name__)

DEFAULT_MODEL = "default"  # what an endpoint is asked for when PAPERSIFT_LLM_MODEL is unset
_CONNECT_TIMEOUT = 10.0
_FIRST_WAIT = 1.0  # seconds before the first retry when the endpoint gives no Retry-After


@dataclass(frozen=True)
class Reply:
    """A completed answer: its text, the model that wrote it (as configured) and the tokens it used."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class Endpoint:
    """Where a call goes: the base URL (no trailing slash), the model asked for, and the key (not shown)."""

    url: str
    model: str
    key: SecretStr | None = field(default=None, repr=False)


def available(settings: Settings) -> bool:
    """True when an endpoint is configured, or the local model is on, its runtime installed (the ``[llm]``
    extra) and its GGUF file named."""
    if settings.llm_url:
        return True
    from papersift.llm import local

    return settings.llm_local and local.ready(settings)


def model_name(settings: Settings) -> str:
    """The model texts are written by (storage keys, "by"): the configured one, or the local default's."""
    if settings.llm_url:
        return settings.llm_model or DEFAULT_MODEL
    if settings.llm_local:
        from papersift.llm import local

        return local.model_name(settings)
    return settings.llm_model or DEFAULT_MODEL


def endpoint(settings: Settings) -> Endpoint:
    """The endpoint of this configuration; for the local default, its server (started if it is not up)."""
    if settings.llm_url:
        return Endpoint(settings.llm_url.rstrip("/"), model_name(settings), settings.llm_key)
    if settings.llm_local:
        from papersift.llm import local

        return Endpoint(local.ensure(settings), model_name(settings), None)
    raise ModelError(say("model_none"))


def complete(
    settings: Settings,
    messages: Sequence[Mapping[str, str]],
    *,
    max_tokens: int = 512,
    temperature: float = 0.2,
    store: Store | None = None,
) -> Reply:
    """One chat completion, not streamed; its tokens are counted in ``store`` when given (and a failure
    recorded there). Raises ``ModelError``."""
    with _call(settings, messages, max_tokens, temperature, store, stream=False) as (ep, response):
        try:
            data = orjson.loads(response.read())
        except httpx.TimeoutException as e:
            raise ModelError(say("model_timeout", seconds=f"{settings.llm_timeout:g}")) from e
        except (httpx.TransportError, orjson.JSONDecodeError) as e:
            raise ModelError(say("model_not_json", kind=type(e).__name__)) from e
        usage = data.get("usage") if isinstance(data, dict) else None
        reply = _reply_from(ep, messages, answers.completion_text(data), usage)
    _count(store, reply)
    return reply


def stream(
    settings: Settings,
    messages: Sequence[Mapping[str, str]],
    *,
    max_tokens: int = 1024,
    temperature: float = 0.2,
    store: Store | None = None,
) -> Iterator[str]:
    """The text of a chat completion as it arrives, delta by delta; tokens counted in ``store`` when the
    stream ends. Raises ``ModelError`` (also when the stream is cut halfway: what was yielded is partial)."""
    parts: list[str] = []
    usage: Mapping[str, Any] | None = None
    with _call(settings, messages, max_tokens, temperature, store, stream=True) as (ep, response):
        for chunk in answers.events(settings, response, parts):
            usage = answers.usage_of(chunk) or usage
            delta = answers.delta(chunk)
            if delta:
                parts.append(delta)
                yield delta
    _count(store, _reply_from(ep, messages, "".join(parts), usage))


@contextmanager
def _call(
    settings: Settings,
    messages: Sequence[Mapping[str, str]],
    max_tokens: int,
    temperature: float,
    store: Store | None,
    *,
    stream: bool,
) -> Iterator[tuple[Endpoint, httpx.Response]]:
    """A call's endpoint and its 200 response (open), within the daily budget and a slot; a ``ModelError``
    on the way there, or in the ``with`` block, is recorded in ``store`` (when given) and raised."""
    try:
        _check_budget(settings, store)
        ep = endpoint(settings)
        body = _body(settings, ep, messages, max_tokens, temperature, stream=stream)
        with _PROCESS.slot(settings), _response(settings, ep, body) as response:
            yield ep, response
    except ModelError as e:
        _record_failure(store, model_name(settings), e)
        raise


def tokens_today(store: Store) -> int:
    """Tokens (prompt and completion, every model) counted today (UTC) in ``store``."""
    return sum(u.prompt_tokens + u.completion_tokens for u in store.llm_usage(_today()))


def token_limit(message: str, asked: int) -> int | None:
    """The ``max_tokens`` a provider's 400 message says it accepts, when it names one below ``asked``.

    Wordings met: OpenAI ("max_tokens is too large: 100000. This model supports at most 16384 completion
    tokens"), DeepSeek ("Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"), DashScope
    ("Range of max_tokens should be [1, 8192]"), the "must be less than or equal to `8192`" style, Volcengine
    ("expected a value <= 32768"), and the context-window ones of vLLM and llama.cpp ("maximum context length
    is 2048 tokens. However, you requested 2100 tokens (100 in the messages, 2000 in the completion)", "…
    is 64001 tokens and your request has 24235 input tokens")."""
    lowered = message.lower()
    if not any(w in lowered for w in ("max_tokens", "max_completion_tokens", "completion tokens", "context")):
        return None
    context = re.search(
        r"context length is (\d+) tokens.*?\((\d+) in the messages", lowered, re.S
    ) or re.search(r"context length is (\d+) tokens and your request has (\d+) input tokens", lowered)
    if context:
        limit = int(context.group(1)) - int(context.group(2))
    else:
        found = re.search(
            r"less than or equal to\D{0,3}(\d+)|<=\s*(\d+)|\[\s*\d+\s*,\s*(\d+)\s*\]|at most (\d+)|"
            r"maximum (?:value )?(?:is |of )?(\d+)",
            lowered,
        )
        if not found:
            return None
        limit = int(next(g for g in found.groups() if g))
    return limit if 0 < limit < asked else None


class _Process:
    """The client's one piece of process state: the pooled HTTP client, a semaphore per endpoint and
    concurrency, and the ``max_tokens`` limits providers have named (per endpoint and model)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slots: dict[tuple[str, int], threading.BoundedSemaphore] = {}
        self._limits: dict[tuple[str, str], int] = {}
        self._http: httpx.Client | None = None
        self._pid = 0

    def http(self, settings: Settings) -> httpx.Client:
        """The process's one ``httpx.Client`` (``services/http.client``, made on first use, and again in a
        forked child, whose inherited connections are its parent's): no proxies from the environment, no
        redirects followed; each request brings its own timeout and headers."""
        with self._lock:
            if self._http is None or self._pid != os.getpid():
                self._http = http.client(settings, follow_redirects=False, trust_env=False)
                self._pid = os.getpid()
            return self._http

    @contextmanager
    def slot(self, settings: Settings) -> Iterator[None]:
        key = (settings.llm_url or "local", settings.llm_concurrency)
        with self._lock:
            semaphore = self._slots.setdefault(key, threading.BoundedSemaphore(settings.llm_concurrency))
        with semaphore:
            yield

    def limit(self, ep: Endpoint) -> int | None:
        with self._lock:
            return self._limits.get((ep.url, ep.model))

    def learn(self, ep: Endpoint, limit: int) -> None:
        with self._lock:
            self._limits[(ep.url, ep.model)] = limit


_PROCESS = _Process()


def _body(
    settings: Settings,
    ep: Endpoint,
    messages: Sequence[Mapping[str, str]],
    max_tokens: int,
    temperature: float,
    *,
    stream: bool,
) -> dict[str, Any]:
    if max_tokens < 1:
        raise ModelError(f"max_tokens must be at least 1 (got {max_tokens})")
    body: dict[str, Any] = {
        "model": ep.model,
        "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
        "max_tokens": min(max_tokens, settings.llm_max_tokens or max_tokens),
        "temperature": temperature,
        "stream": stream,
    }
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def _headers(ep: Endpoint) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": "papersift/0.1"}
    if ep.key is not None and ep.key.get_secret_value():
        headers["Authorization"] = f"Bearer {ep.key.get_secret_value()}"
    return headers


class _Retry(http.Retry):
    """An answer worth another try (a 429, a 5xx, an endpoint not reached), with the failure's message once
    no try is left (given ``times``: how many were made)."""

    def __init__(self, why: str, failure: Callable[..., Message], retry_after: str | None = None) -> None:
        super().__init__(why, retry_after)
        self.failure = failure


@contextmanager
def _response(settings: Settings, ep: Endpoint, body: dict[str, Any]) -> Iterator[httpx.Response]:
    """The endpoint's 200 response to ``body`` (not yet read), after the retries the module describes."""
    timeout = httpx.Timeout(settings.llm_timeout, connect=min(_CONNECT_TIMEOUT, settings.llm_timeout))
    asked = body["max_tokens"]
    where = [ep]  # the local default may stop between tries: found or started again
    narrowed = [False]  # a 400 naming the limit is asked again within it once a call

    def attempt() -> httpx.Response:
        while True:
            learned = _PROCESS.limit(where[0])
            body["max_tokens"] = min(asked, learned) if learned else asked
            response, status, message = _send(settings, where[0], body, timeout)
            if response is not None:
                return response
            limit = token_limit(message, body["max_tokens"]) if status == 400 and not narrowed[0] else None
            if not limit:
                raise ModelError(_answered(status, message))
            log.info("%s accepts max_tokens up to %d: asking again within it", _where(where[0]), limit)
            _PROCESS.learn(where[0], limit)
            narrowed[0] = True

    def again(retry: http.Retry, attempt: int, wait: float) -> None:
        log.info("model call: %s; retrying in %.1f s", retry.why, wait)
        if not settings.llm_url:
            where[0] = endpoint(settings)

    loop = http.retrying(
        settings.llm_retries + 1, first=_FIRST_WAIT, cap=settings.llm_retry_max, on_retry=again
    )
    try:
        response = loop(attempt)
    except _Retry as e:
        raise ModelError(e.failure(times=_times(http.attempts_made(loop)))) from e
    try:
        yield response
    finally:
        response.close()


def _send(
    settings: Settings, ep: Endpoint, body: dict[str, Any], timeout: httpx.Timeout
) -> tuple[httpx.Response | None, int, str]:
    """One request on the pooled client: the 200 response (open), or the status and reason of an answer
    not worth a retry; ``_Retry`` for one that is, ``ModelError`` for a timeout."""
    pool = _PROCESS.http(settings)
    request = pool.build_request(
        "POST", f"{ep.url}/chat/completions", json=body, headers=_headers(ep), timeout=timeout
    )
    try:
        response = pool.send(request, stream=True, follow_redirects=False)
    except httpx.TimeoutException as e:
        raise ModelError(say("model_timeout", seconds=f"{settings.llm_timeout:g}")) from e
    except httpx.TransportError as e:
        kind = type(e).__name__
        failure = partial(say, "model_unreachable", where=_where(ep), kind=kind)
        raise _Retry(f"{kind} from {_where(ep)}", failure) from e
    if response.status_code == 200:
        return response, 200, ""
    status = response.status_code
    try:
        message = answers.error_message(response.read(), ep.key)
    except httpx.HTTPError:
        message = ""
    finally:
        response.close()
    if status == 429 or status >= 500:
        failure = partial(_answered, status, message)
        raise _Retry(f"{status} from {_where(ep)}", failure, response.headers.get("retry-after"))
    return None, status, message


def _reply_from(
    ep: Endpoint, messages: Sequence[Mapping[str, str]], text: str, usage: Mapping[str, Any] | None
) -> Reply:
    """The reply with the endpoint's token counts, estimated (4 characters a token) where it gave none."""
    prompt = _int(usage, "prompt_tokens")
    completion = _int(usage, "completion_tokens")
    if prompt is None:
        prompt = sum(len(m["content"]) for m in messages) // 4 + 1
    if completion is None:
        completion = len(text) // 4 + 1
    return Reply(text=text, model=ep.model, prompt_tokens=prompt, completion_tokens=completion)


def _int(usage: Mapping[str, Any] | None, key: str) -> int | None:
    value = usage.get(key) if usage else None
    return value if isinstance(value, int) and value >= 0 else None


def _check_budget(settings: Settings, store: Store | None) -> None:
    if store is None or not settings.llm_daily_tokens:
        return
    if tokens_today(store) >= settings.llm_daily_tokens:
        raise ModelError(say("model_budget", tokens=settings.llm_daily_tokens))


def _count(store: Store | None, reply: Reply) -> None:
    if store is not None:
        store.add_llm_usage(_today(), reply.model, reply.prompt_tokens, reply.completion_tokens)


def _record_failure(store: Store | None, model: str, error: ModelError) -> None:
    # the caller says the failure to the reader; a warning here would print it a second time (Python's
    # last-resort handler writes warnings to stderr where no logging is set up, as in the CLI)
    log.info("model call failed: %s", error)
    if store is not None:
        store.add_llm_failure(model, reason(error))


def _where(ep: Endpoint) -> str:
    url = httpx.URL(ep.url)
    return f"{url.host}:{url.port}" if url.port else str(url.host)


def _times(n: int) -> Message:
    return say("twice") if n == 2 else say("three_times") if n == 3 else counted("times", n)


def _answered(status: int, message: str, times: Message | None = None) -> Message:
    """The endpoint's answer that is not one: its status, how many times (when retried) and its reason."""
    args: dict[str, Arg] = {"status": status}
    if times is not None:
        args["times"] = times
    if message:
        args["message"] = message
    return say(
        "model_answered" + ("_times" if times is not None else "") + ("_saying" if message else ""), **args
    )


def _today() -> date:
    return datetime.now(UTC).date()
