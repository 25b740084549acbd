"""Extraction of arXiv's TeX e-prints (``sources/eprint.extract`` over ``sources/tex``) on the real fixtures
of ``../shared/data/fulltext``: references against each fixture's ``\\bibitem`` count, arXiv ids, sections,
math kept, captions, the main file among leftovers, code links; and hostile or broken archives refused."""

from __future__ import annotations

import gzip
import io
import re
import tarfile
from pathlib import Path

import pytest

from papersift.records.paper import normalize_id
from papersift.sources.eprint import Limits, code_links, extract
from papersift.sources.fulltext import CodeLink, ExtractError, FullText

# file → (arXiv id, references (the README's \bibitem count), references resolved to an arXiv id)
TEX_FIXTURES = {
    "1706.03762.tar.gz": ("1706.03762", 40, 22),
    "2305.03393.tar.gz": ("2305.03393", 23, 3),
    "2310.06825.tar.gz": ("2310.06825", 29, 21),
    "2412.19437.tar.gz": ("2412.19437", 104, 51),
    # the README's 21 "shaped like an arXiv id" include 3 DOIs such as 10.1111/j.1365-2966.2004.07881.x
    "2501.00089.tar.gz": ("2501.00089", 63, 18),
    "2501.01300v2.tar.gz": ("2501.01300", 26, 23),
    "hep-th0005057.tar.gz": ("hep-th/0005057", 57, 0),
    "math0106220.tar.gz": ("math/0106220", 42, 3),
    "quant-ph9802040.tar.gz": ("quant-ph/9802040", 30, 0),
    "1911.02782.eprint.gz": ("1911.02782", 55, 4),
    "2004.14974.eprint.gz": ("2004.14974", 36, 7),
}
_NAMED_ID = re.compile(r"(?:arXiv:\s*|arxiv\.org/abs/)((?:\d{4}\.\d{4,5})|(?:[a-z-]+/\d{7}))", re.I)


@pytest.fixture(scope="module")
def extracted(shared_data: Path) -> dict[str, FullText]:
    """Every TeX fixture extracted once for the module."""
    folder = shared_data / "fulltext"
    if not folder.exists():
        pytest.skip("../shared/data/fulltext is missing")
    return {
        name: extract((folder / name).read_bytes(), arxiv_id=aid)
        for name, (aid, _, _) in TEX_FIXTURES.items()
    }


@pytest.mark.parametrize("name", sorted(TEX_FIXTURES))
def test_references_found_and_arxiv_ids_read(extracted: dict[str, FullText], name: str) -> None:
    ft = extracted[name]
    _, count, with_id = TEX_FIXTURES[name]
    assert ft.source == "tex"
    assert len(ft.references) >= 0.95 * count
    assert len(ft.references) <= count  # nothing counted twice, no commented-out \bibitem
    assert sum(1 for r in ft.references if r.arxiv_id) == with_id
    assert len({r.key for r in ft.references}) == len(ft.references)
    for ref in ft.references:
        named = _NAMED_ID.search(ref.text)
        if named:
            assert ref.arxiv_id == normalize_id(named[1]), ref.text
        assert ref.text and "\\bibitem" not in ref.text and "\\newblock" not in ref.text


def test_reference_fields_read_from_the_bbl(extracted: dict[str, FullText]) -> None:
    mbpp = next(r for r in extracted["2412.19437.tar.gz"].references if r.key == "mbpp")
    assert (mbpp.arxiv_id, mbpp.year, mbpp.title) == (
        "2108.07732",
        2021,
        "Program synthesis with large language models",
    )
    lhcb = extracted["2501.01300v2.tar.gz"].references[0]  # elsarticle: \bibinfo{title}, \doi, \href to arXiv
    assert (lhcb.key, lhcb.doi, lhcb.arxiv_id, lhcb.year) == (
        "LHCb:2017uwr",
        "10.1103/physrevlett.118.182001",
        "1703.04639",
        2017,
    )
    assert lhcb.title == "Observation of five new narrow $\\Omega_c^0$ states decaying to $\\Xi_c^+ K^-$"
    corr = next(r for r in extracted["1706.03762.tar.gz"].references if r.key == "bahdanau2014neural")
    assert corr.arxiv_id == "1409.0473"  # CoRR, abs/1409.0473
    llama = extracted["2412.19437.tar.gz"].references[0]
    assert llama.url == "https://github.com/meta-llama/llama3/blob/main/MODEL_CARD.md"
    acl = next(r for r in extracted["1911.02782.eprint.gz"].references if r.key == "Ammar2018ConstructionOT")
    assert acl.doi == "10.18653/v1/n18-3011"
    old = extracted["quant-ph9802040.tar.gz"].references[0]
    assert old.title == "Quantum Lower Bounds by Polynomials" and old.year == 1998


def test_sections_with_headings_levels_and_the_abstract(extracted: dict[str, FullText]) -> None:
    ft = extracted["1706.03762.tar.gz"]
    assert ft.title == "Attention Is All You Need"
    heads = [(s.heading, s.level) for s in ft.sections]
    assert heads[0] == ("Abstract", 0)
    assert ft.sections[0].text.startswith("The dominant sequence transduction models")
    for expected in [
        ("Introduction", 1),
        ("Attention", 2),
        ("Scaled Dot-Product Attention", 3),
        ("Conclusion", 1),
    ]:
        assert expected in heads
    assert [h for h, _ in heads].index("Introduction") < [h for h, _ in heads].index("Conclusion")
    assert ft.words > 4000
    thesis = [
        (s.heading, s.level) for s in extracted["hep-th0005057.tar.gz"].sections
    ]  # chapters above sections
    assert ("Introduction", 1) in thesis and ("The Algebra of Detectors", 2) in thesis
    deepseek = extracted["2412.19437.tar.gz"]  # abstract before \begin{document}, macros such as \dsviii
    assert deepseek.sections[0].heading == "Abstract"
    assert deepseek.sections[0].text.startswith("We present DeepSeek-V3, a strong Mixture-of-Experts")
    abs_file = extracted["2501.01300v2.tar.gz"].sections[0]  # the abstract in its own main.abs
    assert abs_file.heading == "Abstract" and "charm" in abs_file.text


def test_math_kept_as_latex_and_captions_read(extracted: dict[str, FullText]) -> None:
    ft = extracted["1706.03762.tar.gz"]
    text = "\n".join(s.text for s in ft.sections)
    assert "divide each by $\\sqrt{d_k}$" in text
    assert "\\begin{equation}" in text or "\\begin{align}" in text or "$$" in text
    assert "The Transformer - model architecture." in ft.captions
    assert not any("\\caption" in c for c in ft.captions)
    assert "\\cite" not in text and "\\label" not in text and "\\textbf" not in text


def test_main_file_chosen_among_leftovers_and_apple_files(extracted: dict[str, FullText]) -> None:
    ft = extracted["2004.14974.eprint.gz"]  # ./ prefixes, ._* AppleDouble files, .DS_Store, _old-*.tex
    assert ft.title == "Fact or Fiction: Verifying Scientific Claims"
    assert ft.sections[0].heading == "Abstract"
    headings = [s.heading for s in ft.sections]
    assert "The SciFact dataset" in headings and "Discussion" not in headings  # _old-08-discussion.tex unread
    files = {
        "_old-main.tex": "\\documentclass{article}\\begin{document}\\section{Stale}old text\\end{document}",
        "main.tex": "\\documentclass{article}\\begin{document}\\section{Fresh}new text\\input{sec}"
        "\\end{document}",
        "sec.tex": "\\section{Inputted}more text",
        "main.bbl": "\\begin{thebibliography}{1}\\bibitem{a} A. Author. \\newblock Title one. 2020.",
    }
    chosen = extract(_tar_gz(files), arxiv_id="2401.00001")
    assert [s.heading for s in chosen.sections] == ["Fresh", "Inputted"]
    assert [r.key for r in chosen.references] == ["a"]


def test_subfiles_read_into_the_main_document() -> None:
    files = {
        "chapters/one.tex": "\\documentclass[../thesis.tex]{subfiles}\\begin{document}\\chapter{One}First."
        "\\end{document}",
        "chapters/two.tex": "\\documentclass[../thesis.tex]{subfiles}\\begin{document}\\chapter{Two}Second."
        "\\end{document}",
        "thesis.tex": "\\documentclass{book}\\usepackage{subfiles}\\begin{document}\\subfile{chapters/one}"
        "\\subfile{chapters/two.tex}\\end{document}",
    }
    ft = extract(_tar_gz(files), arxiv_id="2401.00001")
    assert [(s.heading, s.level, s.text) for s in ft.sections] == [
        ("One", 1, "First."),
        ("Two", 1, "Second."),
    ]


def test_single_gzipped_tex_and_plain_tar_read() -> None:
    tex = (
        "\\documentclass{article}\n\\newcommand{\\method}{Sifter}\n\\begin{document}\n"
        "\\begin{abstract}We present \\method{}, see \\url{https://github.com/acme/sifter}.\\end{abstract}\n"
        "\\section{Intro}Our code is at \\href{https://gitlab.com/acme/tools}{here}. $x^2$ and \\'etude.\n"
        "\\begin{thebibliography}{9}\n\\bibitem{v} A. Vaswani. Attention. arXiv:1706.03762v5, 2017.\n"
        "%\\bibitem{gone} commented out\n"
        "\\bibitem{w} A. Bazavov, Phys. Rev. D 91 (2015), 1411.3018 [hep-lat].\n"
        "\\bibitem{o} E. Witten, Adv. Theor. Math. Phys. 2 (1998) 253, hep-th/9802150.\n"
        "\\end{thebibliography}\n\\end{document}\n"
    )
    ft = extract(gzip.compress(tex.encode()), arxiv_id="2401.00001", content_type="application/x-eprint")
    assert ft.sections[0].text == "We present Sifter, see https://github.com/acme/sifter."
    assert ft.sections[1].heading == "Intro" and "$x^2$ and étude." in ft.sections[1].text
    assert [(r.key, r.arxiv_id, r.year) for r in ft.references] == [
        ("v", "1706.03762", 2017),
        ("w", "1411.3018", 2015),  # INSPIRE's "id [category]"
        ("o", "hep-th/9802150", 1998),
    ]
    assert ft.code[0] == CodeLink("https://gitlab.com/acme/tools", "gitlab", own=True)
    plain = extract(_tar({"paper.tex": tex}), arxiv_id="2401.00001")
    assert plain.sections == ft.sections


def _without_bbl(path: Path) -> bytes:
    """The fixture's archive re-packed in memory without its ``.bbl`` (so the ``.bib`` must be read)."""
    out = io.BytesIO()
    with tarfile.open(path) as src, tarfile.open(fileobj=out, mode="w:gz") as dst:
        for member in src.getmembers():
            if not member.name.endswith(".bbl"):
                dst.addfile(member, src.extractfile(member) if member.isfile() else None)
    return out.getvalue()


@pytest.mark.parametrize(
    "name", ["2305.03393.tar.gz", "2310.06825.tar.gz", "2412.19437.tar.gz", "2501.01300v2.tar.gz"]
)
def test_bib_of_real_sources_read_through_the_keys_cited(
    shared_data: Path, extracted: dict[str, FullText], name: str
) -> None:
    from_bib = extract(_without_bbl(shared_data / "fulltext" / name), arxiv_id=TEX_FIXTURES[name][0])
    bbl_keys = {r.key for r in extracted[name].references}  # the README: the keys cited are the .bbl's
    assert {r.key for r in from_bib.references} == bbl_keys
    with_id = {r.key: r.arxiv_id for r in extracted[name].references if r.arxiv_id}
    assert sum(1 for r in from_bib.references if r.arxiv_id and with_id.get(r.key) == r.arxiv_id) == len(
        with_id
    )
    assert all(r.title for r in from_bib.references)


def test_plain_tex_read_without_documentclass() -> None:
    tex = "\\input harvmac\n\\Title{x}{A Plain Paper}\n\\newsec{Introduction}Strings $x$.\n"
    tex += "\\listrefs\n\\bye\n"
    ft = extract(gzip.compress(tex.encode()), arxiv_id="hep-th/9901001")
    assert ("Introduction", 1, "Strings $x$.") in [(s.heading, s.level, s.text) for s in ft.sections]


def test_bib_read_through_the_keys_cited() -> None:
    files = {
        "paper.tex": "\\documentclass{article}\\begin{document}As shown \\citep{b,a} and \\cite[p.~3]{a}."
        "\\bibliography{refs}\\end{document}",
        "refs.bib": "@article{a, title={First {Title}}, author={Doe, J.}, year={2019}, eprint={1901.00001},"
        " archivePrefix={arXiv}}\n@inproceedings{b, title={Second}, author={Roe, R.}, year={2020},"
        " doi={10.1000/XYZ}}\n@misc{unused, title={Never cited}, year={2001}}\n",
    }
    ft = extract(_tar_gz(files), arxiv_id="2401.00001")
    assert [(r.key, r.title, r.year, r.arxiv_id, r.doi) for r in ft.references] == [
        ("b", "Second", 2020, None, "10.1000/xyz"),
        ("a", "First Title", 2019, "1901.00001", None),
    ]


def test_undefined_macros_still_give_text() -> None:
    tex = (
        "\\documentclass{article}\\begin{document}\\section{\\weird{Head}ing}"
        "Some \\undefinedmacro text \\frobnicate[opt]{kept} and {\\bf bold} \\unknownenv"
        "\\begin{strangeenv}inside\\end{strangeenv} {{{{deep}}}} \\end{document}"
    )
    ft = extract(tex.encode(), arxiv_id="2401.00001")
    assert ft.sections[0].heading == "Heading"
    assert ft.sections[0].text.split() == ["Some", "text", "kept", "and", "bold", "inside", "deep"]
    nested = "\\documentclass{article}\\begin{document}" + "{" * 5000 + "x" + "}" * 5000 + "\\end{document}"
    assert "x" in extract(nested.encode(), arxiv_id="2401.00001").sections[0].text


def test_code_links_own_first(extracted: dict[str, FullText]) -> None:
    deepseek = extracted["2412.19437.tar.gz"].code
    assert deepseek[0] == CodeLink("https://github.com/deepseek-ai/DeepSeek-V3", "github", own=True)
    assert CodeLink("https://github.com/openai/simple-evals", "github", own=False) in deepseek
    s2orc = extracted["1911.02782.eprint.gz"].code
    assert s2orc[0] == CodeLink(
        "https://github.com/allenai/s2orc", "github", own=True
    )  # the title's footnote
    assert not next(c for c in s2orc if c.url == "https://github.com/allenai/scibert").own
    assert extracted["2310.06825.tar.gz"].code[0].url == "https://github.com/mistralai/mistral-src"
    assert extracted["2501.00089.tar.gz"].code[0] == CodeLink(
        "https://github.com/jwuphysics/sparse-feature-networks", "github", own=True
    )
    assert extracted["hep-th0005057.tar.gz"].code == ()


def test_code_links_from_abstract_and_comments() -> None:
    text = (
        "We build on github.com/other/lib and data from https://huggingface.co/datasets/org/set. "
        "Our code and models are at https://github.com/me/proj.git; project page: https://me.github.io/proj/."
        " Mail me@github.com. See https://github.com/features and https://example.com/unrelated."
    )
    assert code_links(text) == [
        CodeLink("https://github.com/me/proj", "github", own=True),
        CodeLink("https://me.github.io/proj", "project", own=True),
        CodeLink("https://github.com/other/lib", "github", own=False),
        CodeLink("https://huggingface.co/datasets/org/set", "huggingface", own=False),
    ]
    assert not any(link.own for link in code_links(text, own_hints=False))
    comments = "Accepted at ICML 2024. Code at https://github.com/x/y, builds on https://github.com/z/w"
    assert [(c.url, c.own) for c in code_links(comments)] == [
        ("https://github.com/x/y", True),
        ("https://github.com/z/w", False),
    ]
    assert code_links("Code is available at https://GitHub.com/A/b. Again: https://github.com/a/B") == [
        CodeLink("https://github.com/A/b", "github", own=True)
    ]


# ---------------------------------------------------------------- hostile input


def _tar(files: dict[str, str | bytes], *, extra: list[tarfile.TarInfo] = ()) -> bytes:  # type: ignore[assignment]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info)
    return buf.getvalue()


def _tar_gz(files: dict[str, str | bytes], **kw: list[tarfile.TarInfo]) -> bytes:
    return gzip.compress(_tar(files, **kw))


_MAIN = "\\documentclass{article}\\begin{document}Hello.\\end{document}"


def _link(name: str, target: str, kind: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (_tar_gz({"main.tex": _MAIN, "../escape.tex": "x"}), "outside the archive"),
        (_tar_gz({"main.tex": _MAIN, "sub/../../escape.tex": "x"}), "outside the archive"),
        (_tar_gz({"/etc/cron.d/evil": "x", "main.tex": _MAIN}), "absolute path"),
        (_tar_gz({"main.tex": _MAIN}, extra=[_link("sec.tex", "/etc/passwd", tarfile.SYMTYPE)]), "a link"),
        (_tar_gz({"main.tex": _MAIN}, extra=[_link("sec.tex", "main.tex", tarfile.LNKTYPE)]), "a link"),
        (_tar_gz({"main.tex": _MAIN}, extra=[_link("fifo", "", tarfile.FIFOTYPE)]), "special file"),
        (gzip.compress(_tar({"main.tex": _MAIN}))[:-40], "corrupt gzip"),
        (b"\x1f\x8b\x08\x00" + b"\x00" * 6 + b"not deflate at all" * 20, "corrupt gzip"),
        (_tar_gz({"figure.png": b"\x89PNG"}), "no TeX files"),
        (_tar_gz({"notes.tex": "just text, no document"}), "no TeX main file"),
        (b"<html>Not Found</html>", "neither a TeX source"),
        (b"%PDF-1.7\nnot really a pdf", "not a readable PDF"),
    ],
)
def test_hostile_or_broken_input_refused(
    blob: bytes, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ExtractError, match=message) as refused:
        extract(blob, arxiv_id="2401.00001")
    assert str(refused.value).startswith("2401.00001: ")
    assert list(tmp_path.iterdir()) == []  # nothing extracted to disk


def test_decompression_bomb_and_oversized_members_refused() -> None:
    zeros = gzip.compress(_tar({"main.tex": _MAIN, "big.tex": b"%" * (8 << 20)}), compresslevel=1)
    assert len(zeros) < 100_000
    with pytest.raises(ExtractError, match="decompression bomb"):
        extract(zeros, arxiv_id="x", limits=Limits(total_bytes=1 << 20))
    with pytest.raises(ExtractError, match="over the size limit"):
        extract(zeros, arxiv_id="x", limits=Limits(member_bytes=1 << 20))
    many = _tar_gz({"main.tex": _MAIN, **{f"f{i}.tex": "x" for i in range(30)}})
    with pytest.raises(ExtractError, match="more than 10 members"):
        extract(many, arxiv_id="x", limits=Limits(members=10))
    single = gzip.compress(b"\\documentclass{article}" + b" " * (2 << 20))
    with pytest.raises(ExtractError, match="over the size limit"):
        extract(single, arxiv_id="x", limits=Limits(member_bytes=1 << 20))
    with pytest.raises(ExtractError, match="TeX sources over the limit"):
        extract(zeros, arxiv_id="x", limits=Limits(text_bytes=1 << 20))
    assert extract(zeros, arxiv_id="x").sections[0].text == "Hello."  # within the default limits


def test_pdf_only_archive_read_as_pdf(shared_data: Path) -> None:
    page = (shared_data / "fulltext" / "2305.03393v1-pg9.pdf").read_bytes()
    ft = extract(_tar_gz({"._paper.pdf": b"apple", "paper.pdf": page, "fig.pdf": b"%PDF-1.4"}), arxiv_id="x")
    assert ft.source == "pdf" and "Hyper Parameter Optimization" in [s.heading for s in ft.sections]
    assert extract(gzip.compress(page), arxiv_id="x").source == "pdf"  # a gzipped PDF


def test_input_loops_do_not_hang() -> None:
    files = {
        "main.tex": "\\documentclass{article}\\begin{document}A\\input{a}\\end{document}",
        "a.tex": "B\\input{b}\\input{a}",
        "b.tex": "C\\input{a}\\input{main}",
    }
    assert extract(_tar_gz(files), arxiv_id="x").sections[0].text.split() == ["A", "B", "C"]
