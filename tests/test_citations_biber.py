"""BibTeX that survives biber: biber decodes the export's LaTeX accents to Unicode (``Pi{\\c{e}}kosz`` → ȩ)
and math ``\\langle`` to ⟨ before it writes its ``.bbl``, which pdflatex then reads through its utf8
inputenc. The export declares the letters pdflatex lacks in a guarded ``@preamble`` and writes the math
delimiters biber would turn into text commands as its own macros; real TeX Live compiles the offending
constructs with every engine and bibliography tool (as the 300k file's heavy slice has them).
"""

from __future__ import annotations

import re
import subprocess
from datetime import date
from pathlib import Path

import pytest

from papersift.records.paper import Paper
from papersift.sources.bibliography import to_bibtex
from papersift.sources.citetext import PDFLATEX_UTF8, bibtex_text
from tests.citation_tools import TEX_RUNS, compile_bibtex, tex_available

needs_tex = pytest.mark.skipif(not tex_available(), reason="TeX Live is not installed (make texlive)")


def _paper(pid: str, title: str, authors: list[str]) -> Paper:
    return Paper(pid, title, authors, "An abstract.", ["math.CO"], published=date(2021, 3, 1))


def _compiles_everywhere(papers: list[Paper], tmp_path: Path) -> str:
    """Every engine and tool of the citation checks over ``papers``' export: all entries, no error; the
    pdflatex + biber ``.bbl`` returned."""
    bib = to_bibtex(papers)
    for engine, backend, inputenc in TEX_RUNS:
        counts = compile_bibtex(bib, tmp_path, engine, backend, inputenc=inputenc, timeout=300)
        assert (counts.entries, counts.errors) == (len(papers), 0), (counts.line(), counts.samples)
    return (tmp_path / "pdflatex+biber" / "doc.bbl").read_text(encoding="utf-8")


@needs_tex
def test_letters_biber_decodes_are_declared_for_pdflatex(tmp_path: Path) -> None:
    papers = [
        _paper("2103.00001", "Ramsey numbers of cycles", [r"Joanna Pi{\c{e}}kosz", "Ȩmil Ḑ. Zieliński"]),
        _paper("2103.00002", "Graphs and Śląsk", ["Ģirts Ņikitins", "Anna Ŗiekstiņa"]),
        # hep-th's DY_\hbar in text: pylatexenc writes ħ as {\={h}}, which biber makes h and a bare macron;
        # « » as \guillemotleft, which biber decodes and pdflatex's utf8 reads as \guillemetleft
        _paper("2103.00007", r"Free bosons of DY_\hbar(gl_N) and «Quotes»", ["Jean Dupont"]),
    ]
    bbl = _compiles_everywhere(papers, tmp_path)
    assert "ȩ" in bbl  # biber did decode the accent: the declaration is what pdflatex needed
    bib = to_bibtex(papers)
    declared = set(re.findall(r"\\DeclareUnicodeCharacter\{([0-9A-F]{4})\}", bib))
    assert {"0228", "0229", "0304"} <= declared  # ȩ, Ȩ: no pdflatex encoding file defines them; a macron
    assert "0127" not in declared  # ħ: biber never writes it
    assert not declared & {"0144", "015A", "0105", "0122", "0146", "0156"}  # ń, Ś, ą, Ģ, ņ, Ŗ: defined


@needs_tex
def test_math_delimiters_stay_delimiters_through_biber(tmp_path: Path) -> None:
    papers = [
        _paper("2103.00003", r"Bounds on $\left\langle x, y \right\rangle$ and $\|A\|_2$", ["Ada Lovelace"]),
        _paper("2103.00004", r"$\bigl\langle a \bigr\rangle$, $\left\| v \right\|$ in $\ell^2$", ["Al Ha"]),
        _paper("2103.00005", r"Acute $\'x$, $\~y$ and $\'e$ in math", ["Bo Li"]),  # no letter x́: none kept
    ]
    _compiles_everywhere(papers, tmp_path)


def test_math_writes_the_exports_own_delimiters_and_keeps_only_accents_that_make_a_letter() -> None:
    provided: set[str] = set()
    assert bibtex_text(r"$\left\langle x \right\rangle$, $\|A\|$", provided) == (
        r"$\left\psLangle x \right\psRangle$, $\|A\|$"  # biber leaves \| be
    )
    assert bibtex_text(r"$\'x + \'e + \~y$", provided) == r"$\mbox{x} + \mbox{\'{e}} + \mbox{y}$"
    assert {"psLangle", "psRangle"} <= provided
    preamble = to_bibtex([_paper("2103.00006", r"$\langle\psi|$ of Pi{\c{e}}kosz", ["X"])])
    assert r"\providecommand{\psLangle}{\langle}" in preamble
    assert r"\ifdefined\DeclareUnicodeCharacter" in preamble and r"\DeclareUnicodeCharacter{0229}" in preamble


def _probe(chars: list[str], work: Path) -> set[str]:
    """The characters of ``chars`` that pdflatex's utf8 inputenc defines in a plain article."""
    checks = "\n".join(
        f"\\expandafter\\ifx\\csname u8:\\detokenize{{{c}}}\\endcsname\\relax"
        f"\\else\\typeout{{DEF {ord(c):04X}}}\\fi"
        for c in chars
    )
    (work / "probe.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n" + checks + "\n\\end{document}\n", encoding="utf-8"
    )
    subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "probe.tex"],
        cwd=work,
        stdout=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    log = (work / "probe.log").read_text(encoding="utf-8", errors="replace")
    return {chr(int(h, 16)) for h in re.findall(r"^DEF ([0-9A-F]+)$", log, re.M)}


@needs_tex
def test_the_list_of_letters_pdflatex_defines_is_tex_lives_own(tmp_path: Path) -> None:
    """``PDFLATEX_UTF8`` against the real utf8.def and encoding files: every character they mention
    and the Latin blocks, probed in pdflatex."""
    kpse = subprocess.run(["kpsewhich", "utf8enc.dfu"], capture_output=True, text=True, check=True)
    base = Path(kpse.stdout.strip()).parent
    mentioned = {
        int(h, 16)
        for dfu in base.glob("*.dfu")
        for h in re.findall(r"DeclareUnicodeCharacter\{([0-9A-Fa-f]+)\}", dfu.read_text(encoding="latin-1"))
    }
    candidates = sorted(
        chr(c) for c in mentioned | set(range(0xA0, 0x250)) | set(range(0x1E00, 0x1F00)) if c >= 0xA0
    )
    defined = _probe(candidates, tmp_path)
    assert len(defined) > 300
    assert defined == PDFLATEX_UTF8 & set(candidates), sorted(
        f"{ord(c):04X}" for c in defined ^ (PDFLATEX_UTF8 & set(candidates))
    )
    assert set(candidates) >= PDFLATEX_UTF8
