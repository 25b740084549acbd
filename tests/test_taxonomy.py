"""arXiv's taxonomy table: complete, consistent, correctly named, and resolving old and alias ids."""

from __future__ import annotations

import pytest

from papersift.records.paper import is_exact_category
from papersift.records.taxonomy import (
    ALIASES,
    SUBSUMED,
    archive_of,
    canonical,
    categories,
    category_name,
    category_named,
    group_of,
    groups,
    is_known,
)


def test_the_eight_groups_in_arxivs_order_with_chinese_names() -> None:
    assert [(g.name, g.name_zh) for g in groups()] == [
        ("Computer Science", "计算机科学"),
        ("Economics", "经济学"),
        ("Electrical Engineering and Systems Science", "电气工程与系统科学"),
        ("Mathematics", "数学"),
        ("Physics", "物理学"),
        ("Quantitative Biology", "定量生物学"),
        ("Quantitative Finance", "定量金融"),
        ("Statistics", "统计学"),
    ]


def test_every_current_category_once_and_in_its_own_archive() -> None:
    cats = categories()
    ids = [c.id for c in cats]
    assert len(ids) == len(set(ids)) == 155
    archives = [a.id for g in groups() for a in g.archives]
    assert len(archives) == len(set(archives)) == 20
    for c in cats:
        assert c.archive in archives and c.name.strip() == c.name and c.name
        assert c.id == c.archive or c.id.startswith(c.archive + "."), c.id
        assert archive_of(c.id) == c.archive
    flat = [a.id for g in groups() for a in g.archives if a.flat]
    assert flat == [
        "gr-qc",
        "hep-ex",
        "hep-lat",
        "hep-ph",
        "hep-th",
        "math-ph",
        "nucl-ex",
        "nucl-th",
        "quant-ph",
    ]
    assert all(is_exact_category(a) for a in flat)  # the store matches flat archives exactly too


@pytest.mark.parametrize(
    ("cat", "name"),
    [
        ("cs.AI", "Artificial Intelligence"),
        ("cs.LG", "Machine Learning"),
        ("stat.ML", "Machine Learning"),
        ("cs.CE", "Computational Engineering, Finance, and Science"),
        ("math.GT", "Geometric Topology"),
        ("math.CA", "Classical Analysis and ODEs"),
        ("astro-ph.CO", "Cosmology and Nongalactic Astrophysics"),
        ("cond-mat.mes-hall", "Mesoscale and Nanoscale Physics"),
        ("hep-th", "High Energy Physics - Theory"),
        ("quant-ph", "Quantum Physics"),
        ("nlin.CG", "Cellular Automata and Lattice Gases"),
        ("physics.data-an", "Data Analysis, Statistics and Probability"),
        ("q-bio.NC", "Neurons and Cognition"),
        ("q-fin.TR", "Trading and Market Microstructure"),
        ("econ.GN", "General Economics"),
        ("eess.IV", "Image and Video Processing"),
        ("cs", "Computer Science"),
        ("cond-mat", "Condensed Matter"),
    ],
)
def test_names_as_arxiv_lists_them(cat: str, name: str) -> None:
    assert category_name(cat) == name and is_known(cat)


def test_aliases_resolve_to_the_canonical_category_and_share_its_name() -> None:
    aliases = "math.IT math.MP stat.TH q-fin.EC cs.SY cs.NA".split()
    assert dict(ALIASES) == dict(
        zip(aliases, "cs.IT math-ph math.ST econ.GN eess.SY math.NA".split(), strict=True)
    )
    for alias, target in ALIASES.items():
        assert canonical(alias) == target and is_known(alias)
        if alias != "q-fin.EC":  # arXiv names q-fin.EC "Economics", econ.GN "General Economics"
            assert category_name(alias) == category_name(target)
    assert category_name("q-fin.EC") == "Economics"
    group = group_of("cs.SY")
    assert archive_of("math.MP") == "math" and group is not None and group.name == "Computer Science"


def test_folded_1990s_archives_resolve_to_their_successor() -> None:
    for old, new in SUBSUMED.items():
        assert canonical(old) == new and category_name(old) == category_name(new)
    assert archive_of("chao-dyn") == "nlin" and category_name("cmp-lg") == "Computation and Language"
    assert category_name("astro-ph") == "Astrophysics" and archive_of("q-bio") == "q-bio"


def test_unknown_ids_are_none_not_guesses() -> None:
    for bad in ("na", "cs.XX", "cs.lg", "", "math.", "hep", "physics.acc"):
        assert category_name(bad) is None and archive_of(bad) is None and not is_known(bad)
        assert group_of(bad) is None and canonical(bad) == bad


def test_a_category_is_found_by_its_name_and_an_alias_gives_its_canonical_id() -> None:
    assert category_named("Audio and Speech Processing") == "eess.AS"
    assert category_named("Information Theory") == "cs.IT"  # math.IT shares the name
    assert category_named("large language models") is None
