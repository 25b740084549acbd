"""A paper's TeX source as text: the main file (the one with ``\\documentclass``, its ``\\input`` and
``\\include`` followed), its sections with their headings, running text with math kept as LaTeX, figure and
table captions, the abstract, and the bibliography (the ``.bbl``, an inline ``thebibliography``, or the
``.bib`` through the keys the TeX cites).

Pure parsing over the archive's text files (``sources/eprint.py`` reads the archive safely). The LaTeX to
text conversion is a small scanner of its own rather than pylatexenc (which needs ~10 µs a character, 5 s
for a thesis): it knows the common macros, keeps the arguments of macros it does not know, and never fails
on undefined ones.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from papersift.paper import InvalidIdError, clean_text, normalize_id
from papersift.sources.fulltext import ExtractError, FullText, Reference, Section
from papersift.sources.references import find_arxiv_id, normalize_doi

MAX_INPUT_DEPTH = 12  # \input nesting followed
MAX_EXPANDED_CHARS = 20_000_000  # the main file with its inputs, expanded (a file input twice over…)
MAX_NESTING = 200  # brace groups deeper than this are read as plain characters

TEX_SUFFIXES = (".tex", ".ltx", ".latex")


@dataclass(frozen=True, slots=True)
class TexDoc:
    """What the TeX gives beyond the ``FullText``: the raw body (comments removed; for code links) and the
    title's notes (``\\thanks``, a footnote on the title: where a paper names its own code)."""

    fulltext: FullText
    body: str
    title_notes: str


# ---------------------------------------------------------------- the source tree


def _strip_comments(text: str) -> str:
    text = re.sub(r"(?<!\\)%.*", "", text)  # % to the end of the line, \% kept
    text = re.sub(r"\\begin\{comment\}.*?\\end\{comment\}", "", text, flags=re.S)
    return re.sub(r"\\iffalse\b.*?\\fi\b", "", text, flags=re.S)


def _lookup(files: Mapping[str, str], name: str, base: str = "") -> str | None:
    name = name.strip().strip('"')
    for cand in (posixpath.join(base, name), name):
        path = posixpath.normpath(cand).lstrip("./") if cand else ""
        for p in (path, path + ".tex"):
            if p in files:
                return p
    return None


_INPUT = re.compile(
    r"\\(input|include|subfile|import|subimport|InputIfFileExists)\*?\s*(?:\{([^{}]*)\}\s*)?\{([^{}]*)\}"
)
_INPUT_BARE = re.compile(r"\\input\s+([\w./-]+)")


def _expand(
    files: Mapping[str, str], path: str, stack: tuple[str, ...] = (), budget: list[int] | None = None
) -> str:
    budget = budget if budget is not None else [MAX_EXPANDED_CHARS]
    text = _strip_comments(files[path])
    budget[0] -= len(text)
    if budget[0] < 0:
        raise ExtractError("the TeX source expands to too much text (an \\input loop?)")
    if len(stack) >= MAX_INPUT_DEPTH:
        return text

    def one(m: re.Match[str]) -> str:
        if m.lastindex == 1:  # the bare form
            name, base = m[1], ""
        else:
            name, base = m[3], (m[2] or "") if m[1] in ("import", "subimport") else ""
        found = _lookup(files, name, base)
        if found is None or found in stack or found == path:
            return " "
        return "\n" + _expand(files, found, (*stack, path), budget) + "\n"

    text = _INPUT.sub(one, text)
    return _INPUT_BARE.sub(one, text)


_DOCCLASS = re.compile(r"\\document(?:class|style)\b")
_STALE = re.compile(r"(?:^|[/_.-])(?:old|bak|backup|copy|draft|tmp|temp|test|orig|v\d)(?:$|[_.-])", re.I)


def main_file(files: Mapping[str, str]) -> str:
    """The main file: one with ``\\documentclass`` (or ``\\documentstyle``) outside comments, preferring one
    with ``\\begin{document}``, not named as a leftover (``_old-…``, ``backup``), named like the ``.bbl``,
    not input by another, then the largest."""
    tex = {
        p: _strip_comments(t) for p, t in files.items() if p.lower().endswith(TEX_SUFFIXES) or "." not in p
    }
    candidates = [p for p, t in tex.items() if _DOCCLASS.search(t)]
    if not candidates:
        candidates = [p for p, t in tex.items() if "\\begin{document}" in t]
    if not candidates:
        raise ExtractError("no TeX main file (no \\documentclass) in the e-print")
    bbl_stems = {posixpath.splitext(p)[0] for p in files if p.endswith(".bbl")}
    inputs = {m[3].strip() for t in tex.values() for m in _INPUT.finditer(t)}
    input_paths = {_lookup(files, n) for n in inputs}

    def score(p: str) -> tuple[int, int]:
        stem = posixpath.splitext(p)[0]
        s = 8 * ("\\begin{document}" in tex[p]) + 4 * (not _STALE.search(posixpath.basename(stem)))
        s += (
            2 * (stem in bbl_stems)
            + 2 * (p not in input_paths)
            + (posixpath.basename(stem) in ("main", "ms", "paper"))
        )
        return s, len(tex[p])

    return max(sorted(candidates), key=score)


# ---------------------------------------------------------------- groups and arguments


def group(text: str, i: int) -> tuple[str, int] | None:
    """The content of the ``{…}`` group at ``i`` (after spaces) and the index after it; None if none."""
    n = len(text)
    while i < n and text[i] in " \t\n":
        i += 1
    if i >= n or text[i] != "{":
        return None
    depth, j = 0, i
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j], j + 1
        j += 1
    return text[i + 1 :], n


def _optional(text: str, i: int) -> int:
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
        i = _optional(text, m.end())
        args: list[str] = []
        while (g := group(text, i)) is not None and len(args) < 3:
            args.append(g[0])
            i = _optional(text, g[1])
            if name not in ("href", "bibitem", "bibinfo", "field", "entry"):
                break
        yield m.start(), i, args


def _environments(text: str, names: str) -> re.Pattern[str]:
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
    "!": "", "quad": " ", "qquad": " ", "enspace": " ", "par": "\n\n", "newline": "\n", "\\": "\n",
    "item": "\n• ", "-": "", "/": "", "@": "", "etal": "et al.", "eg": "e.g.", "ie": "i.e.", "etc": "etc.",
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
    "fontsize": (2, 0),
    **dict.fromkeys("textcolor colorbox raisebox scalebox rotatebox".split(), (1, 1)),
    **dict.fromkeys("resizebox multicolumn multirow".split(), (2, 1)),
    "fcolorbox": (2, 1),
    "href": (1, 1),
}
_CITES = frozenset("parencite textcite autocite Cite Citep Citet footcite nocite".split())
_FOOTNOTES = frozenset("footnote thanks footnotetext tablefootnote".split())
_ENV_ARGS = {
    "minipage": 1, "tabular": 1, "tabularx": 2, "tabular*": 2, "tabulary": 2, "array": 1, "multicols": 1,
    "wrapfigure": 2, "wraptable": 2, "subfigure": 1, "adjustbox": 1, "longtable": 1, "tabu": 1, "list": 2,
    "thebibliography": 1, "supertabular": 1, "CJK": 2, "CJK*": 2, "xtabular": 1, "NiceTabular": 1, "tblr": 1,
    "spacing": 1,
}  # fmt: skip

_MATH_ENVS = (
    "equation|align|gather|multline|eqnarray|displaymath|math|flalign|alignat|dmath|split|subequations"
)
_VERBATIM_ENVS = "verbatim|lstlisting|minted|Verbatim|alltt|comment"
_PROTECT = re.compile(
    r"(?<!\\)\$\$.*?(?<!\\)\$\$|(?<!\\)\$(?:\\.|[^$\\])+\$|\\\(.*?\\\)|\\\[.*?\\\]"
    rf"|\\begin\{{((?:{_MATH_ENVS})\*?)\}}.*?\\end\{{\1\}}"
    rf"|\\begin\{{((?:{_VERBATIM_ENVS})\*?)\}}(?:\[[^\]]*\])?(?:\{{[^}}]*\}})?(.*?)\\end\{{\2\}}"
    r"|\\verb\*?([^A-Za-z\s])(.*?)\4",
    re.S,
)
_CS = re.compile(r"\\([A-Za-z@]+)\*?|\\(.)", re.S)
_PLAIN_RUN = re.compile(r"[^\\{}~$&`'\-\x00]+")


class _Plain:
    """One conversion: math and verbatim cut out first (kept as written), then a scan over the rest."""

    def __init__(self) -> None:
        self.kept: list[str] = []

    def protect(self, text: str) -> str:
        def keep(m: re.Match[str]) -> str:
            if m[3] is not None:
                raw = m[3]
            elif m[5] is not None:
                raw = m[5]
            elif m[0].startswith("\\begin"):
                raw = " ".join(m[0].split())
                raw = re.sub(r"\\label\{[^}]*\}\s*", "", raw)
            else:
                raw = " ".join(m[0].split())
            self.kept.append(raw)
            return f"\x00{len(self.kept) - 1}\x00"

        return _PROTECT.sub(keep, text)

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
                j = _optional(text, i)
                label = text[i:j].strip().strip("[]") if j > i else ""
                out.append("\n• " + (self.scan(label, depth + 1) + " " if label else ""))
                return j
            out.append(_SYMBOLS[name])
            return i + (1 if m[1] and text.startswith("{}", i) else 0) * 2
        if name in ("begin", "end"):
            g = group(text, i)
            if g is None:
                return i
            env, i = g[0].strip(), g[1]
            if name == "begin":
                i = _optional(text, i)
                for _ in range(_ENV_ARGS.get(env, 0)):
                    a = group(text, i)
                    if a is None:
                        break
                    i = _optional(text, a[1])
            out.append("\n")
            return i
        if name in _FOOTNOTES:
            i = _optional(text, i)
            g = group(text, i)
            if g is not None:
                out.append(" (" + self.scan(g[0], depth + 1).strip() + ") ")
                return g[1]
            return i
        if name in _CITES or (name.startswith("cite") and name[4:].isalpha()):
            i = _optional(text, i)
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
            return _optional(text, i) if text.startswith("[", i) else i
        drop, keep = spec
        i = _optional(text, i)
        for _ in range(drop):
            g = group(text, i)
            if g is None:
                return i
            i = _optional(text, g[1])
        for _ in range(keep):
            g = group(text, i)
            if g is None:
                return i
            out.append(self.scan(g[0], depth + 1))
            i = g[1]
        return i


def to_text(latex: str) -> str:
    """LaTeX as plain text: math and verbatim kept as written, the common macros rendered, unknown macros
    dropped with their arguments kept; paragraphs as blank lines, runs of spaces collapsed."""
    conv = _Plain()
    try:
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


# ---------------------------------------------------------------- references

_YEAR = re.compile(r"(?<![\d/.])(19[0-9]{2}|20[0-3][0-9])(?![\d])")
_ARCHIVES = (
    "astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|physics|quant-ph|math|cs"
    "|q-bio|q-fin|stat|eess|econ|alg-geom|chao-dyn|cmp-lg|dg-ga|funct-an|solv-int|patt-sol|adap-org|q-alg"
    "|chem-ph|comp-gas|mtrl-th|supr-con|acc-phys|ao-sci|atom-ph|bayes-an|plasm-ph"
)
_OLD_BARE = re.compile(rf"(?<![\w/-])((?:{_ARCHIVES})(?:\.[A-Z]{{2}})?/\d{{7}})(?:v\d+)?(?!\d)")
_NEW_NEAR = re.compile(
    r"(?:arxiv|corr|preprint|e-?print|abs/)[^,;()\[\]]{0,40}?(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])",
    re.I,
)
_DOI_IN = re.compile(
    r"(?:doi\s*[:=]?\s*|doi\.org/|\\doi\s*\{\s*|\\dodoi\s*\{\s*)(10\.\d{4,9}/[^\s{}\\,;]+)", re.I
)
_URL = re.compile(r"https?://[^\s{}\\<>\"]+")


def reference_arxiv_id(*texts: str) -> str | None:
    """The arXiv id a reference names: ``arXiv:…``, an arXiv URL or DOI, CoRR's ``abs/…``, an eprint
    field, an old-style ``hep-th/9901001``; without version."""
    found = find_arxiv_id(*texts)
    if found:
        return found
    for text in texts:
        for pattern in (_NEW_NEAR, _OLD_BARE):
            for m in pattern.finditer(text):
                try:
                    return normalize_id(m[1])
                except InvalidIdError:
                    continue
    return None


def reference_fields(raw: str, text: str, title: str | None) -> dict[str, object]:
    """arXiv id, DOI, title, year and URL read from one entry (``raw`` LaTeX and its ``text``)."""
    doi_m = _DOI_IN.search(raw) or _DOI_IN.search(text)
    doi = normalize_doi(doi_m[1]) if doi_m else None
    if doi:
        doi = doi.rstrip(".)")
    urls = [u.rstrip(".,;)") for u in _URL.findall(raw)]
    url = next((u for u in urls if "doi.org/" not in u), urls[0] if urls else None)
    if doi is None:
        doi = next((normalize_doi(u) for u in urls if "doi.org/10." in u), None)
    bare = _URL.sub(" ", text)
    bare = re.sub(r"\d{4}\.\d{4,5}|10\.\d{4,9}/\S+|[a-z-]+/\d{7}", " ", bare)
    year_m = _YEAR.search(bare)
    return {
        "arxiv_id": reference_arxiv_id(raw, text),
        "doi": doi,
        "title": title or None,
        "year": int(year_m[1]) if year_m else None,
        "url": url,
    }


def _clean_title(title: str) -> str | None:
    title = title.strip().strip(",.;: ").strip("“”\"'").strip(",.;: ")
    return title if len(title) >= 8 and not re.match(r"^(in|arxiv|url|doi)\b", title, re.I) else None


def _bibitem_title(body: str) -> str | None:
    for _, _, args in command_args(body, "bibinfo"):
        if len(args) >= 2 and args[0].strip() == "title":
            return _clean_title(to_text(args[1]))
    m = re.search(r"``(.+?)''|“(.+?)”|\"(.+?)\"", body, re.S)
    if m:
        return _clean_title(to_text(m[1] or m[2] or m[3]))
    blocks = re.split(r"\\newblock\b", body)
    if len(blocks) >= 2:
        return _clean_title(to_text(blocks[1]))
    return None


_BIBITEM = re.compile(r"\\bibitem\s*")


def bibitems(bib: str) -> list[Reference]:
    """The ``\\bibitem`` entries of a ``thebibliography`` (a ``.bbl``, or inline) in order."""
    bib = _strip_comments(bib)
    end = bib.find("\\end{thebibliography}")
    bib = bib[:end] if end >= 0 else bib
    starts = [m.start() for m in _BIBITEM.finditer(bib)]
    refs: list[Reference] = []
    for n, s in enumerate(starts):
        chunk = bib[s : starts[n + 1] if n + 1 < len(starts) else len(bib)]
        i = _optional(chunk, len("\\bibitem"))
        label = chunk[len("\\bibitem") : i].strip().strip("[]")
        g = group(chunk, i)
        if g is None:
            continue
        key, body = g[0].strip(), chunk[g[1] :]
        text = to_text(body.replace("\\newblock", " "))
        fields = reference_fields(body, text, _bibitem_title(body))
        if fields["year"] is None and (y := _YEAR.search(label)):
            fields["year"] = int(y[1])
        refs.append(Reference(key=key or str(n + 1), text=text, **fields))  # type: ignore[arg-type]
    return refs


def biblatex_entries(bbl: str) -> list[Reference]:
    """The entries of a biblatex ``.bbl`` (``\\entry{key}{type}{}`` … ``\\endentry``)."""
    refs: list[Reference] = []
    for m in re.finditer(r"\\entry\{([^}]*)\}\{([^}]*)\}\{[^}]*\}(.*?)\\endentry", bbl, re.S):
        key, body = m[1], m[3]
        fields: dict[str, str] = {}
        for fm in re.finditer(r"\\field\{(\w+)\}\{", body):
            g = group(body, fm.end() - 1)
            if g:
                fields[fm[1].lower()] = g[0]
        for vm in re.finditer(r"\\verb\{(\w+)\}\s*\\verb (.*?)\s*\\endverb", body, re.S):
            fields[vm[1].lower()] = vm[2].strip()
        names = re.findall(r"family=\{([^}]*)\}", body)
        title = to_text(fields.get("title", "")) or None
        text = (
            ", ".join(names[:6])
            + (". " if names else "")
            + (title or "")
            + ". "
            + to_text(fields.get("journaltitle", fields.get("booktitle", "")))
        )
        year = fields.get("year") or fields.get("date", "")[:4]
        prefix = fields.get("eprinttype", fields.get("archiveprefix", "arxiv")).lower()
        arxiv = (
            reference_arxiv_id(fields.get("eprint", ""))
            if prefix == "arxiv" and fields.get("eprint")
            else None
        )
        try:
            arxiv = arxiv or (
                normalize_id(fields["eprint"]) if prefix == "arxiv" and "eprint" in fields else None
            )
        except InvalidIdError:
            arxiv = None
        refs.append(
            Reference(
                key=key,
                text=clean_text(text),
                arxiv_id=arxiv or reference_arxiv_id(fields.get("url", ""), fields.get("doi", "")),
                doi=normalize_doi(fields.get("doi")),
                title=title,
                year=int(year) if year.isdigit() else None,
                url=fields.get("url") or None,
            )
        )
    return refs


_CITE = re.compile(r"\\(?:[a-zA-Z]*cite[a-zA-Z]*|nocite)\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^}]*)\}")


def cited_keys(body: str) -> list[str]:
    """The citation keys in ``body`` in order of first citation (``*`` for ``\\nocite{*}``)."""
    seen: dict[str, None] = {}
    for m in _CITE.finditer(body):
        for key in m[1].split(","):
            if key.strip():
                seen.setdefault(key.strip(), None)
    return list(seen)


def bib_references(bib_texts: list[str], keys: list[str]) -> list[Reference]:
    """The ``.bib`` entries the TeX cites, in order of first citation (all of them for ``\\nocite{*}``)."""
    from papersift.sources.bibtex import read_bibtex
    from papersift.sources.references import Reference as BibEntry

    entries: dict[str, BibEntry] = {}
    for text in bib_texts:
        for e in read_bibtex(text):
            if isinstance(e, BibEntry):
                entries.setdefault(e.key, e)
    wanted = list(entries) if "*" in keys else [k for k in keys if k in entries]
    refs = []
    for k in wanted:
        e = entries[k]
        parts = [", ".join(e.authors), str(e.year or ""), e.title, e.venue or "", e.note]
        refs.append(
            Reference(
                key=k,
                text=clean_text(". ".join(p for p in parts if p)),
                arxiv_id=e.arxiv_id,
                doi=e.doi,
                title=e.title or None,
                year=e.year,
                url=e.url,
            )
        )
    return refs


# ---------------------------------------------------------------- the document

_SECTION = re.compile(r"\\(part|chapter|section|subsection|subsubsection)\*?(?![A-Za-z@])")
_FLOATS = _environments("", "figure\\*?|wrapfigure|SCfigure|figure\\*")
_TABLES = re.compile(r"\\begin\{(table\*?|wraptable|sidewaystable)\}")


def _captions(body: str) -> tuple[str, list[str]]:
    found: list[str] = []
    out, last = [], 0
    for m in re.finditer(r"\\(?:sub)?caption(?:of)?(?![A-Za-z@])", body):
        if m.start() < last:
            continue
        i = _optional(body, m.end())
        if body[m.start() :].startswith("\\captionof"):
            g0 = group(body, i)
            i = _optional(body, g0[1]) if g0 else i
        g = group(body, i)
        if g is None:
            continue
        text = to_text(g[0])
        if text:
            found.append(text)
        out.append(body[last : m.start()])
        last = g[1]
    out.append(body[last:])
    return "".join(out), found


def _title(tex: str) -> tuple[str, str]:
    """The title (plain) and the notes on the title and authors (``\\thanks``, footnotes)."""
    notes: list[str] = []
    title = ""
    for cmd in ("title", "author", "icmltitle", "affiliation", "thanks"):
        for _, _, args in command_args(tex, cmd):
            if not args:
                continue
            if cmd in ("title", "icmltitle") and not title:
                title = args[0]
            for inner in ("thanks", "footnote"):
                notes.extend(a[0] for _, _, a in command_args(args[0], inner) if a)
            if cmd == "thanks":
                notes.append(args[0])
    return to_text(re.sub(r"\\(thanks|footnote)\s*\{[^{}]*\}", "", title)), "\n".join(notes)


def read_tex(files: Mapping[str, str]) -> TexDoc:
    """The full text of a TeX source given its text files by path (``.tex``, ``.bbl``, ``.bib``, ``.abs``)."""
    main = main_file(files)
    whole = _expand(files, main)
    start = whole.find("\\begin{document}")
    preamble, body = (whole[:start], whole[start + len("\\begin{document}") :]) if start >= 0 else ("", whole)
    end = body.find("\\end{document}")
    body = body[:end] if end >= 0 else body
    body = expand_macros(body, user_macros(preamble))
    raw_body = body
    title, notes = _title(preamble + body)

    # the bibliography: inline, the .bbl, or the .bib through the keys cited
    references: list[Reference] = []
    inline = list(_environments("", "thebibliography").finditer(body))
    if inline:
        for m in inline:
            references.extend(bibitems(m[0]))
        body = _environments("", "thebibliography").sub("", body)
    if not references:
        references = _bbl_references(files, main, whole)
    body = re.sub(
        r"\\(?:bibliography|printbibliography|addbibresource)\b(?:\[[^\]]*\])?(?:\{[^}]*\})?", "", body
    )

    # the abstract
    abstract = ""
    abs_m = re.search(r"\\begin\{abstract\*?\}(.*?)\\end\{abstract\*?\}", body, re.S)
    in_preamble = (
        None if abs_m else re.search(r"\\begin\{abstract\*?\}(.*?)\\end\{abstract\*?\}", preamble, re.S)
    )
    if abs_m:
        abstract, body = abs_m[1], body[: abs_m.start()] + body[abs_m.end() :]
    elif in_preamble:  # some classes take the abstract before \begin{document}
        abstract = expand_macros(in_preamble[1], user_macros(preamble))
    else:
        for s, e, args in command_args(body, "abstract"):
            if args:
                abstract, body = args[0], body[:s] + body[e:]
                break
        else:
            abs_files = [p for p in files if p.endswith(".abs")]
            if abs_files:
                abstract = _strip_comments(files[abs_files[0]])
                abstract = re.sub(r"\\begin\{abstract\}|\\end\{abstract\}", "", abstract)

    body, captions = _captions(body)
    body = _FLOATS.sub("", body)
    body = _TABLES.sub("\n", body)
    sections = _sections(body, "\\chapter" in body)
    if abstract.strip():
        sections.insert(0, Section("Abstract", 0, to_text(abstract)))
    sections = [s for s in sections if s.text or s.heading]
    fulltext = FullText(
        source="tex",
        sections=tuple(sections),
        captions=tuple(captions),
        references=tuple(references),
        title=title,
    )
    return TexDoc(fulltext=fulltext, body=raw_body, title_notes=notes)


def _bbl_references(files: Mapping[str, str], main: str, whole: str) -> list[Reference]:
    names = [n.strip() for m in re.finditer(r"\\bibliography\s*\{([^}]*)\}", whole) for n in m[1].split(",")]
    stem = posixpath.splitext(main)[0]
    bbl_paths = [p for p in files if p.endswith(".bbl")]
    preferred = [_lookup_ext(files, n, ".bbl") for n in names] + [stem + ".bbl"]
    bbl = next((p for p in preferred if p and p in files), bbl_paths[0] if len(bbl_paths) == 1 else None)
    if bbl is None and bbl_paths:
        bbl = max(bbl_paths, key=lambda p: len(files[p]))
    if bbl is not None:
        text = files[bbl]
        refs = biblatex_entries(text) if "\\endentry" in text else bibitems(text)
        if refs:
            return refs
    bibs = [_lookup_ext(files, n, ".bib") for n in names]
    bibs += [
        _lookup_ext(files, m[1].strip(), "")
        for m in re.finditer(r"\\addbibresource(?:\[[^\]]*\])?\{([^}]*)\}", whole)
    ]
    texts = [files[p] for p in bibs if p]
    if not texts:
        texts = [t for p, t in files.items() if p.endswith(".bib")]
    return bib_references(texts, cited_keys(whole)) if texts else []


def _lookup_ext(files: Mapping[str, str], name: str, ext: str) -> str | None:
    path = posixpath.normpath(name).lstrip("./")
    for p in (path + ext, path, posixpath.basename(path) + ext):
        if p in files:
            return p
    return None


def _sections(body: str, chapters: bool) -> list[Section]:
    levels = (
        {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 3}
        if chapters
        else {"part": 1, "chapter": 1, "section": 1, "subsection": 2, "subsubsection": 3}
    )
    out: list[Section] = []
    heading, level, last = "", 0, 0
    for m in _SECTION.finditer(body):
        i = _optional(body, m.end())
        g = group(body, i)
        if g is None:
            continue
        text = to_text(body[last : m.start()])
        if text or heading:
            out.append(Section(heading, level, text))
        heading, level, last = to_text(re.sub(r"\\label\{[^}]*\}", "", g[0])), levels[m[1]], g[1]
    text = to_text(body[last:])
    if text or heading:
        out.append(Section(heading, level, text))
    return out
