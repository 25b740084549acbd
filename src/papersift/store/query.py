"""Turning what a user types into a safe FTS5 query: user syntax is never an SQL error.

Words become quoted FTS5 strings (so ``AND(``, stray ``"`` or ``*`` cannot break the parser); balanced
``"quoted phrases"`` stay phrases, ``word*`` stays a prefix query, ``-word`` excludes, and a bare ``OR``
between words means either. Everything else is an implicit AND.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r'(-?)"([^"]+)"|(-?)([\w][\w.+\'-]*\*?)', re.UNICODE)
_WORD = re.compile(r"\w+", re.UNICODE)


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts_query(query: str, *, author: str | None = None) -> str | None:
    """The FTS5 MATCH expression for ``query`` (None when nothing searchable is left)."""
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
        term = _quote(" ".join(words)) + ("*" if prefix else "")
        if neg:
            exclude.append(term)
        elif pending_or:
            include[-1] = f"({include[-1]} OR {term})"
            pending_or = False
        else:
            include.append(term)
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
