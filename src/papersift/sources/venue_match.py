"""When a venue's record and an arXiv paper are one paper: by title and authors together, never by title
alone (two papers can share a generic title).

Titles are compared as keys: LaTeX macros, accents, case, spacing and punctuation dropped
(``$\\mathcal{O}$-GNN`` = ``O-GNN`` = ``𝒪-GNN``, "Schrödinger’s" = "Schrodingers"), whole or without a
subtitle (the part after a colon or a dash: one side may drop or add it), else by how much of one key the
other spells in order; the candidates' titles are decoded with ``sources/latex.py`` before that. Authors
are compared by ``records/names.py`` (initials for first names, accents folded): most of the shorter list
must be found in the other, so an author added or missing still agrees.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from papersift.records.analyzer import fold, plain_words
from papersift.records.names import Name, parse_name, same_name
from papersift.sources.latex import latex_to_unicode

_MACRO = re.compile(r"\\(?:[A-Za-z]+|.)")  # \mathcal, \alpha, \" (what is left of it is folded below)
# a subtitle: after a colon, a spaced dash, a question mark or an exclamation mark followed by more words
_SUBTITLE = re.compile(r"\s*(?::|\?|!|\s[-–—]{1,2}\s|[–—])\s*(?=\S)")
MIN_KEY = 8  # a shorter main part ("Cobra") stands for its title only with more of the authors
TITLE_AGREES = 0.9  # what a title's agreement must reach, with the authors'
SURE_TITLE = 0.95  # a title agreeing this much needs half the authors; below, at least two of them
NEAR_PAIRS = 0.7  # the share of letter pairs two keys a ratio compares at least have in common
SHORT_MAIN = 0.92  # the agreement of a title with its main part alone, when that part is short
SURE_PREFIX = 24  # a title that begins another (a subtitle dropped at no mark): this long, it agrees
PREFIX = 0.93  # as much (less than a subtitle set off by a mark: a paper with that title wins)
CLAIMED_TITLE = 0.8  # a record naming its arXiv id: its title agrees this much


@lru_cache(maxsize=8192)  # a record's title is compared with each of its candidates
def title_key(title: str) -> str:
    """The letters and digits of a title, LaTeX macros dropped, accents folded to ASCII, lower case."""
    return "".join(plain_words(fold(_MACRO.sub("", title))))


def main_title(title: str) -> str:
    """A title without its subtitle (the whole title when it has none)."""
    parts = _SUBTITLE.split(title, maxsplit=1)
    return parts[0] if len(parts) == 2 and title_key(parts[0]) else title


@lru_cache(maxsize=8192)
def title_keys(title: str) -> tuple[str, str]:
    """A title's key, and its main part's (the same when it has no subtitle)."""
    return title_key(title), title_key(main_title(title))


def title_agreement(a: str, b: str) -> float:
    """How surely two titles are one paper's (0 … 1): 1 for equal keys, 0.95 when one drops or adds a
    subtitle (0.93 when no mark set it off, 0.92 when what is left is short: these need more of the
    authors), else how much of the longer key the shorter spells in order (0 below ``TITLE_AGREES``)."""
    (ka, ma), (kb, mb) = title_keys(a), title_keys(b)
    if not ka or not kb:
        return 0.0
    if ka == kb:
        return 1.0
    if (len(ma) >= MIN_KEY and ma in (kb, mb)) or (len(mb) >= MIN_KEY and mb == ka):
        return SURE_TITLE
    if ma == kb or mb == ka:  # one is the other's short main part ("Cobra" and "Cobra: Efficient …")
        return SHORT_MAIN
    short, long = sorted((ka, kb), key=len)
    if len(short) >= MIN_KEY and long.startswith(short):  # a subtitle dropped where no mark set it off
        return PREFIX if len(short) >= SURE_PREFIX else SHORT_MAIN
    da, db = _decoded_key(a), _decoded_key(b)
    if da == db and da:
        return 1.0
    if 2 * min(len(da), len(db)) < TITLE_AGREES * (len(da) + len(db)):
        return 0.0  # the ratio's bound by the lengths alone
    pa, pb = _pairs(da), _pairs(db)
    if 2 * len(pa & pb) < NEAR_PAIRS * (len(pa) + len(pb)):
        return 0.0  # too few letter pairs in common for the ratio to reach it: most candidates end here
    matcher = SequenceMatcher(None, da, db, autojunk=False)
    if matcher.real_quick_ratio() < TITLE_AGREES or matcher.quick_ratio() < TITLE_AGREES:
        return 0.0  # the bounds of the ratio, cheap: most candidates end here
    ratio = matcher.ratio()
    return ratio if ratio >= TITLE_AGREES else 0.0


@lru_cache(maxsize=8192)
def _decoded_key(title: str) -> str:
    return title_key(latex_to_unicode(title))


@lru_cache(maxsize=8192)
def _pairs(key: str) -> frozenset[str]:
    return frozenset(key[i : i + 2] for i in range(len(key) - 1))


@dataclass(frozen=True, slots=True)
class AuthorAgreement:
    """How two author lists agree: the names found in both, and the shorter list's length."""

    shared: int
    shorter: int

    @property
    def agrees(self) -> bool:
        """Enough to be one paper's: at least one, and at least half of the shorter list (two of three)."""
        return self.shared >= 1 and self.shared * 2 >= self.shorter

    @property
    def strongly(self) -> bool:
        """Enough for a title that agrees less surely: two names (the only one of a single author) and at
        least half of the shorter list."""
        return self.agrees and (self.shared >= 2 or self.shorter == 1)

    @property
    def share(self) -> float:
        return self.shared / self.shorter if self.shorter else 0.0


def parsed_names(authors: Sequence[str]) -> list[Name]:
    return [n for n in (parse_name(latex_to_unicode(a)) for a in authors) if n.surname]


def author_agreement(a: Sequence[Name], b: Sequence[Name]) -> AuthorAgreement:
    """Names of ``a`` found in ``b`` (each name of ``b`` used once)."""
    left = list(b)
    shared = 0
    for name in a:
        hit = next((i for i, other in enumerate(left) if same_name(name, other)), None)
        if hit is not None:
            shared += 1
            left.pop(hit)
    return AuthorAgreement(shared, min(len(a), len(b)))


@dataclass(frozen=True, slots=True)
class Agreement:
    """How a record and a paper agree: their titles' and their authors'; ``score`` orders candidates."""

    title: float
    authors: AuthorAgreement

    @property
    def same_paper(self) -> bool:
        if self.title >= SURE_TITLE:
            return self.authors.agrees
        return self.title >= TITLE_AGREES and self.authors.strongly

    @property
    def score(self) -> float:
        return self.title + self.authors.share


def agreement(title_a: str, names_a: Sequence[Name], title_b: str, authors_b: Sequence[str]) -> Agreement:
    """How record ``a`` (its title and parsed names) and paper ``b`` (its title and authors) agree: titles
    first, authors compared only for a title that agrees."""
    title = title_agreement(title_a, title_b)
    authors = author_agreement(names_a, parsed_names(authors_b)) if title else AuthorAgreement(0, 0)
    return Agreement(title, authors)
