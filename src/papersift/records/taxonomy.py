"""arXiv's subject taxonomy: its groups, archives and categories with their English names.

Written out by hand from the public list at https://arxiv.org/category_taxonomy (groups in English and
中文). Ids arXiv lists twice under two archives (``math.IT`` and ``cs.IT``…) are both here, the alias
pointing at the canonical id; ids of archives that were folded into categories long ago (``chao-dyn`` →
``nlin.CD``) resolve to their successor. Pure data and lookups: nothing here touches the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Category:
    """One subject class (``cs.LG``) or flat archive (``hep-th``), with the canonical id if an alias."""

    id: str
    name: str
    archive: str
    alias_of: str | None = None


@dataclass(frozen=True, slots=True)
class Archive:
    """An archive (``cs``, ``astro-ph``); a flat one (``hep-th``) is its own single category."""

    id: str
    name: str
    categories: tuple[Category, ...]

    @property
    def flat(self) -> bool:
        return len(self.categories) == 1 and self.categories[0].id == self.id


@dataclass(frozen=True, slots=True)
class Group:
    """One of arXiv's eight subject groups (``Physics``…), named in English and Chinese."""

    id: str
    name: str
    name_zh: str
    archives: tuple[Archive, ...]


# arXiv lists these ids as aliases of the canonical id on the right
ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "math.IT": "cs.IT",
        "math.MP": "math-ph",
        "stat.TH": "math.ST",
        "q-fin.EC": "econ.GN",
        "cs.SY": "eess.SY",
        "cs.NA": "math.NA",
    }
)

# archives of the 1990s that arXiv later folded into a category (old papers still carry these ids)
SUBSUMED: Mapping[str, str] = MappingProxyType(
    {
        "acc-phys": "physics.acc-ph",
        "adap-org": "nlin.AO",
        "alg-geom": "math.AG",
        "ao-sci": "physics.ao-ph",
        "atom-ph": "physics.atom-ph",
        "bayes-an": "physics.data-an",
        "chao-dyn": "nlin.CD",
        "chem-ph": "physics.chem-ph",
        "cmp-lg": "cs.CL",
        "comp-gas": "nlin.CG",
        "dg-ga": "math.DG",
        "funct-an": "math.FA",
        "mtrl-th": "cond-mat.mtrl-sci",
        "patt-sol": "nlin.PS",
        "plasm-ph": "physics.plasm-ph",
        "q-alg": "math.QA",
        "solv-int": "nlin.SI",
        "supr-con": "cond-mat.supr-con",
    }
)

_Table = tuple[tuple[str, str, str, tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]], ...]


def _flat(archive: str, name: str) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    return (archive, name, ((archive, name),))


# (group id, name, 中文名, ((archive id, name, ((category id, name), …)), …)), in arXiv's order
_TABLE: _Table = (
    (
        "cs",
        "Computer Science",
        "计算机科学",
        (
            (
                "cs",
                "Computer Science",
                (
                    ("cs.AI", "Artificial Intelligence"),
                    ("cs.AR", "Hardware Architecture"),
                    ("cs.CC", "Computational Complexity"),
                    ("cs.CE", "Computational Engineering, Finance, and Science"),
                    ("cs.CG", "Computational Geometry"),
                    ("cs.CL", "Computation and Language"),
                    ("cs.CR", "Cryptography and Security"),
                    ("cs.CV", "Computer Vision and Pattern Recognition"),
                    ("cs.CY", "Computers and Society"),
                    ("cs.DB", "Databases"),
                    ("cs.DC", "Distributed, Parallel, and Cluster Computing"),
                    ("cs.DL", "Digital Libraries"),
                    ("cs.DM", "Discrete Mathematics"),
                    ("cs.DS", "Data Structures and Algorithms"),
                    ("cs.ET", "Emerging Technologies"),
                    ("cs.FL", "Formal Languages and Automata Theory"),
                    ("cs.GL", "General Literature"),
                    ("cs.GR", "Graphics"),
                    ("cs.GT", "Computer Science and Game Theory"),
                    ("cs.HC", "Human-Computer Interaction"),
                    ("cs.IR", "Information Retrieval"),
                    ("cs.IT", "Information Theory"),
                    ("cs.LG", "Machine Learning"),
                    ("cs.LO", "Logic in Computer Science"),
                    ("cs.MA", "Multiagent Systems"),
                    ("cs.MM", "Multimedia"),
                    ("cs.MS", "Mathematical Software"),
                    ("cs.NA", "Numerical Analysis"),
                    ("cs.NE", "Neural and Evolutionary Computing"),
                    ("cs.NI", "Networking and Internet Architecture"),
                    ("cs.OH", "Other Computer Science"),
                    ("cs.OS", "Operating Systems"),
                    ("cs.PF", "Performance"),
                    ("cs.PL", "Programming Languages"),
                    ("cs.RO", "Robotics"),
                    ("cs.SC", "Symbolic Computation"),
                    ("cs.SD", "Sound"),
                    ("cs.SE", "Software Engineering"),
                    ("cs.SI", "Social and Information Networks"),
                    ("cs.SY", "Systems and Control"),
                ),
            ),
        ),
    ),
    (
        "econ",
        "Economics",
        "经济学",
        (
            (
                "econ",
                "Economics",
                (
                    ("econ.EM", "Econometrics"),
                    ("econ.GN", "General Economics"),
                    ("econ.TH", "Theoretical Economics"),
                ),
            ),
        ),
    ),
    (
        "eess",
        "Electrical Engineering and Systems Science",
        "电气工程与系统科学",
        (
            (
                "eess",
                "Electrical Engineering and Systems Science",
                (
                    ("eess.AS", "Audio and Speech Processing"),
                    ("eess.IV", "Image and Video Processing"),
                    ("eess.SP", "Signal Processing"),
                    ("eess.SY", "Systems and Control"),
                ),
            ),
        ),
    ),
    (
        "math",
        "Mathematics",
        "数学",
        (
            (
                "math",
                "Mathematics",
                (
                    ("math.AC", "Commutative Algebra"),
                    ("math.AG", "Algebraic Geometry"),
                    ("math.AP", "Analysis of PDEs"),
                    ("math.AT", "Algebraic Topology"),
                    ("math.CA", "Classical Analysis and ODEs"),
                    ("math.CO", "Combinatorics"),
                    ("math.CT", "Category Theory"),
                    ("math.CV", "Complex Variables"),
                    ("math.DG", "Differential Geometry"),
                    ("math.DS", "Dynamical Systems"),
                    ("math.FA", "Functional Analysis"),
                    ("math.GM", "General Mathematics"),
                    ("math.GN", "General Topology"),
                    ("math.GR", "Group Theory"),
                    ("math.GT", "Geometric Topology"),
                    ("math.HO", "History and Overview"),
                    ("math.IT", "Information Theory"),
                    ("math.KT", "K-Theory and Homology"),
                    ("math.LO", "Logic"),
                    ("math.MG", "Metric Geometry"),
                    ("math.MP", "Mathematical Physics"),
                    ("math.NA", "Numerical Analysis"),
                    ("math.NT", "Number Theory"),
                    ("math.OA", "Operator Algebras"),
                    ("math.OC", "Optimization and Control"),
                    ("math.PR", "Probability"),
                    ("math.QA", "Quantum Algebra"),
                    ("math.RA", "Rings and Algebras"),
                    ("math.RT", "Representation Theory"),
                    ("math.SG", "Symplectic Geometry"),
                    ("math.SP", "Spectral Theory"),
                    ("math.ST", "Statistics Theory"),
                ),
            ),
        ),
    ),
    (
        "physics",
        "Physics",
        "物理学",
        (
            (
                "astro-ph",
                "Astrophysics",
                (
                    ("astro-ph.CO", "Cosmology and Nongalactic Astrophysics"),
                    ("astro-ph.EP", "Earth and Planetary Astrophysics"),
                    ("astro-ph.GA", "Astrophysics of Galaxies"),
                    ("astro-ph.HE", "High Energy Astrophysical Phenomena"),
                    ("astro-ph.IM", "Instrumentation and Methods for Astrophysics"),
                    ("astro-ph.SR", "Solar and Stellar Astrophysics"),
                ),
            ),
            (
                "cond-mat",
                "Condensed Matter",
                (
                    ("cond-mat.dis-nn", "Disordered Systems and Neural Networks"),
                    ("cond-mat.mes-hall", "Mesoscale and Nanoscale Physics"),
                    ("cond-mat.mtrl-sci", "Materials Science"),
                    ("cond-mat.other", "Other Condensed Matter"),
                    ("cond-mat.quant-gas", "Quantum Gases"),
                    ("cond-mat.soft", "Soft Condensed Matter"),
                    ("cond-mat.stat-mech", "Statistical Mechanics"),
                    ("cond-mat.str-el", "Strongly Correlated Electrons"),
                    ("cond-mat.supr-con", "Superconductivity"),
                ),
            ),
            _flat("gr-qc", "General Relativity and Quantum Cosmology"),
            _flat("hep-ex", "High Energy Physics - Experiment"),
            _flat("hep-lat", "High Energy Physics - Lattice"),
            _flat("hep-ph", "High Energy Physics - Phenomenology"),
            _flat("hep-th", "High Energy Physics - Theory"),
            _flat("math-ph", "Mathematical Physics"),
            (
                "nlin",
                "Nonlinear Sciences",
                (
                    ("nlin.AO", "Adaptation and Self-Organizing Systems"),
                    ("nlin.CD", "Chaotic Dynamics"),
                    ("nlin.CG", "Cellular Automata and Lattice Gases"),
                    ("nlin.PS", "Pattern Formation and Solitons"),
                    ("nlin.SI", "Exactly Solvable and Integrable Systems"),
                ),
            ),
            _flat("nucl-ex", "Nuclear Experiment"),
            _flat("nucl-th", "Nuclear Theory"),
            (
                "physics",
                "Physics",
                (
                    ("physics.acc-ph", "Accelerator Physics"),
                    ("physics.ao-ph", "Atmospheric and Oceanic Physics"),
                    ("physics.app-ph", "Applied Physics"),
                    ("physics.atm-clus", "Atomic and Molecular Clusters"),
                    ("physics.atom-ph", "Atomic Physics"),
                    ("physics.bio-ph", "Biological Physics"),
                    ("physics.chem-ph", "Chemical Physics"),
                    ("physics.class-ph", "Classical Physics"),
                    ("physics.comp-ph", "Computational Physics"),
                    ("physics.data-an", "Data Analysis, Statistics and Probability"),
                    ("physics.ed-ph", "Physics Education"),
                    ("physics.flu-dyn", "Fluid Dynamics"),
                    ("physics.gen-ph", "General Physics"),
                    ("physics.geo-ph", "Geophysics"),
                    ("physics.hist-ph", "History and Philosophy of Physics"),
                    ("physics.ins-det", "Instrumentation and Detectors"),
                    ("physics.med-ph", "Medical Physics"),
                    ("physics.optics", "Optics"),
                    ("physics.plasm-ph", "Plasma Physics"),
                    ("physics.pop-ph", "Popular Physics"),
                    ("physics.soc-ph", "Physics and Society"),
                    ("physics.space-ph", "Space Physics"),
                ),
            ),
            _flat("quant-ph", "Quantum Physics"),
        ),
    ),
    (
        "q-bio",
        "Quantitative Biology",
        "定量生物学",
        (
            (
                "q-bio",
                "Quantitative Biology",
                (
                    ("q-bio.BM", "Biomolecules"),
                    ("q-bio.CB", "Cell Behavior"),
                    ("q-bio.GN", "Genomics"),
                    ("q-bio.MN", "Molecular Networks"),
                    ("q-bio.NC", "Neurons and Cognition"),
                    ("q-bio.OT", "Other Quantitative Biology"),
                    ("q-bio.PE", "Populations and Evolution"),
                    ("q-bio.QM", "Quantitative Methods"),
                    ("q-bio.SC", "Subcellular Processes"),
                    ("q-bio.TO", "Tissues and Organs"),
                ),
            ),
        ),
    ),
    (
        "q-fin",
        "Quantitative Finance",
        "定量金融",
        (
            (
                "q-fin",
                "Quantitative Finance",
                (
                    ("q-fin.CP", "Computational Finance"),
                    ("q-fin.EC", "Economics"),
                    ("q-fin.GN", "General Finance"),
                    ("q-fin.MF", "Mathematical Finance"),
                    ("q-fin.PM", "Portfolio Management"),
                    ("q-fin.PR", "Pricing of Securities"),
                    ("q-fin.RM", "Risk Management"),
                    ("q-fin.ST", "Statistical Finance"),
                    ("q-fin.TR", "Trading and Market Microstructure"),
                ),
            ),
        ),
    ),
    (
        "stat",
        "Statistics",
        "统计学",
        (
            (
                "stat",
                "Statistics",
                (
                    ("stat.AP", "Applications"),
                    ("stat.CO", "Computation"),
                    ("stat.ME", "Methodology"),
                    ("stat.ML", "Machine Learning"),
                    ("stat.OT", "Other Statistics"),
                    ("stat.TH", "Statistics Theory"),
                ),
            ),
        ),
    ),
)

_GROUPS: tuple[Group, ...] = tuple(
    Group(
        gid,
        gname,
        gzh,
        tuple(
            Archive(aid, aname, tuple(Category(cid, cname, aid, ALIASES.get(cid)) for cid, cname in cats))
            for aid, aname, cats in archives
        ),
    )
    for gid, gname, gzh, archives in _TABLE
)
_CATEGORIES: dict[str, Category] = {c.id: c for g in _GROUPS for a in g.archives for c in a.categories}
_ARCHIVES: dict[str, Archive] = {a.id: a for g in _GROUPS for a in g.archives}
_GROUP_OF_ARCHIVE: dict[str, Group] = {a.id: g for g in _GROUPS for a in g.archives}
_BY_NAME: dict[str, str] = {c.name: c.id for c in _CATEGORIES.values() if c.alias_of is None}


def groups() -> list[Group]:
    """The eight groups with their archives and categories, in arXiv's order."""
    return list(_GROUPS)


def categories() -> list[Category]:
    """Every category id arXiv lists today (aliases included), in arXiv's order."""
    return list(_CATEGORIES.values())


def canonical(cat: str) -> str:
    """The id arXiv files ``cat`` under today: aliases and folded archives resolved, anything else as is."""
    cat = SUBSUMED.get(cat, cat)
    return ALIASES.get(cat, cat)


def category(cat: str) -> Category | None:
    """The category ``cat`` names (a folded 1990s archive gives its successor); None when unknown."""
    return _CATEGORIES.get(SUBSUMED.get(cat, cat))


def archive_of(cat: str) -> str | None:
    """The archive of a category (``cs.LG`` → ``cs``) or an archive id itself; None when unknown."""
    if cat in _ARCHIVES:
        return cat
    found = category(cat)
    return found.archive if found else None


def group_of(cat: str) -> Group | None:
    """The group a category or archive belongs to; None when unknown."""
    archive = archive_of(cat)
    return _GROUP_OF_ARCHIVE[archive] if archive else None


def category_name(cat: str) -> str | None:
    """The English name of a category or archive id (``cs.LG`` → ``Machine Learning``); None when unknown."""
    found = category(cat)
    if found is not None:
        return found.name
    archive = _ARCHIVES.get(cat)
    return archive.name if archive else None


def category_named(name: str) -> str | None:
    """The category whose English name is ``name`` (``Audio and Speech Processing`` → ``eess.AS``; an
    alias never: its canonical id); None when no category is so named."""
    return _BY_NAME.get(name)


def is_known(cat: str) -> bool:
    """Whether ``cat`` is an arXiv category, alias, archive or folded old archive id."""
    return category_name(cat) is not None


def _spellings() -> dict[str, str]:
    ids = [*_CATEGORIES, *_ARCHIVES, *ALIASES, *SUBSUMED]
    return {i.lower(): i for i in ids}


_SPELLINGS: Mapping[str, str] = MappingProxyType(_spellings())


def spelled(cat: str) -> str:
    """A category or archive id as arXiv spells it, in whatever case it was typed (``cs.lg`` → ``cs.LG``,
    ``Astro-Ph`` → ``astro-ph``); an unknown id as given."""
    return _SPELLINGS.get(cat.lower(), cat)


def nearest(cat: str, n: int = 3) -> list[str]:
    """The category ids arXiv has that are spelled most like ``cat`` (any case), for "did you mean"."""
    import difflib

    close = difflib.get_close_matches(cat.lower(), list(_SPELLINGS), n=n, cutoff=0.75)
    return list(dict.fromkeys(_SPELLINGS[c] for c in close))
