"""Sending what a digest or a push kept, for ``digest.py`` (e-mail) and ``push.py`` (Apprise): a message tried
a few times with backoff (the one HTTP policy's retry loop, ``services/http.py``), and a kept digest marked
sent (its papers seen) or failed with its reason, kept for the next run (``Sending`` counts a run's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from papersift.records.messages import Message, reason, say
from papersift.services import http
from papersift.store import Store
from papersift.store.records import Digest

TRIES = 3  # tries of one message before what holds it is kept for the next run
BACKOFF = 0.5  # seconds before the second try, doubled before each further one


def tried(attempt: Callable[[], str | None], tries: int = TRIES, backoff: float = BACKOFF) -> str | None:
    """``attempt`` until it succeeds (None), at most ``tries`` times, ``backoff`` seconds before the second
    try, doubled before each further one (the one retry loop, ``services/http.retrying``): None, or the
    reason the last try gave. What ``attempt`` raises is not retried."""

    def once() -> None:
        why = attempt()
        if why is not None:
            raise http.Retry(why)

    try:
        http.retrying(tries, first=backoff)(once)
    except http.Retry as e:
        return e.why
    return None


@dataclass
class Sending:
    """One run's sending of kept digests: how many were sent, and a line per failure (each stays kept, its
    reason with it, for the next run: ``again`` says how)."""

    store: Store
    failure: type[Exception]  # what a failed send raises
    seen: str  # how a sent digest's papers were seen
    again: Message
    sent: int = 0
    errors: list[str] = field(default_factory=list)

    def send(self, digest: Digest, send: Callable[[], object], who: str) -> None:
        """Send a kept digest (``send``): marked sent, its papers marked seen, and counted; or, when ``send``
        raises ``failure``, marked failed with the reason, and ``who: reason (kept; again)`` noted (a message:
        the faces say it in the reader's language)."""
        try:
            send()
        except self.failure as e:
            self.store.mark_digest(digest.id, sent=False, error=reason(e))
            self.errors.append(say("send_kept", who=who, error=reason(e), again=self.again))
            return
        self.store.mark_digest(digest.id, sent=True)
        self.store.mark_seen(digest.reader, digest.papers, self.seen, digest.day)
        self.sent += 1
