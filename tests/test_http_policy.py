"""The one HTTP policy (``services/http.py``) every outside service uses: one retry loop whose waits are the
server's ``Retry-After`` (read one way, capped by the caller) or a doubling backoff, which gives up after its
tries with the last reason, and never retries what is not worth it. The services' own tests (arXiv, Zotero,
the model, pushes) run it against local servers; here its arithmetic, with the sleeps recorded."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from papersift.services import http
from papersift.settings import Settings


def _answers(*outcomes: str | None) -> tuple[list[str], Callable[[], str]]:
    """An attempt that raises ``Retry`` for each reason given (``"why|retry-after"``), then succeeds."""
    left = list(outcomes)
    calls: list[str] = []

    def attempt() -> str:
        calls.append("try")
        outcome = left.pop(0) if left else None
        if outcome is None:
            return "answer"
        why, _, after = outcome.partition("|")
        raise http.Retry(why, after or None)

    return calls, attempt


def test_waits_are_the_retry_after_asked_else_a_doubling_backoff_within_the_cap() -> None:
    slept: list[float] = []
    heard: list[tuple[str, int, float]] = []
    calls, attempt = _answers("503", "429|7", "503", "429|3600")
    loop = http.retrying(
        6, first=1.5, cap=60.0, sleep=slept.append, on_retry=lambda r, n, w: heard.append((r.why, n, w))
    )
    assert loop(attempt) == "answer"
    assert slept == [1.5, 7.0, 6.0, 60.0]
    assert heard == [("503", 1, 1.5), ("429", 2, 7.0), ("503", 3, 6.0), ("429", 4, 60.0)]
    assert len(calls) == 5 and http.attempts_made(loop) == 5


def test_the_last_retry_is_raised_after_every_try_with_its_reason() -> None:
    slept: list[float] = []
    calls, attempt = _answers("HTTP 503", "HTTP 502", "HTTP 500")
    loop = http.retrying(3, first=0.5, sleep=slept.append)
    with pytest.raises(http.Retry, match="HTTP 500"):
        loop(attempt)
    assert slept == [0.5, 1.0] and len(calls) == 3 and http.attempts_made(loop) == 3


def test_an_answer_not_worth_a_retry_ends_the_loop_at_once() -> None:
    slept: list[float] = []
    tries = []

    def refused() -> None:
        tries.append(1)
        raise ValueError("HTTP 404")

    with pytest.raises(ValueError, match="404"):
        http.retrying(5, first=1.0, sleep=slept.append)(refused)
    assert tries == [1] and slept == []


def test_every_client_names_papersift_and_caps_its_connect_time() -> None:
    settings = Settings(user_agent="papersift-test/1 (lab)", timeout=60.0)
    with http.client(settings, headers={"Zotero-API-Version": "3"}, follow_redirects=False) as c:
        assert c.headers["User-Agent"] == "papersift-test/1 (lab)"
        assert c.headers["Zotero-API-Version"] == "3"
        assert c.timeout.read == 60.0 and c.timeout.connect == http.CONNECT_TIMEOUT
        assert not c.follow_redirects
    with http.client(settings, timeout=2.0) as quick:
        assert quick.timeout.connect == 2.0 and quick.follow_redirects
