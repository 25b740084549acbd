"""Text that names a place made a link, safely: http(s) URLs, arXiv ids (``arXiv:2401.01234``, ``arXiv
preprint arXiv:1607.06450``, ``CoRR abs/1409.0473``, ``hep-th/0005057``) and DOIs (``10.1145/3065386``,
``doi:…``) in a paper's abstract, comments or reference list; and a paper's link to arXiv's HTML version.

Every piece of text is escaped; a link's ``href`` is an http(s) URL that ``sources/references.safe_url``
accepts (a host, no quotes, spaces, backslashes or angle brackets: a URL stops where such a character
starts), written escaped, with ``rel="noopener nofollow"``; anything else (``javascript:``, ``data:``)
stays text. An arXiv id links to the stored paper (``/abs/ID``) where the caller says it is stored, else
to arxiv.org; a DOI to doi.org. Nothing is looked for inside the spans ``skip`` matches (math, which KaTeX
typesets in the browser), and the text between links goes through the caller's ``mark`` (escaping, and
the search words marked), so a link never cuts a formula or a mark.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal
from urllib.parse import quote

from markupsafe import Markup, escape

from papersift.records.paper import InvalidIdError, id_month, parse_id
from papersift.records.taxonomy import archive_of
from papersift.sources.references import safe_url

Kind = Literal["url", "arxiv", "doi"]
Mark = Callable[[str], Markup]  # a piece of text as HTML: escaped, perhaps with words marked

ARXIV_ABS = "https://arxiv.org/abs/{}"
ARXIV_HTML = "https://arxiv.org/html/{}"
AR5IV_HTML = "https://ar5iv.labs.arxiv.org/html/{}"  # arXiv Labs' HTML of the papers before
DOI_URL = "https://doi.org/"
HTML_SINCE = date(2023, 12, 1)  # arXiv makes HTML of the TeX papers submitted since December 2023
EXTERNAL = "noopener nofollow"

# a URL runs to the first space, quote, bracket of markup or backslash; closing punctuation is trimmed after
_URL = re.compile(r"https?://[^\s\"'<>`\\{}|^\[\]]+", re.IGNORECASE)
_OLD = r"[a-z][a-z-]*[a-z](?:\.[a-z]{2})?/\d{7}(?:v\d+)?"  # hep-th/0005057, math.GT/0309136v2
_ARXIV = re.compile(
    rf"\b(?:(?:arxiv\s*:?\s*|abs/)(?P<id>\d{{4}}\.\d{{4,5}}(?:v\d+)?|{_OLD})|(?P<old>{_OLD}))\b",
    re.IGNORECASE,
)
_DOI = re.compile(r"\b(?:doi\s*:\s*)?(?P<doi>10\.\d{4,9}/[^\s\"'<>`\\{}|^]+)", re.IGNORECASE)
_TRAILING = ".,;:!?'\""


@dataclass(frozen=True, slots=True)
class Found:
    """A span of text that names a place: where it is, what it is and the id or DOI it names."""

    start: int
    end: int
    kind: Kind
    target: str  # the URL, the versionless arXiv id (its version in ``version``) or the DOI
    version: str = ""  # ``v2``: the version an arXiv id was written with

    @property
    def key(self) -> tuple[str, str]:
        """What it names, whatever the spelling (the same paper, DOI or URL twice is one)."""
        return self.kind, self.target.casefold().rstrip("/")


def _trimmed(text: str, start: int, end: int) -> int:
    """The end of a URL or DOI without the sentence's punctuation after it (a closing bracket is the
    URL's own only when the URL opened one)."""
    while end > start:
        last = text[end - 1]
        opening = {")": "(", "]": "["}.get(last)
        if last in _TRAILING or (opening and text.count(opening, start, end) < text.count(last, start, end)):
            end -= 1
        else:
            break
    return end


def _outside(text: str, skip: re.Pattern[str] | None) -> list[tuple[int, int]]:
    """The stretches of ``text`` not matched by ``skip``."""
    if skip is None:
        return [(0, len(text))]
    out, at = [], 0
    for m in skip.finditer(text):
        out.append((at, m.start()))
        at = m.end()
    out.append((at, len(text)))
    return out


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= a or start >= b for a, b in taken)


def _arxiv(m: re.Match[str]) -> tuple[str, str] | None:
    """The versionless id and the version an arXiv match names; None for a bare old-style id of no arXiv
    archive (``and/1234567``) or a month that is none."""
    raw = m["id"] or m["old"]
    if m["old"] and archive_of(raw.split("/")[0]) is None:
        return None
    try:
        named = parse_id(raw)
    except InvalidIdError:
        return None
    return named.id, f"v{named.version}" if named.version else ""


def _found_in(piece: str, lo: int) -> list[Found]:
    spans: list[Found] = []
    taken: list[tuple[int, int]] = []
    for m in _URL.finditer(piece):
        end = _trimmed(piece, m.start(), m.end())
        url = piece[m.start() : end]
        if safe_url(url) == url:
            spans.append(Found(lo + m.start(), lo + end, "url", url))
        taken.append((m.start(), m.end()))
    for m in _ARXIV.finditer(piece):
        named = _arxiv(m) if _free(taken, m.start(), m.end()) else None
        if named is not None:
            spans.append(Found(lo + m.start(), lo + m.end(), "arxiv", *named))
            taken.append((m.start(), m.end()))
    for m in _DOI.finditer(piece):
        end = _trimmed(piece, m.start("doi"), m.end())
        if end - m.start("doi") > 8 and _free(taken, m.start(), end):
            spans.append(Found(lo + m.start(), lo + end, "doi", piece[m.start("doi") : end]))
    return spans


def found(text: str, skip: re.Pattern[str] | None = None) -> list[Found]:
    """Every URL, arXiv id and DOI in ``text`` outside ``skip``'s spans, in order, none overlapping (a URL
    holds the id or DOI in it)."""
    spans = [f for lo, hi in _outside(text, skip) for f in _found_in(text[lo:hi], lo)]
    return sorted(spans, key=lambda f: f.start)


def arxiv_href(paper_id: str, stored: Container[str] = (), version: str = "") -> str:
    """The stored paper's page, else its arXiv page."""
    return f"/abs/{paper_id}" if paper_id in stored else ARXIV_ABS.format(paper_id + version)


def doi_href(doi: str) -> str:
    return DOI_URL + quote(doi, safe="/:;()._-")


def href(link: Found, stored: Container[str] = ()) -> str:
    if link.kind == "arxiv":
        return arxiv_href(link.target, stored, link.version)
    if link.kind == "doi":
        return doi_href(link.target)
    return link.target


def anchor(target: str, inner: Markup | str) -> Markup:
    """``<a>`` to ``target`` around ``inner`` (escaped unless Markup); off-site links open nothing of ours
    and pass no ranking."""
    rel = "" if target.startswith("/") else f' rel="{EXTERNAL}"'
    return Markup('<a href="{}"{}>{}</a>').format(target, Markup(rel), inner)


def linked(
    text: str, mark: Mark = escape, *, skip: re.Pattern[str] | None = None, stored: Container[str] = ()
) -> Markup:
    """``text`` as HTML: every URL, arXiv id and DOI (outside ``skip``) a link, the text between them and
    each link's words through ``mark``."""
    out: list[str] = []
    at = 0
    for link in found(text, skip):
        out += [
            str(mark(text[at : link.start])),
            str(anchor(href(link, stored), mark(text[link.start : link.end]))),
        ]
        at = link.end
    out.append(str(mark(text[at:])))
    return Markup("".join(out))


def _beside(kind: Kind, target: str) -> Found:
    """A place a reference names beside its text (no span of it): an arXiv id without its version."""
    if kind == "arxiv":
        with suppress(InvalidIdError):
            target = parse_id(target).id
    return Found(0, 0, kind, target)


def reference(entry: Mapping[str, Any]) -> Markup:
    """One entry of a reference list (``ReferenceShape``'s fields) as HTML: its text with every URL, arXiv
    id and DOI a link (the arXiv id it resolves to: the stored paper), then a link to each place it names
    that its text does not show: the stored paper, its arXiv id, DOI or URL."""
    text = str(entry.get("text") or "")
    resolved = entry.get("resolved")
    stored = {resolved} if resolved else set()
    shown = {f.key for f in found(text)}
    named = [_beside("arxiv", str(value)) for value in (resolved, entry.get("arxiv_id")) if value]
    if entry.get("doi"):
        named.append(_beside("doi", str(entry["doi"])))
    url = str(entry.get("url") or "")
    if url and safe_url(url) == url:
        named.append(_beside("url", url))
    html = [str(linked(text, stored=stored))]
    for link in named:
        if link.key not in shown:
            label = {"arxiv": "arXiv:", "doi": "doi:"}.get(link.kind, "") + link.target
            html.append(
                str(Markup(' <span class="ref-link">{}</span>').format(anchor(href(link, stored), label)))
            )
            shown.add(link.key)
    return Markup("".join(html))


def html_url(paper_id: str) -> str | None:
    """arXiv's HTML version of the paper: arxiv.org's own for papers submitted since it makes one (December
    2023), ar5iv's (arXiv Labs) for the earlier; None for an id that is not arXiv's."""
    month = id_month(paper_id)
    if month is None:
        return None
    return (ARXIV_HTML if month >= HTML_SINCE else AR5IV_HTML).format(paper_id)
