"""OAI-PMH reader on real arXiv responses (read from ../shared, edited only in memory)."""

from __future__ import annotations

import io
import re
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from papersift.records.paper import Deleted, Paper, Parsed, RecordError, Version
from papersift.sources.oai import OaiError, iter_oai, parse_oai_page

OAI = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "fixtures" / "oai_pmh"
HEP_EX = OAI / "hepcrawl__arxiv-physics-hep-ex.xml"
SAMPLE_12 = OAI / "hepcrawl__sample_arxiv_record.xml"
RAW = OAI / "invenio__GetRecord_arXivRaw_1304.4214_2013-04-16.xml"
IDENTIFIERS = OAI / "invenio__ListIdentifiers_arXiv_2014-06-19.xml"
ASTRO = OAI / "invenio__ListRecords_arXiv_astro-ph_2013-04-03.xml"


def papers(items: list[Parsed]) -> list[Paper]:
    assert all(isinstance(i, Paper) for i in items), items
    return [i for i in items if isinstance(i, Paper)]


def page_papers(path: Path) -> list[Paper]:
    page = parse_oai_page(path.read_bytes(), path.name)
    assert page.error is None
    return papers(page.items)


def by_id(path: Path, arxiv_id: str) -> Paper:
    return next(p for p in page_papers(path) if p.id == arxiv_id)


def with_list_records_body(path: Path, body: str) -> bytes:
    """The real response with its ``<ListRecords>`` block replaced by ``body``."""
    text = path.read_text("utf-8")
    return re.sub(r"<ListRecords>.*</ListRecords>", lambda _: body, text, flags=re.S).encode()


# --- arXiv format -------------------------------------------------------------------------------


def test_list_records_reads_every_record_in_order() -> None:
    page = parse_oai_page(HEP_EX.read_bytes(), HEP_EX.name)
    assert [p.id for p in papers(page.items)] == ["1706.05371", "1706.09418", "1707.00874"]
    assert page.error is None
    assert (page.resumption_token, page.complete_list_size, page.cursor) == (None, None, None)


def test_arxiv_format_fields() -> None:
    paper = by_id(HEP_EX, "1706.05371")
    assert paper.title == (
        "Evaluation of Silicon Photomultipliers for use as Photosensors in Liquid Xenon Detectors"
    )
    assert paper.authors[:3] == ["Tyler Anderson", "Jacob Cutter", "Navneet Dhaliwal"]
    assert len(paper.authors) == 13
    assert paper.categories == ["physics.ins-det", "hep-ex"]
    assert paper.primary_category == "physics.ins-det"
    assert paper.published == date(2017, 6, 16)
    assert paper.updated == date(2017, 12, 12)
    assert paper.version is None  # arXiv format does not say which version <updated> is
    assert paper.comments == "10 pages, 9 figures"
    assert paper.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert paper.abstract.startswith("Silicon photomultipliers (SiPMs) are potential solid-state")
    assert "\n" not in paper.abstract
    assert paper.source == "oai:arXiv"


def test_arxiv_format_journal_ref_doi_and_latex() -> None:
    paper = by_id(HEP_EX, "1706.09418")
    assert paper.journal_ref == "Eur. Phys. J. C (2017) 77:856"
    assert paper.doi == "10.1140/epjc/s10052-017-5414-4"
    assert paper.comments is not None
    assert paper.comments.endswith(
        "Tab. 12 including NLO corrections; version accepted for publication in EPJC"
    )
    assert r"including the $\bar U\bar D\bar D$ models" in paper.abstract


def test_arxiv_format_without_updated_is_a_single_version() -> None:
    paper = by_id(ASTRO, "0801.3931")
    assert paper.published == paper.updated == date(2008, 1, 25)
    assert paper.version == 1
    assert paper.versions == [Version(1)]
    assert r"Poincar\'{e} $(y,p_y)$ surface" in paper.abstract
    assert paper.comments is not None and '"Chaos in Astronomy"' in paper.comments
    assert paper.license is None


def test_author_suffix_goes_last_and_unicode_is_kept() -> None:
    bicep = page_papers(OAI / "hepcrawl__sample_arxiv_record4.xml")[0]
    assert "R. W. IV" in bicep.authors  # forenames R., keyname W., suffix IV
    planck = page_papers(OAI / "hepcrawl__sample_arxiv_record5.xml")[0]
    assert planck.authors[0] == "Günter Burigana"


def test_arxiv_element_without_namespace_still_reads() -> None:
    # record0 is a hepcrawl-edited record whose <arXiv> lost its xmlns
    paper = page_papers(OAI / "hepcrawl__sample_arxiv_record0.xml")[0]
    assert paper.id == "1601.03238"
    assert paper.authors[:2] == ["Planck Collaboration", "Jieci Wang"]
    assert paper.categories == ["quant-ph", "gr-qc", "hep-th", "chao-dyn", "nlin.CD"]


def test_get_record_envelope_with_many_records() -> None:
    assert len(page_papers(SAMPLE_12)) == 12
    single = page_papers(OAI / "hepcrawl__arxiv-single.xml")
    assert [p.id for p in single] == ["1401.2122"]
    assert single[0].categories[0] == "math.AP"


# --- arXivRaw format ----------------------------------------------------------------------------


def test_arxiv_raw_versions_authors_and_dates() -> None:
    (paper,) = page_papers(RAW)
    assert paper.id == "1304.4214"
    assert paper.source == "oai:arXivRaw"
    assert paper.authors == ["Igor A. Zaliznyak", "John M. Tranquada"]
    assert paper.versions == [Version(1, datetime(2013, 4, 15, 19, 33, 21, tzinfo=UTC), "609kb")]
    assert paper.version == 1
    assert paper.published == paper.updated == date(2013, 4, 15)
    assert paper.categories == ["cond-mat.str-el"]
    assert paper.comments is not None
    assert paper.comments.startswith('31 pages, chapter for "Strongly Correlated Systems')


def test_arxiv_raw_latest_version_wins_whatever_the_order() -> None:
    v2 = '<version version="v2"><date>Tue, 7 May 2013 08:01:02 GMT</date><size>700kb</size></version>'
    data = RAW.read_text("utf-8").replace('<version version="v1">', v2 + '<version version="v1">')
    (paper,) = papers(parse_oai_page(data.encode(), "edited").items)
    assert [v.version for v in paper.versions] == [1, 2]
    assert paper.version == 2
    assert paper.versions[1].submitted == datetime(2013, 5, 7, 8, 1, 2, tzinfo=UTC)
    assert paper.published == date(2013, 4, 15)
    assert paper.updated == date(2013, 5, 7)


def test_arxiv_raw_bad_version_date_is_a_record_error() -> None:
    data = RAW.read_bytes().replace(b"Mon, 15 Apr 2013 19:33:21 GMT", b"sometime in April")
    (item,) = parse_oai_page(data, "edited").items
    assert isinstance(item, RecordError)
    assert item.record == "oai:arXiv.org:1304.4214"
    assert "sometime in April" in item.message


# --- paging, errors, deleted records ------------------------------------------------------------


def test_resumption_token_and_list_size() -> None:
    token = '<resumptionToken cursor="0" completeListSize="4021">6960524|1001</resumptionToken>'
    data = HEP_EX.read_bytes().replace(b"</ListRecords>", token.encode() + b"</ListRecords>")
    page = parse_oai_page(data, "edited")
    assert page.resumption_token == "6960524|1001"
    assert (page.complete_list_size, page.cursor) == (4021, 0)
    assert len(page.items) == 3


def test_empty_resumption_token_means_the_list_is_complete() -> None:
    token = b'<resumptionToken cursor="1000" completeListSize="1003"/>'
    data = HEP_EX.read_bytes().replace(b"</ListRecords>", token + b"</ListRecords>")
    page = parse_oai_page(data, "edited")
    assert page.resumption_token is None
    assert (page.complete_list_size, page.cursor) == (1003, 1000)


@pytest.mark.parametrize(
    "code", ["noRecordsMatch", "badResumptionToken", "badArgument", "cannotDisseminateFormat"]
)
def test_oai_error_is_a_typed_result(code: str) -> None:
    error = f'<error code="{code}">The request failed: {code}</error>'
    data = with_list_records_body(HEP_EX, error)
    page = parse_oai_page(data, "edited")
    assert page.error == OaiError(code, f"The request failed: {code}")
    assert page.items == []
    assert page.resumption_token is None


def test_list_identifiers_reads_paging_without_records() -> None:
    page = parse_oai_page(IDENTIFIERS.read_bytes(), IDENTIFIERS.name)
    assert page.items == []
    assert page.error is None
    assert page.resumption_token is None


def test_list_identifiers_reports_deleted_headers() -> None:
    data = IDENTIFIERS.read_bytes().replace(
        b"<header>\n <identifier>oai:arXiv.org:0705.3619",
        b'<header status="deleted">\n <identifier>oai:arXiv.org:0705.3619',
    )
    assert parse_oai_page(data, "edited").items == [Deleted("0705.3619", "oai:arXiv")]


def test_deleted_record_becomes_deleted() -> None:
    text = HEP_EX.read_text("utf-8")
    text = text.replace(
        "<header>\n <identifier>oai:arXiv.org:1706.05371",
        '<header status="deleted">\n <identifier>oai:arXiv.org:1706.05371',
    )
    # a real deleted record carries no metadata
    metadata = r"(1706\.05371.*?</header>)\s*<metadata>.*?</metadata>"
    text = re.sub(metadata, r"\1", text, count=1, flags=re.S)
    items = parse_oai_page(text.encode(), "edited").items
    assert items[0] == Deleted("1706.05371", "oai:arXiv")
    assert [p.id for p in papers(items[1:])] == ["1706.09418", "1707.00874"]
    assert list(iter_oai(io.BytesIO(text.encode()), "edited")) == items


def test_bad_record_becomes_a_record_error_and_the_rest_still_read() -> None:
    data = HEP_EX.read_bytes().replace(b"<id>1706.09418</id>", b"<id>not-an-id</id>")
    items = parse_oai_page(data, "edited").items
    assert [type(i) for i in items] == [Paper, RecordError, Paper]
    error = items[1]
    assert isinstance(error, RecordError)
    assert error.source == "edited"
    assert error.record == "oai:arXiv.org:1706.09418"
    assert "not-an-id" in error.message


def test_unicode_rtl_entities_and_latex_are_kept_as_text() -> None:
    title = "量子场论 שלום مرحبا &amp; &lt;b&gt; $\\alpha^{2}$"
    data = RAW.read_text("utf-8").replace(
        "<title>Neutron Scattering and Its Application to Strongly Correlated Systems</title>",
        f"<title>{title}</title>",
    )
    (paper,) = papers(parse_oai_page(data.encode(), "edited").items)
    assert paper.title == "量子场论 שלום مرحبا & <b> $\\alpha^{2}$"


# --- unreadable bodies --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [b"", b"Retry after 30 seconds", b"<html><body>503 Service Unavailable</body></html>"],
    ids=["empty", "text", "html"],
)
def test_non_oai_body_is_bad_xml_not_an_exception(body: bytes) -> None:
    page = parse_oai_page(body, "http://export.arxiv.org/oai2?verb=ListRecords")
    assert page.items == []
    assert page.error is not None
    assert page.error.code == "badXml"
    assert page.error.message.startswith("http://export.arxiv.org/oai2?verb=ListRecords: ")


def test_truncated_page_is_bad_xml() -> None:
    data = SAMPLE_12.read_bytes()
    page = parse_oai_page(data[: len(data) // 2], "half")
    assert page.items == []
    assert page.error is not None and page.error.code == "badXml"


# --- streaming ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(OAI.glob("*.xml")), ids=lambda p: p.name)
def test_streaming_reads_the_same_as_the_page_parser(path: Path) -> None:
    with path.open("rb") as stream:
        streamed = list(iter_oai(stream, path.name))
    assert streamed == parse_oai_page(path.read_bytes(), path.name).items


def test_streaming_truncated_file_yields_good_records_then_one_error() -> None:
    data = SAMPLE_12.read_bytes()
    half = data[: len(data) // 2]
    complete = half.count(b"</record>")
    assert 0 < complete < 12
    items = list(iter_oai(io.BytesIO(half), "half.xml"))
    good, last = items[:-1], items[-1]
    assert good == page_papers(SAMPLE_12)[:complete]
    assert isinstance(last, RecordError)
    assert last.source == "half.xml"
    assert last.record.startswith("line ")
    assert f"after {complete} records" in last.message


@pytest.mark.parametrize("body", [b"", b"Retry after 30 seconds", b"<html/>"])
def test_streaming_unreadable_file_yields_one_error(body: bytes) -> None:
    items = list(iter_oai(io.BytesIO(body), "bad.xml"))
    assert len(items) == 1
    assert isinstance(items[0], RecordError)


def test_streaming_oai_error_yields_a_record_error_but_no_records_match_is_silent() -> None:
    bad = with_list_records_body(HEP_EX, '<error code="badResumptionToken">expired</error>')
    (item,) = iter_oai(io.BytesIO(bad), "bad.xml")
    assert isinstance(item, RecordError)
    assert "badResumptionToken" in item.message
    empty = with_list_records_body(HEP_EX, '<error code="noRecordsMatch">none</error>')
    assert list(iter_oai(io.BytesIO(empty), "empty.xml")) == []
