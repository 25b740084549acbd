"""LaTeX source scanned without a TeX engine: comments, brace groups and a command's arguments, the
preamble's text macros (``\\newcommand{\\method}{Name}``) expanded, and LaTeX turned into plain text with math
and verbatim kept as written.

The conversion is a small scanner of its own rather than pylatexenc (which needs ~10 µs a character, 5 s for
a thesis): it knows the common macros, keeps the arguments of macros it does not know, and never fails on
undefined ones.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping

MAX_NESTING = 200  # brace groups deeper than this are read as plain characters


def strip_comments(text: str) -> str:
    text = re.sub(r"(?<!\\)%.*", "", text)  # % to the end of the line, \% kept
    text = re.sub(r"\\begin\{comment\}.*?\\end\{comment\}", "", text, flags=re.S)
    return re.sub(r"\\iffalse\b.*?\\fi\b", "", text, flags=re.S)


_BRACE = re.compile(r"\\.|[{}]", re.S)


def group(text: str, i: int) -> tuple[str, int] | None:
    """The content of the ``{…}`` group at ``i`` (after spaces) and the index after it; None if none."""
    n = len(text)
    while i < n and text[i] in " \t\n":
        i += 1
    if i >= n or text[i] != "{":
        return None
    depth = 0
    for m in _BRACE.finditer(text, i):
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


# ---------------------------------------------------------------- LaTeX to text

_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a", "b": "\u0331",
    "d": "\u0323",
}  # fmt: skip
_SYMBOLS = {
    "ss": "ß", "o": "ø", "O": "Ø", "aa": "å", "AA": "Å", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "l": "ł",
    "L": "Ł", "i": "ı", "j": "ȷ", "ldots": "…", "dots": "…", "textellipsis": "…", "textendash": "–",
    "textemdash": "—", "S": "§", "P": "¶", "copyright": "©", "textregistered": "®", "texttrademark": "™",
    "textdegree": "°", "dag": "†", "ddag": "‡", "dagger": "†", "ddagger": "‡", "checkmark": "✓",
    "LaTeX": "LaTeX", "TeX": "TeX", "textasciitilde": "~", "textbackslash": "\\", "slash": "/",
    "textbar": "|", "textless": "<",
    "textgreater": ">", "textbullet": "•", "pounds": "£", "euro": "€", "times": "×", "pm": "±", "%": "%",
    "&": "&", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", ",": " ", ";": " ", ":": " ", " ": " ",
    "!": "", "quad": " ", "qquad": " ", "enspace": " ", "par": "\n\n", "newline": "\n", "\\": "\n\n",
    "item": "\n• ",
    # AASTeX's journal macros (aastex*.cls defines them; references use them)
    "apj": "ApJ", "apjl": "ApJL", "apjs": "ApJS", "aj": "AJ", "mnras": "MNRAS", "aap": "A&A", "aaps": "A&AS",
    "pasp": "PASP", "araa": "ARA&A", "nat": "Nature", "prd": "Phys. Rev. D", "prl": "Phys. Rev. Lett.",
    "jcap": "JCAP", "physrep": "Phys. Rep.", "pasj": "PASJ", "apss": "Ap&SS", "icarus": "Icarus",
    "sci": "Science", "aapr": "A&A Rev.", "procspie": "Proc. SPIE", "ssr": "Space Sci. Rev.", "pasa": "PASA",
    "actaa": "Acta Astron.",
    "-": "", "/": "", "@": "", "etal": "et al.", "eg": "e.g.", "ie": "i.e.", "etc": "etc.",
}  # fmt: skip
# name → (arguments dropped, arguments kept after them)
_ARGS: dict[str, tuple[int, int]] = {
    **dict.fromkeys(
        "label ref eqref autoref cref Cref pageref nameref vref includegraphics vspace hspace vskip hskip "
        "bibliographystyle bibliography addbibresource pagestyle thispagestyle hypersetup usepackage "
        "RequirePackage documentclass documentstyle captionsetup input include color nocite linespread "
        "maketitle affiliation affil address email institute author date orcid correspondingauthor "
        "keywords icmlaffiliation icmlauthor icmlcorrespondingauthor icmlkeywords received accepted "
        "submitted journal volume pacs altaffiliation nolinkurl titlerunning authorrunning "
        "setcopyright acmDOI acmISBN acmConference acmYear copyrightyear ccsdesc tnotetext fntext cortext "
        "bibpunct setcitestyle urlstyle graphicspath newlength widowpenalty clubpenalty".split(),
        (1, 0),
    ),
    **dict.fromkeys("setlength addtolength setcounter addtocounter newtheorem definecolor".split(), (2, 0)),
    **dict.fromkeys(
        "newcommand renewcommand providecommand DeclareMathOperator newenvironment".split(), (2, 0)
    ),
    "addcontentsline": (3, 0),
    **dict.fromkeys("cline cmidrule cmidrule cdashline arrayrulecolor rowcolor cellcolor".split(), (1, 0)),
    "rule": (2, 0),
    "specialrule": (3, 0),
    "fontsize": (2, 0),
    **dict.fromkeys("textcolor colorbox raisebox scalebox rotatebox".split(), (1, 1)),
    **dict.fromkeys("resizebox multicolumn multirow".split(), (2, 1)),
    "fcolorbox": (2, 1),
    **dict.fromkeys("bibinfo bibfield".split(), (1, 1)),  # elsarticle's \bibinfo{title}{…}: the value
    "href": (1, 1),
}
_CITES = frozenset("parencite textcite autocite Cite Citep Citet footcite nocite".split())
_FOOTNOTES = frozenset("footnote thanks footnotetext tablefootnote".split())
_ENV_ARGS = {
    "minipage": 1, "tabular": 1, "tabularx": 2, "tabular*": 2, "tabulary": 2, "array": 1, "multicols": 1,
    "wrapfigure": 2, "wraptable": 2, "subfigure": 1, "adjustbox": 1, "longtable": 1, "tabu": 1, "list": 2,
    "thebibliography": 1, "supertabular": 1, "CJK": 2, "CJK*": 2, "xtabular": 1, "NiceTabular": 1, "tblr": 1,
    "spacing": 1, "deluxetable": 1, "deluxetable*": 1,
}  # fmt: skip

_MATH_ENVS = (
    "equation|align|gather|multline|eqnarray|displaymath|math|flalign|alignat|dmath|split|subequations"
)
_VERBATIM_ENVS = "verbatim|lstlisting|minted|Verbatim|alltt|comment"
_OPENER = re.compile(
    r"(?<!\\)(?:\$\$|\$|\\\(|\\\[)"
    rf"|\\begin\{{((?:{_MATH_ENVS})\*?)\}}|\\begin\{{((?:{_VERBATIM_ENVS})\*?)\}}"
    r"|\\verb\*?([^A-Za-z\s*])"
)
_CLOSER = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
_VERBATIM_ARGS = re.compile(r"(?:\[[^\]\n]*\])?(?:\{[^}\n]*\})?")
MAX_INLINE_MATH = 4_000  # characters: a lone $ further from the next one is a dollar sign
_CS = re.compile(r"\\([A-Za-z@]+)\*?|\\(.)", re.S)
_PLAIN_RUN = re.compile(r"[^\\{}~$&`'\-\x00]+")


class _Plain:
    """One conversion: math and verbatim cut out first (kept as written), then a scan over the rest."""

    def __init__(self) -> None:
        self.kept: list[str] = []

    def protect(self, text: str) -> str:
        """``text`` with its math and verbatim cut out (placeholders), in one pass: an opener without its
        closer stays as text, and once one kind is known unclosed it is not searched for again."""
        out: list[str] = []
        i, unclosed = 0, set()
        while (m := _OPENER.search(text, i)) is not None:
            opener = m[0]
            if m[1] or m[2]:
                closer = "\\end{" + (m[1] or m[2]) + "}"
            elif m[3]:
                closer = m[3]
            else:
                closer = _CLOSER[opener]
            if closer in unclosed and not m[3]:
                out.append(text[i : m.end()])
                i = m.end()
                continue
            j = self._closing(text, m.end(), closer, opener)
            if j < 0:
                if opener not in ("$", "$$") and not m[3]:
                    unclosed.add(closer)
                out.append(text[i : m.end()])
                i = m.end()
                continue
            if m[2]:  # verbatim: its content as written, after the environment's options
                raw = text[_VERBATIM_ARGS.match(text, m.end()).end() : j]  # type: ignore[union-attr]
            elif m[3]:
                raw = text[m.end() : j]
            else:
                raw = " ".join(text[m.start() : j + len(closer)].split())
                if m[1]:
                    raw = re.sub(r"\\label\{[^}]*\}\s*", "", raw)
            self.kept.append(raw)
            out.append(text[i : m.start()] + f"\x00{len(self.kept) - 1}\x00")
            i = j + len(closer)
        out.append(text[i:])
        return "".join(out)

    @staticmethod
    def _closing(text: str, start: int, closer: str, opener: str) -> int:
        """Where ``closer`` closes what opened before ``start``, or -1: inline math and ``\\verb`` within
        their line or paragraph, a closer escaped by a backslash skipped."""
        if opener.startswith("\\verb"):
            j = text.find(closer, start, start + 1000)
            return j if j >= 0 and "\n" not in text[start:j] else -1
        end = start + MAX_INLINE_MATH if opener == "$" else len(text)
        k = start
        while (j := text.find(closer, k, end)) >= 0:
            if closer.startswith("$") and text[j - 1] == "\\":
                k = j + 1
                continue
            if opener == "$" and re.search(r"\n[ \t]*\n", text[start:j]):
                return -1
            return j
        return -1

    def restore(self, text: str) -> str:
        return re.sub(r"\x00(\d+)\x00", lambda m: self.kept[int(m[1])], text)

    def scan(self, text: str, depth: int = 0) -> str:
        out: list[str] = []
        i, n = 0, len(text)
        while i < n:
            m = _PLAIN_RUN.match(text, i)
            if m:
                out.append(m[0])
                i = m.end()
                continue
            c = text[i]
            if c == "\x00":
                j = text.index("\x00", i + 1)
                out.append(text[i : j + 1])
                i = j + 1
            elif c == "{":
                g = group(text, i)
                assert g is not None
                out.append(self.scan(g[0], depth + 1) if depth < MAX_NESTING else g[0])
                i = g[1]
            elif c == "}":
                i += 1
            elif c == "~":
                out.append(" ")
                i += 1
            elif c == "$":
                out.append("$")
                i += 1
            elif c == "&":
                out.append(" | ")
                i += 1
            elif c in "`'-":
                for lig, rep in (("---", "—"), ("--", "–"), ("``", "“"), ("''", "”")):
                    if text.startswith(lig, i):
                        out.append(rep)
                        i += len(lig)
                        break
                else:
                    out.append(c)
                    i += 1
            else:
                i = self.command(text, i, out, depth)
        return "".join(out)

    def command(self, text: str, i: int, out: list[str], depth: int) -> int:
        m = _CS.match(text, i)
        if m is None:
            return i + 1
        name = m[1] or m[2]
        i = m.end()
        if name in _ACCENTS and (m[2] or len(name) == 1):
            g = group(text, i)
            if g is not None:
                base, i = self.scan(g[0], depth + 1), g[1]
            else:
                k = i
                while name.isalpha() and k < len(text) and text[k] == " ":
                    k += 1
                base, i = text[k : k + 1], k + 1
            base = {"ı": "i", "ȷ": "j"}.get(base, base)
            out.append(unicodedata.normalize("NFC", base[:1] + _ACCENTS[name] + base[1:]) if base else "")
            return i
        if name in _SYMBOLS:
            if name == "item":
                j = skip_options(text, i)
                label = text[i:j].strip().strip("[]") if j > i else ""
                out.append("\n• " + (self.scan(label, depth + 1) + " " if label else ""))
                return j
            out.append(_SYMBOLS[name])
            if name == "\\":  # a line break's [2pt]
                return skip_options(text, i)
            return i + (1 if m[1] and text.startswith("{}", i) else 0) * 2
        if name in ("begin", "end"):
            g = group(text, i)
            if g is None:
                return i
            env, i = g[0].strip(), g[1]
            if name == "begin":
                i = skip_options(text, i)
                for _ in range(_ENV_ARGS.get(env, 0)):
                    a = group(text, i)
                    if a is None:
                        break
                    i = skip_options(text, a[1])
            out.append("\n")
            return i
        if name in _FOOTNOTES:
            i = skip_options(text, i)
            g = group(text, i)
            if g is not None:
                out.append(" (" + self.scan(g[0], depth + 1).strip() + ") ")
                return g[1]
            return i
        if name in _CITES or (name.startswith("cite") and name[4:].isalpha()):
            i = skip_options(text, i)
            g = group(text, i)
            if g is not None:
                keys = ", ".join(k.strip() for k in g[0].split(",") if k.strip())
                out.append(f"[{keys}]")
                return g[1]
            return i
        if name in ("def", "gdef", "edef", "xdef", "let"):
            target = _CS.match(text, i) if i < len(text) else None
            i = target.end() if target else i
            if name == "let":
                k2 = _CS.match(text, i + (1 if text[i : i + 1] == "=" else 0))
                return k2.end() if k2 else i + 1
            j = text.find("{", i)
            g = group(text, j) if j >= 0 else None
            return g[1] if g else i
        if name == "url":
            g = group(text, i)
            if g is not None:
                out.append(g[0])
                return g[1]
            return i
        spec = _ARGS.get(name)
        if spec is None:  # unknown: the name goes, its arguments stay (as groups), its [options] go
            if m[1] and text.startswith(" ", i):
                out.append(" ")
            return skip_options(text, i) if text.startswith("[", i) else i
        drop, keep = spec
        i = skip_options(text, i)
        for _ in range(drop):
            g = group(text, i)
            if g is None:
                return i
            i = skip_options(text, g[1])
        for _ in range(keep):
            g = group(text, i)
            if g is None:
                return i
            out.append(self.scan(g[0], depth + 1))
            i = g[1]
        return i


_UNIT = r"-?[\d.]+\s*(?:pt|em|ex|in|cm|mm|bp|sp|pc|fil+)\b"
_DIMENSION = re.compile(rf"(\\[A-Za-z@]+)\s*=?\s*{_UNIT}(?:\s*(?:plus|minus)\s*{_UNIT})*")  # \parindent=0pt


def _unbalanced(latex: str) -> bool:
    """Braces nested deeper than ``MAX_NESTING`` or many left open: read crudely (each open group would be
    scanned to the end of the text)."""
    depth = deepest = 0
    for m in _BRACE.finditer(latex):
        depth += 1 if m[0] == "{" else -1 if m[0] == "}" else 0
        deepest = max(deepest, depth)
        depth = max(depth, 0)
    return deepest > MAX_NESTING or depth > 50


def to_text(latex: str) -> str:
    """LaTeX as plain text: math and verbatim kept as written, the common macros rendered, unknown macros
    dropped with their arguments kept; paragraphs as blank lines, runs of spaces collapsed."""
    conv = _Plain()
    latex = _DIMENSION.sub(r"\1", latex.replace("\x00", ""))
    latex = re.sub(r"(\\c(?:mid|dash)rule)\s*\([a-z]*\)", r"\1", latex)  # booktabs' (lr) trims
    try:
        if _unbalanced(latex):
            raise RecursionError
        text = conv.scan(conv.protect(latex))
    except RecursionError:
        text = re.sub(r"\\[A-Za-z@]+|[{}]", " ", latex)
    text = conv.restore(text)
    paras = (" ".join(p.split()) for p in re.split(r"\n[ \t]*\n\s*", text))
    return unicodedata.normalize("NFC", "\n\n".join(p for p in paras if p))


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
