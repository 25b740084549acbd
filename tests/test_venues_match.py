"""When a venue's record and an arXiv paper are one paper (``sources/venue_match.py``): titles agree through
case, punctuation, Unicode quotes and dashes, LaTeX forms, accents and a subtitle dropped or added; authors
through initials and an author added or missing; never by a title alone."""

from __future__ import annotations

import pytest

from papersift.sources.venue_match import (
    SURE_TITLE,
    TITLE_AGREES,
    agreement,
    main_title,
    parsed_names,
    title_agreement,
    title_key,
)

# (a venue's spelling, arXiv's spelling) of real titles: one paper each
SAME_TITLES = [
    ("BEVCalib: LiDAR-Camera Calibration via Geometry-Guided Bird’s-Eye View Representation",
     "BEVCALIB: LiDAR-Camera Calibration via Geometry-Guided Bird's-Eye View Representation"),
    ("$Q$-learning with Function Approximation", "Q-Learning With Function Approximation"),
    (r"$\mathcal{O}$-GNN: incorporating ring priors", "O-GNN: Incorporating Ring Priors"),
    (r"$\mathcal{O}$-GNN: incorporating ring priors", "𝒪-GNN — Incorporating Ring Priors"),
    ("Mobi-$\\pi$: Mobilizing Your Robot Learning Policy", "Mobi-$π$: Mobilizing Your Robot Learning Policy"),
    ("NüshuRescue and Schrödinger’s Cat", "NushuRescue and Schrodinger's cat"),
    ("“Stack It Up!”: 3D Stable Structure Generation", '"Stack It Up!": 3D Stable Structure Generation'),
    ("Learning Effective Language Representations for Sequential Recommendation",
     "JEPA4Rec: Learning Effective Language Representations for Sequential Recommendation"),
    ("Cobra", "Cobra: Efficient Line Art COlorization with BRoAder References"),
    ("AdaptMI: Adaptive Skill-based In-context Math Instructions for Small Language Models",
     "AdaptMI: Adaptive Skill-based In-context Math Instruction for Small Language Models"),
]  # fmt: skip


@pytest.mark.parametrize(("venue", "arxiv"), SAME_TITLES)
def test_titles_of_one_paper_agree(venue: str, arxiv: str) -> None:
    assert title_agreement(venue, arxiv) >= TITLE_AGREES
    assert title_agreement(arxiv, venue) >= TITLE_AGREES


def test_other_titles_do_not() -> None:
    # a title near another by its letters agrees less surely: it needs two of the authors, not one
    near = title_agreement("Attention Is All You Need", "Attention Is Not All You Need")
    assert TITLE_AGREES <= near < SURE_TITLE
    record = parsed_names(["Ashish Vaswani", "Noam Shazeer"])
    paper = ["Ashish Vaswani", "Someone Else"]
    assert not agreement(
        "Attention Is All You Need", record, "Attention Is Not All You Need", paper
    ).same_paper
    assert title_agreement("Attention Is All You Need", "Attention Needs Some Other Things") < TITLE_AGREES
    assert title_agreement("Cobra: Line Art", "Cobra: Robust Mamba Models") < TITLE_AGREES  # short mains
    assert title_agreement("", "Anything") == 0.0


def test_a_key_is_letters_and_digits_of_the_text() -> None:
    assert title_key(r"$\mathcal{O}$-GNN") == title_key("O-GNN") == title_key("𝒪–GNN") == "ognn"
    assert title_key("Schrödinger’s {Cat}") == "schrodingerscat"
    assert main_title("BEVCalib: LiDAR Calibration") == "BEVCalib"
    assert main_title("A Title Without Subtitle") == "A Title Without Subtitle"


def test_initials_and_an_author_added_or_missing_still_agree() -> None:
    paper = ["Jean-François Quint", "Ada Lovelace", "Alan M. Turing", "Grace Hopper"]
    for record in (
        ["J.-F. Quint", "A. Lovelace", "A. Turing", "G. Hopper"],  # initials
        ["Jean-François Quint", "Ada Lovelace", "Alan M. Turing"],  # one missing
        ["Jean-Francois Quint", "Ada Lovelace", "Alan M. Turing", "Grace Hopper", "Edsger Dijkstra"],  # added
        ["Quint, Jean-François", "Lovelace, Ada", "Turing, Alan", "Hopper, Grace"],
    ):
        said = agreement("A Title", parsed_names(record), "A Title", paper)
        assert said.same_paper, record


def test_never_by_title_alone() -> None:
    generic = "Towards Robust Learning"
    other = agreement(generic, parsed_names(["Ada Lovelace", "Alan Turing"]), generic, ["Grace Hopper"])
    assert other.title == 1.0 and not other.same_paper
    nobody = agreement(generic, parsed_names([]), generic, ["Grace Hopper"])
    assert not nobody.same_paper
    one_of_four = agreement(
        generic, parsed_names(["A Wang", "B Li", "C Zhang", "D Chen"]), generic, ["A Wang"]
    )
    assert one_of_four.same_paper  # the shorter list (one name) is in the other
    few = agreement(
        generic,
        parsed_names(["A Wang", "B Li", "C Zhang", "D Chen"]),
        generic,
        ["A Wang", "E F", "G H", "I J"],
    )
    assert not few.same_paper  # one of four in common is not enough


def test_a_short_main_part_needs_more_of_the_authors() -> None:
    record = parsed_names(["Junhao Zhuang", "Lingen Li", "Xuan Ju"])
    full = "Cobra: Efficient Line Art COlorization with BRoAder References"
    assert agreement("Cobra", record, full, ["Junhao Zhuang", "Lingen Li", "Xuan Ju"]).same_paper
    assert not agreement("Cobra", record, full, ["Junhao Zhuang", "Someone Else", "Another One"]).same_paper
