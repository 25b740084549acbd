"""The record and the one id normaliser."""

from __future__ import annotations

import pytest

from papersift.paper import (
    InvalidIdError,
    clean_text,
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
    ],
)
def test_ids_normalise_and_keep_the_version(raw: str, expected: str, version: int | None) -> None:
    parsed = parse_id(raw)
    assert (parsed.id, parsed.version) == (expected, version)
    assert normalize_id(raw) == expected


@pytest.mark.parametrize("raw", ["", "abc", "2413.12345", "12345", "hep-th/99", "2410.123"])
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
