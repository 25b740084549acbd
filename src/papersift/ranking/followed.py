"""New this week by the authors a reader follows (``papersift follow --author``): the papers announced (else
first submitted) in the ``NEW_DAYS`` days up to a Daily Papers day that name a followed author, newest first,
each with the followed authors it names; the section Daily Papers shows beside its picks (the web's /daily,
``papersift recommend``, the digests).

``reader_week`` is that section for one reader, as every face shows it: what they saved left out, and in a
digest (``unseen``) what they already saw too (a digest tells of a paper once: the papers it carries are
marked seen when it is sent, and another day's digest leaves them out).

Each author is looked up by surname through the store's keyword index (its author field, the dates filtered
in the store), then matched by whole names (``records/names.AuthorSet``, as ``recommend`` credits followed
authors): "Ada Lovelace" finds "A. Lovelace" but not "Ada Lovelace-Byron" or "Grace Lovelace".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from papersift.ranking.daily import seen_ways
from papersift.records.names import AuthorSet, parse_name
from papersift.records.paper import Paper
from papersift.store import Filters, Store
from papersift.store.records import Account

NEW_DAYS = 7  # "this week": the day shown and the six before it
PER_AUTHOR = 1000  # papers looked up per followed surname in the week (a common surname has hundreds)
SHOWN = 20  # papers in the section, at most


@dataclass(frozen=True, slots=True)
class FollowedPaper:
    """A paper by followed authors, and which of them it names."""

    paper: Paper
    authors: tuple[str, ...]


def new_by_followed(
    store: Store,
    authors: Sequence[str],
    day: date,
    *,
    days: int = NEW_DAYS,
    leave_out: Collection[str] = (),
    limit: int = SHOWN,
) -> list[FollowedPaper]:
    """The papers naming any of ``authors`` announced in the ``days`` days up to ``day`` (inclusive), newest
    first (ties by id), each once; papers in ``leave_out`` (ids: the reader's library) are not shown."""
    if not authors or days < 1:
        return []
    window = Filters(since=day - timedelta(days=days - 1), until=day)
    found: dict[int, Paper] = {}
    surnames = {parse_name(a).surname for a in authors}
    for surname in sorted(surnames - {""}):
        rows = store.match("", filters=replace(window, author=surname), k=PER_AUTHOR)
        found.update(store.by_rowids([rowid for rowid, _ in rows]))
    wanted = AuthorSet(authors)
    picked = [
        FollowedPaper(p, shared)
        for p in found.values()
        if p.id not in leave_out and window.admit(p) and (shared := wanted.shared(p.authors))
    ]
    picked.sort(key=lambda f: f.paper.id, reverse=True)
    picked.sort(key=lambda f: f.paper.announced or f.paper.published or date.min, reverse=True)
    return picked[:limit]


def reader_week(
    store: Store, reader: Account, day: date, *, unseen: bool = False, leave_out: Collection[str] = ()
) -> list[FollowedPaper]:
    """New this week by the authors ``reader`` follows, up to ``day``: the papers they saved and
    ``leave_out`` (ids: a digest's picks) left out, and with ``unseen`` (a digest of ``day``) those they saw
    too: opened, read, or pushed or mailed by another day's digest (every channel of one day carries the
    same papers); at most ``SHOWN``."""
    authors = store.interests(reader.id).authors
    if not authors:
        return []
    saved = {e.paper_id for e in store.library(reader.id) if e.paper_id}
    found = new_by_followed(store, authors, day, leave_out=saved | set(leave_out), limit=PER_AUTHOR)
    if unseen and found:
        seen = seen_ways(store, reader, [f.paper.id for f in found], digest_day=day)
        found = [f for f in found if f.paper.id not in seen]
    return found[:SHOWN]
