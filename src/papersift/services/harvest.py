"""Polite, resumable fetching from arXiv's real interfaces: OAI-PMH, the query API, the RSS feeds.

``ArxivClient`` owns the HTTP side: one request per ``settings.request_interval`` per service
(host), and the one HTTP policy of ``services/http.py`` (a descriptive User-Agent, retries with
exponential backoff on 429/5xx and dropped connections, ``Retry-After``). The functions below it turn
responses into stored papers: ``harvest_oai`` stores each ListRecords page together with its checkpoint in
one transaction, so a run killed at any instant resumes from the last stored page. Progress goes out
through callbacks; nothing here prints.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from datetime import UTC, date, datetime
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import httpx

from papersift.records.messages import say
from papersift.records.paper import InvalidIdError, Paper, Parsed, RecordError, normalize_id
from papersift.services import http
from papersift.services.ingest import ListedDays
from papersift.settings import Settings
from papersift.sources.atom import parse_atom_page
from papersift.sources.oai import parse_oai_page
from papersift.sources.rss import feed_day, parse_feed
from papersift.store import IngestCounts, Store
from papersift.store.records import FetchedDay

API_BATCH = 100  # ids per id_list request
MAX_TOKEN_RESTARTS = 2  # fresh restarts after badResumptionToken within one harvest

Params = Mapping[str, str | int]


class HarvestError(RuntimeError):
    """Fetching from arXiv failed for good (retries spent, or an error the service reported)."""


class ArxivClient:
    """An HTTP client that asks arXiv politely: paced per host, retrying, with a clear User-Agent.

    ``clock`` and ``sleep`` are injectable for tests; ``on_retry`` hears one line per retry.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        on_retry: Callable[[str], None] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.settings = settings
        self._clock = clock
        self._sleep = sleep
        self._on_retry = on_retry
        self._last: dict[str, float] = {}
        self._reached: set[str] = set()  # hosts that answered once: a failure to connect later is retried
        self._http = http.client(settings, transport=transport)

    def __enter__(self) -> ArxivClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _wait_turn(self, host: str) -> None:
        last = self._last.get(host)
        if last is None:
            return
        remaining = self.settings.request_interval - (self._clock() - last)
        if remaining > 0:
            self._sleep(remaining)

    def get(self, url: str, params: Params | None = None, *, ok: Collection[int] = (200,)) -> httpx.Response:
        """GET ``url`` and return the (fully read) response, whose status is in ``ok`` (``request``)."""
        return self.request("GET", url, params, ok=ok)

    def request(
        self,
        method: str,
        url: str,
        params: Params | None = None,
        *,
        ok: Collection[int] = (200,),
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        """Send ``method`` to ``url`` (a ``json`` body, more ``headers``) and return the (fully read)
        response, whose status is in ``ok``.

        Retries 429/500/502/503/504 and transport failures (dropped connection, timeout, short body)
        up to ``settings.max_retries`` times; any other status, or retries spent, is a HarvestError.
        A host never reached yet that refuses or cannot take a connection within ``CONNECT_TIMEOUT`` is
        an "offline: …" HarvestError at once (the one quick probe: no retries against no network).
        """
        host = urlsplit(url).netloc

        def attempt() -> httpx.Response:
            self._wait_turn(host)
            try:
                response = self._http.request(method, url, params=params, json=json, headers=headers)
            except (httpx.TransportError, httpx.DecodingError) as exc:
                problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                if host not in self._reached and isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
                    # the first contact could not even connect: offline (or no such host), not a hiccup
                    raise HarvestError(say("offline", host=host, problem=problem)) from exc
                raise http.Retry(problem) from exc
            finally:
                self._last[host] = self._clock()
            self._reached.add(host)
            if response.status_code in ok:
                return response
            problem = f"HTTP {response.status_code}"
            if response.status_code not in http.RETRY_STATUSES:
                answer = _snippet(response.content)
                raise HarvestError(say("http_refused", url=url, problem=problem, answer=answer))
            raise http.Retry(problem, response.headers.get("Retry-After"))

        def heard(retry: http.Retry, attempt: int, wait: float) -> None:
            if self._on_retry:
                retries = self.settings.max_retries
                self._on_retry(f"{host}: {retry.why}; retry {attempt}/{retries} in {wait:g} s")

        loop = http.retrying(
            self.settings.max_retries + 1,
            first=self.settings.request_interval,
            sleep=self._sleep,
            on_retry=heard,
        )
        try:
            return loop(attempt)
        except http.Retry as e:
            attempts = http.attempts_made(loop)
            raise HarvestError(say("gave_up", url=url, problem=e.why, attempts=attempts)) from e


def reachable(url: str, settings: Settings, timeout: float = http.CONNECT_TIMEOUT) -> bool:
    """One quick request to ``url``'s server, no retries: does it answer at all (any status)?"""
    try:
        with http.client(settings, timeout=timeout) as once:
            once.head(url)
    except httpx.HTTPError:
        return False
    return True


def _snippet(body: bytes, limit: int = 200) -> str:
    text = " ".join(body[:limit].decode("utf-8", "replace").split())
    return text or "(empty body)"


# --- OAI-PMH -------------------------------------------------------------------------------------


def oai_state_key(set_spec: str | None, metadata_prefix: str) -> str:
    """The state key of an OAI harvest's checkpoint: ``oai:<set>:<prefix>`` (``all`` for no set)."""
    return f"oai:{set_spec or 'all'}:{metadata_prefix}"


def _iso(d: date | None) -> str | None:
    return d.isoformat() if d else None


def _later(a: str | None, b: str | None) -> str | None:
    return max(x for x in (a, b) if x) if (a or b) else None


def harvest_oai(
    client: ArxivClient,
    store: Store,
    *,
    set_spec: str | None,
    from_date: date | None,
    until: date | None = None,
    metadata_prefix: str = "arXiv",
    on_page: Callable[[int, IngestCounts], None] | None = None,
) -> IngestCounts:
    """Harvest OAI-PMH ListRecords into ``store``, page by page, resumable at any instant.

    Each page's records are stored with the checkpoint (``oai_state_key``: JSON of ``token``,
    ``from``, ``until``, ``started``, ``next_from``) in one ``upsert``. A checkpoint with a token
    for the same request is resumed; an expired token restarts from ``from``. ``from_date=None``
    continues from the last completed harvest's ``next_from`` (or harvests everything).
    ``on_page(page, counts)`` hears each stored page (1-based within this run) with its counts.
    """
    url = client.settings.oai_url
    key = oai_state_key(set_spec, metadata_prefix)
    saved: dict[str, Any] = json.loads(store.get_state(key) or "{}")
    next_from: str | None = saved.get("next_from")
    start_from = _iso(from_date) or next_from
    token: str | None = None
    started: str | None = None  # date of the first response: the next run's ``from``
    same_request = saved.get("until") == _iso(until) and (
        from_date is None or saved.get("from") == start_from
    )
    if saved.get("token") and same_request:
        token, started, start_from = saved["token"], saved.get("started"), saved.get("from")

    fresh = {"verb": "ListRecords", "metadataPrefix": metadata_prefix, "from": start_from}
    fresh |= {"until": _iso(until), "set": set_spec}
    fresh_params = {k: v for k, v in fresh.items() if v}

    total = IngestCounts()
    page_no = restarts = 0
    while True:
        params = {"verb": "ListRecords", "resumptionToken": token} if token else fresh_params
        response = client.get(url, params, ok=(200, 400, 404, 422))
        page = parse_oai_page(response.content, url)
        checkpoint: dict[str, Any] = {
            "from": start_from,
            "until": _iso(until),
            "set": set_spec,
            "prefix": metadata_prefix,
            "started": started,
            "next_from": next_from,
        }
        if page.error is not None:
            code, message = page.error.code, page.error.message
            if code == "badResumptionToken" and token and restarts < MAX_TOKEN_RESTARTS:
                token, started, restarts = None, None, restarts + 1
                continue
            if code == "badXml":
                raise HarvestError(say("oai_bad_xml", url=url, status=response.status_code, message=message))
            if code != "noRecordsMatch":
                raise HarvestError(say("oai_error", url=url, code=code, message=message))
            page_items: list[Parsed] = []
            new_token = None
        else:
            page_items, new_token = list(page.items), page.resumption_token or None
        if started is None:
            started = (page.response_date or datetime.now(UTC).date()).isoformat()
            checkpoint["started"] = started
        if new_token:
            checkpoint |= {
                "token": new_token,
                "cursor": page.cursor,
                "complete_list_size": page.complete_list_size,
            }
        else:
            done = min(started, until.isoformat()) if until else started
            checkpoint |= {"token": None, "next_from": _later(next_from, done)}
        listed = ListedDays()
        counts = store.upsert(list(listed.seen(page_items, "oai")), state={key: json.dumps(checkpoint)})
        store.record_fetched(listed.days())
        total.add(counts)
        page_no += 1
        if on_page:
            on_page(page_no, counts)
        if not new_token:
            return total
        token = new_token


# --- query API -----------------------------------------------------------------------------------


def _api_page(client: ArxivClient, params: Params) -> tuple[list[Parsed], int | None]:
    url = client.settings.api_url
    page = parse_atom_page(client.get(url, params, ok=(200, 400)).content, url)
    if page.error is not None:
        raise HarvestError(say("arxiv_api_error", message=page.error.message))
    return list(page.items), page.total_results


def fetch_ids(
    client: ArxivClient,
    ids: list[str],
    *,
    on_batch: Callable[[int, int], None] | None = None,
) -> list[Parsed]:
    """Look papers up by id through the API (``id_list``, ≤ 100 a request), in the order asked.

    Ids that do not parse, or that arXiv does not know, come back as ``RecordError`` items.
    ``on_batch(done, total)`` hears progress in ids.
    """
    source = client.settings.api_url
    out: list[Parsed] = []
    wanted: list[str] = []
    for raw in ids:
        try:
            pid = normalize_id(raw)
        except InvalidIdError as exc:
            out.append(RecordError(source, raw, str(exc)))
            continue
        if pid not in wanted:
            wanted.append(pid)
    found: dict[str, Parsed] = {}
    for i in range(0, len(wanted), API_BATCH):
        batch = wanted[i : i + API_BATCH]
        params: Params = {"id_list": ",".join(batch), "start": 0, "max_results": len(batch)}
        items, _ = _api_page(client, params)
        for item in items:
            if isinstance(item, Paper):
                found[item.id] = item
            else:
                out.append(item)
        if on_batch:
            on_batch(i + len(batch), len(wanted))
    for pid in wanted:
        out.append(found.get(pid) or RecordError(source, pid, "not found on arXiv"))
    return out


def query_api(
    client: ArxivClient,
    query: str,
    *,
    max_results: int,
    page_size: int = 100,
    newest_by: str | None = None,
) -> Iterator[Parsed]:
    """Yield up to ``max_results`` results of an API ``search_query``, ``page_size`` a request;
    ``newest_by`` (``submittedDate`` or ``lastUpdatedDate``): the newest first by that date.

    Stops at ``opensearch:totalResults`` or at the first empty page.
    """
    order: Params = {"sortBy": newest_by, "sortOrder": "descending"} if newest_by else {}
    start = 0
    while start < max_results:
        size = min(page_size, max_results - start)
        params: Params = {"search_query": query, "start": start, "max_results": size, **order}
        items, total = _api_page(client, params)
        if not items:
            return
        yield from items[: max_results - start]
        start += len(items)
        if total is not None and start >= total:
            return


# --- RSS -----------------------------------------------------------------------------------------


def sync_rss(
    client: ArxivClient,
    store: Store,
    categories: list[str],
    *,
    on_feed: Callable[[str, IngestCounts], None] | None = None,
) -> IngestCounts:
    """Fetch each category's current feed (``{rss_url}/{category}``) and store its papers.

    The feed items carry their ``Announcement`` (date, kind, position), so this also records today's
    listings, and keeps each feed's day as fetched (``store.record_fetched``); a whole feed with no item is
    kept as arXiv's word that it announced nothing in the category that day. ``on_feed(category, counts)``
    hears each stored feed.
    """
    total = IngestCounts()
    for category in categories:
        url = f"{client.settings.rss_url.rstrip('/')}/{category}"
        data = client.get(url).content
        items = parse_feed(data, url)
        listed = ListedDays()
        counts = store.upsert(list(listed.seen(items, "rss")))
        days = listed.days()
        if not items and (day := feed_day(data)) is not None:  # empty, not broken: no item, no error
            days = [FetchedDay(category, day, "rss", 0)]
        store.record_fetched(days)
        total.add(counts)
        if on_feed:
            on_feed(category, counts)
    return total
