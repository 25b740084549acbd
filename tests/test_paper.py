"""The record and the one id normaliser."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from papersift.records.paper import (
    InvalidIdError,
    Paper,
    Submitted,
    Version,
    clean_text,
    first_submitted,
    id_month,
    months_between,
    normalize_id,
    parse_id,
    split_authors,
)


@pytest.mark.parametrize(
    ("raw", "expected", "version"),
    [
        ("2410.12345", "2410.12345", None),
        ("2410.12345v3", "2410.12345", 3),
        ("arXiv:0704.0001v2", "0704.0001", 2),
        ("https://arxiv.org/abs/2410.12345v1", "2410.12345", 1),
        ("http://export.arxiv.org/pdf/2410.12345.pdf", "2410.12345", None),
        ("hep-th/9901001", "hep-th/9901001", None),
        ("hep-th/9901001v2", "hep-th/9901001", 2),
        ("math.GT/0309136", "math/0309136", None),
        ("  arxiv:HEP-TH/9901001 ", "hep-th/9901001", None),
        ("https://arxiv.org/abs/2410.12345v2?context=cs", "2410.12345", 2),  # as arXiv's pages link it
        ("https://arxiv.org/pdf/hep-th/9901001v1.pdf#page=3", "hep-th/9901001", 1),
        ("arxiv.org/html/2410.12345v1#S2", "2410.12345", 1),
    ],
)
def test_ids_normalise_and_keep_the_version(raw: str, expected: str, version: int | None) -> None:
    parsed = parse_id(raw)
    assert (parsed.id, parsed.version) == (expected, version)
    assert normalize_id(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "abc",
        "2413.12345",
        "12345",
        "hep-th/99",
        "2410.123",
        "2410.12345?x",
        "https://arxiv.org/abs/?2410.12345",
    ],
)
def test_non_ids_are_rejected(raw: str) -> None:
    with pytest.raises(InvalidIdError):
        normalize_id(raw)


def test_authors_split_drops_affiliations_and_handles_and() -> None:
    text = "C. Bal\\'azs, E. L. Berger (ANL),\n  P. M. Nadolsky, and C.-P. Yuan (Michigan State (MSU))"
    assert split_authors(text) == ["C. Bal\\'azs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan"]
    assert split_authors("A and B") == ["A", "B"]


def test_clean_text_unwraps_and_keeps_latex_and_scripts() -> None:
    assert clean_text("  $^{210}$Fr\n  levels \u05e9\u05dc\u05d5\u05dd 中文 ") == (
        "$^{210}$Fr levels \u05e9\u05dc\u05d5\u05dd 中文"
    )


def test_first_submitted_is_v1s_date_else_the_ids_month_for_a_paper_re_listed_long_after() -> None:
    def paper(pid: str, **dates: object) -> Paper:
        return Paper(pid, "T", [], "A", ["cs.CL"], **dates)  # type: ignore[arg-type]

    day, relisted = date(2023, 9, 14), date(2025, 5, 27)
    assert first_submitted(paper("2309.01234", published=day, announced=relisted)) == Submitted(day, True)
    v1 = [Version(2, datetime(2024, 1, 2, tzinfo=UTC)), Version(1, datetime(2023, 9, 14, 17, tzinfo=UTC))]
    assert first_submitted(paper("2309.01234", versions=v1, announced=relisted)) == Submitted(day, True)
    # re-listed 20 months later with no submission date: only the id's month is known
    assert first_submitted(paper("2309.01234", announced=relisted)) == Submitted(date(2023, 9, 1), False)
    assert first_submitted(paper("2407.00012")) == Submitted(date(2024, 7, 1), False)
    # a new paper, announced the month its id names or the next: the announcement day
    for announced in (date(2023, 9, 18), date(2023, 10, 2)):
        assert first_submitted(paper("2309.01234", announced=announced)) == Submitted(announced, True)
    assert first_submitted(paper("hep-th/9901001", announced=relisted)) == Submitted(date(1999, 1, 1), False)
    assert id_month("math/0309136") == date(2003, 9, 1) and id_month("not-an-id") is None
    assert first_submitted(paper("not-an-id", announced=relisted)) == Submitted(relisted, True)
    assert first_submitted(paper("not-an-id")) is None
    assert months_between(date(2023, 9, 1), date(2024, 7, 1)) == 10
