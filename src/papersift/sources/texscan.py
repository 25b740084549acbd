"""LaTeX source scanned without a TeX engine: comments, brace groups and a command's arguments, and the
preamble's macros: the text ones (``\\newcommand{\\method}{Name}``) expanded in the body, the math ones
(``\\newcommand{\\R}{\\mathbb{R}}``, ``\\DeclareMathOperator{\\Tr}{Tr}``) kept for the pages' KaTeX.

Turning LaTeX into text is ``sources/latex.py``'s (the one converter), built on these scanners.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

MAX_NESTING = 200  # brace groups deeper than this are read as plain characters


def strip_comments(text: str) -> str:
    text = re.sub(r"(?<!\\)%.*", "", text)  # % to the end of the line, \% kept
    text = re.sub(r"\\begin\{comment\}.*?\\end\{comment\}", "", text, flags=re.S)
    return re.sub(r"\\iffalse\b.*?\\fi\b", "", text, flags=re.S)


BRACES = re.compile(r"\\.|[{}]", re.S)  # an escaped character, or a brace


def group(text: str, i: int) -> tuple[str, int] | None:
    """The content of the ``{…}`` group at ``i`` (after spaces) and the index after it; None if none."""
    n = len(text)
    while i < n and text[i] in " \t\n":
        i += 1
    if i >= n or text[i] != "{":
        return None
    depth = 0
    for m in BRACES.finditer(text, i):
        if m[0] == "{":
            depth += 1
        elif m[0] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : m.start()], m.end()
    return text[i + 1 :], n


def skip_options(text: str, i: int) -> int:
    """The index after any ``[…]`` optional arguments (and a ``*``) at ``i``."""
    n = len(text)
    while True:
        j = i
        while j < n and text[j] in " \t\n":
            j += 1
        if j < n and text[j] == "*":
            i = j + 1
            continue
        if j >= n or text[j] != "[":
            return i
        depth = 0
        while j < n:
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
            elif text[j] == "]" and depth <= 0:
                break
            j += 1
        i = j + 1


def command_args(text: str, name: str) -> Iterator[tuple[int, int, list[str]]]:
    """Each ``\\name[…]{…}…`` in ``text``: its start, end and brace arguments (as many as follow)."""
    for m in re.finditer(r"\\" + name + r"(?![A-Za-z@])", text):
        i = skip_options(text, m.end())
        args: list[str] = []
        while (g := group(text, i)) is not None and len(args) < 3:
            args.append(g[0])
            i = skip_options(text, g[1])
            if name not in ("href", "bibitem", "bibinfo", "field", "entry"):
                break
        yield m.start(), i, args


def environment(text: str, names: str) -> re.Pattern[str]:
    return re.compile(r"\\begin\{(" + names + r")\}(.*?)\\end\{\1\}", re.S)


# ---------------------------------------------------------------- user macros


_NEWCOMMAND = re.compile(
    r"\\(?:re)?(?:newcommand|providecommand|def|gdef|DeclareRobustCommand)\*?\s*\{?\s*\\([A-Za-z@]+)\s*\}?\s*"
)


def user_macros(preamble: str) -> dict[str, str]:
    """The preamble's macros without arguments whose body is text (``\\newcommand{\\method}{DeepSeek}``)."""
    found: dict[str, str] = {}
    for m in _NEWCOMMAND.finditer(preamble):
        i = m.end()
        if preamble.startswith("[", i) or preamble.startswith("#", i):
            continue
        g = group(preamble, i)
        if g is None or "#" in g[0] or len(g[0]) > 300 or "\\" + m[1] in g[0]:
            continue
        found[m[1]] = g[0]
    return found


def expand_macros(text: str, macros: Mapping[str, str]) -> str:
    if not macros:
        return text
    names = sorted(macros, key=len, reverse=True)
    pattern = re.compile(r"\\(" + "|".join(map(re.escape, names)) + r")(?![A-Za-z@])(?:\{\})?( ?)")
    for _ in range(3):
        new = pattern.sub(lambda m: "{" + macros[m[1]] + "}" + m[2], text)
        if new == text:
            break
        text = new
    return text


_DEFINITION = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand|(DeclareMathOperator)|def|gdef)(\*?)"
    r"\s*(?:\{\s*\\([A-Za-z]+)\s*\}|\\([A-Za-z]+))\s*"
)
_PARAMETERS = re.compile(r"(?:#[1-9])*")
_NOT_MATH = re.compile(  # a body that defines, opens an environment or reaches into internals
    r"\\(?:begin|end|(?:re)?newcommand|def|gdef|edef|let|makeatletter|csname|expandafter)\b|@"
)
MAX_MACRO_BODY = 500  # characters of one definition's body
MAX_MACROS = 400  # definitions kept of one paper


def math_macros(preamble: str) -> dict[str, str]:
    """The preamble's definitions as KaTeX's ``macros`` option takes them: ``\\name`` → its body, ``#1``…
    marking the arguments (``\\newcommand{\\norm}[1]{\\|#1\\|}``, ``\\def\\R{\\mathbb{R}}``), a
    ``\\DeclareMathOperator`` as ``\\operatorname``. Left out: an optional argument's default, a delimited
    ``\\def``, a body that defines or opens an environment, or longer than ``MAX_MACRO_BODY``; a recursive one
    is kept (KaTeX stops it at its expansion limit and the formula shows as its source)."""
    found: dict[str, str] = {}
    for m in _DEFINITION.finditer(preamble):
        if len(found) >= MAX_MACROS:
            break
        name, i = m[3] or m[4], m.end()
        if m[1]:  # \DeclareMathOperator{\Tr}{Tr}
            g = group(preamble, i)
            if g is not None and len(g[0]) <= MAX_MACRO_BODY and not _NOT_MATH.search(g[0]):
                found["\\" + name] = "\\operatorname" + m[2] + "{" + g[0] + "}"
            continue
        if preamble.startswith("[", i):  # [n] arguments; a second [default] is not KaTeX's
            close = preamble.find("]", i)
            if close < 0 or not preamble[i + 1 : close].strip().isdigit():
                continue
            i = close + 1
            while i < len(preamble) and preamble[i] in " \t":
                i += 1
            if preamble.startswith("[", i):
                continue
        else:
            params = _PARAMETERS.match(preamble, i)
            i = params.end() if params else i
        g = group(preamble, i)
        if g is None or preamble[i:].lstrip()[:1] != "{":
            continue
        if len(g[0]) > MAX_MACRO_BODY or _NOT_MATH.search(g[0]):
            continue
        found["\\" + name] = g[0].strip()
    return found
