"""The Zotero Web API v3 over httpx, for ``zotero_sync.py``: GETs with the key in the ``Zotero-API-Key``
header only (never in a URL or a message), a ``Backoff`` header honoured before the next request, a ``429`` /
``5xx`` retried after its ``Retry-After`` (else 1, 2, 4… s), dropped connections retried (the one HTTP
policy, ``services/http.py``), and a listing paged through the ``Link: rel="next"`` the API sends, followed
only on the same host.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from types import TracebackType
from urllib.parse import urlsplit

import httpx

from papersift.records.messages import say
from papersift.services import http
from papersift.settings import Settings
from papersift.sources.zotero import header_int

PAGE = 100  # the API's largest page


class ZoteroError(RuntimeError):
    """The Zotero API refused or failed for good (the message never holds the key; the common ones a typed
    message, ``records/messages.py``)."""


class ZoteroClient:
    """GETs of the Zotero Web API v3: the key in its header, ``Backoff`` and ``Retry-After`` honoured, 5xx and
    dropped connections retried (``settings.max_retries``); ``sleep`` injectable, ``requests`` counted."""

    def __init__(
        self,
        settings: Settings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        on_wait: Callable[[str], None] | None = None,
    ) -> None:
        self.settings = settings
        self.base = settings.zotero_url.rstrip("/")
        self.requests = 0
        self.waited = 0.0
        self._sleep, self._clock, self._on_wait = sleep, clock, on_wait
        self._not_before = 0.0
        headers = {"Zotero-API-Version": "3"}
        if settings.zotero_key is not None:
            headers["Zotero-API-Key"] = settings.zotero_key.get_secret_value()
        self._http = http.client(settings, headers=headers, follow_redirects=False)

    def __enter__(self) -> ZoteroClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._http.close()

    def _wait(self, seconds: float, why: str) -> None:
        seconds = min(max(seconds, 0.0), http.MAX_WAIT)
        if seconds > 0:
            if self._on_wait:
                self._on_wait(f"zotero: {why}; waiting {seconds:g} s")
            self.waited += seconds
            self._sleep(seconds)

    def get(
        self,
        url: str,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """GET ``url`` (a path under the base URL, or a full URL on its host); 200 and 304 are answers."""
        if not url.startswith(("http://", "https://")):
            url = self.base + url
        elif urlsplit(url).netloc != urlsplit(self.base).netloc:
            raise ZoteroError(say("zotero_not_followed", url=url, host=urlsplit(self.base).netloc))
        shown = url.split("?")[0]
        tried = 0

        def attempt() -> httpx.Response:
            nonlocal tried
            self._wait(self._not_before - self._clock(), "the server asked to back off")
            self.requests += 1
            tried += 1
            try:
                response = self._http.get(url, params=params, headers=headers)
            except httpx.TransportError as e:
                problem = type(e).__name__
                if tried == 1 and isinstance(e, httpx.ConnectError | httpx.ConnectTimeout):
                    raise ZoteroError(say("offline", host=urlsplit(self.base).netloc, problem=problem)) from e
                raise http.Retry(problem) from e
            backoff = header_int(response.headers, "Backoff")
            if backoff:
                self._not_before = self._clock() + backoff
            status = response.status_code
            if status in (200, 304):
                return response
            problem = f"HTTP {status}"
            if status == 403:
                raise ZoteroError(say("zotero_key_refused", url=shown))
            if status not in http.RETRY_STATUSES:
                answer = response.text[:200].strip()
                raise ZoteroError(say("http_refused", url=shown, problem=problem, answer=answer))
            raise http.Retry(problem, response.headers.get("Retry-After"))

        def heard(retry: http.Retry, attempt: int, wait: float) -> None:
            self.waited += wait
            if self._on_wait and wait > 0:
                self._on_wait(f"zotero: {shown}: {retry.why}; waiting {wait:g} s")

        loop = http.retrying(self.settings.max_retries + 1, first=1.0, sleep=self._sleep, on_retry=heard)
        try:
            return loop(attempt)
        except http.Retry as e:
            attempts = http.attempts_made(loop)
            raise ZoteroError(say("gave_up", url=shown, problem=e.why, attempts=attempts)) from e

    def pages(
        self, path: str, params: Mapping[str, str | int], headers: Mapping[str, str] | None = None
    ) -> Iterator[httpx.Response]:
        """Every page of a listing: ``start``/``limit``, then the ``Link: rel="next"`` each page names."""
        url: str | None = path
        query: Mapping[str, str | int] | None = {**params, "limit": PAGE, "start": 0}
        while url:
            response = self.get(url, query, headers)
            yield response
            if response.status_code == 304:
                return
            url, query = response.links.get("next", {}).get("url"), None
