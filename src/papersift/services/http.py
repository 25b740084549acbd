"""The one HTTP policy for every outside service papersift calls: arXiv (OAI-PMH, the API, the feeds,
e-prints), Semantic Scholar, Zotero, the language model, and the retries of pushes and mail.

- ``client`` makes the ``httpx.Client`` a service keeps for its run: papersift's User-Agent, a request
  timeout with the connect time capped at ``CONNECT_TIMEOUT`` (a host that takes longer is not there), and
  the redirect and proxy choices the caller states.
- ``retry_after_seconds`` reads a ``Retry-After`` header (seconds or an HTTP date), never below 0 s and never
  above the caller's cap.
- ``retrying`` is the one retry loop, tenacity's: an attempt that raises ``Retry`` is tried again after the
  ``Retry-After`` it carries, else ``first``, 2×``first``, 4×``first``… seconds, never longer than ``cap``;
  anything else it raises ends the loop at once. ``tries`` counts every attempt; ``gave_up`` reads how many
  were made once the last ``Retry`` is raised.

Which statuses are worth another try is the same everywhere (``RETRY_STATUSES``); what each service does
with an answer (arXiv's pacing per host, Zotero's ``Backoff``, a model's token limit) stays with it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

import httpx
import tenacity

from papersift.settings import Settings

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_WAIT = 600.0  # seconds: the longest Retry-After or backoff any service honours
CONNECT_TIMEOUT = 5.0  # seconds to open a connection

T = TypeVar("T")


class Retry(Exception):
    """An answer worth another try: why (for the log and the final message) and the ``Retry-After`` the
    server gave, if any."""

    def __init__(self, why: str, retry_after: str | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.retry_after = retry_after


def client(
    settings: Settings,
    *,
    timeout: float | None = None,
    headers: Mapping[str, str] | None = None,
    follow_redirects: bool = True,
    trust_env: bool = True,
    transport: httpx.BaseTransport | None = None,
    limits: httpx.Limits | None = None,
) -> httpx.Client:
    """The ``httpx.Client`` a service keeps for its run: papersift's User-Agent (then ``headers``), a
    ``timeout`` (default ``settings.timeout``) whose connect part is at most ``CONNECT_TIMEOUT``."""
    seconds = settings.timeout if timeout is None else timeout
    return httpx.Client(
        headers={"User-Agent": settings.user_agent, **(headers or {})},
        timeout=httpx.Timeout(seconds, connect=min(CONNECT_TIMEOUT, seconds)),
        follow_redirects=follow_redirects,
        trust_env=trust_env,
        transport=transport,
        limits=limits or httpx.Limits(max_connections=64, max_keepalive_connections=16),
    )


def retry_after_seconds(
    value: str | None, now: datetime | None = None, cap: float = MAX_WAIT
) -> float | None:
    """Seconds to wait for a ``Retry-After`` value (seconds or an HTTP date), within 0 … ``cap``; None for
    no value or one that is neither."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds:  # "nan"
        return None
    return min(max(seconds, 0.0), cap)


class _Wait(tenacity.wait.wait_base):
    """The wait before another try: what the ``Retry`` asked, else ``first`` doubled per try; at most
    ``cap``."""

    def __init__(self, first: float, cap: float) -> None:
        self.first, self.cap = first, cap

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        error = retry_state.outcome.exception() if retry_state.outcome else None
        asked = retry_after_seconds(error.retry_after, cap=self.cap) if isinstance(error, Retry) else None
        if asked is not None:
            return asked
        doublings = int(retry_state.attempt_number) - 1
        return min(self.first * 2.0**doublings, self.cap)


def retrying(
    tries: int,
    *,
    first: float,
    cap: float = MAX_WAIT,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[Retry, int, float], None] | None = None,
) -> tenacity.Retrying:
    """A retry loop of at most ``tries`` attempts: ``Retry`` is tried again after its wait (see the
    module), anything else is raised at once, and the last ``Retry`` is raised as it is. ``on_retry`` hears
    each retry before its wait: the ``Retry``, the attempt that failed (1, 2…) and the seconds to wait."""

    def before_sleep(state: tenacity.RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        if on_retry and isinstance(error, Retry):
            on_retry(error, state.attempt_number, state.upcoming_sleep)

    return tenacity.Retrying(
        retry=tenacity.retry_if_exception_type(Retry),
        stop=tenacity.stop_after_attempt(max(1, tries)),
        wait=_Wait(first, cap),
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )


def attempts_made(loop: tenacity.Retrying) -> int:
    """How many attempts ``loop`` made in its last run."""
    return int(loop.statistics.get("attempt_number", 1))
