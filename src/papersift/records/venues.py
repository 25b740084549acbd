"""A venue's accepted paper (``VenueRecord``) and the names around it: a venue's name and its slug, and the
id of a venue paper, the store's paper for a record that has no arXiv version.

A venue paper's id is ``{slug}{year}-{key}`` (``colm2025-0JzWiigkUy``, ``coling2025-2025.coling-main.658``):
the record's own id in its list (else ``t`` and a hash of its folded title), so a re-import gives the same
id; URL-safe without a slash, and never an arXiv id (it starts with a letter and has no slash).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from papersift.records.analyzer import fold_title

VENUE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,39}")  # COLM, CoRL, ACL-Findings: no slash, no space
KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")  # a record's own id as a venue paper id may hold it
VENUE_ID = re.compile(
    r"(?P<slug>[a-z][a-z0-9_-]{0,39}?)(?P<year>(?:19|20)\d\d)-(?P<key>[A-Za-z0-9][A-Za-z0-9._-]*)"
)
LINK_KINDS = ("site", "openreview", "pdf", "github", "project", "video")

# how the lists' venues are spelled where upper case is wrong (a file name gives only the slug)
_SPELLED = {"corl": "CoRL", "neurips": "NeurIPS", "siggraphasia": "SIGGRAPHAsia"}


@dataclass(frozen=True, slots=True)
class VenueRecord:
    """One accepted paper of one venue's list, as its file gives it (an absent field is empty)."""

    venue: str  # the display name: "COLM", "CoRL"
    year: int
    key: str  # its own id in the list, else "t" + a hash of its folded title
    title: str  # as given (LaTeX kept, as arXiv titles keep theirs)
    authors: tuple[str, ...]
    status: str  # "Poster", "Oral", "Technical Paper", "Main" …
    track: str  # "main" …
    abstract: str = ""
    keywords: tuple[str, ...] = ()
    links: tuple[tuple[str, str], ...] = ()  # (kind, http(s) URL), kind one of LINK_KINDS
    arxiv: str | None = None  # the arXiv id the record names (WACV's lists), versionless

    @property
    def id(self) -> str:
        """Its venue paper's id."""
        return venue_paper_id(self.venue, self.year, self.key)

    def link(self, kind: str) -> str | None:
        """Its first link of ``kind`` (``site``, ``pdf``, ``github``…), or None."""
        return next((url for k, url in self.links if k == kind), None)


def venue_slug(name: str) -> str:
    """How a venue's name is compared and written in ids and addresses: ``CoRL`` → ``corl``."""
    return name.strip().lower()


def is_venue_name(name: str) -> bool:
    return bool(VENUE_NAME.fullmatch(name))


def display_name(slug: str) -> str:
    """A venue's name from its file's slug: its usual spelling where known, else upper case."""
    return _SPELLED.get(slug.lower(), slug.upper())


def title_hash_key(title: str) -> str:
    """The key of a record without an id of its own: ``t`` and 12 hex digits of its folded title."""
    return "t" + hashlib.sha1(fold_title(title).encode()).hexdigest()[:12]


def venue_paper_id(venue: str, year: int, key: str) -> str:
    """The id of the venue paper of record ``key`` of ``venue`` in ``year`` (see the module docstring)."""
    return f"{venue_slug(venue)}{year}-{key}"


def is_venue_id(raw: str) -> bool:
    """Whether ``raw`` is spelled as a venue paper's id."""
    return bool(VENUE_ID.fullmatch(raw.strip()))


_FILTER = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9_-]*?)[\s/]*(?P<year>(?:19|20)\d\d)?")


def venue_filter(text: str) -> tuple[str, int | None]:
    """A search's venue filter as typed (``COLM``, ``COLM 2025``, ``colm2025``): the venue's slug and the
    year (None: every year); the slug ``""`` when it names no venue."""
    m = _FILTER.fullmatch(text.strip())
    if m is None:
        return "", None
    return venue_slug(m["name"]), int(m["year"]) if m["year"] else None
