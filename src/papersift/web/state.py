"""What every request handler shares: the store (under a lock), the indexes, the per-version page cache, and
who the reader is (the personal reader, or the one a session cookie names) with their CSRF token.

Pages are cached without anything personal in them: templates write the markers ``CSRF_MARK`` and
``ACCOUNT_MARK``, and ``personalise`` replaces them per response with the reader's token and account links.
"""

from __future__ import annotations

import html
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from fastapi import Request
from starlette.exceptions import HTTPException

from papersift.accounts import personal_reader, session_reader
from papersift.index.pipeline import Indexes, open_indexes
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.readers import Reader
from papersift.web.i18n import TEXT
from papersift.web.security import SESSION_COOKIE

CACHE_ENTRIES = 2_000  # listing data and pages kept per worker
CSRF_MARK = "__papersift_csrf_7d1c__"
ACCOUNT_MARK = "<!--papersift-account-7d1c-->"


@dataclass
class AppState:
    """``store`` and ``lock`` serve the work (rankings, writes); ``meta``, a second connection under its
    own lock, answers what every request asks (the store's version, who the reader is), so a page found
    in the cache never waits behind another request's ranking."""

    settings: Settings
    store: Store
    meta: Store
    lock: threading.Lock = field(default_factory=threading.Lock)
    meta_lock: threading.Lock = field(default_factory=threading.Lock)
    _indexes: Indexes | None = None
    _cache: OrderedDict[tuple[str, ...], Any] = field(default_factory=OrderedDict)
    _readers: dict[str | None, Reader | None] = field(default_factory=dict)
    _version: int = -1

    def indexes(self) -> Indexes:
        if self._indexes is None:
            self._indexes = open_indexes(self.store, self.settings)
        return self._indexes

    def _current(self) -> None:
        """Forget everything computed from an older version of the store (call under ``meta_lock``)."""
        version = self.meta.data_version()
        if version != self._version:
            self._cache.clear()
            self._readers.clear()
            self._version = version

    def cached(self, key: tuple[str, ...], compute: Callable[[], Any]) -> Any:
        """Listings are immutable until the store changes: keep what was computed until it does."""
        with self.meta_lock:
            self._current()
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = compute()
        with self.meta_lock:
            self._cache[key] = value
            while len(self._cache) > CACHE_ENTRIES:  # least recently used first: popular pages stay
                self._cache.popitem(last=False)
        return value

    def reader(self, request: Request) -> Reader | None:
        """The personal reader of a single-user install, else the reader of the session cookie (or None);
        nobody on a read-only server."""
        if self.settings.read_only:
            return None
        token = None if not self.settings.accounts else request.cookies.get(SESSION_COOKIE)
        with self.meta_lock:
            self._current()
            if token not in self._readers:
                if not self.settings.accounts:
                    self._readers[token] = personal_reader(self.meta, self.settings)
                else:
                    self._readers[token] = session_reader(self.meta, token)
            return self._readers[token]

    def close(self) -> None:
        self.store.close()
        self.meta.close()


def account_html(reader: Reader | None, settings: Settings, lang: str, csrf: str) -> str:
    t = TEXT[lang]
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
    reader = state.reader(request)
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
        raise HTTPException(status, f"not a date (YYYY-MM-DD): {value!r}") from None
