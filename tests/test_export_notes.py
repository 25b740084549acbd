"""Exports that keep the reader's notes: tags and notes go out in BibTeX (``keywords``, ``note``), RIS
(``KW``, ``N1``) and CSL-JSON (``keyword``, ``note``) and come back unchanged when papersift imports the
file (or Zotero's own export of it), through the real ``papersift library export`` / ``library import``
too; a tag holding a comma or semicolon stays one tag; a tag no entry has is refused; a paper at a venue
is exported as a conference paper; and the files still compile with bibtex and biber and render with
citeproc.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import orjson
import pytest
import rispy

from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.sources.bibliography import (
    Exportable,
    Reference,
    SavedPaper,
    Venue,
    paper_bibtex,
    read_bibliography,
    to_bibtex,
    to_csl_json,
    to_ris,
)
from tests.citation_tools import TEX_RUNS, check_csl, compile_bibtex, tex_available
from tests.support.inproc import app_client, invoke

# BibTeX's specials, unbalanced braces, math, a LaTeX command, Unicode pdflatex can and cannot set, line
# breaks, a blank line, an indented line, lines that look like RIS tags or a BibTeX entry
NOTE = (
    "Read §3 first: 50% faster & {cheap} \\cite{x} #1 ~2x $O(n)$ \\\\ unbalanced } {\n"
    "in Zürich, naïve 中文笔记 ✓\n"
    "second line -- ``quoted''\n"
    "\n"
    "  indented paragraph\n"
    "AB  - looks like an RIS tag\n"
    "ER  - so does this\n"
    "@misc{fake, title = {x}}"
)
TAGS = ("diffusion", "graphs, sparse", "to read; later", 'say "hi"', "R&D_lab", "中文", "50% off", "a{b")
FORMATS = {"bibtex": to_bibtex, "ris": to_ris, "csl-json": to_csl_json}


def _paper(pid: str, title: str, authors: list[str], **kw: object) -> Paper:
    return Paper(pid, title, authors, "We show $O(n)$ & more.", ["cs.LG"], published=date(2024, 1, 5), **kw)  # type: ignore[arg-type]


PAPER = _paper("2401.01234", "Learning with $O(n)$ memory", ["Ada Lovelace", "Alan Turing"])
OUTSIDE = Reference(
    key="okafor2020dense",
    title="Dense Retrieval",
    authors=("Chidi Okafor",),
    year=2020,
    abstract="",
    doi=None,
    arxiv_id=None,
    url=None,
    venue="Information Retrieval Journal",
    tags=("ir; dense", "to read"),
    note="Compare with BM25.\nTable 2 & 3.",
    line=0,
)


@pytest.mark.parametrize("fmt", FORMATS)
def test_tags_and_notes_come_back_from_every_format(fmt: str) -> None:
    items: list[Exportable] = [SavedPaper(PAPER, tags=TAGS, note=NOTE), OUTSIDE, PAPER]
    result = read_bibliography(FORMATS[fmt](items))
    assert result.format == fmt and result.errors == []
    saved, outside, bare = result.references
    assert (saved.tags, saved.note, saved.arxiv_id) == (TAGS, NOTE, "2401.01234")
    assert (outside.tags, outside.note) == (OUTSIDE.tags, OUTSIDE.note)
    assert (bare.tags, bare.note) == ((), "")


def test_a_tag_with_a_comma_or_semicolon_stays_one_tag() -> None:
    items = [SavedPaper(PAPER, tags=("graphs, sparse", "to read; later", 'say "hi"', "plain"))]
    bib = to_bibtex(items)
    assert 'keywords = {{graphs, sparse}, {to read; later}, say "hi", plain}' in bib  # braces keep it whole
    (csl,) = json.loads(to_csl_json(items))
    assert csl["keyword"] == '"graphs, sparse", "to read; later", "say ""hi""", plain'  # quoted as CSV does
    (ris,) = rispy.loads(to_ris(items))
    assert ris["keywords"] == ["graphs, sparse", "to read; later", 'say "hi"', "plain"]  # a KW line each
    assert re.findall(r"^KW  - (.*)$", to_ris(items), re.M) == ris["keywords"]


def test_a_note_keeps_its_lines_and_nothing_in_it_breaks_the_file() -> None:
    bib = to_bibtex([SavedPaper(PAPER, note=NOTE)])
    note = re.search(r"^  note = \{(.*?)\}\n\}", bib, re.S | re.M)
    assert note and "\\psChar{中文笔记}" in note[1] and "Zürich" in note[1]  # pdflatex's utf8 sets ü itself
    assert "\n\n  indented paragraph\n" in note[1] and "\\textbraceright{} \\textbraceleft{}" in note[1]
    assert bib.startswith("@preamble{") and "\\providecommand{\\psChar}" in bib
    ris = to_ris([SavedPaper(PAPER, note=NOTE)])
    assert "\n AB  - looks like an RIS tag\n ER  - so does this\n" in ris  # one more space: not tag lines
    assert ris.count("ER  - \n") == 1 and len(rispy.loads(ris)) == 1


ZOTERO_BIBTEX = r"""@article{lindqvist_sparse_2021,
	title = {Sparse {Attention}},
	author = {Lindqvist, Maja},
	journal = {Journal of Machine Learning},
	year = {2021},
	note = {arXiv: 2401.01234},
	keywords = {attention, efficiency; speed},
	annote = {First note, with 50\% \& more.},
	annote = {Second note
over two lines.},
}

@article{okafor_dense_2020,
	title = {Dense {Retrieval}},
	author = {Okafor, Chidi},
	journaltitle = {Information Retrieval Journal},
	date = {2020},
	keywords = {retrieval},
	annotation = {A BibLaTeX note.},
}
"""
ZOTERO_RIS = """TY  - JOUR
TI  - Sparse Attention
AU  - Lindqvist, Maja
PY  - 2021
KW  - attention
KW  - efficiency, speed
N1  - <div data-schema-version="8"><p>First paragraph &amp; more</p>
<p>Second line one<br/>line two</p>
</div>
N1  - <p>Another note</p>
ER  -

TY  - JOUR
TI  - A note in plain text
N1  - read <this> first
ER  -
""".replace("ER  -\n", "ER  - \n")  # Zotero ends records with "ER  - ", trailing space included
ZOTERO_CSL = json.dumps(
    [
        {
            "id": "http://zotero.org/users/1/items/ABCD",
            "type": "article-journal",
            "title": "Graph Priors",
            "keyword": "graphs, priors",
            "note": "arXiv: 2401.01234",
        }
    ]
)


def test_zoteros_own_exports_bring_their_tags_and_notes() -> None:
    bib = read_bibliography(ZOTERO_BIBTEX).references
    assert [(r.tags, r.note) for r in bib] == [
        (
            ("attention", "efficiency", "speed"),  # Zotero writes a tag a comma
            "arXiv: 2401.01234\n\nFirst note, with 50% & more.\n\nSecond note\nover two lines.",
        ),
        (("retrieval",), "A BibLaTeX note."),
    ]
    ris = read_bibliography(ZOTERO_RIS).references
    assert [(r.tags, r.note) for r in ris] == [
        (
            ("attention", "efficiency, speed"),
            "First paragraph & more\n\nSecond line one\nline two\n\nAnother note",  # its HTML as text
        ),
        ((), "read <this> first"),  # text that is not a Zotero HTML note stays as it is
    ]
    (csl,) = read_bibliography(ZOTERO_CSL).references
    assert (csl.tags, csl.note) == (("graphs", "priors"), "arXiv: 2401.01234")


COLM = Venue("COLM", 2025, "https://openreview.net/forum?id=0JzWiigkUy")
VENUE_ONLY = Paper("colm2025-0JzWiigkUy", "A Paper Only at {COLM}", ["Bob Smith"], "An abstract.", [])


def test_a_paper_at_a_venue_is_exported_as_a_conference_paper() -> None:
    items = [SavedPaper(PAPER, tags=("llm",), venues=(COLM,)), SavedPaper(VENUE_ONLY, venues=(COLM,))]
    arxiv, only = to_bibtex(items).split("\n\n")
    # the arXiv paper keeps its key (a document citing it still compiles); the venue gives type and year
    assert arxiv.startswith("@inproceedings{lovelace2024learning,") and "booktitle = {COLM 2025}" in arxiv
    assert "year = {2025}" in arxiv and "eprint = {2401.01234}" in arxiv and "keywords = {llm}" in arxiv
    assert only.startswith("@inproceedings{smith2025paper,") and "booktitle = {COLM 2025}" in only
    assert "eprint" not in only and "archivePrefix" not in only and f"url = {{{COLM.url}}}" in only
    assert paper_bibtex(PAPER, venues=[COLM]).startswith("@inproceedings{lovelace2024learning,")
    assert paper_bibtex(PAPER).startswith("@misc{lovelace2024learning,")
    csl = json.loads(to_csl_json(items))
    assert [(c["type"], c["container-title"], c["issued"]) for c in csl] == [
        ("paper-conference", "COLM 2025", {"date-parts": [[2025]]})
    ] * 2
    assert csl[0]["number"] == "arXiv:2401.01234" and "number" not in csl[1] and csl[1]["URL"] == COLM.url
    ris = rispy.loads(to_ris(items))
    assert [(r["type_of_reference"], r["secondary_title"], r["year"]) for r in ris] == [
        ("CPAPER", "COLM 2025", "2025")
    ] * 2
    back = read_bibliography(to_bibtex(items)).references
    assert [(r.kind, r.venue, r.year, r.arxiv_id) for r in back] == [
        ("inproceedings", "COLM 2025", 2025, "2401.01234"),
        ("inproceedings", "COLM 2025", 2025, None),
    ]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_notes_tags_and_venues_compile_with_bibtex_and_biber_and_render_with_citeproc(tmp_path: Path) -> None:
    if not tex_available():
        pytest.skip("TeX Live is not installed (make texlive)")
    long_chinese = "这篇论文的方法" * 30  # a long run with no space: bibtex may break its line anywhere
    items: list[Exportable] = [
        SavedPaper(PAPER, tags=TAGS, note=NOTE),
        SavedPaper(_paper("2401.01235", "Attention", ["Jörg Müller"]), tags=("中文",), note=long_chinese),
        SavedPaper(PAPER, tags=("llm",), note="At COLM.", venues=(COLM,)),
        SavedPaper(VENUE_ONLY, tags=("venue only",), note="No arXiv id.", venues=(COLM,)),
        OUTSIDE,
    ]
    bib = to_bibtex(items)
    for engine, backend, inputenc in TEX_RUNS:
        counts = compile_bibtex(bib, tmp_path, engine, backend, inputenc=inputenc, timeout=120)
        assert (counts.entries, counts.errors) == (len(items), 0), (counts.line(), counts.samples)
    csl, left = check_csl(to_csl_json(items))
    assert (csl.entries, csl.errors) == (len(items), 0), left
    notes = [r.note for r in read_bibliography(bib).references]
    assert notes == [NOTE, long_chinese, "At COLM.", "No arXiv id.", OUTSIDE.note]


def _stored(home: Path) -> None:
    """A home whose store holds PAPER and one more paper, and whose library is empty."""
    from papersift.store import open_store

    store = open_store(Settings(home=home))
    store.upsert([PAPER, _paper("2401.01235", "Attention", ["Jörg Müller"])])
    store.close()


def _kept(home: Path) -> dict[str, tuple[list[str], str]]:
    lines = invoke("library", "list", "--format", "json", home=home).stdout.splitlines()
    rows = [orjson.loads(line) for line in lines]
    return {r["title"]: (sorted(r["tags"]), r["note"]) for r in rows}


def _fill(home: Path, tmp_path: Path) -> None:
    """The reader's library: a paper with every awkward tag and note, one with a plain tag, one outside
    reference (imported with its own tags and note)."""
    invoke("library", "add", "2401.01234", "--note", NOTE, home=home)
    invoke("library", "tag", "2401.01234", *TAGS, home=home)
    invoke("library", "add", "2401.01235", "--tag", "attention", home=home)
    outside = tmp_path / "outside.ris"
    outside.write_text(to_ris([OUTSIDE]), encoding="utf-8")
    invoke("library", "import", str(outside), home=home)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_library_exported_and_imported_into_an_empty_one_keeps_its_tags_and_notes(
    fmt: str, tmp_path: Path
) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for home in (mine, theirs):
        _stored(home)
    _fill(mine, tmp_path)
    before = _kept(mine)
    assert before["Learning with $O(n)$ memory"] == (sorted(TAGS), NOTE) and len(before) == 3
    exported = tmp_path / f"library.{fmt}"
    invoke("library", "export", "--format", fmt, "--output", str(exported), home=mine)
    invoke("library", "import", str(exported), home=theirs)
    assert _kept(theirs) == before
    bare = tmp_path / "bare"  # no paper stored: each entry comes back with its own text, tags and note
    invoke("library", "import", str(exported), home=bare)
    assert {title: kept for title, kept in _kept(bare).items()} == {
        t.replace("$O(n)$", "O(n)") if fmt != "bibtex" else t: kept for t, kept in before.items()
    }


@pytest.mark.process
def test_the_real_commands_carry_tags_and_notes_from_one_home_to_another(tmp_path: Path) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    for home in (mine, theirs):
        _stored(home)
    _fill(mine, tmp_path)
    exported = tmp_path / "library.bib"
    done = invoke("library", "export", "--output", str(exported), home=mine)
    assert done.stdout == "" and f"exported 3 entries to {exported}" in done.stderr
    imported = invoke("library", "import", str(exported), home=theirs, env={"PAPERSIFT_LANG": "zh"})
    assert (
        "导入（bibtex）：读取 3 条，2 条关联到 arXiv 论文，1 条保留自身文本，3 条新加入文库，跳过 0 条"
        in imported.stdout
    )
    rows = [
        orjson.loads(line)
        for line in invoke("library", "list", "--format", "json", home=theirs).stdout.splitlines()
    ]
    assert {r["title"]: (sorted(r["tags"]), r["note"]) for r in rows} == _kept(mine)


def test_exporting_a_tag_no_entry_has_is_refused_in_english_and_chinese(tmp_path: Path) -> None:
    _stored(tmp_path)
    invoke("library", "add", "2401.01234", "--tag", "diffusion", home=tmp_path)
    said = invoke("library", "export", "--tag", "difusion", home=tmp_path, check=False)
    assert said.returncode == 1 and said.stdout == ""
    assert "no entry in your library is tagged 'difusion'" in said.stderr
    zh = invoke(
        "library", "export", "--tag", "difusion", home=tmp_path, check=False, env={"PAPERSIFT_LANG": "zh"}
    )
    assert zh.returncode == 1 and "你的文库中没有标签为 'difusion' 的条目" in zh.stderr
    kept = invoke("library", "export", "--tag", "diffusion", home=tmp_path).stdout
    assert "keywords = {diffusion}" in kept
    with app_client(tmp_path) as client:  # no accounts: the personal library
        assert client.get("/library/export.bib", params={"tag": "diffusion"}).status_code == 200
        missing = client.get("/library/export.ris", params={"tag": "difusion"})
        assert missing.status_code == 404 and "difusion" in missing.text
        zh_page = client.get("/library/export.json", params={"tag": "difusion", "lang": "zh"})
        assert zh_page.status_code == 404 and "你的文库中没有标签为" in zh_page.text


def test_the_library_export_cites_a_paper_at_the_venue_the_store_has_for_it(tmp_path: Path) -> None:
    from papersift.records.venues import VenueRecord
    from papersift.store import open_store

    store = open_store(Settings(home=tmp_path))
    store.upsert([PAPER])
    page = "https://openreview.net/forum?id="
    linked = VenueRecord(
        "COLM", 2025, "0JzWiigkUy", PAPER.title, ("Ada Lovelace", "Alan Turing"), "Poster", "main",
        links=(("openreview", page + "0JzWiigkUy"),), arxiv="2401.01234",
    )  # fmt: skip
    only = VenueRecord(
        "COLM", 2025, "Zq9VenueOnly", "A Paper Only at COLM", ("Bob Smith",), "Oral", "main",
        links=(("openreview", page + "Zq9VenueOnly"),),
    )  # fmt: skip
    records = [linked, only]
    store.import_venue("COLM", 2025, records, "colm2025.json.gz")
    store.close()
    invoke("library", "add", "2401.01234", "colm2025-Zq9VenueOnly", "--tag", "colm", home=tmp_path)
    bib = invoke("library", "export", home=tmp_path).stdout
    entries = {m[2]: m[1] for m in re.finditer(r"@(\w+)\{([^,]+),", bib)}
    assert entries == {"lovelace2024learning": "inproceedings", "smith2025paper": "inproceedings"}, bib
    assert "booktitle = {COLM 2025}" in bib and bib.count("eprint = ") == 1
    assert f"url = {{{page}Zq9VenueOnly}}" in bib and "keywords = {colm}" in bib
    csl = orjson.loads(invoke("library", "export", "--format", "csl-json", home=tmp_path).stdout)
    assert sorted((c["type"], c["container-title"]) for c in csl) == [("paper-conference", "COLM 2025")] * 2
    ris = rispy.loads(invoke("library", "export", "--format", "ris", home=tmp_path).stdout)
    assert (
        sorted((r["type_of_reference"], r["secondary_title"]) for r in ris) == [("CPAPER", "COLM 2025")] * 2
    )
    # a preprint the reader imported under their own key is cited at its venue under that key
    invoke("library", "remove", "2401.01234", home=tmp_path)
    mine = tmp_path / "mine.bib"
    mine.write_text("@misc{mykey, title = {Learning}, eprint = {2401.01234}, archivePrefix = {arXiv}}\n")
    invoke("library", "import", str(mine), "--tag", "mine", home=tmp_path)
    again = invoke("library", "export", "--tag", "mine", home=tmp_path).stdout
    assert again.startswith("@inproceedings{mykey,") and "booktitle = {COLM 2025}" in again, again
