"""arXiv's text (LaTeX math, accents, authors' own macros, Unicode) as each citation target writes it: the
one converter every export uses.

- plain Unicode with no LaTeX left (CSL-JSON, RIS, feeds, keys) is ``sources/latex.py``'s ``plain_text``;
- ``bibtex_text``: a BibTeX field value that compiles under pdflatex (with or without ``inputenc``), XeLaTeX,
  LuaLaTeX, bibtex and biber: text-mode specials escaped, non-ASCII letters as LaTeX accents, math kept as
  ``$…$`` with only commands the LaTeX kernel knows, a few amsmath/amssymb ones (``\\mathbb``, ``\\text``…)
  that ``bibtex_preamble`` provides when the document lacks them, and unknown macros made harmless; for
  biber, which decodes accents to Unicode before pdflatex reads them, the letters pdflatex's utf8 lacks
  declared (``PDFLATEX_UTF8``) and math ``\\langle``/``\\rangle`` as the export's own macros;
- ``clean_authors``: an author list repaired the way every target shows it (no empty names from "and and",
  no trailing commas, ``Pawe\\lZiń`` as "Paweł Ziń", ``Senjanovi'{c}`` as "Senjanović").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from papersift.records.messages import Message, listed, say
from papersift.records.paper import clean_text
from papersift.sources.latex import ARXIV_MACROS, plain_text, repaired, tex_text

if TYPE_CHECKING:
    from pylatexenc.latexencode import UnicodeToLatexEncoder

# commands the LaTeX kernel (article class) defines that are harmless in math mode
_KERNEL_MATH = frozenset(
    """alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi
    rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma
    Upsilon Phi Psi Omega pm mp times div cdot ast star circ bullet cap cup sqcap sqcup vee wedge setminus
    wr diamond bigtriangleup bigtriangledown triangleleft triangleright oplus ominus otimes oslash odot
    bigcirc dagger ddagger amalg uplus leq le geq ge equiv sim simeq asymp approx cong neq ne doteq propto
    models prec succ preceq succeq ll gg subset supset subseteq supseteq sqsubseteq sqsupseteq in ni notin
    vdash dashv perp mid parallel smile frown bowtie leftarrow gets rightarrow to Leftarrow Rightarrow
    leftrightarrow Leftrightarrow longleftarrow longrightarrow Longleftarrow Longrightarrow
    longleftrightarrow Longleftrightarrow mapsto longmapsto hookleftarrow hookrightarrow leftharpoonup
    leftharpoondown rightharpoonup rightharpoondown rightleftharpoons uparrow downarrow updownarrow Uparrow
    Downarrow Updownarrow nearrow searrow swarrow nwarrow iff aleph hbar imath jmath ell wp Re Im partial
    infty prime emptyset nabla surd top bot angle forall exists neg lnot flat natural sharp backslash
    clubsuit diamondsuit heartsuit spadesuit ldots cdots vdots ddots dots sum prod coprod int oint bigcap
    bigcup bigsqcup bigvee bigwedge bigodot bigotimes bigoplus biguplus arccos arcsin arctan arg cos cosh
    cot coth csc deg det dim exp gcd hom inf ker lg lim liminf limsup ln log max min Pr sec sin sinh sup
    tan tanh langle rangle lfloor rfloor lceil rceil lbrace rbrace vert Vert left right big Big bigg Bigg
    bigl bigr Bigl Bigr biggl biggr middle hat check breve acute grave tilde bar vec dot ddot widehat
    widetilde overline underline overbrace underbrace overrightarrow overleftarrow mathrm mathbf mathit
    mathsf mathtt mathcal mathnormal rm bf it sf tt cal sl mit frac sqrt over choose atop stackrel buildrel
    mbox textrm textit textbf textsf texttt textsc textup textsl textnormal emph displaystyle
    textstyle scriptstyle scriptscriptstyle quad qquad limits nolimits not mathstrut phantom hphantom
    vphantom ensuremath hspace cdotp ldotp colon lhd rhd unlhd unrhd Join mho sqsubset sqsupset leadsto
    lq rq""".split()
    + list(",;:! {}|#%&_$")
)
# amsmath/amssymb commands, with a kernel-only stand-in the bibliography provides where they are missing
_PROVIDED: dict[str, str] = {
    "mathbb": r"[1]{\mathbf{#1}}",
    "Bbb": r"[1]{\mathbf{#1}}",
    "mathfrak": r"[1]{\mathrm{#1}}",
    "mathscr": r"[1]{\mathcal{#1}}",
    "mathds": r"[1]{\mathbf{#1}}",
    "boldsymbol": r"[1]{\mathbf{#1}}",
    "bm": r"[1]{\mathbf{#1}}",
    "text": r"[1]{\mbox{#1}}",
    "operatorname": r"[1]{\mathrm{#1}}",
    "tfrac": r"[2]{\frac{#1}{#2}}",
    "dfrac": r"[2]{\frac{#1}{#2}}",
    "lesssim": r"{\mathrel{\stackrel{<}{\sim}}}",
    "gtrsim": r"{\mathrel{\stackrel{>}{\sim}}}",
    "leqslant": r"{\leq}",
    "geqslant": r"{\geq}",
    "varkappa": r"{\kappa}",
    "nleq": r"{\not\leq}",
    "ngeq": r"{\not\geq}",
    "nmid": r"{\not\mid}",
    "square": r"{\mbox{$\sqcup$}}",
    "rtimes": r"{\mathbin{\times}}",
    "ltimes": r"{\mathbin{\times}}",
    "varnothing": r"{\emptyset}",
    "upmu": r"{\mu}",
    "overset": r"[2]{\stackrel{#1}{#2}}",
    "underset": r"[2]{\mathop{#2}\limits_{#1}}",
    "psLangle": r"{\langle}",  # the export's own (see _BIBER_SAFE_MATH)
    "psRangle": r"{\rangle}",
    # a reader's characters pdflatex cannot set (a note in 中文): XeLaTeX and LuaLaTeX show them, pdflatex "?"
    "psChar": r"[1]{\ifdefined\XeTeXrevision#1\else\ifdefined\directlua#1\else?\fi\fi}",
}
# text commands of the T1 encoding that OT1 (pdflatex's default) lacks: a plain stand-in for OT1 only
_PROVIDED_TEXT: dict[str, str] = {
    "k": "[1]{#1}",
    "dj": "{d}",
    "DJ": "{D}",
    "dh": "{d}",
    "DH": "{D}",
    "ng": "{n}",
    "NG": "{N}",
    "th": "{th}",
    "TH": "{Th}",
    "guillemotleft": "{<<}",
    "guillemotright": "{>>}",
    "guillemetleft": "{<<}",  # the names pdflatex's utf8 gives « and », which biber decodes them to
    "guillemetright": "{>>}",
    "guilsinglleft": "{<}",
    "guilsinglright": "{>}",
    "quotedblbase": "{,,}",
    "quotesinglbase": "{,}",
}
_T1_ONLY = re.compile(r"\\(" + "|".join(_PROVIDED_TEXT) + r")(?![A-Za-z])")
_UTF8_NAMES = {"guillemotleft": "guillemetleft", "guillemotright": "guillemetright"}
# math commands biber decodes to a character that pdflatex's utf8 then reads as a text command (``\\langle``
# → ⟨ → ``\\textlangle``, invalid after ``\\left``): written as the export's own macros, which biber leaves
# be, defined by ``bibtex_preamble``. Of the kernel's math commands, biber's default (base) recode set also
# names ``\\dots`` and ``\\|``, which it leaves as they are in math.
_BIBER_SAFE_MATH: dict[str, str] = {"langle": "psLangle", "rangle": "psRangle"}
# the characters pdflatex's utf8 inputenc defines in a plain article (OT1 and the kernel's TS1, OML, OMS),
# probed from TeX Live's utf8.def and *.dfu files (tests/test_citations_biber.py checks the list against the
# real files): biber decodes our accents (``{\\c{e}}``) to characters, so the export declares the others
_PDFLATEX_UTF8_RANGES = """
    00A0-0125 0128-0137 0139-013E 0141-0148 014A-0165 0168-017E 0192 01C4-01D4 01E2-01E3 01E6-01EB 01F0
    01F4-01F5 0218-021B 0232-0233 0237 02C6-02C7 02D8-02D9 02DB-02DD 0E3F 1E02-1E03 1E0D 1E1E-1E21 1E25
    1E30-1E31 1E37 1E43 1E45 1E47 1E5B 1E63 1E6D 1E8E-1E91 1E9E 1EF2-1EF3 200C 2010-2016 2018-201A
    201C-201E 2020-2022 2026 2030-2031 2039-203B 203D 2044 204E 2052 20A1 20A4 20A6 20A9 20AB-20AC 20B1
    2103 2116-2117 211E 2120 2122 2126-2127 212E 2190-2193 2329-232A 2422-2423 25E6 25EF 266A 27E8-27E9
    3008-3009 FB00-FB06 FEFF
"""


def _code_points(ranges: str) -> frozenset[str]:
    out: set[str] = set()
    for part in ranges.split():
        first, _, last = part.partition("-")
        out.update(chr(c) for c in range(int(first, 16), int(last or first, 16) + 1))
    return frozenset(out)


PDFLATEX_UTF8 = _code_points(_PDFLATEX_UTF8_RANGES)
_SIZES = frozenset("tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge".split())
_TEXT_ACCENTS = "'\"`^~=.uvHcdbtrk"
_COMBINING = dict(  # biber's decoding of the text accents (its recode_data.xml)
    zip(
        "'\"`^~=.uvHcdbrk",
        "\u0301\u0308\u0300\u0302\u0303\u0304\u0307\u0306\u030c\u030b\u0327\u0323\u0331\u030a\u0328",
        strict=True,
    )
)
# pylatexenc's accented letter: {\={h}}, {\c{e}}, {\'e}
_ACCENTED = re.compile(r"\{\\([^A-Za-z]|[A-Za-z])\s*\{?([A-Za-z])\}?\}")

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)", re.S)
_MACRO = re.compile(r"\\([A-Za-z]+)|\\(.)", re.S)


@lru_cache(maxsize=1)
def _encoder() -> UnicodeToLatexEncoder:
    """pylatexenc's LaTeX encoder (Unicode to LaTeX), built once."""
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    return UnicodeToLatexEncoder(
        non_ascii_only=False,
        replacement_latex_protection="braces-all",
        unknown_char_policy=_unknown_char,
        unknown_char_warning=False,
    )


def _unknown_char(ch: str) -> str:
    """A character LaTeX has no command for: a combining mark is dropped (its letter stays), else ``?``."""
    return "" if unicodedata.combining(ch) else "?"


_DOTLESS = re.compile(r"(\\['\"`^~=.uvH])(?:\{\\([ij])\}|\\([ij])(?![A-Za-z]))")


def _encode(text: str) -> str:
    """Unicode text as LaTeX for text mode (accents, escaped specials, symbols in ``\\ensuremath``)."""
    out = str(_encoder().unicode_to_latex(unicodedata.normalize("NFC", text)))
    # BibTeX counts escaped braces too: a literal brace is a command
    for was, now in (("{\\{}", "{\\textbraceleft}"), ("{\\}}", "{\\textbraceright}"), ("{~}", "~")):
        out = out.replace(was, now)
    # an accent on a dotless i (\\'{\\i}): biber makes it ı and a combining accent, which pdflatex cannot set;
    # on a plain i, LaTeX drops the dot itself
    return _DOTLESS.sub(lambda m: m[1] + "{" + (m[2] or m[3]) + "}", out)


def non_ascii_latex(text: str) -> str:
    """``text`` with its characters beyond ASCII as LaTeX (ü → ``{\\"u}``, α → ``{\\ensuremath{\\alpha}}``);
    the rest as it is."""
    return "".join(_encode(c) if ord(c) > 127 else c for c in text)


def _math_char(ch: str) -> str:
    """One non-ASCII character inside math as a command (μ → ``\\mu``)."""
    out = str(_encoder().unicode_to_latex(ch))
    inner = out[1:-1] if out.startswith("{") and out.endswith("}") else out
    if inner.startswith("\\ensuremath{"):
        return "{" + inner[len("\\ensuremath{") : -1] + "}"
    return "\\mbox{" + out + "}"


def _math_accent(accent: str, base: str, provided: set[str]) -> str:
    """A text accent in math (``\\'e``) as ``\\mbox{\\'{e}}`` where it makes one letter (declared for biber
    if pdflatex lacks it); else the base alone, as biber would leave a bare combining accent."""
    letter = unicodedata.normalize("NFC", base + _COMBINING.get(accent, "?"))
    simple = len(base) == 1 and base.isascii() and base.isalpha()
    if not simple or len(letter) != 1 or "?" in _encode(letter):  # no letter pdflatex could be told of
        return "\\mbox{" + base + "}" if base else ""
    _note_biber_letters(letter, provided)
    return "\\mbox{\\" + accent + "{" + base + "}}"


def _note_biber_letters(text: str, provided: set[str]) -> None:
    """The letters of ``text`` biber will write to its ``.bbl`` as characters pdflatex's utf8 lacks (it
    decodes our ``{\\c{e}}`` to ȩ): added to ``provided``, for ``bibtex_preamble`` to declare."""
    for ch in set(unicodedata.normalize("NFC", text)):
        if ord(ch) > 127 and ch not in PDFLATEX_UTF8:
            latex = _encode(ch)
            accented = _ACCENTED.fullmatch(latex)
            mark = _COMBINING.get(accented[1], "") if accented else ""
            if mark and len(unicodedata.normalize("NFC", accented[2] + mark)) > 1:  # type: ignore[index]
                provided.add(mark)  # ħ as {\\={h}}: no such letter, biber writes h and a bare macron
            elif "\\" in latex and "ensuremath" not in latex:
                provided.add(ch)


def _math(content: str, provided: set[str]) -> str:
    """Math content with only commands a bare LaTeX (plus ``bibtex_preamble``) knows."""
    content = unicodedata.normalize("NFC", content)
    _note_biber_letters(content, provided)  # the letters _math_char writes in \\mbox{…}
    content = "".join(_math_char(c) if ord(c) > 127 else c for c in content)
    content = re.sub(r"\\\\", r"\\ ", content)

    def command(m: re.Match[str]) -> str:
        name = m[1] or m[2]
        if m[2] == "^":  # R\^n in math means R^n (an accent there would be a letter biber cannot keep)
            return "^"
        if name in _BIBER_SAFE_MATH:
            provided.add(_BIBER_SAFE_MATH[name])
            return "\\" + _BIBER_SAFE_MATH[name] + " "
        if m[2] is not None:
            return m[0] if name in _KERNEL_MATH else ("\\mbox{" + m[0] if name in _TEXT_ACCENTS else "")
        if name in ARXIV_MACROS:
            return " " + _math(ARXIV_MACROS[name][0], provided) + " "
        if name in _KERNEL_MATH:
            return m[0]
        if name in _PROVIDED:
            provided.add(name)
            return m[0]
        if name in _SIZES:
            return ""
        return "\\mbox{" + name + "}"  # harmless in math and in text (inside \mbox{…})

    out = _MACRO.sub(command, content)
    out = re.sub(r"(?<!\\)([#%&])", r"\\\1", out)
    out = _ACCENT_BOX.sub(lambda m: _math_accent(m[1][1], (m[2] or "").strip("{}"), provided), out)
    out = _balance_math(out).replace("\\{", "\\lbrace ").replace("\\}", "\\rbrace ")
    out = _SCRIPT_COMMAND.sub(lambda m: m[1] + "{" + m[2] + "}", out)  # x_\text{b}: a group, as TeX needs
    out = _TEXT_ARG.sub(lambda m: m[1] + re.sub(r"(?<!\\)([_^#$%&])", r"\\\1", m[2]) + "}", out)
    for _ in range(3):  # s^2^1: a double superscript is an error; an empty group parts them
        out = _DOUBLE_SCRIPT.sub(lambda m: m[1] + "{}" + m[3], out)
    out = re.sub(r"(?<!\\)[_^]\s*$", "", out)
    out = out.strip()
    return (out[:-1] if out.endswith("\\") and not out.endswith("\\\\") else out) or "{}"  # \ldots\ $


_SCRIPT_COMMAND = re.compile(r"([_^])\s*(\\[A-Za-z]+\s*(?:\{[^{}]*\}\s*)+)")


_ACCENT_BOX = re.compile(r"\\mbox\{(\\[^A-Za-z])\s*(\{[^{}]*\}|[A-Za-z])?")  # \mbox{\' + its letter
_TEXT_ARG = re.compile(r"(\\(?:text|texttt|textrm|textit|textbf|textsf|textsc|mbox|emph)\s*\{)([^{}]*)\}")
_DOUBLE_SCRIPT = re.compile(r"(([_^])\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[^\s{}\\]))\s*(\2)(?=.)")


def _balance_math(text: str) -> str:
    """Unmatched braces dropped (escaped ones, ``\\{``, are kept)."""
    out: list[str] = []
    opened: list[int] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == "{":
            opened.append(len(out))
        elif ch == "}":
            if not opened:
                i += 1
                continue
            opened.pop()
        out.append(ch)
        i += 1
    for j in opened:
        out[j] = ""
    return "".join(out)


def _segments(text: str) -> Iterator[tuple[bool, str]]:
    """(is_math, text) pieces of arXiv's text; a lone ``$`` is text."""
    pos = 0
    for m in _MATH.finditer(text):
        if m.start() > pos:
            yield False, text[pos : m.start()]
        yield True, next(g for g in m.groups() if g is not None)
        pos = m.end()
    if pos < len(text):
        yield False, text[pos:]


def _decoded(piece: str) -> str:
    """Text between formulas as Unicode, a space at either end kept (it parts the text from the math)."""
    return (" " if piece[:1].isspace() else "") + tex_text(piece) + (" " if piece[-1:].isspace() else "")


def bibtex_text(text: str, provided: set[str] | None = None) -> str:
    """arXiv's text as a BibTeX field value (no outer braces) that compiles everywhere; the amsmath
    commands it uses are added to ``provided`` (see ``bibtex_preamble``)."""
    provided = set() if provided is None else provided
    out = []
    for is_math, piece in _segments(repaired(clean_text(text))):
        if is_math:
            out.append("$" + _math(piece, provided) + "$")
        else:
            decoded = _decoded(piece) if re.search(r"[\\{}~]", piece) else piece
            out.append(_encode(decoded))
            _note_biber_letters(decoded, provided)
            t1 = _T1_ONLY.findall(out[-1])
            provided.update(t1 + [_UTF8_NAMES[n] for n in t1 if n in _UTF8_NAMES])
            provided.update(n for n in re.findall(r"\\([A-Za-z]+)", out[-1]) if n in _PROVIDED)
    return re.sub(r"\s+", " ", "".join(out)).strip()


def bibtex_preamble(provided: Iterable[str]) -> str:
    """A BibTeX ``@preamble`` giving the amsmath/amssymb commands used a kernel-only stand-in where the
    document has not loaded them (``\\providecommand`` leaves a loaded package's own definition be), and
    declaring to pdflatex's utf8 the letters used that biber will write as characters pdflatex lacks
    (ȩ as ``{\\c{e}}``); XeLaTeX, LuaLaTeX and bibtex's ``.bbl`` (read after the preamble) skip that part."""
    names = sorted(n for n in set(provided) if n.isascii())
    letters = sorted(n for n in set(provided) if not n.isascii())
    if not names and not letters:
        return ""
    defs = [
        f"\\ProvideTextCommandDefault{{\\{n}}}{_PROVIDED_TEXT[n]}"
        if n in _PROVIDED_TEXT
        else f"\\providecommand{{\\{n}}}{_PROVIDED[n]}"
        for n in names
    ]
    if letters:  # pdflatex's utf8, in the preamble only: biblatex reads biber's .bbl there, bibtex's is later
        declared = " ".join(  # a bare combining accent (see _note_biber_letters): dropped
            f"\\DeclareUnicodeCharacter{{{ord(c):04X}}}{{{'' if unicodedata.combining(c) else _encode(c)}}}"
            for c in letters
        )
        defs.append(
            "\\ifdefined\\DeclareUnicodeCharacter\\expandafter\\ifx\\csname @notprerr\\expandafter\\endcsname"
            f"\\csname DeclareUnicodeCharacter\\endcsname\\else {declared} \\fi\\fi"
        )
    return f'@preamble{{ "{" ".join(defs)}" }}\n'


def clean_authors(authors: Iterable[str]) -> tuple[str, ...]:
    """Author names repaired: a leading "and", trailing commas and semicolons, and empty names dropped."""
    out = []
    for raw in authors:
        name = re.sub(r"^\s*and\s+", "", raw)
        name = re.sub(r"[\s,;]+$", "", name).strip()
        if name and name.lower() != "and":
            out.append(name)
    return tuple(out)


def bibtex_name(name: str, provided: set[str] | None = None) -> str:
    """One author as a BibTeX name: a comma or a lone "and" kept inside braces so it stays one name."""
    text = bibtex_text(name, provided)
    plain = plain_text(name)
    return "{" + text + "}" if "," in plain or re.search(r"\band\b", plain, re.I) else text


def plain_authors(authors: Iterable[str]) -> tuple[str, ...]:
    """Repaired author names as plain Unicode: what every page, feed, JSON answer and CLI line shows."""
    return tuple(n for n in (plain_text(a) for a in clean_authors(authors)) if n)


def author_line(authors: Iterable[str], shown: int = 3) -> str:
    """``A, B, C and 2 more`` (中文 ``A、B、C 等 5 人``): the short author line of listings, of the repaired
    names; a message, said per face in the reader's language."""
    names = plain_authors(authors)
    if len(names) <= shown:
        return ", ".join(names)
    return say("and_more", names=_series(names[:shown]), n=len(names) - shown, total=len(names))


def _series(names: Sequence[str]) -> Message:
    """``A, B, C`` as a message, each comma the language's (中文 ``、``: Babel's list pattern)."""
    return listed("series", names)
