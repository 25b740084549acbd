"""LaTeX to text, the one converter papersift has, and text to LaTeX for BibTeX fields.

In, one scanner for every face:

- ``to_text``: a paper's TeX source as text (``\\section`` bodies, captions, ``.bbl`` entries): math and
  verbatim kept as written, ``&`` a table's cell, macros it does not know dropped with their arguments kept;
- ``tex_text``: a field of arXiv's metadata or of a bibliography as the pages show it: accents and text
  commands as their characters (``\\textsc{NoThink}`` → NoThink, ``G\\"odel`` → Gödel), math kept as
  ``$…$`` for KaTeX;
- ``plain_text``: the same with no LaTeX left, for every plain face (pushes, the e-mail's text part, Atom
  titles, CLI lines, CSL-JSON and RIS): math as Unicode where it is simple (``$\\alpha$`` → α,
  ``$^{210}$Fr`` → ²¹⁰Fr), else its source without backslashes; an unknown macro leaves its argument's text,
  or its name where it has none;
- ``latex_to_unicode`` and ``unescape_bibtex``: a BibTeX field's value (math kept as written).

The scanner is papersift's own rather than pylatexenc's converter, which needs ~10 µs a character on TeX
(5 s for a thesis) and ~1 µs on arXiv's metadata, against ~0.2–0.5 µs here (``bench/latex_text.py``): it
knows the common macros, takes its math symbols from pylatexenc's table, and never fails on an undefined
macro, unbalanced braces or a huge field. arXiv's own
slips (``Senjanovi'{c}``, ``Pawe\\lZiń``, a DEL character) are repaired first (``repaired``).

Out: ``escape_bibtex`` (plain text as a field ``latex_to_unicode`` reads back unchanged) and ``escape_arxiv``
(arXiv's LaTeX made safe for a BibTeX reader).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from papersift.records.analyzer import one_word
from papersift.records.paper import clean_text
from papersift.sources.texscan import BRACES, MAX_NESTING, group, skip_options

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
    "textbraceleft": "{", "textbraceright": "}", "textasciicircum": "^", "textunderscore": "_",
    "textquotedbl": '"', "textdollar": "$", "textquoteleft": "‘", "textquoteright": "’",
    "textquotedblleft": "“", "textquotedblright": "”",
}  # fmt: skip
_LETTERS = frozenset("ss o O aa AA ae AE oe OE l L i j".split())  # commands that write a letter of a word
# name → (arguments dropped, arguments kept after them)
_ARGS: dict[str, tuple[int, int]] = {
    **dict.fromkeys(
        "label ref eqref autoref cref Cref pageref nameref vref includegraphics vspace hspace vskip hskip "
        "bibliographystyle bibliography addbibresource pagestyle thispagestyle hypersetup usepackage "
        "RequirePackage documentclass documentstyle captionsetup input include color linespread "
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
    **dict.fromkeys("cline cmidrule cdashline arrayrulecolor rowcolor cellcolor".split(), (1, 0)),
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
_ARGUMENT = re.compile(r"\s*(?:\[|\{(?!\}))")  # a macro's argument follows (not an empty group)
# layout and font switches: nothing to show, in a field or a paper
_DROPPED = frozenset(
    """bf it rm sc sl sf tt em bfseries itshape mdseries scshape upshape slshape normalfont rmfamily sffamily
    ttfamily tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge centering raggedright
    raggedleft noindent indent relax protect xspace boldmath unboldmath nobreak allowbreak newpage clearpage
    hfill vfill hline toprule midrule bottomrule smallskip medskip bigskip null strut ignorespaces
    unskip nolinebreak linebreak pagebreak sloppy fussy displaystyle textstyle""".split()
)


class _Scan:
    """One conversion: math and verbatim cut out first, then a scan over the rest, then math and verbatim put
    back (math as ``math`` writes it, else as written). In a ``field`` (arXiv's metadata, a bibliography's
    values) ``&`` is an ampersand and an unknown macro without an argument leaves its name (``\\sys`` → sys);
    in a paper's source ``&`` parts a table's cells and an unknown macro is layout, dropped."""

    def __init__(self, field: bool = False, math: Callable[[str], str] | None = None) -> None:
        self.kept: list[str] = []
        self.math: set[int] = set()  # which of ``kept`` are math
        self.field = field
        self.math_text = math

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
                self.math.add(len(self.kept))
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
        return re.sub(r"\x00(\d+)\x00", lambda m: self.kept_text(int(m[1])), text)

    def kept_text(self, k: int) -> str:
        if self.math_text is None or k not in self.math:
            return self.kept[k]
        return self.math_text(self.kept[k])

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
            elif c == "$":  # a lone one (math was cut out before): a dollar, or arXiv's slip in plain text
                out.append("" if self.math_text else "$")
                i += 1
            elif c == "&":
                out.append("&" if self.field else " | ")
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
                if text.startswith("\\", k):  # \'\i: the base is a command's letter
                    letter: list[str] = []
                    i = self.command(text, k, letter, depth + 1)
                    base = "".join(letter)
                else:
                    base, i = text[k : k + 1], k + 1
            base = {"ı": "i", "ȷ": "j"}.get(base, base)
            out.append(unicodedata.normalize("NFC", base[:1] + _ACCENTS[name] + base[1:]) if base else "")
            return i
        if self.field and name in ARXIV_MACROS:
            out.append(ARXIV_MACROS[name][1])
            return i + (2 if text.startswith("{}", i) else 0)
        if name in _SYMBOLS:
            if name == "item":
                j = skip_options(text, i)
                label = text[i:j].strip().strip("[]") if j > i else ""
                out.append("\n• " + (self.scan(label, depth + 1) + " " if label else ""))
                return j
            out.append(_SYMBOLS[name])
            if name == "\\":  # a line break's [2pt]
                return skip_options(text, i)
            if name in _LETTERS:  # Stra\ss e: a letter's command takes the space after it, as TeX does
                while text.startswith(" ", i):
                    i += 1
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
        if name in _DROPPED:
            return i + (2 if text.startswith("{}", i) else 0)
        spec = _ARGS.get(name)
        if spec is None and m[1] and name in _math_symbols():  # \textexclamdown, \textdegree, \alpha
            out.append(_math_symbols()[name])
            return i + (2 if text.startswith("{}", i) else 0)
        if spec is None:  # unknown: the name goes, its arguments stay (as groups), its [options] go
            if self.field and m[1] and not _ARGUMENT.match(text, i):
                out.append(name)  # an author's \\sys or \\sys{}: its name is all there is to show
                i += 2 if text.startswith("{}", i) else 0
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
    for m in BRACES.finditer(latex):
        depth += 1 if m[0] == "{" else -1 if m[0] == "}" else 0
        deepest = max(deepest, depth)
        depth = max(depth, 0)
    return deepest > MAX_NESTING or depth > 50


def _scanned(latex: str, conv: _Scan) -> str:
    """``latex`` through one scan: math and verbatim put back as ``conv`` writes them; braces too deep or left
    open read crudely (commands and braces as spaces) rather than scanned to the end of the text."""
    latex = _DIMENSION.sub(r"\1", latex.replace("\x00", ""))
    latex = re.sub(r"(\\c(?:mid|dash)rule)\s*\([a-z]*\)", r"\1", latex)  # booktabs' (lr) trims
    try:
        if _unbalanced(latex):
            raise RecursionError
        text = conv.scan(conv.protect(latex))
    except RecursionError:
        text = re.sub(r"\\[A-Za-z@]+|[{}]", " ", latex)
    return conv.restore(text)


def to_text(latex: str) -> str:
    """A paper's LaTeX as plain text: math and verbatim kept as written, the common macros rendered, unknown
    macros dropped with their arguments kept; paragraphs as blank lines, runs of spaces collapsed."""
    text = _scanned(latex, _Scan())
    paras = (" ".join(p.split()) for p in re.split(r"\n[ \t]*\n\s*", text))
    return unicodedata.normalize("NFC", "\n\n".join(p for p in paras if p))


# ---------------------------------------------------------------- fields: arXiv's metadata, bibliographies

# Authors' own macros seen in arXiv's metadata: (math-mode LaTeX, plain Unicode); citetext writes the first
ARXIV_MACROS: dict[str, tuple[str, str]] = {
    "rta": (r"\rightarrow", "→"),
    "ra": (r"\rightarrow", "→"),
    "rar": (r"\rightarrow", "→"),
    "lra": (r"\leftrightarrow", "↔"),
    "la": (r"\lambda", "λ"),
    "ga": (r"\gamma", "γ"),
    "gam": (r"\gamma", "γ"),
    "epem": ("e^+e^-", "e+e−"),
    "order": (r"\mathcal{O}", "O"),
    "CC": (r"\mathbb{C}", "ℂ"),
    "RR": (r"\mathbb{R}", "ℝ"),
    "ZZ": (r"\mathbb{Z}", "ℤ"),
    "NN": (r"\mathbb{N}", "ℕ"),
    "QQ": (r"\mathbb{Q}", "ℚ"),
    "Cal": (r"\mathcal", ""),
    "anti": (r"\bar", ""),
    "bat": (r"\bar", ""),
    "half": (r"\frac12", "½"),
    "as": (r"\alpha_s", "α_s"),
    "xs": (r"\sigma", "σ"),
    "nl": ("", " "),
    "boldmath": ("", ""),
    "protect": ("", ""),
    "Box": (r"\square", "□"),  # latexsym's: the kernel defines them as errors
    "Diamond": (r"\diamond", "◇"),
    "unboldmath": ("", ""),
}
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # no character TeX can read
# a one-letter text command glued to the next word ("Pawe\lZiń") or parted from it by a space before a
# capital ("Pawe\l Ziń"): the source shows two words
_GLUED = re.compile(r"\\(l|L|o|O|i|j|ss|ae|AE|oe|OE|aa|AA)(?:([A-Z])|\s+(?=[A-Z]))")
_ESCAPED_ARG = re.compile(r"\\([uvHcdbtrk'\"`^~=.])\s*\\\{(\w)\}")  # Vavpeti\v\{c}: the brace escaped
_LOST_ACCENT = re.compile(r"(?<![\\])(['\"`^~])\{([A-Za-z])\}")  # Senjanovi'{c}: the backslash lost
_LATEXISH = re.compile(r"[\\{}$~]|--|``|''")


def repaired(text: str) -> str:
    """arXiv's text with its slips mended: control characters dropped (1403.6953's ``P. H\\x7fagg``), an
    accent whose brace was escaped or whose backslash was lost, a one-letter command glued to a name."""
    text = _CONTROL.sub("", text)
    text = _ESCAPED_ARG.sub(lambda m: "{\\" + m[1] + "{" + m[2] + "}}", text)
    text = _GLUED.sub(lambda m: "{\\" + m[1] + "} " + (m[2] or ""), text)
    return _LOST_ACCENT.sub(lambda m: "{\\" + m[1] + m[2] + "}", text)


def _field(text: str, math: Callable[[str], str] | None) -> str:
    return unicodedata.normalize("NFC", clean_text(_scanned(text, _Scan(field=True, math=math))))


@lru_cache(maxsize=20_000)
def tex_text(text: str) -> str:
    """A field as the pages show it: ``Ruszczy\\'{n}ski``, ``\\emph{risk}``, ``\\textsc{NoThink}`` →
    Ruszczyński, risk, NoThink; ``$…$`` kept as written for KaTeX; whitespace collapsed."""
    text = repaired(text or "")
    return _field(text, None) if _LATEXISH.search(text) else clean_text(text)


@lru_cache(maxsize=20_000)
def plain_text(text: str) -> str:
    """A field with no LaTeX left, for every plain face: commands as their characters or their arguments'
    text, math as Unicode (``$\\mathcal{O}(n^{2})$`` → 𝒪(n²), ``$^{210}$Fr`` → ²¹⁰Fr), no ``\\command``;
    whitespace collapsed."""
    text = repaired(text or "")
    if not _LATEXISH.search(text):
        return clean_text(text)
    out = _field(text, math_text)
    return clean_text(_LEFT_OVER.sub(r"\1", out).replace("\\", " "))


_LEFT_OVER = re.compile(r"\\([A-Za-z]+)")  # a command the scan kept (a crude read): its name
_ZOTERO_CAPITALS = re.compile(r"[\\~$]|--|``|''")  # without these, LaTeX is words and grouping braces
_LIGHT_MACROS = {
    "textbackslash": "\\",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textasciitilde": "~",
    "textasciicircum": "^",
}
_LIGHT = re.compile(r"\\(" + "|".join(_LIGHT_MACROS) + r")(?![A-Za-z])(?:\{\}| )?|\\([&%#_${}])|\{\}")
_LIGHT_NO_BRACES = re.compile(_LIGHT.pattern + "|[{}]")


def unescape_bibtex(text: str, drop_braces: bool = False) -> str:
    """Undo BibTeX's escapes only (``\\&``, ``\\_``, ``\\textbackslash{}``, ``{}``); other LaTeX is kept,
    grouping braces too unless ``drop_braces``."""
    pattern = _LIGHT_NO_BRACES if drop_braces else _LIGHT
    return pattern.sub(lambda m: _LIGHT_MACROS[m[1]] if m[1] else m[2] or "", text)


@lru_cache(maxsize=8192)  # names, venues and tags repeat across a library
def latex_to_unicode(text: str) -> str:
    """A BibTeX field's LaTeX as Unicode (``{\\"u}`` → ü, ``\\&`` → &, grouping braces dropped, math kept as
    written), whitespace collapsed."""
    if not re.search(r"[\\{}~]|--|``|''", text):
        return clean_text(text)
    if not _ZOTERO_CAPITALS.search(text):  # Zotero's {Capital} protection: the common case, made cheap
        return clean_text(text.replace("{", "").replace("}", ""))
    return _field(text, None)


# ---------------------------------------------------------------- math as Unicode

_SUPERSCRIPT = dict(zip("0123456789+-−=()niT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱᵀ", strict=True))
_SUBSCRIPT = dict(zip("0123456789+-−=()", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎", strict=True))
_RAISED_AS_IS = {"′": "′", "″": "″", "‴": "‴", "*": "*", "∗": "*", "†": "†", "‡": "‡", "∘": "°", "°": "°"}
_ALPHABETS = {
    "mathbb": "DOUBLE-STRUCK",
    "Bbb": "DOUBLE-STRUCK",
    "mathds": "DOUBLE-STRUCK",
    "mathcal": "SCRIPT",
    "mathscr": "SCRIPT",
    "mathfrak": "FRAKTUR",
}
# the letters Unicode gave a math alphabet before it had one (its Letterlike Symbols block)
_LETTERLIKE = {
    "DOUBLE-STRUCK": dict(zip("CHNPQRZ", "ℂℍℕℙℚℝℤ", strict=True)),
    "SCRIPT": dict(zip("BEFHILMRego", "ℬℰℱℋℐℒℳℛℯℊℴ", strict=True)),
    "FRAKTUR": dict(zip("CHIRZ", "ℭℌℑℜℨ", strict=True)),
}
_MATH_ACCENTS = {
    "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304", "overline": "\u0305", "tilde": "\u0303",
    "widetilde": "\u0303", "vec": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c",
    "breve": "\u0306", "acute": "\u0301", "grave": "\u0300", "mathring": "\u030a",
}  # fmt: skip
_MATH_ARGUMENT_TEXT = frozenset(  # their argument's text is what they show
    """text textrm textit textbf textsf texttt textsc textup textnormal emph mathrm mathbf mathit mathsf
    mathtt mathnormal mathbfit operatorname boldsymbol bm pmb mbox hbox mathop mathrel mathbin mathord
    mathopen mathclose ensuremath underline underbrace overbrace""".split()
)
_MATH_DROPPED = frozenset(
    """left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr bigm Bigm middle displaystyle textstyle
    scriptstyle scriptscriptstyle limits nolimits nonumber notag mathstrut strut allowbreak boldmath
    unboldmath protect""".split()
)
_MATH_SPACES = frozenset("quad qquad enspace thinspace medspace thickspace , ; : >".split())
_MATH_ARGUMENT_DROPPED = frozenset("label tag phantom hphantom vphantom color".split())
_MATH_ESCAPES = {
    "{": "{",
    "}": "}",
    "|": "‖",
    "_": "_",
    "%": "%",
    "&": "&",
    "#": "#",
    "$": "$",
    "\\": " ",
    "!": "",
}
MAX_MATH_NESTING = 50  # groups deeper than this are read crudely


@lru_cache(maxsize=1)
def _math_symbols() -> dict[str, str]:
    """Math commands that stand for characters (``\\alpha`` → α, ``\\leq`` → ≤, ``\\log`` → log), from
    pylatexenc's table, loaded on first use."""
    from pylatexenc.latex2text import get_default_latex_context_db

    db = get_default_latex_context_db()
    symbols: dict[str, str] = {}
    for category in db.categories():
        if category == "latex-placeholders":
            continue
        for spec in db.iter_macro_specs([category]):
            text = spec.simplify_repl
            if isinstance(text, str) and "%" not in text and len(text) <= 6 and spec.macroname not in symbols:
                symbols[spec.macroname] = text
    return symbols


def _lettered(style: str, text: str) -> str:
    """``text``'s Latin letters in a math alphabet (``\\mathbb{R}`` → ℝ, ``\\mathcal{O}`` → 𝒪)."""
    out = []
    for ch in text:
        if not (ch.isascii() and ch.isalpha()):
            out.append(ch)
            continue
        case = "CAPITAL" if ch.isupper() else "SMALL"
        try:
            out.append(unicodedata.lookup(f"MATHEMATICAL {style} {case} {ch.upper()}"))
        except KeyError:
            out.append(_LETTERLIKE[style].get(ch, ch))
    return "".join(out)


def _raised(text: str, table: dict[str, str], mark: str) -> str:
    """A superscript or subscript: in Unicode's raised (lowered) characters where each has one, else written
    ``^x`` or ``^(xy)``."""
    text = text.strip()
    if text and all(c in table for c in text):
        return "".join(table[c] for c in text)
    if mark == "^" and text and all(c in _RAISED_AS_IS for c in text):
        return "".join(_RAISED_AS_IS[c] for c in text)
    return mark + (text if len(text) <= 1 else "(" + text + ")")


def _wrapped(text: str) -> str:
    """A fraction's or a root's operand, in parentheses unless it is one word or number."""
    text = text.strip()
    return text if one_word(text) else "(" + text + ")"


class _Math:
    """One formula's content read as Unicode: an atom (a group, a command with its arguments, a character)
    at a time."""

    def __init__(self, tex: str) -> None:
        self.tex = tex

    def read(self, i: int, end: int, depth: int) -> str:
        out = []
        while i < end:
            text, i = self.atom(i, depth)
            out.append(text)
        return "".join(out)

    def argument(self, i: int, depth: int) -> tuple[str, int]:
        """The next atom as an argument (``\\frac12``'s digits are two arguments)."""
        tex, n = self.tex, len(self.tex)
        while i < n and tex[i] in " \t\n":
            i += 1
        if i >= n:
            return "", i
        return self.atom(i, depth)

    def atom(self, i: int, depth: int) -> tuple[str, int]:
        tex = self.tex
        c = tex[i]
        if c == "{":
            g = group(tex, i)
            assert g is not None
            if depth >= MAX_MATH_NESTING:
                return _LEFT_OVER.sub(r"\1", g[0]).replace("{", "").replace("}", ""), g[1]
            return self.read_text(g[0], depth + 1), g[1]
        if c == "}":
            return "", i + 1
        if c in "^_":
            text, i = self.argument(i + 1, depth)
            return _raised(text, _SUPERSCRIPT if c == "^" else _SUBSCRIPT, c), i
        if c in "~&":
            return " ", i + 1
        if c == "\\":
            return self.command(i, depth)
        return c, i + 1

    def read_text(self, tex: str, depth: int) -> str:
        return _Math(tex).read(0, len(tex), depth)

    def command(self, i: int, depth: int) -> tuple[str, int]:
        tex = self.tex
        m = _CS.match(tex, i)
        if m is None:
            return "", i + 1
        name, i = m[1] or m[2], m.end()
        if m[2] is not None:
            if name in _MATH_ESCAPES:
                return _MATH_ESCAPES[name], i
            if name in _MATH_SPACES:
                return " ", i
        if name in _MATH_DROPPED:
            return "", i + (1 if name in ("left", "right") and tex.startswith(".", i) else 0)
        if name in _MATH_SPACES:
            return " ", i
        if name in _MATH_ARGUMENT_DROPPED:
            return "", self.argument(i, depth)[1]
        if name in ARXIV_MACROS:
            return ARXIV_MACROS[name][1], i
        if name in _ALPHABETS:
            text, i = self.argument(i, depth)
            return _lettered(_ALPHABETS[name], text), i
        if name in _MATH_ARGUMENT_TEXT:
            return self.argument(skip_options(tex, i), depth)
        if name in ("frac", "dfrac", "tfrac", "cfrac"):
            top, i = self.argument(i, depth)
            bottom, i = self.argument(i, depth)
            return _wrapped(top) + "/" + _wrapped(bottom), i
        if name == "sqrt":
            j = skip_options(tex, i)
            degree = {"3": "∛", "4": "∜"}.get(tex[i:j].strip(" []"), "√")
            text, i = self.argument(j, depth)
            return degree + _wrapped(text), i
        if name in ("pmod", "pod"):  # a \equiv b \pmod{q}
            text, i = self.argument(i, depth)
            return f" (mod {text.strip()})" if name == "pmod" else f" ({text.strip()})", i
        if name == "binom":
            top, i = self.argument(i, depth)
            bottom, i = self.argument(i, depth)
            return f"C({top}, {bottom})", i
        if name in _MATH_ACCENTS:
            text, i = self.argument(i, depth)
            return (text + _MATH_ACCENTS[name] if len(text) == 1 else text), i
        if name == "not":
            text, i = self.argument(i, depth)
            return text + "\u0338", i
        symbol = _math_symbols().get(name)
        if symbol is not None:
            return symbol, i
        if _ACCENTS.get(name) and m[2] is not None:  # a text accent in math: \"o
            text, i = self.argument(i, depth)
            return unicodedata.normalize("NFC", text[:1] + _ACCENTS[name] + text[1:]) if text else "", i
        if not tex.startswith("{", i):  # an author's \sphere, \cutdist: its name
            return name, i
        args: list[str] = []
        while tex.startswith("{", i) and len(args) < 9:
            text, i = self.atom(i, depth)
            args.append(text)
        return name + "(" + ", ".join(args) + ")", i


@lru_cache(maxsize=20_000)
def math_text(formula: str) -> str:
    """A formula (``$…$``, ``\\(…\\)``, an ``equation`` or its content alone) as readable Unicode:
    ``$\\alpha$`` → α, ``$^{210}$`` → ²¹⁰, ``$\\frac{a+b}{2}$`` → (a+b)/2, an unknown macro as its name."""
    tex = formula.strip()
    for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
        if tex.startswith(left) and tex.endswith(right) and len(tex) >= len(left) + len(right):
            tex = tex[len(left) : len(tex) - len(right)]
            break
    else:
        env = re.fullmatch(r"\\begin\{([A-Za-z*]+)\}(.*)\\end\{\1\}", tex, re.S)
        tex = env[2] if env else tex
    try:
        text = _Math(tex).read(0, len(tex), 0)
    except RecursionError:
        text = _LEFT_OVER.sub(r"\1", tex).replace("{", "").replace("}", "")
    return " ".join(unicodedata.normalize("NFC", text).split())


# ---------------------------------------------------------------- LaTeX out

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
