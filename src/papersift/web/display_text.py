"""Paper text as the pages show it: LaTeX accents and commands turned into the characters they stand for,
math left for KaTeX (or flattened to plain text where no markup can go, e.g. ``<title>``), and the search
words marked, always after escaping and never inside an entity or a formula.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markupsafe import Markup, escape
from pylatexenc.latex2text import LatexNodes2Text

from papersift.records.analyzer import STOP_WORDS

MATH = re.compile(r"(\$[^$]+\$)")
_SPECIAL = re.compile(r"(?<!\\)([%&#])")  # TeX's comment / alignment / parameter characters: kept as text
_TEXT = LatexNodes2Text(math_mode="verbatim", strict_latex_spaces=True)
_PLAIN = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def _convert(converter: LatexNodes2Text, text: str) -> str:
    if "\\" not in text and "{" not in text:
        return text
    try:
        return str(converter.latex_to_text(_SPECIAL.sub(r"\\\1", text)))
    except Exception:  # pylatexenc is tolerant; anything it still cannot read stays as it was
        return text


@lru_cache(maxsize=20_000)
def tex_text(text: str) -> str:
    """``Ruszczy\\'{n}ski``, ``\\emph{risk}`` → ``Ruszczyński``, ``risk``; ``$…$`` left for KaTeX."""
    parts = MATH.split(text or "")
    return "".join(p if i % 2 else _convert(_TEXT, p) for i, p in enumerate(parts))


@lru_cache(maxsize=20_000)
def plain_text(text: str) -> str:
    """Everything as plain characters, math included (``$\\mathcal{O}(n^2)$`` → ``𝒪(n^2)``)."""
    return " ".join(_convert(_PLAIN, text or "").replace("$", "").split())


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
