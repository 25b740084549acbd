"""The daily mailing reader on real arXiv mailings (cs e-mails, q-fin/math daily listing files)."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from papersift.records.paper import Paper, Parsed, RecordError, Version
from papersift.records.schedule import next_listing_day
from papersift.sources.mailing import iter_mailing, listing_category, mailing_date

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
EMAILS = DATA / "fixtures" / "listing_email"
LISTINGS = DATA / "fixtures" / "abs_files_listings"
JAN23 = EMAILS / "arxiv-subscription-viewer__2026-01-23.txt"
JAN26 = EMAILS / "arxiv-subscription-viewer__2026-01-26.txt"
MALFORMED = EMAILS / "arxiv-subscription-viewer__malformed.txt"


def read(path: Path, **kwargs: list[str]) -> list[Parsed]:
    with path.open("rb") as f:
        return list(iter_mailing(f, path.name, **kwargs))


def read_bytes(data: bytes) -> list[Parsed]:
    return list(iter_mailing(io.BytesIO(data), "mem"))


def papers(items: list[Parsed]) -> list[Paper]:
    return [p for p in items if isinstance(p, Paper)]


def errors(items: list[Parsed]) -> list[RecordError]:
    return [e for e in items if isinstance(e, RecordError)]


@pytest.mark.parametrize(
    ("closing", "listed"),
    [
        (date(2026, 1, 22), date(2026, 1, 23)),  # Thu close → Fri listing
        (date(2026, 1, 23), date(2026, 1, 26)),  # Fri close → Mon listing
        (date(2026, 1, 25), date(2026, 1, 26)),  # Sun → Mon
        (date(2026, 1, 19), date(2026, 1, 20)),  # Mon → Tue
    ],
)
def test_listing_is_dated_the_next_weekday_after_the_closing_day(closing: date, listed: date) -> None:
    assert next_listing_day(closing) == listed


def test_mailing_date_comes_from_the_received_to_header() -> None:
    assert mailing_date(JAN23.read_text()) == date(2026, 1, 23)
    assert mailing_date(JAN26.read_text()) == date(2026, 1, 26)
    assert mailing_date((LISTINGS / "math_new.AG").read_text()) == date(2023, 6, 9)  # "Thu  8 Jun 23"
    assert mailing_date("no header here") is None


def test_thursday_mailing_lists_every_paper_as_new_on_friday_in_order() -> None:
    items = read(JAN23)
    assert not errors(items)
    got = [(p.id, p.listings[0].position) for p in papers(items)]
    assert got == [
        ("2601.15305", 1),
        ("2601.15306", 2),
        ("2601.15307", 3),
        ("2601.15311", 4),
        ("2601.15316", 5),
    ]
    for paper in papers(items):
        [listing] = paper.listings
        assert (listing.date, listing.kind, listing.category) == (date(2026, 1, 23), "new", "cs.AI")
        assert paper.announced == date(2026, 1, 23)


def test_mailing_record_fields_map_to_the_paper() -> None:
    first, _, third, _, fifth = papers(read(JAN23))
    assert first.title == (
        "Gated Sparse Attention: Combining Computational Efficiency with Training Stability for "
        "Long-Context Language Models"
    )
    assert first.authors == ["Alfred Shen", "Aaron Shen"]
    assert first.comments == (
        "15 pages, 1 figure, attention mechanism, sparse attention, gating, long-context"
    )
    assert first.versions == [Version(1, datetime(2026, 1, 12, 20, 33, 39, tzinfo=UTC), "215kb")]
    assert (first.version, first.published, first.updated) == (
        1,
        date(2026, 1, 12),
        date(2026, 1, 12),
    )
    assert first.abstract.startswith("The computational burden of attention in long-context")
    assert first.abstract.endswith("with loss spikes reduced by 98%.")
    assert "\n" not in first.abstract
    assert third.categories == ["cs.AI", "cs.CL"]
    assert fifth.doi == "10.1016/j.cosrev.2026.100893"
    assert fifth.authors[-2:] == ["Zhixiong He", "Keqin Li"]  # "..., and Keqin Li"
    assert fifth.abstract.endswith(
        "\\href{https://github.com/Tan-YiLong/Overview-of-Fake-News-Detection}"
        "{https://github.com/Tan-YiLong/Overview-of-Fake-News-Detection}."
    )
    assert "arxiv.org/abs" not in fifth.abstract  # the "\\ ( url , size)" line is not abstract


def test_friday_mailing_is_dated_monday_and_keeps_latex_in_names() -> None:
    items = read(JAN26)
    assert len(papers(items)) == 10 and not errors(items)
    assert {p.listings[0].date for p in papers(items)} == {date(2026, 1, 26)}
    by_id = {p.id: p for p in papers(items)}
    assert "Tr\\'e Guillory" in by_id["2601.16286"].authors
    long_list = by_id["2601.16725"].authors
    assert long_list[:2] == ["Meituan LongCat Team", "Anchun Gui"]
    assert long_list[-1] == "Linsen Guo"  # "et al. (97 additional authors not shown)" dropped
    assert by_id["2601.16529"].authors[-2:] == ["Carl Preiksaitis", "Christian Rose"]


def test_malformed_mailing_keeps_good_records_and_reports_each_bad_one() -> None:
    items = read(MALFORMED)
    assert [p.id for p in papers(items)] == ["2601.99001", "2601.99003"]
    errs = errors(items)
    assert len(errs) == 3
    missing_id, truncated, duplicate = errs
    assert missing_id.record == "line 25" and "no arXiv id" in missing_id.message
    assert truncated.record == "2601.99002 (line 35)" and "cut off" in truncated.message
    assert duplicate.record == "2601.99001 (line 45)" and "duplicate" in duplicate.message
    assert all(e.source == MALFORMED.name for e in errs)
    last = papers(items)[-1]
    assert last.comments == "10 pages, submitted to ICSE 2026"
    assert last.listings[0].position == 5  # its place in the mailing as published
    assert last.listings[0].date == date(2026, 1, 22)  # Tue 21 Jan close → Wed 22 Jan


def test_new_cross_and_replacement_sections_give_each_kind() -> None:
    items = read(LISTINGS / "q-fin_new.PR")
    assert not errors(items)
    got = [(p.id, p.listings[0].kind, p.listings[0].category, p.listings[0].position)
           for p in papers(items)]  # fmt: skip
    assert got == [
        ("2303.06051", "new", "q-fin.PR", 1),
        ("2303.05654", "cross", "q-fin.PR", 2),
        ("2208.08746", "replace", "q-fin.PR", 3),
        ("2302.12500", "replace-cross", "q-fin.PR", 4),
    ]
    new, cross, replaced, replaced_cross = papers(items)
    assert new.announced == cross.announced == date(2023, 3, 13)  # Fri 10 Mar close → Mon
    assert replaced.announced is None and replaced_cross.announced is None


def test_replacement_keeps_the_revised_version_date_but_no_version_number() -> None:
    items = read(LISTINGS / "q-fin_new")
    replaced = {p.id: p for p in papers(items) if p.listings[0].kind == "replace"}
    assert set(replaced) == {"2011.00552", "2203.01664", "2206.14015"}
    tail = replaced["2206.14015"]
    assert tail.updated == date(2023, 3, 16)  # "replaced with revised version Thu, 16 Mar 2023"
    assert tail.versions == [] and tail.version is None and tail.published is None
    assert tail.abstract == ""
    assert tail.title == "Robust utility maximization with nonlinear continuous semimartingales"
    assert len(papers(items)) == 16
    assert [p.listings[0].position for p in papers(items)] == list(range(1, 17))


def test_cross_list_category_is_the_subscribed_one_named_in_the_header() -> None:
    # "Subject: q-fin.CP daily Subj-class mailing"; 2303.09406 is q-fin.ST cs.LG q-fin.CP
    [_, cross] = papers(read(LISTINGS / "q-fin_new.CP"))
    assert (cross.id, cross.listings[0].kind, cross.listings[0].category) == (
        "2303.09406",
        "cross",
        "q-fin.CP",
    )


def test_explicit_categories_choose_the_listing_of_a_cross_list() -> None:
    [_, cross] = papers(read(LISTINGS / "q-fin_new.CP", categories=["cs.LG"]))
    assert cross.listings[0].category == "cs.LG"


def test_listing_category_falls_back_to_the_first_non_primary_for_cross_lists() -> None:
    assert listing_category("cross", ["math.GR", "math.DS", "math.AG"], []) == "math.DS"
    assert listing_category("cross", ["math.GR", "math.DS", "math.AG"], ["math.AG"]) == "math.AG"
    assert listing_category("new", ["cs.AI", "cs.CL"], []) == "cs.AI"
    assert listing_category("new", ["cs.AI", "cs.CL"], ["cs"]) == "cs.AI"
    assert listing_category("replace", ["q-fin.ST", "q-fin.RM"], ["q-fin.RM"]) == "q-fin.RM"


def test_truncated_mailing_keeps_the_records_before_the_cut() -> None:
    data = JAN23.read_bytes()
    cut = data[: data.index(b"Buffer (SLB), a predictive caching")]  # inside record 4
    items = read_bytes(cut)
    assert [p.id for p in papers(items)] == ["2601.15305", "2601.15306", "2601.15307"]
    [err] = errors(items)
    assert err.record.startswith("2601.15311") and "cut off" in err.message


def test_truncated_inside_a_header_is_a_record_error() -> None:
    data = JAN23.read_bytes()
    cut = data[: data.index(b"Authors: Ethan Zhang")]
    items = read_bytes(cut)
    assert [p.id for p in papers(items)] == ["2601.15305"]
    [err] = errors(items)
    assert err.record.startswith("2601.15306") and "header" in err.message


def test_record_without_title_names_the_record() -> None:
    data = JAN23.read_bytes().replace(b"Title: Uncovering Latent Bias", b"Tilte: Uncovering")
    items = read_bytes(data)
    [err] = errors(items)
    assert err.record.startswith("2601.15306") and "no Title" in err.message
    assert len(papers(items)) == 4


def test_bad_id_is_a_record_error() -> None:
    data = JAN23.read_bytes().replace(b"arXiv:2601.15306\n", b"arXiv:2613.15306\n")
    [err] = errors(read_bytes(data))
    assert "2613.15306" in err.record and "not an arXiv id" in err.message


def test_unicode_latin1_and_crlf_input_is_read_as_text() -> None:
    data = JAN23.read_bytes().replace(b"Authors: Ethan Zhang", "Authors: 张伟 and José Núñez".encode())
    by_id = {p.id: p for p in papers(read_bytes(data.replace(b"\n", b"\r\n")))}
    assert by_id["2601.15306"].authors == ["张伟", "José Núñez"]
    latin1 = JAN23.read_bytes().replace(b"Authors: Ethan Zhang", "Authors: José".encode("latin-1"))
    assert {p.id: p for p in papers(read_bytes(latin1))}["2601.15306"].authors == ["José"]


@pytest.mark.parametrize(("data", "message"), [(b"", "empty file"), (b"\x00\x01garbage", "no records")])
def test_empty_or_foreign_input_is_one_record_error(data: bytes, message: str) -> None:
    [err] = read_bytes(data)
    assert isinstance(err, RecordError) and message in err.message
