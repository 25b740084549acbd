"""LaTeX in bibliography fields, both ways: decoding BibTeX's LaTeX to Unicode (pylatexenc, loaded on first
use) and escaping text so that a BibTeX reader gives it back unchanged.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from papersift.records.paper import clean_text

if TYPE_CHECKING:
    from pylatexenc.latex2text import LatexNodes2Text

_LATEXISH = re.compile(r"[\\{}~]|--|``|''")
_MACRO_OR_LIGATURE = re.compile(r"[\\~$]|--|``|''")  # without these, LaTeX is words and grouping braces
_BARE_PERCENT = re.compile(r"(?<!\\)%")
_DECODE_LIMIT = 10_000  # longer text takes the light path: pylatexenc needs ~10 µs a character
_TEXT_MACROS = {
    "textbackslash": "\\",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textasciitilde": "~",
    "textasciicircum": "^",
}
_LIGHT = re.compile(r"\\(" + "|".join(_TEXT_MACROS) + r")(?![A-Za-z])(?:\{\}| )?|\\([&%#_${}])|\{\}")


@lru_cache(maxsize=1)
def _decoder() -> tuple[LatexNodes2Text, Any]:
    """The text converter and the parser's macro table, built once (pylatexenc builds the table per call)."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
    from pylatexenc.latexwalker import get_default_latex_context_db as get_default_walker_db

    db = get_default_latex_context_db()
    macros = [MacroTextSpec(name, simplify_repl=text) for name, text in _TEXT_MACROS.items()]
    db.add_context_category("papersift", prepend=True, macros=[*macros, MacroTextSpec("url", "%s")])
    return LatexNodes2Text(latex_context=db, math_mode="verbatim"), get_default_walker_db()


_LIGHT_NO_BRACES = re.compile(_LIGHT.pattern + "|[{}]")


def unescape_bibtex(text: str, drop_braces: bool = False) -> str:
    """Undo BibTeX's escapes only (``\\&``, ``\\_``, ``\\textbackslash{}``, ``{}``); other LaTeX is kept,
    grouping braces too unless ``drop_braces``."""
    pattern = _LIGHT_NO_BRACES if drop_braces else _LIGHT
    return pattern.sub(lambda m: _TEXT_MACROS[m[1]] if m[1] else m[2] or "", text)


def latex_to_unicode(text: str) -> str:
    """LaTeX field text as Unicode (``{\\"u}`` → ü, ``\\&`` → &, grouping braces dropped, math kept as is),
    whitespace collapsed."""
    if not _LATEXISH.search(text):
        return clean_text(text)
    if not _MACRO_OR_LIGATURE.search(text):  # Zotero's {Capital} protection: the common case, made cheap
        return clean_text(text.replace("{", "").replace("}", ""))
    if len(text) > _DECODE_LIMIT:
        return clean_text(unescape_bibtex(text, drop_braces=True))
    return _decode_latex(text)


@lru_cache(maxsize=8192)  # names, venues and tags repeat across a library
def _decode_latex(text: str) -> str:
    from pylatexenc.latexwalker import LatexWalkerError

    converter, walker_db = _decoder()
    try:
        return clean_text(converter.latex_to_text(_BARE_PERCENT.sub(r"\\%", text), latex_context=walker_db))
    except (LatexWalkerError, RecursionError):
        return clean_text(unescape_bibtex(text, drop_braces=True))


# LaTeX out

_BIB_SPECIAL = re.compile(r"(?<!\\)([&%#])")
_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    **{c: "\\" + c for c in "&%#_$"},
}
_TO_ESCAPE = re.compile(r"[\\{}~^&%#_$]")
_LIGATURE = re.compile(r"(?<=[-`'!?])(?=[-`'])")  # -- ``  '' ?` !` would become – “ ” ¿ ¡


def _balanced(text: str) -> str:
    """``text`` with every brace a matched LaTeX group: escaped and unmatched braces become
    ``\\textbraceleft{}``/``\\textbraceright{}``, so no BibTeX reader can lose the entry's end."""
    text = text.replace("\\{", _ESCAPES["{"]).replace("\\}", _ESCAPES["}"])
    if "{" not in text and "}" not in text:
        return text
    out: list[str] = []
    opened: list[int] = []  # indexes in out of "{" not yet closed
    for ch in text:
        if ch == "{":
            opened.append(len(out))
        elif ch == "}":
            if not opened:
                out.append(_ESCAPES["}"])
                continue
            opened.pop()
        out.append(ch)
    for i in opened:
        out[i] = _ESCAPES["{"]
    return "".join(out)


def escape_arxiv(text: str) -> str:
    # arXiv text is LaTeX already (``$x_i$`` stays); escape only bare & % # that LaTeX would choke on
    return _BIB_SPECIAL.sub(r"\\\1", _balanced(text))


def escape_bibtex(text: str) -> str:
    """Plain Unicode text as a BibTeX field value that ``latex_to_unicode`` reads back unchanged."""
    return _LIGATURE.sub("{}", _TO_ESCAPE.sub(lambda m: _ESCAPES[m[0]], text))
