"""Fuzzing every reader with hypothesis: random bytes and real fixtures mutated byte by byte never make a
reader raise (bad input comes back as RecordError / EntryError values), every record it gives is well
typed, and a bad record among good ones costs only itself. Examples are few and bounded (``FUZZ``) so the
suite stays quick; the shrunk input of any failure is printed by hypothesis.
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import os
import re
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from papersift.records.paper import Deleted, Paper, RecordError
from papersift.sources import FORMATS, UnknownFormatError, detect, read_file
from papersift.sources.bibliography import EntryError, ImportResult, Reference, read_bibliography, safe_url
from papersift.store.rows import paper_row, validate
from tests.support.data import SHARED_DATA
from tests.test_bibliography import ZOTERO_BIB, ZOTERO_CSL, ZOTERO_RIS

FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,  # no .hypothesis folder in the checkout; failures print their input
)
FIXTURES = SHARED_DATA / "fixtures"
# a few small real files of each format (bytes read once); the snapshot is real records of the 20k file
SAMPLES: dict[str, list[str]] = {
    "oai": [
        "oai_pmh/hepcrawl__sample_arxiv_record0.xml",
        "oai_pmh/invenio__GetRecord_arXivRaw_1304.4214_2013-04-16.xml",
        "oai_pmh/invenio__ListIdentifiers_arXiv_2014-06-19.xml",
        "oai_pmh/invenio__ListRecords_arXiv_astro-ph_2013-04-03.xml",
    ],
    "atom": [
        "api_atom/id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml",
        "api_atom/id_abc_s0_m100_b79c8dcf6bc3.xml",
        "api_atom_legacy/aioarxiv__legacy_api_all-electron_manual_example.xml",
    ],
    "rss": [
        "rss/legacy_rss1.0_rdf_hep-ex_2018-05-23__physbiblio_trimmed.xml",
        "rss/rss2_real_header_fragment_cs.AI_2025-09-18.txt",
        "rss/atom_real_header_fragment_cs_2025-11-23.txt",
    ],
    "mailing": ["listing_email/arxiv-subscription-viewer__malformed.txt", "abs_files_listings/q-fin_new.TR"],
    "listing": ["abs_files_listings/math-ph_9701", "abs_files_listings/math_2103"],
    "abs": [
        "abs_files/ftp/arxiv/papers/0704/0704.0001.abs",
        "abs_files/ftp/hep-th/papers/9108/9108002.abs",
        "abs_files/orig/hep-th/papers/9901/9901001v1.abs",
    ],
}
# byte strings that have broken parsers before: NUL, bad UTF-8, a UTF-8-encoded surrogate, XML specials
# and entities, escapes, huge numbers, separators of the text formats
TRICKY = [
    b"\x00",
    b"\xff\xfe",
    b"\xed\xa0\x80",
    b"\xc3",
    b"&#0;",
    b"&#xD800;",
    b"&#1114112;",
    b"&lt;",
    b"&nosuch;",
    b"<",
    b">",
    b"]]>",
    b"<![CDATA[",
    b'"',
    b"\\",
    b"\\ud800",
    b"\\\\\n",
    b"9" * 40,
    b"-1",
    b"v0",
    b"\n\n",
    b"\r",
    "é\u202e\u200b".encode(),
    b"arXiv:",
    b"Date: ",
    b"Categories: ",
    b"%%--%%--%%",
    b"------------------------------------------------------------------------------",
    b"2026-13-45",
    b"Mon, 32 Foo 2026 25:61:61 GMT",
]


def sample_bytes(fmt: str) -> list[bytes]:
    if not FIXTURES.exists():
        pytest.skip("../shared/data is not beside this checkout")
    if fmt == "snapshot":
        with gzip.open(SHARED_DATA / "arxiv-20k.jsonl.gz", "rb") as f:
            return [b"".join(itertools.islice(f, 5))]
    return [(FIXTURES / name).read_bytes() for name in SAMPLES[fmt]]


@st.composite
def mutated(draw: st.DrawFn, samples: list[bytes]) -> bytes:
    """A sample with one to four edits: a byte changed, bytes inserted (random or tricky), a span deleted,
    duplicated or the rest cut off."""
    data = bytearray(draw(st.sampled_from(samples)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["set", "insert", "delete", "duplicate", "cut"]))
        i = draw(st.integers(0, len(data)))
        j = min(len(data), i + draw(st.integers(0, 200)))
        if op == "set" and i < len(data):
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.sampled_from(TRICKY) | st.binary(min_size=1, max_size=30))
        elif op == "delete":
            del data[i:j]
        elif op == "duplicate":
            data[i:i] = data[i:j]
        elif op == "cut":
            del data[i:]
    return bytes(data)


def check_items(items: list[object]) -> list[Paper]:
    """Every item a reader gives is a Paper, Deleted or RecordError, and every Paper is either refused by
    the store's ``validate`` with a reason or makes a row (no field of the wrong type slips through)."""
    papers = []
    for item in items:
        assert isinstance(item, Paper | Deleted | RecordError), item
        if isinstance(item, RecordError):
            assert isinstance(item.message, str) and str(item)
        if isinstance(item, Paper):
            problem = validate(item)
            assert problem is None or isinstance(problem, str)
            if problem is None:
                paper_row(1, item)
                papers.append(item)
    return papers


def read_bytes(tmp: Path, data: bytes, fmt: str | None) -> list[Paper]:
    path = tmp / "input"
    path.write_bytes(data)
    return check_items(list(read_file(path, fmt)))


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("fmt", [*FORMATS, None])
@FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes_never_crash_a_reader(tmp: Path, fmt: str | None, data: bytes) -> None:
    read_bytes(tmp, data, fmt)
    read_bytes(tmp, gzip.compress(data)[: max(10, len(data) // 2)], fmt)  # a truncated gzip too


@pytest.mark.parametrize("fmt", FORMATS)
@FUZZ
@given(choice=st.data())
def test_mutated_real_files_never_crash_a_reader(tmp: Path, fmt: str, choice: st.DataObject) -> None:
    data = choice.draw(mutated(sample_bytes(fmt)))
    read_bytes(tmp, data, fmt)
    read_bytes(tmp, data, None)  # and with the format detected from the mutated bytes


@FUZZ
@given(head=st.binary(max_size=600), name=st.text(max_size=20))
def test_detection_names_a_format_or_says_unknown(head: bytes, name: str) -> None:
    with contextlib.suppress(UnknownFormatError):
        assert detect(head, name) in FORMATS


JSON_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats()
    | st.text(max_size=30)
    | st.sampled_from(
        ["2401.01234", "hep-th/9901001", "cs.LG", "2026-01-21", "Mon, 2 Apr 2007 19:18:42 GMT", "v2", ""]
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
SNAPSHOT_KEYS = [
    *("id", "title", "abstract", "authors", "authors_parsed", "categories", "primary_category", "comments"),
    *("journal_ref", "journal-ref", "doi", "license", "versions", "published", "updated", "update_date"),
    *("announced", "source", "version", "submitter"),
]


@FUZZ
@given(record=st.dictionaries(st.sampled_from(SNAPSHOT_KEYS), JSON_VALUE, max_size=12))
def test_snapshot_records_with_any_json_values_never_crash(tmp: Path, record: dict[str, object]) -> None:
    """Valid JSON of the wrong shape: every known key with any JSON value (either snapshot layout)."""
    line = orjson.dumps({"id": "2401.01234", "title": "A title", "categories": "cs.LG", **record})
    read_bytes(tmp, line + b"\n", "snapshot")


# -- a bad record among good ones ----------------------------------------------------------------------
def ids(papers: list[Paper]) -> set[str]:
    return {p.id for p in papers}


@FUZZ
@given(line=st.binary(max_size=400) | st.sampled_from(TRICKY), where=st.integers(0, 4))
def test_a_bad_snapshot_line_costs_only_itself(tmp: Path, line: bytes, where: int) -> None:
    [sample] = sample_bytes("snapshot")
    lines = sample.splitlines()
    good = ids(read_bytes(tmp, sample, "snapshot"))
    lines[where] = line.replace(b"\n", b" ")
    kept = ids(read_bytes(tmp, b"\n".join(lines) + b"\n", "snapshot"))
    others = {orjson.loads(x)["id"] for n, x in enumerate(sample.splitlines()) if n != where}
    assert others <= kept <= good


XML_RECORDS = {"oai": "record", "atom": "entry", "rss": "item"}
XML_FILES = {
    "oai": "oai_pmh/hepcrawl__arxiv-physics-hep-th.xml",
    "atom": "api_atom/q_testing_s10_m10_34e56e15aaac.xml",
    "rss": "rss/legacy_rss1.0_rdf_hep-ex_2018-05-23__physbiblio_trimmed.xml",
}


@pytest.mark.parametrize("fmt", list(XML_RECORDS))
@FUZZ
@given(choice=st.data())
def test_a_bad_field_in_one_xml_record_costs_only_that_record(
    tmp: Path, fmt: str, choice: st.DataObject
) -> None:
    """Any one element of one record given any text (escaped: the file stays well-formed XML)."""
    if not FIXTURES.exists():
        pytest.skip("../shared/data is not beside this checkout")
    data = (FIXTURES / XML_FILES[fmt]).read_bytes()
    good = read_bytes(tmp, data, fmt)
    assert len(good) >= 2
    root = etree.fromstring(data, etree.XMLParser(recover=True))
    records = [
        el for el in root.iter() if isinstance(el.tag, str) and etree.QName(el).localname == XML_RECORDS[fmt]
    ]
    n = choice.draw(st.integers(0, len(records) - 1))
    fields = [el for el in records[n].iter() if el is not records[n]]
    field = choice.draw(st.sampled_from(fields))
    field.text = choice.draw(
        st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=80).filter(
            lambda t: all(c in "\t\n\r" or ord(c) >= 32 for c in t)
        )
        | st.sampled_from([t.decode("utf-8", "ignore") for t in TRICKY if b"\x00" not in t])
    )
    kept = read_bytes(tmp, etree.tostring(root), fmt)
    assert len(kept) >= len(good) - 1
    assert len(ids(good) - ids(kept)) <= 1


# -- bibliographies -----------------------------------------------------------------------------------
BIB_SAMPLES = [ZOTERO_BIB.encode(), ZOTERO_RIS.encode(), ZOTERO_CSL.encode(), b"2401.01234\nhep-th/9901001\n"]


def check_import(result: ImportResult) -> None:
    assert isinstance(result, ImportResult)
    for ref in result.references:
        assert isinstance(ref, Reference) and isinstance(ref.title, str)
        assert ref.url is None or safe_url(ref.url) == ref.url
        assert all(isinstance(a, str) for a in ref.authors) and all(isinstance(t, str) for t in ref.tags)
    assert all(isinstance(e, EntryError) and str(e) for e in result.errors)


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json", "ids", None])
@FUZZ
@given(choice=st.data())
def test_bibliography_readers_never_crash(fmt: str | None, choice: st.DataObject) -> None:
    data = choice.draw(st.binary(max_size=2000) | mutated(BIB_SAMPLES))
    check_import(read_bibliography(data.decode("utf-8", "replace"), fmt))


CSL_KEYS = [
    *("id", "citation-key", "type", "title", "author", "issued", "DOI", "URL", "number", "publisher"),
    *("archive", "source", "note", "container-title", "archive_location", "abstract", "keyword"),
]


@FUZZ
@given(items=st.lists(st.dictionaries(st.sampled_from(CSL_KEYS), JSON_VALUE, max_size=10), max_size=4))
def test_csl_json_items_with_any_json_values_never_crash(items: list[dict[str, object]]) -> None:
    check_import(
        read_bibliography(orjson.dumps([{"title": "A title", **i} for i in items]).decode(), "csl-json")
    )


BIB_GOOD: dict[str, Callable[[int], str]] = {
    "bibtex": lambda n: f"@article{{k{n}, title = {{Title {n}}}, author = {{Doe, Jane}}, year = {{2020}}}}\n",
    "ris": lambda n: f"TY  - JOUR\nTI  - Title {n}\nAU  - Doe, Jane\nER  - \n",
}


@pytest.mark.parametrize("fmt", list(BIB_GOOD))
@FUZZ
@given(bad=st.text(max_size=300) | st.sampled_from([t.decode("utf-8", "ignore") for t in TRICKY]))
def test_a_bad_bibliography_entry_costs_only_itself(fmt: str, bad: str) -> None:
    entry = BIB_GOOD[fmt]
    # the bad text in place of the middle entry's title (no entry separators inside it)
    garbled = re.sub(r"[@{}\n]|ER  -|TY  -", " ", bad)
    middle = entry(2).replace("Title 2", garbled)
    result = read_bibliography(entry(1) + "\n" + middle + "\n" + entry(3), fmt)
    check_import(result)
    titles = {r.title for r in result.references}
    assert {"Title 1", "Title 3"} <= titles
