"""LaTeX to text, the one converter (``sources/latex.py``): text commands as their text, accents as letters,
math as Unicode on the plain faces and kept for KaTeX on the pages, an author's unknown macro as its
argument's text or its name, never a ``\\command`` left in plain text; bad input (unbalanced or deep braces,
a huge field, recursive macros) read in bounded time. And the TeX preamble's math macros as KaTeX takes
them (``sources/texscan.py``)."""

from __future__ import annotations

import gzip
import re
import time
from pathlib import Path

import orjson
import pytest

from papersift.sources.eprint import extract
from papersift.sources.latex import latex_to_unicode, math_text, plain_text, tex_text, to_text
from papersift.sources.texscan import math_macros

COMMAND = re.compile(r"\\[A-Za-z]+")


def test_text_commands_leave_their_text_and_accents_their_letters() -> None:
    assert (
        plain_text(r"\textsc{NoThink} beats \textbf{ReCache} \emph{twice}") == "NoThink beats ReCache twice"
    )
    assert (
        plain_text(r"G\"odel, Ruszczy\'{n}ski \& Stra\ss e~et al.--2024")
        == "Gödel, Ruszczyński & Straße et al.–2024"
    )
    assert plain_text(r"\unknownmacro{kept text} and \sys{} or \sys.") == "kept text and sys or sys."
    assert plain_text("``quoted'' --- 50% & more") == "“quoted” — 50% & more"


def test_math_becomes_unicode_where_simple_and_its_source_without_backslashes_else() -> None:
    assert plain_text(r"$\alpha$-stable laws of $^{210}$Fr") == "α-stable laws of ²¹⁰Fr"
    assert plain_text(r"A $\mathcal{O}(n^{2})$ bound on $\mathbb{R}^d$") == "A 𝒪(n²) bound on ℝ^d"
    assert math_text(r"$\frac{a+b}{2} \leq \sqrt{x+1}$") == "(a+b)/2 ≤ √(x+1)"
    assert math_text(r"$a \equiv b \pmod{q}$") == "a ≡ b (mod q)"
    # 2606.07598's own macros, with no definition at hand: their names
    assert math_text(r"$\sphere^{n-1}\subset\R^n$") == "sphereⁿ⁻¹⊂Rⁿ"
    assert math_text(r"$(\Wo,\cutdist)$") == "(Wo,cutdist)"
    assert math_text(r"$\norm{x}_2$") == "norm(x)₂"


def test_pages_keep_math_for_katex_and_turn_the_rest_into_text() -> None:
    assert tex_text(r"\textsc{NoThink}: $\sphere^{n-1}$ and G\"odel") == r"NoThink: $\sphere^{n-1}$ and Gödel"
    assert latex_to_unicode(r"{\"U}ber {$\alpha$}-{T}ests \& Garc\'\i a") == r"Über $\alpha$-Tests & García"


def test_no_command_survives_on_real_metadata(shared_data: Path) -> None:
    """Every title and abstract of the listings-extra days and of 2,000 papers of the 20k file."""
    with gzip.open(shared_data / "listings-extra" / "papers.jsonl.gz", "rb") as f:
        papers = [orjson.loads(line) for line in f]
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        papers += [orjson.loads(line) for _, line in zip(range(2000), f, strict=False)]
    texts = [p[k] for p in papers for k in ("title", "abstract")]
    assert sum(1 for t in texts if COMMAND.search(t)) > 300  # the data does carry LaTeX
    assert [t for t in texts if COMMAND.search(plain_text(t))] == []


@pytest.mark.parametrize(
    "bad",
    [
        "{" * 50_000 + "deep",
        "}" * 1000 + r"\textbf{" * 1000 + "open",
        r"\def\a{\a}\a $\a$ \newcommand{\b}[1]{\b{#1}}\b{x}",
        "$" + r"\frac{" * 5000 + "x",
        ("word " * 20 + r"\emph{x} $y^2$ ") * 20_000,  # 2.6 MB in one field
    ],
    ids=["deep", "unbalanced", "recursive", "deep-math", "huge"],
)
def test_bad_input_is_read_in_bounded_time_and_leaves_no_command(bad: str) -> None:
    start = time.perf_counter()
    for convert in (plain_text, tex_text, to_text, math_text):
        out = convert(bad)
        assert isinstance(out, str)
    assert not COMMAND.search(plain_text(bad))
    assert time.perf_counter() - start < 30


def test_a_preambles_math_macros_are_kept_for_katex_arguments_and_recursion_included() -> None:
    preamble = r"""
    \newcommand{\R}{\mathbb{R}} \newcommand\norm[1]{\left\|#1\right\|} \def\cutdist{\delta_\square}
    \def\pair#1#2{(#1,#2)} \DeclareMathOperator{\Tr}{Tr} \DeclareMathOperator*{\argmax}{arg\,max}
    \newcommand{\opt}[2][x]{#1+#2} \def\loop{\loop} \newcommand{\thm}{\begin{theorem}} \def\a@b{x}
    \def\delimited#1.{#1}
    """
    assert math_macros(preamble) == {
        "\\R": r"\mathbb{R}",
        "\\norm": r"\left\|#1\right\|",
        "\\cutdist": r"\delta_\square",
        "\\pair": "(#1,#2)",
        "\\Tr": r"\operatorname{Tr}",
        "\\argmax": r"\operatorname*{arg\,max}",
        "\\loop": r"\loop",  # KaTeX stops it at its expansion limit; the page shows the source
    }


def test_a_real_eprints_macros_reach_its_full_text(shared_data: Path) -> None:
    """math/0106220 defines ``\\rr`` as ``\\mathbb{R}`` (and more) in its preamble."""
    text = extract((shared_data / "fulltext" / "math0106220.tar.gz").read_bytes(), arxiv_id="math/0106220")
    macros = dict(text.macros)
    assert macros["\\rr"] == r"\mathbb{R}" and macros["\\zz"] == r"\mathbb{Z}"


def test_latex_is_turned_into_text_in_one_module_only() -> None:
    """pylatexenc's converter and a ``plain_text``/``tex_text``/``to_text`` of their own belong to
    ``sources/latex.py`` alone (``citetext`` keeps pylatexenc's encoder: text to LaTeX)."""
    source = Path(__file__).resolve().parents[1] / "src" / "papersift"
    own = re.compile(r"LatexNodes2Text|^def (plain_text|tex_text|to_text|latex_to_unicode)\(", re.M)
    others = [
        str(path.relative_to(source))
        for path in sorted(source.rglob("*.py"))
        if path.name != "latex.py" and own.search(path.read_text(encoding="utf-8"))
    ]
    assert others == []
