"""The paper record and arXiv identifiers: the one place that says what a paper is.

Everything else in papersift speaks in these types. Readers in ``sources/`` turn arXiv's formats into
``Paper`` (or ``RecordError`` / ``Deleted`` for what could not or should not become one), the store keeps
them, and the faces print them. ``normalize_id`` is the single arXiv id normaliser used everywhere;
``paper_key`` also takes a venue paper's id (a conference paper with no arXiv version), where a face takes
the id of any stored paper.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from papersift.records.messages import say
from papersift.records.venues import is_venue_id

AnnounceKind = Literal["new", "cross", "replace", "replace-cross"]
ANNOUNCE_KINDS: tuple[AnnounceKind, ...] = ("new", "cross", "replace", "replace-cross")

# 0704.0001 … 1412.9999 (4 digits), 1501.00001 … (5 digits); old style: archive[.SUBJ]/YYMMNNN
_NEW_ID = re.compile(r"^(?P<id>\d{4}\.\d{4,5})(?:v(?P<v>\d+))?$")
_OLD_ID = re.compile(r"^(?P<archive>[a-z][a-z-]*[a-z])(?:\.[a-z]{2})?/(?P<num>\d{7})(?:v(?P<v>\d+))?$", re.I)
_PREFIXES = re.compile(
    r"^(?:https?://)?(?:www\.|export\.)?(?:arxiv\.org/(?:abs|pdf|html|format)/|arxiv:)", re.I
)


class InvalidIdError(ValueError):
    """Raised for text that is not an arXiv identifier."""


@dataclass(frozen=True, slots=True)
class ArxivId:
    """An arXiv identifier split into its versionless id and its version (None when not given)."""

    id: str
    version: int | None = None

    def __str__(self) -> str:
        return self.id if self.version is None else f"{self.id}v{self.version}"


def parse_id(raw: str) -> ArxivId:
    """Parse any spelling of an arXiv id: ``2410.12345v2``, ``arXiv:hep-th/9901001``, abs/PDF URLs (with
    or without a query or fragment).

    Old-style ids keep only their archive (``math.GT/0309136`` → ``math/0309136``), as arXiv does.
    """
    text = raw.strip()
    text, urls = _PREFIXES.subn("", text)
    if urls:  # a URL's query and fragment name no paper (``/abs/2401.01234?context=cs``, ``#S2``)
        text = re.split(r"[?#]", text, maxsplit=1)[0]
    text = text.removesuffix(".pdf").rstrip("/")
    m = _NEW_ID.match(text)
    if m:
        month = int(text[2:4])
        if not 1 <= month <= 12:
            raise InvalidIdError(say("not_arxiv_id_month", raw=repr(raw), month=f"{month:02d}"))
        return ArxivId(m["id"], int(m["v"]) if m["v"] else None)
    m = _OLD_ID.match(text)
    if m:
        return ArxivId(f"{m['archive'].lower()}/{m['num']}", int(m["v"]) if m["v"] else None)
    raise InvalidIdError(say("not_arxiv_id", raw=repr(raw)))


def normalize_id(raw: str) -> str:
    """The versionless canonical id of any spelling of an arXiv id (raises ``InvalidIdError``)."""
    return parse_id(raw).id


def paper_key(raw: str) -> str:
    """The stored id of any paper id as typed: an arXiv id in any spelling (``normalize_id``) or a venue
    paper's id (``records/venues.py``: ``colm2025-0JzWiigkUy``, kept as it is); raises ``InvalidIdError``."""
    text = raw.strip()
    if is_venue_id(text):
        return text
    return normalize_id(text)


def is_arxiv_id(raw: str) -> bool:
    """True when ``raw`` parses as an arXiv id or abs/PDF URL."""
    try:
        parse_id(raw)
    except InvalidIdError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Version:
    """One submitted version of a paper."""

    version: int
    submitted: datetime | None = None  # timezone-aware (UTC) when the source gives a time
    size: str | None = None


@dataclass(frozen=True, slots=True)
class Announcement:
    """A paper's appearance in one day's listing of one category, as arXiv published it."""

    date: date
    category: str
    kind: AnnounceKind
    position: int | None = None  # 1-based place in that listing, where the source gives the order


@dataclass(slots=True)
class Paper:
    """One arXiv paper: metadata of its latest known version plus its version history."""

    id: str
    title: str
    authors: list[str]
    abstract: str
    categories: list[str]  # primary first
    version: int | None = None  # latest version known to the source
    comments: str | None = None
    journal_ref: str | None = None
    doi: str | None = None
    license: str | None = None
    versions: list[Version] = field(default_factory=list)
    published: date | None = None  # v1 submission date
    updated: date | None = None  # latest version's date
    announced: date | None = None  # first daily listing the paper appeared in
    listings: list[Announcement] = field(default_factory=list)
    source: str = ""

    @property
    def primary_category(self) -> str:
        return self.categories[0] if self.categories else ""


@dataclass(frozen=True, slots=True)
class Submitted:
    """When a paper's first version was submitted, as precisely as it is known."""

    day: date  # the day; the month's first day when only the month is known
    exact: bool  # False: only the month is known (the one its arXiv id names)


def id_month(paper_id: str) -> date | None:
    """The month an arXiv id was given, i.e. its v1 submitted: ``2309.01234`` → 2023-09-01,
    ``hep-th/9901001`` → 1999-01-01 (old-style ids run from 1991 to 2007); None for anything else."""
    m = _NEW_ID.match(paper_id) or _OLD_ID.match(paper_id)
    if m is None:
        return None
    digits = paper_id[:4] if "/" not in paper_id else m["num"][:4]
    yy, month = int(digits[:2]), int(digits[2:])
    if not 1 <= month <= 12:
        return None
    return date((1900 if "/" in paper_id and yy >= 91 else 2000) + yy, month, 1)


def first_submitted(paper: Paper) -> Submitted | None:
    """The date ``paper`` was first submitted, the one place that decides it: ``published`` (v1's date)
    where known, else v1's submission in the version history; else its first announcement when that
    came within a month of the month its id names (a new paper: announced a day or so after it was
    submitted); else that month (a paper re-listed long after it was submitted, e.g. 2309.x announced in
    2025: only the month is known); else the announcement; None when nothing says."""
    if paper.published is not None:
        return Submitted(paper.published, True)
    for v in paper.versions:
        if v.version == 1 and v.submitted is not None:
            return Submitted(v.submitted.date(), True)
    month = id_month(paper.id)
    announced = paper.announced
    if announced is not None and (month is None or months_between(month, announced) <= 1):
        return Submitted(announced, True)
    return Submitted(month, False) if month is not None else None


def months_between(earlier: date, later: date) -> int:
    """Calendar months from ``earlier``'s month to ``later``'s (negative when ``later`` is earlier)."""
    return (later.year - earlier.year) * 12 + later.month - earlier.month


@dataclass(frozen=True, slots=True)
class Deleted:
    """A record the source reports as deleted (OAI-PMH ``status="deleted"``)."""

    id: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class RecordError:
    """A record that could not be read: where it was and why, in one line."""

    source: str  # file name or URL
    record: str  # locator inside it: line number, record index or id
    message: str

    def __str__(self) -> str:
        return f"{self.source}: record {self.record}: {self.message}"


Parsed = Paper | Deleted | RecordError


def clean_text(text: str | None) -> str:
    """Collapse runs of whitespace (arXiv hard-wraps titles and abstracts) and NFC-normalise."""
    if not text:
        return ""
    if not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def _strip_parenthesised(text: str) -> str:
    out: list[str] = []
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)


_AND = re.compile(r",?\s+and\s+|\s*,\s*|\s*;\s*", re.I)


def split_authors(text: str) -> list[str]:
    """Split arXiv's one-line author field (``A, B (MIT) and C``) into names, affiliations dropped."""
    flat = clean_text(_strip_parenthesised(clean_text(text)))
    names = [n.strip(" ,") for n in _AND.split(flat)]
    return [n for n in names if n and n.lower() not in {"et al", "et al."}]


# archives without subject classes ("hep-th", "gr-qc"…) are matched exactly; "cs" matches "cs.*"
_FLAT_ARCHIVES = frozenset(
    ["hep-th", "hep-ph", "hep-ex", "hep-lat", "gr-qc", "nucl-th", "nucl-ex", "quant-ph", "math-ph"]
)


def is_exact_category(category: str) -> bool:
    """A subject class (``cs.LG``) or a flat archive matches itself only; ``cs`` means every ``cs.*``."""
    return "." in category or category in _FLAT_ARCHIVES


def in_category(categories: list[str], category: str) -> bool:
    """Whether a paper listed in ``categories`` belongs to ``category`` (a class or a whole archive)."""
    if is_exact_category(category):
        return category in categories
    return any(c == category or c.startswith(category + ".") for c in categories)
