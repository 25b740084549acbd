"""Extraction of arXiv's PDFs (``sources/eprint.extract`` over ``sources/pdf``) on the real PDFs of
``../shared/data/fulltext``: text without arXiv's side stamp, headings, captions, the reference list split
into entries (numbered and author-year), arXiv ids, code links; a PDF without a text layer refused."""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from papersift.sources.eprint import extract
from papersift.sources.fulltext import CodeLink, ExtractError, FullText
from papersift.sources.pdf import is_pdf

PDFS = {
    "2501.10120v1.pdf": "2501.10120",
    "0908.0054v1.pdf": "0908.0054",
    "0807.3577.pdf": "0807.3577",
    "2305.03393v1-pg9.pdf": "2305.03393",
}


@pytest.fixture(scope="module")
def pdfs(shared_data: Path) -> dict[str, FullText]:
    """Every PDF fixture extracted once for the module."""
    folder = shared_data / "fulltext"
    if not folder.exists():
        pytest.skip("../shared/data/fulltext is missing")
    return {
        name: extract((folder / name).read_bytes(), arxiv_id=aid, content_type="application/pdf")
        for name, aid in PDFS.items()
    }


def _text(ft: FullText) -> str:
    return "\n".join(s.text for s in ft.sections)


def test_text_without_the_arxiv_stamp(pdfs: dict[str, FullText]) -> None:
    pasa = pdfs["2501.10120v1.pdf"]
    assert pasa.source == "pdf"
    assert pasa.title == "PaSa: An LLM Agent for Comprehensive Academic Paper Search"
    assert "arXiv:2501.10120v1" not in _text(pasa) and "[cs.IR]" not in _text(pasa)
    assert "arXiv:0908.0054v1" not in _text(pdfs["0908.0054v1.pdf"])
    assert pasa.words > 6000
    assert "the process goes beyond simple retrieval. Human researchers not only use search tools" in _text(
        pasa
    )
    assert "PaSa-GPT-4o" in _text(pasa)  # a word broken at a line's end joined without its soft hyphen
    page = pdfs["2305.03393v1-pg9.pdf"]  # one page re-saved by Quartz
    assert "OTSL yields a 2x speed up in the inference runtime over HTML" in _text(page)


def test_headings_found(pdfs: dict[str, FullText]) -> None:
    heads = [(s.heading, s.level) for s in pdfs["2501.10120v1.pdf"].sections]
    assert heads[1] == ("Abstract", 0)
    assert (
        pdfs["2501.10120v1.pdf"]
        .sections[1]
        .text.startswith("We introduce PaSa, an advanced Paper Search agent")
    )
    for expected in [
        ("Introduction", 1),
        ("AutoScholarQuery", 2),
        ("Conclusion", 1),
        ("Roll-Out in PPO training", 2),
    ]:
        assert expected in heads
    assert "References" not in [h for h, _ in heads]  # the list is in references, not in the text
    revtex = [h for h, _ in [(s.heading, s.level) for s in pdfs["0908.0054v1.pdf"].sections]]
    assert revtex[1:5] == [
        "INTRODUCTION",
        "ULTRA LIGHT BOSONS AS DARK MATTER",
        "TESTING WITH THE CMB",
        "CONCLUSIONS",
    ]
    journal = [s.heading for s in pdfs["0807.3577.pdf"].sections]
    assert journal[1:3] == ["Introduction", "The Buchert scheme"]  # the table of contents is no heading
    assert [s.heading for s in pdfs["2305.03393v1-pg9.pdf"].sections][1:] == [
        "Hyper Parameter Optimization",
        "Quantitative Results",
    ]


def test_reference_lists_split_into_entries(pdfs: dict[str, FullText]) -> None:
    pasa = pdfs["2501.10120v1.pdf"].references  # author-year, by the hanging indent
    assert len(pasa) == 37
    assert pasa[0].text.startswith(
        "Shubham Agarwal, Issam H Laradji, Laurent Charlin, and Christopher Pal. 2024."
    )
    assert (pasa[0].arxiv_id, pasa[0].year, pasa[0].title) == (
        "2402.01788",
        2024,
        "Litllm: A toolkit for scientific literature review",
    )
    assert pasa[-1].text.startswith("Shunyu Yao, Jeffrey Zhao")
    named = [r for r in pasa if re.search(r"arXiv:\d{4}\.\d{4,5}", r.text)]
    assert named and all(r.arxiv_id for r in named)
    revtex = pdfs["0908.0054v1.pdf"].references  # [1] … [19], no heading above them
    assert [r.key for r in revtex] == [str(n) for n in range(1, 20)]
    assert revtex[0].arxiv_id == "astro-ph/0003365" and revtex[0].year == 2000
    journal = pdfs["0807.3577.pdf"].references
    assert len(journal) == 39 and journal[1].arxiv_id == "0803.0732"
    assert pdfs["2305.03393v1-pg9.pdf"].references == ()


def test_captions_and_code_links(pdfs: dict[str, FullText]) -> None:
    pasa = pdfs["2501.10120v1.pdf"]
    assert any(c.startswith("Figure 1: Architecture of PaSa.") for c in pasa.captions)
    assert any(c.startswith("Table 2: Statistics of AutoScholarQuery.") for c in pasa.captions)
    assert pasa.code[:2] == (
        CodeLink("https://pasa-agent.ai", "project", own=True),  # "Demo:" on the title page
        CodeLink("https://github.com/bytedance/pasa", "github", own=True),  # "code are available at"
    )


def test_pdf_without_text_layer_refused() -> None:
    pdf = pdfium.PdfDocument.new()
    for _ in range(3):
        pdf.new_page(595, 842)
    buf = io.BytesIO()
    pdf.save(buf)
    with pytest.raises(ExtractError, match="no text layer"):
        extract(buf.getvalue(), arxiv_id="2401.00001")
    with pytest.raises(ExtractError, match="not a readable PDF"):
        extract(buf.getvalue()[:200], arxiv_id="2401.00001")


def _blank_pdf() -> bytes:
    pdf = pdfium.PdfDocument.new()
    pdf.new_page(595, 842)
    buf = io.BytesIO()
    pdf.save(buf)
    return buf.getvalue()


def test_a_pdf_opens_with_its_header_and_an_archive_holding_one_is_not_a_pdf() -> None:
    """One PDF check (``sources/pdf.is_pdf``) for e-prints and thumbnails: a tar whose first member is a
    figure's PDF is read as the archive it is, never kept as the paper's thumbnail."""
    pdf = _blank_pdf()
    assert is_pdf(pdf) and is_pdf(b"\r\n " + pdf)
    tex = b"\\documentclass{article}\\begin{document}\\section{Intro}Archive text.\\end{document}"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in (("fig.pdf", pdf), ("main.tex", tex)):
            member = tarfile.TarInfo(name)
            member.size = len(data)
            tar.addfile(member, io.BytesIO(data))
    archive = buf.getvalue()
    assert b"%PDF-" in archive[:1024]  # the figure's header within the first KB
    assert not is_pdf(archive)
    assert "Archive text." in "\n".join(s.text for s in extract(archive, arxiv_id="2401.00001").sections)
