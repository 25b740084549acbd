"""A reader's tag as a feed of its own: the tag a reader names, resolved against the tags of their library
(exactly, else the one tag equal up to case), or ``UnknownTag`` naming the tags they have; Daily Papers,
``papersift recommend --tag`` and a digest per tag then rank by that tag's papers alone
(``ranking/daily.py``)."""

from __future__ import annotations

from papersift.records.messages import say
from papersift.store import Store, StoreError
from papersift.store.records import Account

TAGS_NAMED = 12  # tags an ``UnknownTag`` names, at most


class UnknownTag(StoreError):
    """No tag of that name in the reader's library (the CLI exits 2, the web answers 404)."""


def known_tag(store: Store, reader: Account | None, tag: str) -> str:
    """``tag`` as the reader's library spells it: the tag itself, else the one tag equal up to case;
    ``UnknownTag`` (naming the reader's tags) when there is none."""
    wanted = tag.strip()
    have = [name for name, _ in store.tags(reader.id)] if reader is not None else []
    if wanted in have:
        return wanted
    folded = [name for name in have if name.casefold() == wanted.casefold()]
    if len(folded) == 1:
        return folded[0]
    if not have:
        raise UnknownTag(say("unknown_tag_none", tag=wanted))
    named = ", ".join(have[:TAGS_NAMED]) + (", …" if len(have) > TAGS_NAMED else "")
    raise UnknownTag(say("unknown_tag", tag=wanted, tags=named))
