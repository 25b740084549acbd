"""The records of readers and what they keep: accounts, library entries, interests and queued digests.

Pure dataclasses shared by every backend; the ``Store`` protocol (``store/__init__.py``) declares the methods
that read and write them. A library entry is keyed per reader by ``key``: the arXiv id when the item is an
arXiv paper, else ``doi:…`` or ``ref:…`` for items from a reader's own bibliography, which keep their text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TypedDict

RATINGS = (-1, 0, 1)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Account:
    """One account. ``password_hash`` is None for the single-user reader (no login)."""

    id: int
    name: str
    password_hash: str | None
    feed_token: str
    email: str | None = None
    created: datetime | None = None


class AccountChanges(TypedDict, total=False):
    """What ``update_account`` may change of an account (None: kept as it is)."""

    password_hash: str | None
    email: str | None
    feed_token: str | None


@dataclass(frozen=True, slots=True)
class LibraryEntry:
    """A paper (or outside reference) a reader saved or rated, with their tags, note and rating."""

    key: str
    title: str
    paper_id: str | None = None
    authors: tuple[str, ...] = ()
    abstract: str = ""
    year: int | None = None
    doi: str | None = None
    url: str | None = None
    venue: str | None = None
    tags: tuple[str, ...] = ()
    note: str = ""
    rating: int = 0
    read: bool = False
    added: datetime | None = None
    source: str = "saved"  # saved | rated | import:<format>
    volume: str = ""  # bibliographic fields of the venue, "" where unknown
    issue: str = ""
    pages: str = ""  # "123-130" or an article number


class EntryChanges(TypedDict, total=False):
    """What ``update_entry`` may change of a library entry: its rating, note and read mark (None: kept as they
    are), and the tags added and removed."""

    rating: int | None
    note: str | None
    read: bool | None
    add_tags: Sequence[str]
    remove_tags: Sequence[str]


@dataclass(frozen=True, slots=True)
class Interests:
    """What a reader follows (categories, authors) and the keywords a paper must or must never contain."""

    categories: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    must: tuple[str, ...] = ()
    never: tuple[str, ...] = ()
    languages: tuple[
        str, ...
    ] = ()  # what the reader reads besides English ("zh"): their TL;DRs and 中文 made too


@dataclass(frozen=True, slots=True)
class Digest:
    """One reader's digest of one day for one channel, kept until sent (so a failed send is never lost)."""

    id: int
    reader: int
    day: date
    channel: str
    subject: str
    text: str
    html: str
    sent: datetime | None = None
    attempts: int = 0
    error: str | None = None
    papers: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class DigestText:
    """A digest as composed (``queue_digest`` keeps it until sent): its subject, plain text and HTML (a push:
    ""), and the papers it carries."""

    subject: str
    text: str
    html: str
    papers: tuple[str, ...]


def entry_key(paper_id: str | None, doi: str | None, title: str) -> str:
    """The library key: the arXiv id, else the DOI, else a hash of the folded title."""
    if paper_id:
        return paper_id
    if doi:
        return f"doi:{doi.lower()}"
    folded = _SPACE.sub(" ", title.casefold()).strip()
    return "ref:" + hashlib.blake2b(folded.encode(), digest_size=8).hexdigest()


READING_STATES = ("pending", "done", "failed")


@dataclass(frozen=True, slots=True)
class ReadingKey:
    """What one generated text is stored once per: the paper and its version (0: unknown), the model, the
    prompt's version, the language and the kind of text (``tldr``, ``title``, ``abstract``, ``faq``)."""

    paper_id: str
    version: int
    model: str
    prompt: str
    lang: str
    kind: str


@dataclass(frozen=True, slots=True)
class Reading:
    """A generated text as stored: ``pending`` (claimed by a generator), ``done`` (``text``) or ``failed``
    (``text`` None, ``error`` why)."""

    key: ReadingKey
    state: str
    text: str | None = None
    error: str | None = None
    made: datetime | None = None


# the ways a reader saw a paper (store/seen.py); accepted: shown as a followed venue's new acceptance
SEEN_HOW = ("pushed", "mailed", "opened", "read", "accepted")


@dataclass(frozen=True, slots=True)
class Seen:
    """One way a reader saw a paper: ``how`` (pushed, mailed, opened, read), when, and for a pushed or
    mailed paper the day of the digest that carried it."""

    paper_id: str
    how: str
    at: datetime
    day: date | None = None


@dataclass(frozen=True, slots=True)
class FetchedDay:
    """One source's fetch of one category's listing of ``day``: how many announcements it held (0: arXiv
    announced nothing that day, as its empty feed said)."""

    category: str
    day: date
    source: str
    papers: int

    @property
    def empty(self) -> bool:
        return self.papers == 0
