"""Reader for arXiv's daily mailing e-mail, and the ``\\\\``-delimited record grammar it shares.

The mailing (and arXiv's listing files, and ``.abs`` files, see ``abs.py``) is a run of records::

    \\\\
    arXiv:2601.15305                      (or "Paper: hep-th/9901001", "... (*cross-listing*)")
    Date: Mon, 12 Jan 2026 20:33:39 GMT   (215kb)
    Title: ...                            (continuation lines indented)
    Authors: / Categories: / Comments: / Journal-ref: / DOI: / License: ...
    \\\\
      abstract ...
    \\\\ ( https://arxiv.org/abs/2601.15305 ,  215kb)

``split_records`` cuts text into ``RawRecord`` and ``Marker`` items (section separators ``%-%-``
cross-lists, ``%%--%%`` replacements, ``%%%---`` end; ``/* Fri, 3 Mar 2023 */`` day headings), and
``paper_from_record`` turns one record into a ``Paper``. ``iter_mailing`` adds what the mailing says
about the day: the announcement date (``schedule.next_listing_day`` of the "received ... to" closing
day), the section kind, and each record's place in the mailing.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import IO, Literal

from papersift.records import paper
from papersift.records.paper import (
    AnnounceKind,
    Announcement,
    InvalidIdError,
    Paper,
    Parsed,
    RecordError,
    Version,
)
from papersift.records.schedule import next_listing_day

MarkerKind = Literal["cross", "replace", "end", "day"]

_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], 1
    )
}
_DATE = re.compile(
    r"(?:[A-Za-z]{3},?\s+)?(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]{3})\s+(?P<y>\d{2,4})"
    r"(?:\s+(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2}))?)?"
    r"\s*(?:GMT|UTC)?\s*(?:\((?P<size>[^)]*)\))?"
)
_ID_LINE = re.compile(
    r"^(?:arXiv:(?P<a>\S+)\s*(?P<ax>\(\*cross-listing\*\))?"
    r"|Paper\s*(?P<px>\(\*cross-listing\*\))?:\s*(?P<p>\S+))\s*$"
)
_FIELD = re.compile(r"^(?P<key>[A-Z][A-Za-z-]*(?: \([^)]*\))?):\s?(?P<value>.*)$")
_REPLACED = re.compile(r"^replaced with revised version\s+(?P<value>.*)$")
_REVISED = re.compile(r"^Date \(revised(?: v(?P<v>\d+))?\)$")
_DASHES = re.compile(r"^-{20,}\s*$")
_DAY = re.compile(r"^/\*\s*(?P<text>.*?)\s*\*/\s*$")
_RECEIVED = re.compile(r"received from\s+.*?\s+to\s+(?P<to>.+?\d{2}:\d{2}(?::\d{2})?)", re.I)
_SUBJECT = re.compile(r"^Subject:\s*([a-z-]+(?:\.[A-Za-z-]+)?)\s+daily\b", re.M)
_UNSUBSCRIBE = re.compile(r"e-mail To:\s*([a-z-]+)@arxiv\.org", re.I)
_MAILING_HEADER = re.compile(r"received from|Papers received as of|Submissions to:", re.I)
_CLOSE = re.compile(r"^\\\\(?:\s*\(.*\))?\s*$")  # "\\" or "\\ ( https://arxiv.org/abs/ID ,  NNkb)"


@dataclass(frozen=True, slots=True)
class Marker:
    """A separator between records: a section start (``cross``/``replace``), ``end``, or a ``day``
    heading."""

    kind: MarkerKind
    line: int
    text: str = ""


@dataclass(slots=True)
class RawRecord:
    """One record as written: id line, header fields (continuations joined), dates, abstract."""

    line: int  # 1-based line of the record's opening "\\"
    id_text: str | None = None  # as written after "arXiv:" / "Paper:"; None: no id line
    cross: bool = False  # the id line says "(*cross-listing*)"
    fields: dict[str, str] = field(default_factory=dict)
    dates: list[tuple[str, str]] = field(default_factory=list)  # ("Date (revised v2)", "Tue, ...")
    abstract_lines: list[str] = field(default_factory=list)
    header_done: bool = False  # the header was ended by its "\\" line
    closed: bool = False  # the record was ended by a closing "\\" line rather than cut off

    @property
    def abstract(self) -> str:
        return paper.clean_text("\n".join(self.abstract_lines))

    @property
    def locator(self) -> str:
        """How a RecordError names this record: its id where known, and its line."""
        return f"{self.id_text} (line {self.line})" if self.id_text else f"line {self.line}"


def decode(data: bytes) -> str:
    """UTF-8 text, falling back to Latin-1 for the odd old file (nothing is dropped either way)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _section_marker(line: str, number: int) -> Marker | None:
    if line.startswith("%%%---"):
        return Marker("end", number)
    if line.startswith("%%--%%"):
        return Marker("replace", number)
    if line.startswith("%-%-"):
        return Marker("cross", number)
    return None


def _add_header_line(record: RawRecord, line: str, last_key: str | None) -> str | None:
    """Fold one header line into ``record``; returns the key that continuation lines extend."""
    stripped = line.strip()
    if not stripped:
        return None
    if line[:1].isspace() and last_key is not None:
        if last_key in record.fields:
            record.fields[last_key] += "\n" + stripped
        return last_key
    m = _ID_LINE.match(stripped)
    if m and record.id_text is None:
        record.id_text = m["a"] or m["p"]
        record.cross = bool(m["ax"] or m["px"])
        return None
    m = _REPLACED.match(stripped)
    if m:
        record.dates.append(("replaced", m["value"]))
        return None
    m = _FIELD.match(stripped)
    if m:
        key = m["key"]
        if key == "Date" or key.startswith("Date ("):
            record.dates.append((key, m["value"]))
            return None
        if key in record.fields:
            record.fields[key] += "\n" + m["value"]
        else:
            record.fields[key] = m["value"]
        return key
    return last_key  # an unrecognised line: keep going, it cannot be placed


def _closes(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` closes an abstract: ``\\\\ ( url , size)``, or a bare ``\\\\`` followed
    only by blank lines, then a rule, a section separator or the end (a bare one inside an abstract
    is LaTeX's line break)."""
    line = lines[i].rstrip()
    if not _CLOSE.match(line):
        return False
    if line != "\\\\":
        return True
    for after in lines[i + 1 :]:
        rest = after.rstrip()
        if rest:
            return bool(_DASHES.match(rest) or _section_marker(rest, 0) or rest == "\\\\")
    return True


def split_records(text: str) -> Iterator[RawRecord | Marker]:
    """Cut a mailing, listing or ``.abs`` text into records and separators, in document order.

    A record whose abstract runs into a ``-----`` rule, a section separator or the end of the text
    without its closing ``\\\\`` line comes back with ``closed=False``.
    """
    state = "out"  # out | head | abstract | skip (after a day heading, up to its closing "\\")
    record: RawRecord | None = None
    last_key: str | None = None
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        stripped = line.rstrip()
        marker = _section_marker(stripped, number)
        if state == "out":
            if marker:
                yield marker
            elif stripped == "\\\\":
                record, last_key, state = RawRecord(number), None, "head"
            continue
        if state == "skip":
            if stripped.startswith("\\\\"):
                state = "out"
            continue
        assert record is not None
        ended = marker is not None or bool(_DASHES.match(stripped))
        if state == "head":
            day = _DAY.match(stripped)
            if day and not record.fields and record.id_text is None:
                yield Marker("day", number, day["text"])
                state = "skip"
                continue
            if stripped == "\\\\":  # the header's closing line: the abstract follows
                record.header_done = True
                state = "abstract"
                continue
            # "\\ ( url , size)" right after the header, or "\\-----" of a listing, closes the record
            closed = stripped.startswith("\\\\")
            if closed:
                record.header_done = True
            elif not ended:
                last_key = _add_header_line(record, line, last_key)
                continue
        else:
            closed = _closes(lines, number - 1)
            if not closed and not ended:
                record.abstract_lines.append(line)
                continue
        record.closed = closed
        yield record
        state = "out"
        if marker:
            yield marker
    if state in ("head", "abstract") and record is not None:
        yield record


def parse_date(text: str) -> tuple[datetime | None, str | None]:
    """``Mon, 2 Apr 2007 19:18:42 GMT   (36kb,D)`` → (UTC datetime, size ``36kb``).

    (None, None) when the text holds no readable date.
    """
    m = _DATE.search(text)
    if not m:
        return None, None
    month = _MONTHS.get(m["mon"].lower())
    if month is None:
        return None, None
    year = int(m["y"])
    if year < 100:
        year += 1900 if year >= 90 else 2000
    try:
        when = datetime(
            year, month, int(m["d"]), int(m["H"] or 0), int(m["M"] or 0), int(m["S"] or 0),
            tzinfo=UTC,
        )  # fmt: skip
    except ValueError:
        return None, None
    size = m["size"].split(",")[0].strip() if m["size"] else None
    return when, size or None


def versions_of(record: RawRecord) -> list[Version]:
    """The versions a record's date lines give: v1 ``Date:``, vN ``Date (revised vN):``.

    A mailing's ``replaced with revised version`` line names no version number: it gives none here
    (see ``revised_at``).
    """
    out: list[Version] = []
    for key, value in record.dates:
        when, size = parse_date(value)
        if key == "Date":
            number = 1
        else:
            m = _REVISED.match(key)
            if not m:
                continue
            number = int(m["v"]) if m["v"] else (out[-1].version + 1 if out else 2)
        out.append(Version(number, when, size))
    return sorted(out, key=lambda v: v.version)


def revised_at(record: RawRecord) -> datetime | None:
    """The date of a ``replaced with revised version ...`` line, if the record has one."""
    for key, value in record.dates:
        if key == "replaced":
            return parse_date(value)[0]
    return None


def _optional(record: RawRecord, key: str) -> str | None:
    return paper.clean_text(record.fields.get(key)) or None


def paper_from_record(record: RawRecord, source: str) -> Paper | RecordError:
    """The Paper a record describes, or a RecordError naming it (no/bad id, no title, cut off)."""
    if record.id_text is None:
        return RecordError(source, record.locator, "record has no arXiv id line")
    try:
        arxiv_id = paper.parse_id(record.id_text)
    except InvalidIdError as e:
        return RecordError(source, record.locator, str(e))
    title = paper.clean_text(record.fields.get("Title"))
    if not title:
        return RecordError(source, record.locator, "record has no Title")
    if not record.header_done:
        return RecordError(source, record.locator, "record cut off in its header (no '\\\\' line)")
    if not record.closed and record.abstract:
        return RecordError(source, record.locator, "record cut off: no closing '\\\\' line")
    categories = (record.fields.get("Categories") or "").split()
    if not categories and "/" in arxiv_id.id:
        categories = [arxiv_id.id.split("/")[0]]  # the oldest records name only their archive
    versions = versions_of(record)
    revised = revised_at(record)
    dated = [v.submitted for v in versions if v.submitted]
    latest = revised or (dated[-1] if dated else None)
    version = max((v.version for v in versions), default=None)
    first = next((v for v in versions if v.version == 1), None)
    if arxiv_id.version is not None:
        version = max(version or 0, arxiv_id.version)
    return Paper(
        id=arxiv_id.id,
        title=title,
        authors=paper.split_authors(record.fields.get("Authors", "")),
        abstract=record.abstract,
        categories=categories,
        version=version,
        comments=_optional(record, "Comments"),
        journal_ref=_optional(record, "Journal-ref"),
        doi=_optional(record, "DOI"),
        license=_optional(record, "License"),
        versions=versions,
        published=first.submitted.date() if first and first.submitted else None,
        updated=latest.date() if latest else None,
        source=source,
    )


def mailing_date(text: str) -> date | None:
    """A mailing's announcement date, from ``received from ... to Thu 22 Jan 26 19:00:00 GMT``."""
    m = _RECEIVED.search(text[:5000])
    if not m:
        return None
    closing, _ = parse_date(m["to"])
    return next_listing_day(closing.date()) if closing else None


def day_heading_date(text: str) -> date | None:
    """The date of a listing's ``/* Fri, 3 Mar 2023 */`` heading."""
    when, _ = parse_date(text)
    return when.date() if when else None


def _kind(section: str, cross: bool) -> AnnounceKind:
    if section == "replace":
        return "replace-cross" if cross else "replace"
    return "cross" if cross or section == "cross" else "new"


def _in(category: str, subscribed: Collection[str]) -> bool:
    return any(category == s or category.startswith(s + ".") for s in subscribed)


def listing_category(kind: AnnounceKind, categories: list[str], subscribed: Collection[str]) -> str:
    """The listing a record was announced in, best effort.

    New and replaced papers: their primary category when the mailing covers it; cross-lists: the
    first of their other categories that it covers. Failing that, the first category the mailing
    covers; with nothing known about the mailing, the primary (new/replace) or the first non-primary
    (cross).
    """
    if not categories:
        return ""
    primary, others = categories[0], categories[1:]
    if kind in ("new", "replace") and (not subscribed or _in(primary, subscribed)):
        return primary
    if kind in ("cross", "replace-cross") and others:
        covered = next((c for c in others if _in(c, subscribed)), None)
        return covered or others[0]
    return next((c for c in categories if _in(c, subscribed)), primary)


def mailing_categories(text: str) -> list[str]:
    """The categories a mailing covers, as its header says: the ``Subject: q-fin.EC daily ...``
    line, else the archive of its ``To unsubscribe, e-mail To: cs@arXiv.org`` address; [] when
    neither is there."""
    head = text[:5000]
    m = _SUBJECT.search(head) or _UNSUBSCRIBE.search(head)
    return [m[1]] if m else []


def iter_mailing(stream: IO[bytes], source: str, categories: Collection[str] = ()) -> Iterator[Parsed]:
    """Every record of a daily mailing (or an arXiv listing file), in order; never raises.

    ``categories``: the category codes the mailing covers (``cs.AI``, or an archive: ``q-fin``),
    used to say which listing a record appeared in; by default, what the mailing's header says
    (``mailing_categories``).
    A paper id repeated within one mailing is reported as a RecordError and skipped.
    """
    try:
        text = decode(stream.read())
    except OSError as e:
        yield RecordError(source, "-", f"cannot read: {e}")
        return
    day = mailing_date(text)
    subscribed = list(categories) or mailing_categories(text)
    section = "new"
    position = 0
    seen: dict[str, int] = {}  # id → line, within one day's listing
    records = 0
    for item in split_records(text):
        if isinstance(item, Marker):
            if item.kind == "day":
                day, position, seen = day_heading_date(item.text), 0, {}
            elif item.kind != "end":
                section = item.kind
            continue
        position += 1
        records += 1
        parsed = paper_from_record(item, source)
        if isinstance(parsed, RecordError):
            yield parsed
            continue
        if parsed.id in seen:
            yield RecordError(source, item.locator, f"duplicate of the record at line {seen[parsed.id]}")
            continue
        seen[parsed.id] = item.line
        if day is not None:
            kind = _kind(section, item.cross)
            category = listing_category(kind, parsed.categories, subscribed)
            parsed.listings = [Announcement(day, category, kind, position)]
            if kind in ("new", "cross"):
                parsed.announced = day
        yield parsed
    if not records and not _MAILING_HEADER.search(text[:5000]):
        message = "empty file" if not text.strip() else "not an arXiv mailing or listing (no records)"
        yield RecordError(source, "-", message)
