"""arXiv API Atom reader on real recorded responses (read from ../shared, edited only in memory)."""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from papersift.records.paper import Paper, Parsed, RecordError, Version
from papersift.sources.atom import ApiError, iter_atom, parse_atom_page

FIXTURES = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "fixtures"
API = FIXTURES / "api_atom"
LEGACY = FIXTURES / "api_atom_legacy"
ALL_FEEDS = sorted(API.glob("*.xml")) + sorted(LEGACY.glob("*.xml"))
TESTING_PAGES = sorted(API.glob("q_testing_s*_m*.xml"))
HEP_EX = API / "id_hep-ex_0406020v1_s0_m100_84b15d66c0ce.xml"
ASTRO = API / "id_astro-ph_0601001_s0_m100_3150dca9dc76.xml"
QUANT = API / "id_quant-ph_0201082v1_s0_m100_86989fe779ef.xml"
TESTING_100 = API / "q_testing_s0_m100_cfe7536492ca.xml"


def papers(items: list[Parsed]) -> list[Paper]:
    assert all(isinstance(i, Paper) for i in items), items
    return [i for i in items if isinstance(i, Paper)]


def read(path: Path) -> list[Paper]:
    page = parse_atom_page(path.read_bytes(), path.name)
    assert page.error is None
    return papers(page.items)


def test_old_style_versioned_id_and_affiliation_dropped() -> None:
    page = parse_atom_page(HEP_EX.read_bytes(), HEP_EX.name)
    assert (page.total_results, page.start_index, page.items_per_page) == (1, 0, 100)
    (paper,) = papers(page.items)
    assert paper.id == "hep-ex/0406020"
    assert paper.version == 1
    assert paper.title == "Sparticle Reconstruction at LHC"
    assert paper.authors == ["Alessia Tricomi"]
    assert paper.categories == ["hep-ex"]
    assert paper.published == paper.updated == date(2004, 6, 7)
    assert paper.versions == [Version(1, datetime(2004, 6, 7, 11, 8, 22, tzinfo=UTC))]
    assert paper.comments is not None and paper.comments.startswith("Presented at XXXIX Rencontres")
    assert paper.abstract.startswith("In this report a review")
    assert paper.source == "api"


def test_journal_ref_entities_and_latex() -> None:
    (paper,) = read(ASTRO)
    assert paper.id == "astro-ph/0601001"
    assert paper.journal_ref == "ActaAstron.56:1-50,2006"
    assert paper.doi is None
    assert paper.authors == ["Andrew Gould", "Susan Dorsher", "B. Scott Gaudi", "Andrzej Udalski"]
    assert "Gould & Morgan (2003)" in paper.abstract
    assert "limit of V_max<17.5" in paper.abstract
    assert "(1/310)(1^{+1.39}_{-0.59})" in paper.abstract


def test_new_style_id_and_a_title_that_is_falsy() -> None:
    (paper,) = read(API / "id_2104.12255v1_s0_m100_6ae69987ffe1.xml")
    assert (paper.id, paper.version) == ("2104.12255", 1)
    assert paper.title == "0"
    assert paper.categories == ["cs.CR"]
    assert paper.comments is None


def test_later_version_adds_a_version_at_updated() -> None:
    paper = read(API / "q_testing_s10_m10_34e56e15aaac.xml")[0]
    assert (paper.id, paper.version) == ("2403.16981", 2)
    assert paper.versions == [
        Version(1, datetime(2024, 3, 25, 17, 42, 32, tzinfo=UTC)),
        Version(2, datetime(2025, 5, 24, 5, 50, 33, tzinfo=UTC)),
    ]
    assert paper.published == date(2024, 3, 25)
    assert paper.updated == date(2025, 5, 24)
    assert paper.categories == ["math.ST", "cs.IT", "stat.ML"]
    assert "$α$ and type-II error at most $β$" in paper.abstract


def test_primary_category_comes_first_without_duplicates() -> None:
    (paper,) = read(QUANT)
    assert paper.categories == ["quant-ph", "cs.PL"]
    data = QUANT.read_bytes().replace(
        b'<arxiv:primary_category term="quant-ph"/>', b'<arxiv:primary_category term="cs.PL"/>'
    )
    (moved,) = papers(parse_atom_page(data, "edited").items)
    assert moved.categories == ["cs.PL", "quant-ph"]
    assert moved.primary_category == "cs.PL"


def test_unicode_is_kept() -> None:
    (paper,) = read(API / "id_1707.08567_s0_m100_6a1afebfc6a3.xml")
    assert "Dirk Wübben" in paper.authors
    assert len(paper.authors) == 34
    titles = [p.title for p in read(TESTING_100)]
    assert "$ω$Test: WebView-Oriented Testing for Android Applications" in titles


@pytest.mark.parametrize("path", TESTING_PAGES, ids=lambda p: p.name)
def test_paging_fields_match_the_request(path: Path) -> None:
    m = re.match(r"q_testing_s(\d+)_m(\d+)_", path.name)
    assert m
    start, max_results = int(m[1]), int(m[2])
    page = parse_atom_page(path.read_bytes(), path.name)
    assert page.error is None
    assert (page.total_results, page.start_index, page.items_per_page) == (
        214881,
        start,
        max_results,
    )
    assert len(papers(page.items)) == max_results


def test_overlapping_pages_agree() -> None:
    from_0 = read(API / "q_testing_s0_m15_80c242b59d59.xml")
    from_5 = read(API / "q_testing_s5_m10_c0e94a259d4a.xml")
    assert [p.id for p in from_0[5:15]] == [p.id for p in from_5]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (API / "id_abc_s0_m100_b79c8dcf6bc3.xml", "incorrect id format for abc"),
        (
            LEGACY / "aioarxiv__legacy_api_error_incorrect_id.xml",
            "incorrect id format for 1234.12345",
        ),
    ],
    ids=["current", "legacy"],
)
def test_error_feed_is_an_api_error_without_items(path: Path, message: str) -> None:
    page = parse_atom_page(path.read_bytes(), path.name)
    assert page.error == ApiError(message)
    assert page.items == []
    (item,) = iter_atom(io.BytesIO(path.read_bytes()), path.name)
    assert isinstance(item, RecordError)
    assert message in item.message


@pytest.mark.parametrize(
    "path",
    [API / "id_0000.0000_s0_m100_8b51d9633a68.xml", API / "id_0808.05394_s0_m100_7b0c7d0a7cdd.xml"],
    ids=lambda p: p.name,
)
def test_empty_result_has_no_items_and_no_error(path: Path) -> None:
    page = parse_atom_page(path.read_bytes(), path.name)
    assert (page.items, page.error, page.total_results) == ([], None, 0)
    assert list(iter_atom(io.BytesIO(path.read_bytes()), path.name)) == []


def test_legacy_format() -> None:
    path = LEGACY / "aioarxiv__legacy_api_all-electron_manual_example.xml"
    page = parse_atom_page(path.read_bytes(), path.name)
    assert (page.total_results, page.start_index, page.items_per_page) == (218712, 0, 1)
    (paper,) = papers(page.items)
    assert (paper.id, paper.version) == ("cond-mat/0102536", 1)
    assert paper.doi == "10.1063/1.1383585"
    assert paper.journal_ref == "J. Chem. Phys. 115, 1626 (2001)"
    assert paper.comments == (
        "11 pages, 6 figures, 3 tables, LaTeX209, submitted to The Journal of Chemical Physics"
    )
    assert paper.authors[0] == "David Prendergast"
    assert len(paper.authors) == 5
    assert paper.categories == ["cond-mat.str-el"]
    assert "\n" not in paper.abstract


def test_undeclared_opensearch_prefix_still_reads() -> None:
    declared = HEP_EX.read_bytes()
    data = declared.replace(b' xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"', b"")
    assert data != declared
    page = parse_atom_page(data, "edited")
    assert page.error is None
    assert (page.total_results, page.start_index, page.items_per_page) == (1, 0, 100)
    assert page.items == parse_atom_page(declared, HEP_EX.name).items
    assert list(iter_atom(io.BytesIO(data), "edited")) == page.items


def test_bad_entry_id_is_a_record_error_and_the_rest_still_read() -> None:
    data = TESTING_100.read_bytes().replace(
        b"<id>http://arxiv.org/abs/2202.12139v1</id>", b"<id>http://arxiv.org/abs/garbage</id>"
    )
    items = parse_atom_page(data, "edited").items
    assert len(items) == 100
    first = items[0]
    assert isinstance(first, RecordError)
    assert first.record == "http://arxiv.org/abs/garbage"
    assert len(papers(items[1:])) == 99


@pytest.mark.parametrize("body", [b"", b"Rate exceeded.", b"<html><p>busy</p></html>"])
def test_unreadable_body_is_an_api_error_not_an_exception(body: bytes) -> None:
    page = parse_atom_page(body, "https://export.arxiv.org/api/query")
    assert page.items == []
    assert page.error is not None
    assert page.error.message.startswith("https://export.arxiv.org/api/query: ")
    (item,) = iter_atom(io.BytesIO(body), "bad.xml")
    assert isinstance(item, RecordError)


@pytest.mark.parametrize("path", ALL_FEEDS, ids=lambda p: p.name)
def test_streaming_reads_the_same_as_the_page_parser(path: Path) -> None:
    page = parse_atom_page(path.read_bytes(), path.name)
    with path.open("rb") as stream:
        streamed = list(iter_atom(stream, path.name))
    if page.error is None:
        assert streamed == page.items
    else:
        assert [type(i) for i in streamed] == [RecordError]


def test_truncated_feed_yields_good_entries_then_one_error() -> None:
    data = TESTING_100.read_bytes()
    half = data[: len(data) // 2]
    complete = half.count(b"</entry>")
    assert 0 < complete < 100
    items = list(iter_atom(io.BytesIO(half), "half.xml"))
    good, last = items[:-1], items[-1]
    assert good == read(TESTING_100)[:complete]
    assert isinstance(last, RecordError)
    assert last.source == "half.xml"
    assert f"after {complete} entries" in last.message
    page = parse_atom_page(half, "half.xml")
    assert page.items == []
    assert page.error is not None and "not well-formed XML" in page.error.message
