"""Paper text as the pages mark it: the search words marked, always after escaping and never inside an entity
or a formula. Turning LaTeX into the text shown is ``sources/latex.py``'s (``tex_text``: math left for KaTeX;
``plain_text`` where no markup can go, e.g. ``<title>``).
"""

from __future__ import annotations

import re
from collections.abc import Container

from markupsafe import Markup, escape

from papersift.records.analyzer import STOP_WORDS
from papersift.web import links

MATH = re.compile(r"(\$[^$]+\$)")


def highlight(text: str, words: list[str] | None) -> Markup:
    """``text`` escaped, with the query's words marked (never inside ``$…$``, which KaTeX typesets, nor
    inside the entities escaping writes: matching runs on the text, escaping on each piece)."""
    wanted = sorted({w for w in words or () if len(w) > 2 and w.casefold() not in STOP_WORDS}, key=len)[::-1]
    if not wanted:
        return escape(text)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, wanted)) + r")", re.IGNORECASE)
    out: list[str] = []
    for i, part in enumerate(MATH.split(text)):
        if i % 2:
            out.append(str(escape(part)))
            continue
        at = 0
        for m in pattern.finditer(part):
            out += [str(escape(part[at : m.start()])), f"<mark>{escape(m.group())}</mark>"]
            at = m.end()
        out.append(str(escape(part[at:])))
    return Markup("".join(out))


def linked(text: str, words: list[str] | None = None, stored: Container[str] = ()) -> Markup:
    """``highlight``, with every URL, arXiv id and DOI outside math a safe link (``web/links.py``): an arXiv
    id to its page here when ``stored`` holds it, else to arXiv's."""
    return links.linked(text, lambda piece: highlight(piece, words), skip=MATH, stored=stored)
