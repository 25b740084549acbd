"""Sending what a digest or a push kept, for ``digest.py`` (e-mail) and ``push.py`` (Apprise): a message tried
a few times with backoff, and a kept digest marked sent (its papers seen) or failed with its reason, kept for
the next run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from papersift.store import Store
from papersift.store.records import Digest

TRIES = 3  # tries of one message before what holds it is kept for the next run
BACKOFF = 0.5  # seconds before the second try, doubled before each further one


def tried(attempt: Callable[[], str | None], tries: int = TRIES, backoff: float = BACKOFF) -> str | None:
    """``attempt`` until it succeeds (None), at most ``tries`` times, ``backoff`` seconds before the second
    try, doubled before each further one: None, or the reason the last try gave. What ``attempt`` raises is
    not retried."""
    reason = None
    for n in range(tries):
        reason = attempt()
        if reason is None:
            return None
        if n + 1 < tries:
            time.sleep(backoff * 2**n)
    return reason


def send_kept(
    store: Store, digest: Digest, send: Callable[[], object], failure: type[Exception], seen: str
) -> str | None:
    """Send a kept digest (``send``): marked sent, its papers marked seen (``seen``: how), and None; or, when
    ``send`` raises ``failure``, marked failed with the reason, which is returned (it stays kept)."""
    try:
        send()
    except failure as e:
        store.mark_digest(digest.id, sent=False, error=str(e))
        return str(e)
    store.mark_digest(digest.id, sent=True)
    store.mark_seen(digest.reader, digest.papers, seen, digest.day)
    return None
