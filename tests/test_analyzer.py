"""The one text analyzer (records/analyzer.py): folding, tokens, the plural rule, stems, stop words; and
that no other module folds accents its own way."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from papersift.index.lexical import terms
from papersift.records.analyzer import (
    STOP_WORDS,
    fold,
    fold_letters,
    fold_title,
    index_words,
    name_words,
    singular,
    singular_acronym,
    stem,
    stem_words,
    words,
)

SRC = Path(__file__).resolve().parents[1] / "src" / "papersift"


def test_fold_drops_accents_to_ascii_and_lower_cases() -> None:
    assert fold("Schrödinger ÅNGSTRÖM naïve") == "schrodinger angstrom naive"
    assert fold("ﬁnite") == "finite"  # compatibility forms decomposed too
    assert fold("β-decay 张伟") == "-decay "  # no ASCII form: dropped


def test_fold_letters_keeps_other_scripts() -> None:
    assert fold_letters("Jérôme MÜLLER") == "jerome muller"
    assert fold_letters("张伟 Ωmega") == "张伟 ωmega"
    assert fold_letters("Straße") == "strasse"  # case folded, not only lower-cased


def test_fold_title_compares_letters_and_digits_only() -> None:
    assert fold_title("Schrödinger's Cat: a {GNN} study, 2nd ed.") == fold_title(
        "schrodingers cat a GNN study 2nd ed"
    )
    assert fold_title("Graph nets") != fold_title("Graph net")


def test_words_are_word_runs_as_written() -> None:
    assert words("β-decay's GNNs (2024)") == ["β", "decay", "s", "GNNs", "2024"]


def test_name_words_are_a_names_folded_words_with_inner_hyphens_and_apostrophes() -> None:
    assert name_words("Jean-Luc O'Néil, Jr. 3rd") == ["jean-luc", "o'neil", "jr", "rd"]


def test_index_words_are_folded_ascii_tokens_of_two_characters_or_more() -> None:
    assert index_words("Über-Graph a 3D x_1 GNNs, naïve") == ["uber", "graph", "x_1", "gnns", "naive"]


def test_the_lexical_terms_read_index_words_without_stop_words_and_their_pairs() -> None:
    assert terms("The Naïve Graph of GNNs") == ["naive", "graph", "gnns", "naive graph", "graph gnns"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("networks", "network"),
        ("gans", "gan"),
        ("models", "model"),
        ("studies", "studie"),
        ("loss", "loss"),
        ("corpus", "corpus"),
        ("analysis", "analysis"),
        ("gas", "gas"),  # three letters: never
        ("graph", "graph"),
    ],
)
def test_singular_is_one_rule(word: str, expected: str) -> None:
    assert singular(word) == expected


def test_singular_acronym_drops_the_s_of_a_short_form_only() -> None:
    assert [singular_acronym(w) for w in ("GNNs", "LLMs", "IoT", "Ts", "gnns")] == [
        "GNN",
        "LLM",
        "IoT",
        "Ts",
        "gnns",
    ]


def test_stem_is_snowball_english() -> None:
    assert stem("networks") == "network"
    assert stem("learning") == "learn"
    assert stem_words(["generalization", "generalizes"]) == ["general", "general"]


def test_stop_words_are_function_words_only() -> None:
    assert {"the", "of", "and", "we", "via"} <= STOP_WORDS
    assert not {"graph", "model", "quantum"} & STOP_WORDS
    assert all(w == w.lower() for w in STOP_WORDS)


# modules that compose accents (LaTeX → Unicode, NFC) legitimately normalize; NFKD/NFD folding is the
# analyzer's alone
_DECOMPOSE = re.compile(r"""unicodedata\.normalize\(\s*["']NF(?:K?D)["']""")


def test_no_module_but_the_analyzer_folds_accents_its_own_way() -> None:
    own = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if path != SRC / "records" / "analyzer.py" and _DECOMPOSE.search(path.read_text(encoding="utf-8"))
    ]
    assert not own, f"fold with records.analyzer (fold, fold_letters), not by hand: {own}"
