"""Turning what a user types into a safe FTS5 query: user syntax is never an SQL error.

Words become quoted FTS5 strings (so ``AND(``, stray ``"`` or ``*`` cannot break the parser); balanced
``"quoted phrases"`` stay phrases, ``word*`` stays a prefix query, ``-word`` excludes, and a bare ``OR``
between words means either. Everything else is an implicit AND, or, with ``any_terms`` (the keyword side
of hybrid search, where a query may be a whole sentence), an OR of the words that are not stop words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from papersift.records.analyzer import STOP_WORDS

_TOKEN = re.compile(r'(-?)"([^"]+)"|(-?)([\w][\w.+\'-]*\*?)', re.UNICODE)
_WORD = re.compile(r"\w+", re.UNICODE)


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts_query(
    query: str,
    *,
    author: str | None = None,
    any_terms: bool = False,
    common: Callable[[str], bool] | None = None,
) -> str | None:
    """The FTS5 MATCH expression for ``query`` (None when nothing searchable is left).

    With ``any_terms``, words for which ``common`` is true are left out like stop words, and when every
    word is common, all of them must match: a store that knows its term frequencies keeps an any-word
    query off the longest posting lists.
    """
    include: list[str] = []
    exclude: list[str] = []
    pending_or = False
    for m in _TOKEN.finditer(query):
        neg = bool(m.group(1) or m.group(3))
        raw = m.group(2) or m.group(4) or ""
        if raw == "OR" and include and not neg:
            pending_or = True
            continue
        prefix = raw.endswith("*") and m.group(4) is not None
        words = _WORD.findall(raw)
        if not words:
            continue
        if any_terms and not neg and m.group(4) is not None and not prefix and len(words) > 1:
            include.extend(_quote(w) for w in words)  # "quasi-one-dimensional": any of its words
            continue
        term = _quote(" ".join(words)) + ("*" if prefix else "")
        if neg:
            exclude.append(term)
        elif pending_or:
            include[-1] = f"({include[-1]} OR {term})"
            pending_or = False
        else:
            include.append(term)
    if any_terms:
        kept = [t for t in include if len(t.strip('"')) > 1 and t.strip('"').lower() not in STOP_WORDS]
        kept = kept or include
        rare = [t for t in kept if common is None or not common(t.strip('"'))]
        # every word common: the papers having them all
        include = ["(" + " OR ".join(dict.fromkeys(rare)) + ")"] if rare else list(dict.fromkeys(kept))
    if author:
        names = _WORD.findall(author)
        if names:
            include.append("authors : " + _quote(" ".join(names)))
    if not include:
        return None
    expr = " AND ".join(include)
    for term in exclude:
        expr = f"({expr}) NOT {term}"
    return expr


def plain_words(query: str) -> list[str]:
    """The words of ``query`` (what ``fts_query`` may quote one by one), in order, without repeats."""
    return list(dict.fromkeys(_WORD.findall(query)))
