"""The .abs reader over arXiv's real .abs test tree, and arXiv's internal listing files."""

from __future__ import annotations

import io
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from papersift.records.paper import Paper, Parsed, RecordError, Version
from papersift.sources.abs import iter_abs, iter_abs_tree, iter_listing_file

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
ABS = DATA / "fixtures" / "abs_files"
FTP = ABS / "ftp"
LISTINGS = DATA / "fixtures" / "abs_files_listings"


def read(path: Path) -> list[Parsed]:
    with path.open("rb") as f:
        return list(iter_abs(f, path.name))


def read_bytes(data: bytes) -> list[Parsed]:
    return list(iter_abs(io.BytesIO(data), "mem.abs"))


def one(path: Path) -> Paper:
    [paper] = read(path)
    assert isinstance(paper, Paper), paper
    return paper


@pytest.fixture(scope="module")
def tree() -> list[Parsed]:
    return list(iter_abs_tree(ABS))


def test_whole_tree_parses_except_the_one_empty_file(tree: list[Parsed]) -> None:
    kinds = Counter(type(i).__name__ for i in tree)
    assert kinds == {"Paper": 1131, "RecordError": 1}  # 1,192 files less 60 under orig/
    [err] = [i for i in tree if isinstance(i, RecordError)]
    assert err.source.endswith("math-ph/papers/0509/0509037.abs")  # a 0-byte file upstream
    assert err.message == "empty file"
    found = [p for p in tree if isinstance(p, Paper)]
    # ids are unique but for an upstream quirk: cs/papers/0006/0006007.abs holds cs/0006008
    twice = [i for i, n in Counter(p.id for p in found).items() if n > 1]
    assert twice == ["cs/0006008"]
    assert all(p.title and p.authors and p.categories and p.versions for p in found)
    assert all(p.published is not None and p.version == p.versions[-1].version for p in found)
    assert sum(p.abstract != "" for p in found) == len(found)


def test_tree_skips_orig_older_versions(tree: list[Parsed]) -> None:
    assert not any("/orig/" in i.source for i in tree if isinstance(i, Paper))
    assert len(list(iter_abs_tree(ABS / "orig"))) == 60  # rooted there, they are read


def test_new_style_record_with_two_versions() -> None:
    paper = one(FTP / "arxiv/papers/0704/0704.0001.abs")
    assert paper.id == "0704.0001"
    assert paper.title == (
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    )
    assert paper.authors == ["C. Bal\\'azs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan"]
    assert paper.categories == ["hep-ph"]
    assert paper.versions == [
        Version(1, datetime(2007, 4, 2, 19, 18, 42, tzinfo=UTC), "443kb"),
        Version(2, datetime(2007, 7, 24, 20, 10, 27, tzinfo=UTC), "370kb"),
    ]
    assert (paper.version, paper.published, paper.updated) == (
        2,
        date(2007, 4, 2),
        date(2007, 7, 24),
    )
    assert paper.journal_ref == "Phys.Rev.D76:013009,2007"
    assert paper.doi == "10.1103/PhysRevD.76.013009"
    assert paper.comments == "37 pages, 15 figures; published version"
    assert paper.abstract.startswith("A fully differential calculation in perturbative quantum")
    assert paper.abstract.endswith("can be obtained with judicious selection of events.")
    assert paper.listings == [] and paper.announced is None


def test_old_style_id_with_three_versions() -> None:
    paper = one(FTP / "hep-th/papers/9901/9901001.abs")
    assert paper.id == "hep-th/9901001"
    assert [v.version for v in paper.versions] == [1, 2, 3]
    assert (paper.published, paper.updated) == (date(1999, 1, 1), date(1999, 5, 10))
    assert paper.doi == "10.1143/PTP.101.1155"


def test_many_versions_and_license(tree: list[Parsed]) -> None:
    eight = [p for p in tree if isinstance(p, Paper) and p.version == 8]
    assert len(eight) == 2 and all([v.version for v in p.versions] == list(range(1, 9)) for p in eight)
    licensed = [p for p in tree if isinstance(p, Paper) and p.license]
    assert len(licensed) == 105  # 134 "License:" lines in the tree, 29 of them under orig/
    assert "http://creativecommons.org/licenses/by/4.0/" in {p.license for p in licensed}


def test_oldest_record_without_categories_falls_back_to_its_archive() -> None:
    paper = one(ABS / "orig/hep-th/papers/9709/9709111v1.abs")
    assert paper.id == "hep-th/9709111"
    assert paper.categories == ["hep-th"]
    assert paper.version == 1
    assert paper.authors == ["Andrea Brignole", "Ferruccio Feruglio", "Fabio Zwirner"]


def test_latin1_file_is_decoded_not_dropped() -> None:
    paper = one(FTP / "arxiv/papers/1607/1607.08199.abs")
    assert paper.journal_ref is not None
    assert paper.journal_ref.startswith("Épijournal de Géométrie Algébrique")
    assert paper.version == 5
    assert "Marcello Bernardara" in paper.authors and "Emanuele Macr\\`i" in paper.authors


def test_latex_line_breaks_inside_an_abstract_do_not_end_it() -> None:
    paper = one(FTP / "arxiv/papers/2004/2004.02153.abs")
    assert "\\lambda(x) u - \\mu(x) u^\\kappa, \\\\ v_t = \\Delta v - v + u" in paper.abstract
    assert paper.abstract.endswith("collapse into a persistent Dirac distribution.")


def test_truncated_abs_file_is_a_record_error_naming_the_paper() -> None:
    data = (FTP / "arxiv/papers/0704/0704.0001.abs").read_bytes()
    [err] = read_bytes(data[: data.index(b"Collider (LHC)")])
    assert isinstance(err, RecordError)
    assert err.record.startswith("0704.0001") and "cut off" in err.message


def test_abs_file_cut_in_its_header_is_a_record_error() -> None:
    data = (FTP / "arxiv/papers/0704/0704.0001.abs").read_bytes()
    [err] = read_bytes(data[: data.index(b"Categories:")])
    assert isinstance(err, RecordError) and "header" in err.message


def test_abs_file_without_title_or_id_is_a_record_error() -> None:
    data = (FTP / "arxiv/papers/0704/0704.0001.abs").read_bytes()
    [no_title] = read_bytes(data.replace(b"Title:", b"Titel:"))
    assert isinstance(no_title, RecordError) and no_title.record.startswith("0704.0001")
    [no_id] = read_bytes(data.replace(b"arXiv:0704.0001\n", b""))
    assert isinstance(no_id, RecordError) and "no arXiv id" in no_id.message
    [not_abs] = read_bytes(b"<html>404</html>")
    assert isinstance(not_abs, RecordError)


def test_unicode_in_an_abs_file_is_kept() -> None:
    data = (FTP / "arxiv/papers/0704/0704.0001.abs").read_bytes()
    data = data.replace(b"Authors: C. Bal\\'azs", "Authors: 王小明, עברית, C. Bal\\'azs".encode())
    [paper] = read_bytes(data)
    assert isinstance(paper, Paper)
    assert paper.authors[:3] == ["王小明", "עברית", "C. Bal\\'azs"]


# --- arXiv's internal listing files ----------------------------------------------------------


def test_monthly_listing_reads_every_paper_without_an_announcement() -> None:
    with (LISTINGS / "astro-ph_0001").open("rb") as f:
        items = list(iter_listing_file(f, "astro-ph_0001"))
    assert len(items) == 605 and all(isinstance(p, Paper) for p in items)
    assert all(isinstance(p, Paper) and p.listings == [] for p in items)


def test_monthly_listing_counts_unnumbered_revisions() -> None:
    with (LISTINGS / "math-ph_9701").open("rb") as f:
        by_id = {p.id: p for p in iter_listing_file(f, "math-ph_9701") if isinstance(p, Paper)}
    paper = by_id["funct-an/9701002"]  # Date: + three "Date (revised):" lines
    assert [v.version for v in paper.versions] == [1, 2, 3, 4]
    assert paper.updated == date(1999, 4, 7)
    assert paper.journal_ref == (
        '"Photon and Poincare Group," V. Dvoeglazov (ed.), Nova Science Publishers (1999) 315-325'
    )


def test_pastweek_listing_takes_its_date_from_the_day_heading() -> None:
    with (LISTINGS / "math_pastweek.AG").open("rb") as f:
        [paper] = list(iter_listing_file(f, "math_pastweek.AG"))
    assert isinstance(paper, Paper)
    assert paper.listings[0].date == date(2023, 3, 3)  # "/* Fri, 3 Mar 2023 */"
    assert paper.listings[0].kind == "new" and paper.announced == date(2023, 3, 3)


def test_daily_listing_file_is_read_as_a_mailing() -> None:
    with (LISTINGS / "math_new.AG").open("rb") as f:
        items = list(iter_listing_file(f, "math_new.AG"))
    got = [(p.id, p.listings[0].kind, p.listings[0].category) for p in items if isinstance(p, Paper)]
    assert got == [("2306.77777", "cross", "math.AG"), ("2204.88888", "replace", "math.AG")]
