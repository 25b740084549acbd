"""Paper Copilot's ``paperlists`` accept lists (one JSON array of records per venue and year, plain or
gzipped) read as a stream with ijson: a file of any size is never held whole, one record at a time is.

The venue and year come from the file's name (``colm2025.json.gz``) unless given. Each record becomes a
``VenueRecord``, or a ``Skipped`` with its reason: not an object, no title, an author field that is not
text, the same record again (SIGGRAPH lists a poster five times under one id). A file that is not one JSON
array, or a venue name that could not be one (a slash), is a ``PaperlistError``.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import ijson

from papersift.records.analyzer import fold_title
from papersift.records.messages import Message, say
from papersift.records.paper import InvalidIdError, clean_text, normalize_id
from papersift.records.venues import (
    KEY,
    VenueRecord,
    display_name,
    is_venue_name,
    title_hash_key,
)

_FILE_NAME = re.compile(r"(?P<slug>[A-Za-z][A-Za-z0-9_-]*?)(?P<year>(?:19|20)\d\d)\.json(?:\.gz)?")
_URL = re.compile(r"https?://\S+", re.I)
# the file's link fields, by the kind they are kept as (the first of a kind wins)
_LINK_FIELDS = (
    ("site", "site"),
    ("url_paper", "site"),
    ("openreview", "openreview"),
    ("pdf", "pdf"),
    ("github", "github"),
    ("project", "project"),
    ("video", "video"),
)
MAX_FIELD = 100_000  # characters kept of one text field (an abstract); a longer one is cut


class PaperlistError(ValueError):
    """A file (or venue name) that cannot be read as an accept list at all."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """A record not read: where it is in the file (its number, from 1, and its id) and why."""

    number: int
    record: str
    reason: Message


@dataclass(frozen=True, slots=True)
class Source:
    """Which venue and year a file's records are of."""

    venue: str
    year: int


def source_of(path: Path, venue: str | None = None, year: int | None = None) -> Source:
    """The venue and year of ``path``: those given, else from its name (``colm2025.json.gz``)."""
    name, when = venue, year
    if name is None or when is None:
        m = _FILE_NAME.fullmatch(path.name)
        if m is None:
            raise PaperlistError(say("venue_file_name", file=path.name))
        name = display_name(m["slug"]) if name is None else name
        when = int(m["year"]) if when is None else when
    if not is_venue_name(name):
        raise PaperlistError(say("venue_bad_name", name=name))
    if not 1900 <= when <= 2100:
        raise PaperlistError(say("venue_bad_year", year=str(when)))
    return Source(name, when)


def _opened(path: Path) -> IO[bytes]:
    with path.open("rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    return cast(IO[bytes], gzip.open(path, "rb")) if gzipped else path.open("rb")


def _starts_array(stream: IO[bytes], name: str) -> None:
    """Refuse a file that is not one JSON array (its first character after blanks and a BOM is not ``[``)."""
    head = b""
    while len(head) < 4096 and (chunk := stream.read(1)):  # a few bytes, read back below by ijson
        head += chunk
        if chunk not in b"\xef\xbb\xbf \t\r\n":
            break
    if not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        raise PaperlistError(say("venue_not_array", file=name))
    stream.seek(0)


def read_paperlist(path: Path, source: Source) -> Iterator[VenueRecord | Skipped]:
    """The records of one accept list, in its order, each read or skipped with a reason."""
    try:
        with _opened(path) as stream:
            _starts_array(stream, path.name)
            seen: set[str] = set()
            number = 0
            for number, item in enumerate(ijson.items(stream, "item", use_float=True), 1):
                yield _record(item, number, source, seen)
    except (ijson.JSONError, ijson.IncompleteJSONError) as e:
        raise PaperlistError(say("venue_bad_json", file=path.name, problem=str(e)[:200])) from e
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise PaperlistError(say("venue_unreadable", file=path.name, problem=str(e)[:200])) from e


def _text(value: Any) -> str:
    """A field's text: an absent field (empty, -1, null, not text) is empty."""
    return clean_text(value)[:MAX_FIELD] if isinstance(value, str) else ""


def split_names(text: str) -> tuple[str, ...]:
    """The names of a list's author field, as written: ";"-separated (a name may then hold a comma:
    "Lovelace, Ada; Turing, Alan"), else ","-separated. Not ``records.paper.split_authors``, which reads
    arXiv's one-line field: it splits at "and" and every comma and drops what is in parentheses (an
    affiliation there, a list's "Yuhan (Anjelica) Bian" here)."""
    parts = text.split(";") if ";" in text else text.split(",")
    return tuple(name for p in parts if (name := clean_text(p)))


def _links(item: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for field, kind in _LINK_FIELDS:
        value = _text(item.get(field))
        if kind not in found and _URL.fullmatch(value):
            found[kind] = value
    return tuple(found.items())


def _arxiv(value: Any) -> str | None:
    text = _text(value)
    if not text:
        return None
    try:
        return normalize_id(text)
    except InvalidIdError:
        return None


def _record(item: Any, number: int, source: Source, seen: set[str]) -> VenueRecord | Skipped:
    if not isinstance(item, dict):
        return Skipped(number, "?", say("not_json_object"))
    own = item.get("id")
    own_key = str(own).strip() if isinstance(own, str | int) and not isinstance(own, bool) else ""
    title = _text(item.get("title"))
    if not title:
        return Skipped(number, own_key or "?", say("venue_skip_no_title"))
    author = item.get("author", "")
    if author not in ("", -1, None) and not isinstance(author, str):
        return Skipped(number, own_key or "?", say("venue_skip_authors", kind=type(author).__name__))
    key = own_key if KEY.fullmatch(own_key) and own_key != "-1" else title_hash_key(title)
    again = key if own_key else fold_title(title)
    if again in seen:
        return Skipped(number, own_key or key, say("venue_skip_again"))
    seen.add(again)
    keywords = tuple(k for w in _text(item.get("keywords")).split(";") if (k := w.strip()))
    return VenueRecord(
        venue=source.venue,
        year=source.year,
        key=key,
        title=title,
        authors=split_names(_text(author)),
        status=_text(item.get("status")),
        track=_text(item.get("track")),
        abstract=_text(item.get("abstract")),
        keywords=keywords,
        links=_links(item),
        arxiv=_arxiv(item.get("arxiv")),
    )
