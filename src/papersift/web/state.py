"""What every request handler shares: the worker's open papersift (``index/runtime.py``: store connections,
the
indexes, reloaded when a new generation is published, the model), the page cache keyed by what each page
depends on, and who the reader is (the personal reader, or the one a session cookie names) with their CSRF
token.

No lock is held while a page is computed: each request thread reads through its own store connection
(``store``, with a time limit on its queries: ``StoreBusy``, a 503), writes go through one writer
connection (``writing``, the only lock a page may wait on, and only for the write itself), and the
indexes are memory-mapped read-only generations shared by every thread. ``indexes`` looks at the
generation pointer at most every ``RELOAD_SECONDS`` and switches to a new generation between requests (a
request keeps the one it started with); nothing is ever built inside a request.

Pages are cached without anything personal in them: templates write the markers ``CSRF_MARK`` and
``ACCOUNT_MARK``, and ``personalise`` replaces them per response with the reader's token and account links.
Cache keys carry their dependencies (``cached``): the papers' version (``store.papers_version``: ingest
only, not saves, sessions or logins), the index generation for rankings, the reader's data for their pages.
What takes seconds and no page should wait for (a day's topic map) is computed into the cache beside the
requests (``soon``: one thread, a short queue); a page rendered without it (``PROVISIONAL_MARK`` in it) is
not kept, so the next view has it.
"""

from __future__ import annotations

import contextlib
import html
import queue
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from fastapi import Request
from starlette.exceptions import HTTPException

from papersift.index.indexes import Indexes
from papersift.index.runtime import Papersift, open_papersift
from papersift.ranking.to_english import Translate
from papersift.ranking.topics import Namer
from papersift.reading.query_translation import translator
from papersift.reading.topic_names import topic_namer
from papersift.records.messages import say
from papersift.services.accounts import personal_account, session_account
from papersift.services.demo import loading
from papersift.services.harvest import reachable
from papersift.settings import Settings
from papersift.store import Store, papers_version
from papersift.store.records import Account
from papersift.web.i18n import interface
from papersift.web.security import SESSION_COOKIE

CACHE_ENTRIES = 2_000  # listing data and pages kept per worker
RELOAD_SECONDS = 1.0  # how often a worker looks for a new index generation (one stat of the pointer)
QUERY_SECONDS = 15.0  # a request's store reads stop after this long (StoreBusy: 503, not a stuck thread)
ONLINE_SECONDS = 60.0  # how long a worker trusts its last probe of arXiv's API (a 404's fetch form)
BACKGROUND = 8  # entries waiting to be computed beside the requests (``soon``); more are left to the pages
SOON_SECONDS = 1.0  # how long an entry waits before ``soon`` computes it: the page that asked is sent first
CSRF_MARK = "__papersift_csrf_7d1c__"
ACCOUNT_MARK = "<!--papersift-account-7d1c-->"
PROVISIONAL_MARK = b"<!--papersift-provisional-->"  # a page holding it is rendered again, never kept


@dataclass
class AppState:
    """``papersift`` holds the store's connections, the current generation and the model
    (``index/runtime.py``); ``meta``, under its own short lock, answers who the reader is."""

    settings: Settings
    papersift: Papersift
    meta: Store
    meta_lock: threading.Lock = field(default_factory=threading.Lock)
    _cache: OrderedDict[tuple[str, ...], Any] = field(default_factory=OrderedDict)
    _making: dict[tuple[str, ...], threading.Lock] = field(default_factory=dict)  # entries being computed
    _readers: dict[str | None, Account | None] = field(default_factory=dict)
    _version: int = -1
    _assist: tuple[Translate | None, Namer | None] | None = None
    _online: tuple[float, bool] | None = None  # (when probed, on time.monotonic; whether arXiv answered)
    _soon: queue.Queue[tuple[tuple[str, ...], Callable[[], Any], bool] | None] = field(
        default_factory=lambda: queue.Queue(BACKGROUND)
    )
    _queued: set[tuple[str, ...]] = field(default_factory=set)  # keys in ``_soon`` or being computed by it
    _worker: threading.Thread | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)  # set by ``close``: ``soon`` stops

    @property
    def store(self) -> Store:
        """This thread's read connection (opened on first use); its query clock starts again now."""
        return self.papersift.store

    def writing(self) -> contextlib.AbstractContextManager[Store]:
        """The writer connection, for one write (a library save, a logout…); never around computation
        (``Papersift.writing``)."""
        return self.papersift.writing()

    def translate(self) -> Translate | None:
        """The configured model as search's query translator (``reading/query_translation.py``); None when no
        model is
        available (the offline dictionary translates)."""
        return self._models()[0]

    def namer(self) -> Namer | None:
        """The configured model as the topic map's namer (``reading/topic_names.py``); None when no model
        is available (key phrases name the topics)."""
        return self._models()[1]

    def _models(self) -> tuple[Translate | None, Namer | None]:
        with self.meta_lock:
            if self._assist is None:
                self._assist = translator(self.settings), topic_namer(self.settings)
            return self._assist

    def online(self) -> bool:
        """Whether arXiv's API answers (``harvest.reachable``, the network commands' quick probe), probed
        at most every ``ONLINE_SECONDS``: a missing paper's page offers to fetch it only then."""
        with self.meta_lock:
            known = self._online
        if known is not None and time.monotonic() - known[0] < ONLINE_SECONDS:
            return known[1]
        answer = reachable(self.settings.api_url, self.settings, timeout=2.0)
        with self.meta_lock:
            self._online = (time.monotonic(), answer)
        return answer

    def indexes(self) -> Indexes:
        """The current generation's indexes on this thread's connection (a new generation is switched to,
        looked for at most every ``RELOAD_SECONDS``: ``index/current.py``)."""
        return self.papersift.indexes()

    def generation(self) -> str:
        """The name of the index generation pages are ranked with now ('' when none)."""
        return self.indexes().name

    def _full(self, key: tuple[str, ...], index: bool, personal: bool) -> tuple[str, ...]:
        """``key`` with what its entry depends on before it (see ``cached``)."""
        depends = [papers_version(self.store), str(loading(self.settings.home))]  # the demo's banner too
        if index:
            depends.append(self.generation())
        if personal:
            with self.meta_lock:
                depends.append(str(self.meta.data_version()))
        return (*depends, *key)

    def holds(self, key: tuple[str, ...], *, index: bool = False, personal: bool = False) -> bool:
        """Whether ``cached(key, …)`` would answer at once: its entry is kept."""
        full = self._full(key, index, personal)
        with self.meta_lock:
            return full in self._cache

    def cached(
        self,
        key: tuple[str, ...],
        compute: Callable[[], Any],
        *,
        index: bool = False,
        personal: bool = False,
        keep: Callable[[Any], bool] | None = None,
    ) -> Any:
        """Keep what ``compute`` returns until what it depends on changes: the papers always, the index
        generation when ``index``, any stored data when ``personal`` (a reader's library pages); a value
        ``keep`` says no to is returned, not kept. An entry being computed is computed once: who asks
        meanwhile waits for it (a day's topic map, drawn beside the requests by ``soon``, is not drawn a
        second time by the reader who asks for it meanwhile)."""
        full = self._full(key, index, personal)
        with self.meta_lock:
            if full in self._cache:
                self._cache.move_to_end(full)
                return self._cache[full]
            making = self._making.setdefault(full, threading.Lock())
        with making:  # one computation of an entry at a time: a second asker waits for the first's answer
            with self.meta_lock:
                if full in self._cache:
                    self._cache.move_to_end(full)
                    return self._cache[full]
            try:
                value = compute()
                if keep is None or keep(value):
                    with self.meta_lock:  # kept before it is no longer being made: nobody computes it again
                        self._cache[full] = value
                        while len(self._cache) > CACHE_ENTRIES:  # least recently used first
                            self._cache.popitem(last=False)
            finally:
                with self.meta_lock:
                    self._making.pop(full, None)
        return value

    def soon(self, key: tuple[str, ...], compute: Callable[[], Any], *, index: bool = False) -> None:
        """Compute ``cached(key, compute, index=index)`` beside the requests, on this worker's one
        background thread, ``SOON_SECONDS`` from now: the page that asked for it is rendered and sent
        first (two cores: a map drawn at once made the page that asked twice as slow). Nothing waits for
        it, and who asks for the entry while it is computed waits for it instead of computing it again
        (``cached``). A key already queued is not queued again; with ``BACKGROUND`` entries waiting, it is
        not queued at all (the page that needs it computes it)."""
        with self.meta_lock:
            if key in self._queued:
                return
            try:
                self._soon.put_nowait((key, compute, index))
            except queue.Full:
                return
            self._queued.add(key)
            if self._worker is None:
                self._worker = threading.Thread(target=self._background, name="papersift-soon", daemon=True)
                self._worker.start()

    def _background(self) -> None:
        while True:
            item = self._soon.get()
            if item is None or self._stopping.wait(SOON_SECONDS):  # None: ``close`` woke it
                return
            key, compute, index = item
            try:
                self.cached(key, compute, index=index)
            except Exception as e:  # said, and the thread goes on: the page that asks computes it again
                print(f"papersift: warning: {e}", file=sys.stderr, flush=True)
            finally:
                with self.meta_lock:
                    self._queued.discard(key)

    def account(self, request: Request) -> Account | None:
        """The personal reader of a single-user install, else the reader of the session cookie (or None);
        nobody on a read-only server."""
        if self.settings.read_only:
            return None
        token = None if not self.settings.accounts else request.cookies.get(SESSION_COOKIE)
        with self.meta_lock:
            version = self.meta.data_version()
            if version != self._version:  # a login, a logout, a new account: look readers up again
                self._readers.clear()
                self._version = version
            if token not in self._readers:
                if not self.settings.accounts:
                    self._readers[token] = personal_account(self.meta, self.settings)
                else:
                    self._readers[token] = session_account(self.meta, token)
            return self._readers[token]

    def close(self) -> None:
        """Close the generation and every connection (``Papersift.close``), errors aside: the server is
        stopping. What ``soon`` is computing is finished first (never an index closed under it)."""
        self._stopping.set()
        if self._worker is not None:
            with contextlib.suppress(queue.Full):  # a full queue: the worker is not waiting for one
                self._soon.put_nowait(None)
            self._worker.join(timeout=QUERY_SECONDS)
        with contextlib.suppress(Exception):
            self.papersift.close()


def open_state(settings: Settings) -> AppState:
    """The state of one worker over the store ``settings`` names: its writer and reader connections
    opened now (a store that cannot be opened fails here), the rest on first use."""
    papersift = open_papersift(settings, every=RELOAD_SECONDS, query_seconds=QUERY_SECONDS)
    try:
        papersift.writer  # noqa: B018 (opened now)
        return AppState(settings, papersift, papersift.connections.open())
    except BaseException:
        papersift.close()
        raise


def account_html(reader: Account | None, settings: Settings, lang: str, csrf: str) -> str:
    t = interface(lang)
    if reader is None:
        return f'<a href="/login">{html.escape(t["login"])}</a>'
    links = f'<a href="/library">{html.escape(t["library"])}</a>'
    if not settings.accounts:
        return links
    return (
        f'{links} <span class="reader">{html.escape(reader.name)}</span> '
        f'<form class="inline" method="post" action="/logout"><input type="hidden" name="csrf" '
        f'value="{html.escape(csrf)}"><button type="submit">{html.escape(t["logout"])}</button></form>'
    )


def personalise(body: bytes, request: Request, state: AppState, lang: str) -> bytes:
    """Put the reader's CSRF token and account links into a (possibly cached) page."""
    token = str(request.state.csrf_token)  # set by web/security.py's Guard
    reader = state.account(request)
    account = account_html(reader, state.settings, lang, token)
    return body.replace(CSRF_MARK.encode(), token.encode()).replace(ACCOUNT_MARK.encode(), account.encode())


def day_and_neighbours(days: list[date], when: date) -> dict[str, str | None]:
    """``date`` with the previous and next days that have a listing (the pages' day switcher)."""
    earlier = [d for d in days if d < when]
    later = [d for d in days if d > when]
    return {
        "date": when.isoformat(),
        "previous": earlier[-1].isoformat() if earlier else None,
        "next": later[0].isoformat() if later else None,
    }


def parse_day(value: str, status: int = 404) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise HTTPException(status, say("not_a_date", value=repr(value))) from None
