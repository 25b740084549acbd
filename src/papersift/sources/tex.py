"""A paper's TeX source as text: the main file (the one with ``\\documentclass``, its ``\\input`` and
``\\include`` followed), its sections with their headings, running text with math kept as LaTeX, figure and
table captions, the abstract, and the bibliography (the ``.bbl``, an inline ``thebibliography``, or the
``.bib`` through the keys the TeX cites).

Pure parsing over the archive's text files (``sources/eprint.py`` reads the archive safely; ``texscan``
finds commands and macros, ``latex`` turns LaTeX into text, ``texbib`` reads the reference list).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

from papersift.records.messages import say
from papersift.sources.fulltext import ExtractError, FullText, Reference, Section
from papersift.sources.latex import to_text
from papersift.sources.texbib import bbl_references, bibitems
from papersift.sources.texscan import (
    command_args,
    environment,
    expand_macros,
    group,
    math_macros,
    skip_options,
    strip_comments,
    user_macros,
)

MAX_INPUT_DEPTH = 12  # \input nesting followed
MAX_EXPANDED_CHARS = 20_000_000  # the main file with its inputs, expanded (a file input twice over…)

TEX_SUFFIXES = (".tex", ".ltx", ".latex")


@dataclass(frozen=True, slots=True)
class TexDoc:
    """What the TeX gives beyond the ``FullText``: the raw body (comments removed; for code links) and the
    title's notes (``\\thanks``, a footnote on the title: where a paper names its own code)."""

    fulltext: FullText
    body: str
    title_notes: str


# ---------------------------------------------------------------- the source tree


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
    text = strip_comments(files[path])
    budget[0] -= len(text)
    if budget[0] < 0:
        raise ExtractError(say("extract_tex_loop"))
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
        inner = _expand(files, found, (*stack, path), budget)
        start = inner.find("\\begin{document}")
        if start >= 0:  # a subfile, a standalone part: its document only
            end = inner.find("\\end{document}", start)
            inner = inner[start + len("\\begin{document}") : end if end >= 0 else len(inner)]
        return "\n" + inner + "\n"

    text = _INPUT.sub(one, text)
    return _INPUT_BARE.sub(one, text)


_PART_CLASS = re.compile(r"\\documentclass\s*(?:\[[^\]]*\])?\s*\{(?:subfiles|standalone)\}")
_PLAIN_TEX = re.compile(r"\\bye\b|\\magnification\b|\\input\s+(?:harvmac|amstex|phyzzx|lanlmac|epsf|mn)\b")
_DOCCLASS = re.compile(r"\\document(?:class|style)\b")
_STALE = re.compile(r"(?:^|[/_.-])(?:old|bak|backup|copy|draft|tmp|temp|test|orig|v\d)(?:$|[_.-])", re.I)


def main_file(files: Mapping[str, str]) -> str:
    """The main file: one with ``\\documentclass`` (or ``\\documentstyle``) outside comments, preferring one
    with ``\\begin{document}``, not named as a leftover (``_old-…``, ``backup``), named like the ``.bbl``,
    not input by another, then the largest."""
    tex = {p: strip_comments(t) for p, t in files.items() if p.lower().endswith(TEX_SUFFIXES) or "." not in p}
    candidates = [p for p, t in tex.items() if _DOCCLASS.search(t)]
    if not candidates:
        candidates = [p for p, t in tex.items() if "\\begin{document}" in t or _PLAIN_TEX.search(t)]
    if not candidates:
        raise ExtractError(say("extract_no_main"))
    bbl_stems = {posixpath.splitext(p)[0] for p in files if p.endswith(".bbl")}
    inputs = {m[3].strip() for t in tex.values() for m in _INPUT.finditer(t)}
    input_paths = {_lookup(files, n) for n in inputs}

    def score(p: str) -> tuple[int, int]:
        stem = posixpath.splitext(p)[0]
        s = 8 * ("\\begin{document}" in tex[p]) + 4 * (not _STALE.search(posixpath.basename(stem)))
        s -= 10 * bool(_PART_CLASS.search(tex[p]))
        s += (
            2 * (stem in bbl_stems)
            + 2 * (p not in input_paths)
            + (posixpath.basename(stem) in ("main", "ms", "paper"))
        )
        return s, len(tex[p])

    return max(sorted(candidates), key=score)


# ---------------------------------------------------------------- the document

_SECTION = re.compile(r"\\(part|chapter|section|subsection|subsubsection|newsec|subsec)\*?(?![A-Za-z@])")
_FLOATS = environment("", "figure\\*?|wrapfigure|SCfigure|figure\\*")
_TABLES = re.compile(r"\\begin\{(table\*?|wraptable|sidewaystable)\}(?:\[[^\]]*\])?")


def _captions(body: str) -> tuple[str, list[str]]:
    found: list[str] = []
    out, last = [], 0
    for m in re.finditer(r"\\(?:sub)?caption(?:of)?(?![A-Za-z@])", body):
        if m.start() < last:
            continue
        i = skip_options(body, m.end())
        if body[m.start() :].startswith("\\captionof"):
            g0 = group(body, i)
            i = skip_options(body, g0[1]) if g0 else i
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
    macros = user_macros(preamble)
    body = expand_macros(body, macros)
    title, notes = _title(expand_macros(preamble, macros) + body)

    # the bibliography: inline, the .bbl, or the .bib through the keys cited
    references: list[Reference] = []
    inline = list(environment("", "thebibliography").finditer(body))
    if inline:
        for m in inline:
            references.extend(bibitems(m[0]))
        body = environment("", "thebibliography").sub("", body)
    raw_body = body  # for code links: the paper's own text, not the links of the works it cites
    if not references:
        references = bbl_references(files, main, whole)
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
        abstract = expand_macros(in_preamble[1], macros)
    else:
        for s, e, args in command_args(body, "abstract"):
            if args:
                abstract, body = args[0], body[:s] + body[e:]
                break
        else:
            abs_files = [p for p in files if p.endswith(".abs")]
            if abs_files:
                abstract = strip_comments(files[abs_files[0]])
                abstract = re.sub(r"\\begin\{abstract\}|\\end\{abstract\}", "", abstract)

    body, captions = _captions(body)
    body = _FLOATS.sub("", body)
    body = _TABLES.sub("\n", body)
    sections = _sections(body, "\\chapter" in body)
    if abstract.strip():
        sections.insert(0, Section("Abstract", 0, to_text(abstract)))
    sections = [s for s in sections if s.text or s.heading]
    fulltext = FullText(
        "tex",
        tuple(sections),
        tuple(captions),
        tuple(references),
        title=title,
        macros=tuple(math_macros(preamble).items()),
    )
    return TexDoc(fulltext=fulltext, body=raw_body, title_notes=notes)


def _sections(body: str, chapters: bool) -> list[Section]:
    levels = (
        {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 3, "newsec": 2, "subsec": 3}
        if chapters
        else {
            "part": 1,
            "chapter": 1,
            "section": 1,
            "subsection": 2,
            "subsubsection": 3,
            "newsec": 1,
            "subsec": 2,
        }
    )
    out: list[Section] = []
    heading, level, last = "", 0, 0
    for m in _SECTION.finditer(body):
        i = skip_options(body, m.end())
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
