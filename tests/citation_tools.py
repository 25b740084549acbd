"""The outside checks of papersift's citation exports, shared by the slow tests and ``bench/citations.py``:
the LaTeX- or Unicode-heavy papers of a snapshot file, TeX Live compiling their BibTeX (pdflatex + bibtex,
pdflatex + biber, xelatex + bibtex, lualatex + biber), citeproc-py rendering their CSL-JSON and rispy
reading their RIS back. Each check gives a ``ToolCounts``: entries typeset, errors, warnings.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from papersift.records.paper import Paper
from papersift.sources.snapshot import paper_from_record

HEAVY = re.compile(r"[\\$_^{]|[^\x00-\x7f]")  # a title or author with LaTeX or non-ASCII text
TEX_TOOLS = ("pdflatex", "xelatex", "lualatex", "bibtex", "biber")


def heavy_papers(path: Path, limit: int | None = None, *, every: bool = False) -> list[Paper]:
    """The papers of a snapshot file whose title or authors carry LaTeX or non-ASCII characters
    (``every``: all of its papers)."""
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            rec = orjson.loads(line)
            if every or HEAVY.search(rec.get("title", "") + " ".join(rec.get("authors") or [])):
                out.append(paper_from_record(rec, path.name))
                if limit and len(out) >= limit:
                    break
    return out


@dataclass
class ToolCounts:
    """What one tool made of an export: entries it gave, error and warning lines (first few kept)."""

    tool: str
    entries: int = 0
    errors: int = 0
    warnings: int = 0
    samples: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"{self.tool:<22} entries {self.entries:>7}  errors {self.errors:>5}  warnings {self.warnings:>5}"
        )


def tex_available() -> bool:
    return all(shutil.which(t) for t in TEX_TOOLS)


_DOCS = {
    "bibtex": "\\bibliographystyle{plain}\n\\bibliography{refs}\n",
    "biber": "\\printbibliography\n",
}


def _document(engine: str, backend: str, inputenc: bool) -> str:
    head = ["\\documentclass{article}"]
    if inputenc:
        head.append("\\usepackage[utf8]{inputenc}")
    if engine != "pdflatex":
        head.append("\\usepackage{fontspec}")
    if backend == "biber":
        head += ["\\usepackage[backend=biber,maxbibnames=99]{biblatex}", "\\addbibresource{refs.bib}"]
    return "\n".join(head) + "\n\\begin{document}\n\\nocite{*}\n" + _DOCS[backend] + "\\end{document}\n"


def _run(cmd: list[str], cwd: Path, timeout: int) -> str | None:
    """Run one tool; an error line when it ran past ``timeout`` (counted as an error, never hidden)."""
    try:
        subprocess.run(
            cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return f"{cmd[0]} ran past {timeout} s"
    return None


# Nobody reads the PDF: each engine typesets every page (its errors, warnings and missing characters are
# the same) but writes no PDF (xelatex: no .xdv handed to xdvipdfmx).
NO_PDF = {"pdflatex": "-draftmode", "lualatex": "-draftmode", "xelatex": "-no-pdf"}
_TEX_ERROR = re.compile(r"^! (?!\\[A-Z]+\d?/)(.*)", re.M)  # not an overfull box's dump that starts "! \OML/…"
_TEX_WARNING = re.compile(r"^(?:LaTeX|Package \w+|Class \w+) Warning: (.*)|^(Missing character: .*)", re.M)


def compile_bibtex(
    bib: str, workdir: Path, engine: str, backend: str, *, inputenc: bool = False, timeout: int = 900
) -> ToolCounts:
    """``bib`` cited in full (``\\nocite{*}``) by a one-page article: engine, bibtex or biber, engine again,
    writing no PDF (``NO_PDF``).
    Errors: TeX's ``!`` lines and the bibliography tool's errors; warnings: LaTeX's and the tool's."""
    name = f"{engine}+{backend}" + ("+inputenc" if inputenc else "")
    work = workdir / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "refs.bib").write_text(bib, encoding="utf-8")
    (work / "doc.tex").write_text(_document(engine, backend, inputenc), encoding="utf-8")
    tex = [engine, NO_PDF[engine], "-interaction=nonstopmode", "doc.tex"]
    late = [_run(tex, work, timeout), _run([backend, "doc"], work, timeout), _run(tex, work, timeout)]
    return read_counts(work, engine, backend, [line for line in late if line])


def read_counts(work: Path, engine: str, backend: str, late: list[str] | None = None) -> ToolCounts:
    """The counts of one finished run in ``work`` (``compile_bibtex``'s, or a kept one): from its ``.bbl``,
    log and bibliography tool's log; ``late``: the tools that ran past their time."""
    counts = ToolCounts(work.name)
    bbl = (
        (work / "doc.bbl").read_text(encoding="utf-8", errors="replace")
        if (work / "doc.bbl").exists()
        else ""
    )
    counts.entries = (
        bbl.count("\\bibitem") if backend == "bibtex" else len(re.findall(r"^\s*\\entry\{", bbl, re.M))
    )
    log = (
        (work / "doc.log").read_text(encoding="utf-8", errors="replace")
        if (work / "doc.log").exists()
        else ""
    )
    blg = (
        (work / "doc.blg").read_text(encoding="utf-8", errors="replace")
        if (work / "doc.blg").exists()
        else ""
    )
    tex_errors = _TEX_ERROR.findall(log)
    tex_warnings = [a or b for a, b in _TEX_WARNING.findall(log)]
    if backend == "bibtex":
        tool_errors = re.findall(r"^(.*)---line \d+ of file", blg, re.M) + re.findall(
            r"^I (?:couldn't|found no).*", blg, re.M
        )
        tool_warnings = re.findall(r"^Warning--(.*)", blg, re.M)
    else:
        tool_errors = re.findall(r"^\[\d+\] .*?ERROR - (.*)", blg, re.M)
        tool_warnings = re.findall(r"^\[\d+\] .*?WARN - (.*)", blg, re.M)
    if not log:
        tex_errors.append(f"{engine} wrote no log")
    tex_errors += late or []
    counts.errors = len(tex_errors) + len(tool_errors)
    counts.warnings = len(tex_warnings) + len(tool_warnings)
    counts.samples = [*tex_errors[:5], *tool_errors[:5], *tool_warnings[:3], *tex_warnings[:3]]
    return counts


TEX_RUNS = (  # (engine, backend, inputenc)
    ("pdflatex", "bibtex", False),
    ("pdflatex", "bibtex", True),
    ("pdflatex", "biber", False),
    ("xelatex", "bibtex", False),
    ("lualatex", "biber", False),
)


def check_csl(csl_json: str) -> tuple[ToolCounts, list[str]]:
    """citeproc-py rendering every item of a CSL-JSON export (harvard style); an error is an item that
    fails to render or one whose rendered text or title or names keep a backslash, brace or ``$`` (or, in the
    title or names, a control character)."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON

    items = orjson.loads(csl_json)
    counts = ToolCounts("citeproc-py")
    left: list[str] = []
    source = CiteProcJSON(items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bib = CitationStylesBibliography(style, source, formatter.plain)
    for item in items:
        bib.register(Citation([CitationItem(item["id"].lower())]))
    rendered = [str(entry) for entry in bib.bibliography()]
    counts.entries = len(rendered)
    for item, text in zip(items, rendered, strict=False):
        raw = " ".join([item.get("title", ""), *(_csl_person_text(p) for p in item.get("author", []))])
        if re.search(r"[\\{}$\x00-\x1f\x7f-\x9f]", raw) or re.search(r"[\\{}]", text):
            left.append(f"{item['id']}: {raw[:120]}")
    counts.errors = len(left) + max(0, len(items) - len(rendered))
    counts.samples = left[:5]
    return counts, left


def _csl_person_text(person: dict[str, Any]) -> str:
    return " ".join(str(v) for v in person.values())


def check_ris(ris: str, papers: list[Paper]) -> ToolCounts:
    """rispy reading an RIS export back: one record per paper, in order, with its title, authors, year,
    DOI and journal as the paper's plain text; an error per record that differs, or LaTeX left."""
    import rispy

    from papersift.sources.citetext import plain_authors
    from papersift.sources.latex import plain_text

    records = rispy.loads(ris)
    counts = ToolCounts("rispy", entries=len(records))
    bad = []
    for paper, rec in zip(papers, records, strict=False):
        want_authors = [_ris_order(a) for a in plain_authors(paper.authors)]
        problems = []
        if rec.get("title") != plain_text(paper.title):
            problems.append(f"title {rec.get('title')!r}")
        if rec.get("authors", []) != want_authors:
            problems.append(f"authors {rec.get('authors')!r}")
        shown = [rec.get("title", ""), *rec.get("authors", [])]
        if any(re.search(r"[\\{}$\x00-\x1f\x7f-\x9f]", text) for text in shown):
            problems.append("LaTeX or a control character left")
        if problems:
            bad.append(f"{paper.id}: {'; '.join(problems)}"[:200])
    counts.errors = len(bad) + abs(len(records) - len(papers))
    counts.samples = bad[:5]
    return counts


def _ris_order(name: str) -> str:
    given, _, family = name.rpartition(" ")
    return f"{family}, {given}" if given else name


def _summed(name: str, parts: list[ToolCounts]) -> ToolCounts:
    total = ToolCounts(name)
    for part in parts:
        total.entries += part.entries
        total.errors += part.errors
        total.warnings += part.warnings
        total.samples += part.samples
    return total


def recount(workdir: Path, only: Collection[str] = ()) -> Iterator[ToolCounts]:
    """The summed counts of the TeX runs ``run_all`` kept in ``workdir`` (one folder per document)."""
    for engine, backend, inputenc in TEX_RUNS:
        name = f"{engine}+{backend}" + ("+inputenc" if inputenc else "")
        runs = sorted(workdir.glob(f"*/{name}"))
        if runs and (not only or name in only):
            yield _summed(name, [read_counts(run, engine, backend) for run in runs])


def run_all(
    papers: list[Paper],
    workdir: Path,
    timeout: int = 900,
    *,
    chunk: int = 0,
    only: Collection[str] = (),
) -> Iterator[ToolCounts]:
    """Every check over ``papers``' exports (RIS only where the code under test writes it). ``chunk``:
    documents of at most that many entries each (pdflatex's memory holds fewer than 5,000 biblatex entries),
    counts summed; ``only``: the tools named (``pdflatex+biber``, ``citeproc-py``, ``rispy``…)."""
    from papersift.sources import bibliography

    parts = [papers[i : i + chunk] for i in range(0, len(papers), chunk)] if chunk else [papers]
    bibs = [bibliography.to_bibtex(part) for part in parts]
    for engine, backend, inputenc in TEX_RUNS:
        name = f"{engine}+{backend}" + ("+inputenc" if inputenc else "")
        if only and name not in only:
            continue
        yield _summed(
            name,
            [
                compile_bibtex(bib, workdir / str(n), engine, backend, inputenc=inputenc, timeout=timeout)
                for n, bib in enumerate(bibs)
            ],
        )
    if not only or "citeproc-py" in only:
        yield check_csl(bibliography.to_csl_json(papers))[0]
    to_ris = getattr(bibliography, "to_ris", None)
    if to_ris is not None and (not only or "rispy" in only):
        yield check_ris(to_ris(papers), papers)
