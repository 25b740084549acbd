"""A search query as typed, parsed once: ``ParsedQuery``, what every backend renders in its own syntax.

The syntax: balanced ``"quoted phrases"`` are phrases, ``word*`` is a prefix, ``-word`` or ``-"phrase"``
excludes, a bare ``OR`` between two parts means either (``a OR b OR c`` groups left to right), anything
else must match (an implicit AND). A part's words are ``records.analyzer.words`` (``\\w+``), so stray
punctuation, ``AND(`` or a lone ``"`` is never syntax. ``store/fts_query`` renders a parsed query as an
FTS5 MATCH expression and ``store/postgres`` as ``to_tsquery`` text; ``ranking/search`` reads the
exclusions (``query_tokens``). ``QUERY_PARTS`` is the coarser cut understanding rewrites a query by
(``ranking/query_form``): whitespace-separated parts, a quoted phrase whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papersift.records.analyzer import words

# a quoted phrase, or a word (letters, digits, ``.+'-`` inside, ``*`` last), either after a ``-``
QUERY_TOKEN = re.compile(r'(-?)"([^"]+)"|(-?)([\w][\w.+\'-]*\*?)')
QUERY_PARTS = re.compile(r'(-?)"([^"]*)"|(\S+)')  # understanding's parts: a quoted phrase, else non-spaces


@dataclass(frozen=True, slots=True)
class Token:
    """One part of a query as typed (``QUERY_TOKEN``)."""

    text: str  # as typed, its ``-`` and quotes included
    body: str  # inside the quotes, or the word (a prefix's ``*`` kept)
    negated: bool
    quoted: bool


@dataclass(frozen=True, slots=True)
class Term:
    """Words that must follow one another (one word, or a phrase's); ``prefix``: the last one starts a
    word (``graph*``)."""

    words: tuple[str, ...]
    prefix: bool = False


@dataclass(frozen=True, slots=True)
class AnyOf:
    """Either of ``options`` (a group may hold a group: ``a OR b OR c`` is ((a OR b) OR c))."""

    options: tuple[Clause, ...]


Clause = Term | AnyOf


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """What a query asks: every ``include`` clause (AND), no ``exclude`` term, the ``author``'s words as a
    phrase in the authors (empty: any author)."""

    include: tuple[Clause, ...] = ()
    exclude: tuple[Term, ...] = ()
    author: tuple[str, ...] = ()

    @property
    def searchable(self) -> bool:
        """Whether anything must match (exclusions alone select nothing)."""
        return bool(self.include or self.author)


def query_tokens(query: str) -> list[Token]:
    """The parts of ``query`` in order (``QUERY_TOKEN``)."""
    return [
        Token(
            m.group(0), m.group(2) or m.group(4) or "", bool(m.group(1) or m.group(3)), m.group(2) is not None
        )
        for m in QUERY_TOKEN.finditer(query)
    ]


def parse_query(query: str, *, author: str | None = None, any_terms: bool = False) -> ParsedQuery:
    """``query`` (and an author's name) parsed (see module). With ``any_terms`` (an any-word query, a
    sentence's) an unquoted compound is its words apart ("quasi-one-dimensional": quasi, one, dimensional).
    """
    include: list[Clause] = []
    exclude: list[Term] = []
    pending_or = False
    for token in query_tokens(query):
        if token.body == "OR" and include and not token.negated:
            pending_or = True
            continue
        prefix = token.body.endswith("*") and not token.quoted
        found = tuple(words(token.body))
        if not found:
            continue
        if any_terms and not token.negated and not token.quoted and not prefix and len(found) > 1:
            include.extend(Term((w,)) for w in found)
            continue
        term = Term(found, prefix)
        if token.negated:
            exclude.append(term)
        elif pending_or:
            include[-1] = AnyOf((include[-1], term))
            pending_or = False
        else:
            include.append(term)
    return ParsedQuery(tuple(include), tuple(exclude), tuple(words(author or "")))
