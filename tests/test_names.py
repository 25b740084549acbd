"""When two author spellings are one person: real name variants from the arXiv data."""

from __future__ import annotations

from papersift.index.lexical import author_key
from papersift.records.names import AuthorSet, same_author


def test_whole_given_names_must_agree_where_both_sides_spell_them_out() -> None:
    # "Xinyi Fan", "Xinyu Fan", "Xinyan Fan" are different authors of arXiv-20k sharing one author key
    assert author_key("Xinyi Fan") == author_key("Xinyue Fan") == "x fan"
    assert not same_author("Xinyi Fan", "Xinyue Fan")
    assert not same_author("Xinyi Fan", "Xinyu Fan")
    assert same_author("Xinyi Fan", "XINYI FAN")
    assert not same_author("Ivan Smith", "Aaron Smith")


def test_initials_match_only_by_initials() -> None:
    assert same_author("J. Smith", "John Smith") and same_author("J. Smith", "Jane Smith")
    assert not same_author("John Smith", "Jane Smith")
    assert not same_author("J. Smith", "A. Smith")
    assert same_author("M. J. Hÿtch", "Martin J. Hytch")


def test_accents_hyphens_and_order() -> None:
    assert same_author("Jérôme Darmont", "Jerome Darmont")
    assert same_author("Hélène Esnault", "H. Esnault")
    assert same_author("Jean-François Quint", "J.-F. Quint")
    assert same_author("Jean-François Quint", "J. Quint")
    assert same_author("Jean-François Quint", "Quint, Jean-François")
    assert not same_author("Jean-François Quint", "Jean-Pierre Quint")
    assert same_author("Chi-Kwong Li", "C.-K. Li") and not same_author("Chi-Kwong Li", "Chi-Tin Li")
    assert not same_author("Hao-Wei Huang", "Hao Huang")


def test_names_in_scripts_without_spaces_match_only_whole() -> None:
    assert same_author("张伟", "张伟") and not same_author("张伟", "张三")
    assert not same_author("张伟", "W. 张伟")


def test_an_author_set_names_the_shared_authors() -> None:
    library = AuthorSet(["Xinyue Fan", "J. Smith", "Jürgen Jost"])
    assert library.shared(["Xinyi Fan", "Jane Smith", "Jurgen Jost", "Ivan Smith"]) == (
        "Jane Smith",
        "Jurgen Jost",
    )
