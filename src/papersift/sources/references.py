"""Bibliography references: the records a bibliography reader gives (``Reference``, ``EntryError``,
``ImportResult``), the field helpers every reader shares (arXiv ids and DOIs found in text, safe links,
years, tags, citation keys), and a stored ``Paper`` as a reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import quote

from papersift.records.analyzer import fold, letter_words
from papersift.records.messages import say
from papersift.records.paper import InvalidIdError, Paper, clean_text, normalize_id
from papersift.sources.citetext import clean_authors
from papersift.sources.latex import plain_text

ABS_URL = "https://arxiv.org/abs/{}"


@dataclass(frozen=True, slots=True)
class Reference:
    """One bibliography entry as found in a reader's file."""

    key: str  # citation key, or a stable one made from author, year and title
    title: str
    authors: tuple[str, ...]  # "First Last"
    year: int | None
    abstract: str
    doi: str | None  # lower case, no https://doi.org/
    arxiv_id: str | None  # versionless, normalize_id's spelling
    url: str | None
    venue: str | None
    tags: tuple[str, ...]
    note: str
    line: int  # 1-based line the entry starts on; 0 where the format gives none (CSL-JSON)
    kind: str = ""  # the BibTeX entry type as read ("article", "inproceedings"); "" where unknown
    volume: str = ""  # the venue's volume, issue and pages ("123-130", or an article number); "" unknown
    issue: str = ""
    pages: str = ""
    latex: bool = False  # text is arXiv's LaTeX (a stored paper), not a reader's decoded Unicode


@dataclass(frozen=True, slots=True)
class EntryError:
    """An entry that was skipped: the line it starts on (0 when unknown) and why."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message

    def said(self) -> str:
        """``str(self)``, as a message (``records/messages.py``) when its own is one."""
        return say("entry_line", line=self.line, message=self.message) if self.line else self.message


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What one file gave: the references read, the entries skipped, and the format it was read as."""

    references: list[Reference]
    errors: list[EntryError]
    format: str  # one of FORMATS; "" when the input could not be read at all


Read = Iterator[Reference | EntryError]  # what a format reader yields


_ID = r"(?:\d{4}\.\d{4,5}|[a-z][a-z-]*[a-z](?:\.[a-z]{2})?/\d{7})(?!\d)(?:v\d+)?"
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv\.org/(?:abs|pdf|html)/|arxiv[:.\s]\s*|10\.48550/arxiv\.)({_ID})", re.I
)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")


def find_arxiv_id(*texts: str | None) -> str | None:
    """The first arXiv id written in any of ``texts`` (``arXiv:…``, abs/PDF URLs, arXiv DOIs), versionless."""
    for text in texts:
        for m in _ARXIV_IN_TEXT.finditer(text or ""):
            try:
                return normalize_id(m[1])
            except InvalidIdError:
                continue
    return None


def bare_arxiv_id(value: str | None) -> str | None:
    """An id field's value (``2401.01234v2``, ``arXiv:hep-th/9901001``), or one written inside it."""
    if not value:
        return None
    try:
        return normalize_id(value.strip())
    except InvalidIdError:
        return find_arxiv_id(value)


def normalize_doi(value: str | None) -> str | None:
    """``https://doi.org/10.1000/ABC`` → ``10.1000/abc``; None when there is no DOI in ``value``."""
    m = _DOI.search(value or "")
    return m[0].rstrip(".,;").lower() if m else None


_UNSAFE_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\\\"'<>`]")  # spaces, controls, quotes, backslash
_HTTP = re.compile(r"https?://[^/?#@:]+(?::\d{1,5})?(?:[/?#]|$)", re.I)  # scheme, a host, its port
_DOI_URL = "https://doi.org/"


def safe_url(value: str | None) -> str | None:
    """A link that is safe in an ``href``: an http(s) URL to a host, else a DOI (``doi:10.…``, ``10.…``) or an
    arXiv id (``arXiv:2401.01234``) as its https link; None for anything else (``javascript:``, ``data:``,
    ``file:``, relative paths, text with spaces or control characters). Imported URLs pass through here."""
    text = (value or "").strip()
    if not text or len(text) > 2000:
        return None
    if _HTTP.match(text) and not _UNSAFE_IN_URL.search(text):
        return text
    doi = re.fullmatch(r"(?:doi:\s*)?(10\.\d{4,9}/\S+)", text, re.I)
    if doi:
        return _DOI_URL + quote(doi[1], safe="/:;()._-")
    arxiv = re.fullmatch(r"(?:arxiv:\s*)?([\w./-]+)", text, re.I)
    return ABS_URL.format(id_line(arxiv[1])) if arxiv and id_line(arxiv[1]) else None


def first_year(*values: Any) -> int | None:
    for value in values:
        m = _YEAR.search(str(value)) if value not in (None, "") else None
        if m:
            return int(m[1])
    return None


def split_tags(value: str | None) -> list[str]:
    return [t for t in (clean_text(p) for p in re.split(r"[,;]", value or "")) if t]


def make_key(authors: Iterable[str], year: int | None, title: str) -> str:
    """A citation key in the usual ``lastYYYYword`` shape, stable for the same author, year and title."""
    first = plain_text(next(iter(clean_authors(authors)), ""))
    last = "".join(letter_words(fold(first.split()[-1] if first.split() else ""))) or "anon"
    word = next((w for w in letter_words(fold(plain_text(title))) if len(w) >= 4), "paper")
    return f"{last}{year or ''}{word}"


def id_line(line: str) -> str | None:
    try:
        return normalize_id(line)
    except InvalidIdError:
        return None


def paper_year(paper: Paper) -> int:
    return (paper.published or paper.announced or paper.updated or date(1991, 1, 1)).year


def bibtex_key(paper: Paper) -> str:
    """``lastYYYYword`` for a paper: first author's last name, year of v1, first long word of the title."""
    return make_key(paper.authors, paper_year(paper), paper.title)


_JOURNAL_REF = re.compile(
    r"(?P<journal>.*?[A-Za-z.)])\s*,?\s*(?:vol(?:ume)?\.?\s*)?(?P<volume>\d+[A-Za-z]?)"
    r"(?:\s*\((?P<issue>\d{1,3})\)|\s*,?\s*no\.?\s*(?P<no>\d+))?(?:\s*[,:]\s*|\s+)(?:\((?:19|20)\d\d\)\s*,?\s*)?"
    r"(?:pp?\.?\s*)?(?P<pages>[A-Za-z]?\d+(?:\s*-+\s*[A-Za-z]?\d+)?)\b.*",
    re.S,
)


def parse_journal_ref(text: str | None) -> tuple[str, str, str, str]:
    """(journal, volume, issue, pages) of arXiv's journal_ref ("Phys. Rev. D 50 (1994) 1234-1240",
    "JHEP 0805:012,2008"); the whole text as the journal where it has no such shape."""
    text = clean_text(text or "")
    m = _JOURNAL_REF.fullmatch(text)
    if not m or re.fullmatch(r"(?:19|20)\d\d", m["volume"]):
        return text, "", "", ""
    pages = re.sub(r"\s*-+\s*", "-", m["pages"])
    return m["journal"].strip(" ,"), m["volume"], m["issue"] or m["no"] or "", pages


def clean_pages(value: str | None) -> str:
    """Pages as ``first-last`` (BibTeX's ``--`` and en dashes as one hyphen)."""
    return re.sub(r"\s*(?:-+|–|—)\s*", "-", clean_text(value or ""))


def reference_from_paper(paper: Paper) -> Reference:
    """A paper from the store as a reference (its text stays arXiv's LaTeX; its journal_ref read into
    journal, volume, issue and pages)."""
    journal, volume, issue, pages = parse_journal_ref(paper.journal_ref)
    return Reference(
        key=bibtex_key(paper),
        title=paper.title,
        authors=tuple(paper.authors),
        year=paper_year(paper),
        abstract=paper.abstract,
        doi=normalize_doi(paper.doi),
        arxiv_id=paper.id,
        url=ABS_URL.format(paper.id),
        venue=journal or None,
        tags=(),
        note="",
        line=0,
        volume=volume,
        issue=issue,
        pages=pages,
        latex=True,
    )
