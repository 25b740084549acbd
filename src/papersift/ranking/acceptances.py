"""New acceptances at the venues a reader follows (``papersift follow --venue COLM``, the library's
interests form): once a venue's accept list is imported (``papersift venues import``), its accepted papers
come into that reader's Daily Papers once, as an "accepted at COLM 2025 · Poster" note, and are then
recorded as seen (``ACCEPTED``), so that no paper is noted twice, whichever year or import brings it.

The venues followed are a reader setting (``VENUES_FOLLOWED``: their names, one a line, as the reader
wrote them; compared as ``records/venues.venue_slug`` does). A record whose status refuses the paper
(rejected, withdrawn) is no acceptance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from papersift.records.venues import venue_slug
from papersift.store import Store

VENUES_FOLLOWED = "venues_followed"  # reader setting: the venues followed, one name a line
ACCEPTED = "accepted"  # the seen mark of a paper shown as a new acceptance (store/records.py SEEN_HOW)
REFUSED = ("reject", "withdraw", "desk")  # a status holding one of these is no acceptance


@dataclass(frozen=True, slots=True)
class Accepted:
    """One accepted paper of a followed venue: the store paper it is shown as (its arXiv paper, else its
    venue paper), its title and status as the list gives them, and its arXiv id (None: none)."""

    paper_id: str
    title: str
    status: str
    arxiv: str | None


@dataclass(frozen=True, slots=True)
class Acceptances:
    """A followed venue-year's accepted papers not yet noted for the reader, in its list's order."""

    venue: str
    year: int
    papers: tuple[Accepted, ...]


def followed_venues(store: Store, reader_id: int) -> tuple[str, ...]:
    """The venues the reader follows, as they wrote them."""
    kept = store.reader_setting(reader_id, VENUES_FOLLOWED) or ""
    return tuple(v for v in kept.splitlines() if v)


def follow_venues(store: Store, reader_id: int, venues: Sequence[str]) -> tuple[str, ...]:
    """Keep ``venues`` as the venues the reader follows (each once, however cased; none: forget them)."""
    kept: dict[str, str] = {}
    for name in (v.strip() for v in venues):
        if name:
            kept.setdefault(venue_slug(name), name)
    store.set_reader_setting(reader_id, VENUES_FOLLOWED, "\n".join(kept.values()) or None)
    return tuple(kept.values())


def is_acceptance(status: str) -> bool:
    return not any(word in status.lower() for word in REFUSED)


def new_acceptances(store: Store, reader_id: int) -> list[Acceptances]:
    """The accepted papers of the venues the reader follows that were never noted for them, by venue, the
    newest year first."""
    followed = {venue_slug(v) for v in followed_venues(store, reader_id)}
    if not followed:
        return []
    found = []
    for summary in store.venue_list():
        if venue_slug(summary.venue) not in followed:
            continue
        entries = store.venue_entries(summary.venue, summary.year)
        accepted = {e.paper_id: e for e in entries if is_acceptance(e.record.status)}
        marks = store.seen(reader_id, list(accepted))
        noted = {pid for pid, ways in marks.items() if any(m.how == ACCEPTED for m in ways)}
        papers = tuple(
            Accepted(pid, e.record.title, e.record.status, e.arxiv)
            for pid, e in accepted.items()
            if pid not in noted
        )
        if papers:
            found.append(Acceptances(summary.venue, summary.year, papers))
    return found


def note_acceptances(store: Store, reader_id: int, shown: Sequence[Acceptances]) -> int:
    """Record the papers of ``shown`` as seen by the reader (``ACCEPTED``): never noted again. How many
    marks are new."""
    ids = [p.paper_id for group in shown for p in group.papers]
    return store.mark_seen(reader_id, ids, ACCEPTED) if ids else 0
