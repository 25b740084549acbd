"""What the lab is reading: the papers the readers of this install saved or rated +1 lately (counts only).

Built on the store's ``lab_signals`` / ``trending`` (``store/signals.py``), which leave out readers who opted
out. The web shows the counts on paper rows and on ``/trending``; the digests add a short "popular in your
lab this week" section.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from papersift.records.messages import Message, say
from papersift.records.paper import Paper
from papersift.store import Store

TRENDING_DAYS = 7
DIGEST_POPULAR = 5  # papers in a digest's "popular in your lab this week"


@dataclass(frozen=True, slots=True)
class Popular:
    """A paper and how many of the lab's readers saved it / rated it +1 in the period."""

    paper: Paper
    saves: int
    upvotes: int


def popular(
    store: Store, days: int = TRENDING_DAYS, limit: int = 20, now: datetime | None = None
) -> list[Popular]:
    """The papers with most signals in the last ``days`` days, ties by the latest signal."""
    since = (now or datetime.now(UTC)) - timedelta(days=days)
    signals = store.trending(since, limit)
    papers = {p.id: p for p in store.get_many([s.paper_id for s in signals])}
    return [Popular(papers[s.paper_id], s.saves, s.upvotes) for s in signals if s.paper_id in papers]


def counts_text(saves: int, upvotes: int) -> Message:
    """``3 saved · 2 +1`` (the digest's form of the counts), a message."""
    return (
        say("lab_saved_upvoted", saves=saves, upvotes=upvotes) if upvotes else say("lab_saved", saves=saves)
    )


def is_lab(store: Store) -> bool:
    """Whether the install has more than one reader (a single reader's own saves are no signal)."""
    return len(store.accounts()) > 1
