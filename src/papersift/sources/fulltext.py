"""A paper's full text as papersift keeps it: the records that extraction (``sources/eprint.py`` for arXiv's
e-prints, TeX and PDF) produces and the store persists, the paper page shows and the reading layer reads.

Pure data: no parsing here, no storage. The JSON of a paper carries ``fulltext: {from, sections, words}``,
``references``, ``cited_by`` and ``code`` built from these records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

FullTextFrom = Literal["tex", "pdf"]


class ExtractError(ValueError):
    """An e-print or PDF that cannot be read safely or at all (hostile archive, corrupt gzip, no text
    layer…): the message says why, for the user; nothing of the previous state is changed."""


@dataclass(frozen=True, slots=True)
class Section:
    """One section of the paper: its heading as written (math kept as LaTeX), its depth (1 section, 2
    subsection, 3 subsubsection; 0 for text before the first heading, e.g. the abstract), its plain text."""

    heading: str
    level: int
    text: str


@dataclass(frozen=True, slots=True)
class Reference:
    """One entry of the paper's reference list: its citation key (TeX) or number (PDF), the entry as plain
    text, and what could be read from it: an arXiv id (no version), a DOI (lower case), a title, a year, a
    URL. ``resolved`` is the arXiv id of the store's paper it names, filled in by resolution (store)."""

    key: str
    text: str
    arxiv_id: str | None = None
    doi: str | None = None
    title: str | None = None
    year: int | None = None
    url: str | None = None
    resolved: str | None = None


CodeKind = Literal["github", "gitlab", "huggingface", "project"]


@dataclass(frozen=True, slots=True)
class CodeLink:
    """A link to code, data or a project page: its URL, what host it is on, and whether it is the paper's
    own (said so in the text: "code is available at", a footnote on the title) rather than one it cites."""

    url: str
    kind: CodeKind
    own: bool = False


@dataclass(frozen=True, slots=True)
class FullText:
    """What was read from one version of a paper: where from (TeX source or PDF), its sections in order, the
    figure and table captions, its references in the order the paper lists them, and its code links."""

    source: FullTextFrom
    sections: tuple[Section, ...]
    captions: tuple[str, ...] = ()
    references: tuple[Reference, ...] = ()
    code: tuple[CodeLink, ...] = field(default=())
    title: str = ""  # as the source gives it (TeX's \title, math kept as LaTeX); "" where unknown
    macros: tuple[tuple[str, str], ...] = ()  # the TeX preamble's math macros (``\\R``, its body) for KaTeX

    @property
    def words(self) -> int:
        """Words of running text (sections only), as the JSON's ``fulltext.words`` reports them."""
        return sum(len(s.text.split()) for s in self.sections)
