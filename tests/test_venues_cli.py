"""``papersift venues import``, ``venues`` and ``venue NAME YEAR``, and venues on the paths every paper takes:
``show`` (a linked paper carries its venue; a venue paper is shown by its id), ``search`` (a venue paper
found by its title in every mode, ``--venue`` as a filter), ``related`` and the library. COLM 2025's real
list over its real arXiv papers (``colm_home``), CoRL 2025's into an empty home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from papersift.records.paper import is_arxiv_id
from papersift.records.venues import is_venue_id
from tests.support.homes import home_copy
from tests.support.inproc import invoke

VENUE = {"venue": "COLM", "year": 2025, "status": "Poster", "track": "main"}


def lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def listed(colm_home: Path) -> list[dict[str, object]]:
    return lines(invoke("venue", "COLM", "2025", "--format", "json", home=colm_home).stdout)


def test_venue_lists_every_record_with_its_link(listed: list[dict[str, object]], colm_home: Path) -> None:
    assert len(listed) == 418
    linked = [r for r in listed if r["arxiv"]]
    assert len(linked) >= 200 and all(is_arxiv_id(str(r["arxiv"])) for r in linked)
    assert all(is_venue_id(str(r["id"])) and r["status"] == "Poster" for r in listed)
    assert all(r["paper"] == (r["arxiv"] or r["id"]) for r in listed)
    oral = invoke("venue", "colm", "2025", "--status", "Oral", home=colm_home, check=False)
    assert oral.returncode == 1 and "no record of colm 2025 is Oral; its statuses: Poster 418" in oral.stderr
    none = invoke("venue", "CoRL", "2025", home=colm_home, check=False)
    assert none.returncode == 1 and "no accept list of CoRL 2025 is imported" in none.stderr
    text = invoke("venue", "COLM", "2025", home=colm_home).stdout
    assert text.startswith("#001 [Poster] ") and "no arXiv version: colm2025-" in text


def test_venues_lists_each_venue_with_its_counts(listed: list[dict[str, object]], colm_home: Path) -> None:
    linked = sum(1 for r in listed if r["arxiv"])
    said = invoke("venues", home=colm_home).stdout
    assert said.strip() == f"COLM 2025: 418 records, {linked} linked to arXiv; Poster 418"
    (summary,) = lines(invoke("venues", "--format", "json", home=colm_home).stdout)
    assert summary["statuses"] == {"Poster": 418} and summary["linked"] == linked
    zh = invoke("venues", home=colm_home, env={"PAPERSIFT_LANG": "zh"}).stdout
    assert "COLM 2025" in zh and "records" not in zh


def test_show_of_a_linked_paper_carries_its_venue(listed: list[dict[str, object]], colm_home: Path) -> None:
    pid = str(next(r["arxiv"] for r in listed if r["arxiv"]))
    shown = json.loads(invoke("show", pid, "--format", "json", home=colm_home).stdout)
    assert shown["venues"] == [VENUE] and shown["abs_url"] == f"https://arxiv.org/abs/{pid}"
    assert "accepted: COLM · 2025 · Poster" in invoke("show", pid, home=colm_home).stdout


def test_a_venue_paper_is_shown_found_in_every_mode_and_has_related_papers(
    listed: list[dict[str, object]], colm_home: Path
) -> None:
    record = next(r for r in listed if not r["arxiv"])
    vid = str(record["id"])
    shown = json.loads(invoke("show", vid, "--format", "json", home=colm_home).stdout)
    assert (shown["id"], shown["title"], shown["venues"]) == (vid, record["title"], [VENUE])
    assert shown["abs_url"].startswith("https://openreview.net/forum?id=") and shown["categories"] == []
    text = invoke("show", vid, home=colm_home).stdout
    assert text.startswith(f"{vid}\n") and "arxiv.org" not in text
    for mode in ("keyword", "semantic", "hybrid"):
        found = lines(
            invoke("search", str(record["title"]), "--mode", mode, "--format", "json", home=colm_home).stdout
        )
        assert found[0]["id"] == vid and found[0]["venues"] == [VENUE], mode
    (related,) = lines(invoke("related", vid, "--format", "json", home=colm_home).stdout)
    assert related["results"] and all(r["id"] != vid for r in related["results"])
    assert any(r["venues"] == [VENUE] for r in related["results"])  # its venue's papers are near it


def test_search_filters_by_venue(colm_home: Path) -> None:
    hits = lines(
        invoke("search", "language models", "--venue", "COLM", "--format", "json", home=colm_home).stdout
    )
    assert hits and all(h["venues"] == [VENUE] for h in hits)
    none = invoke("search", "language models", "--venue", "CoRL", "--format", "json", home=colm_home)
    assert none.stdout.strip() == ""


def test_a_venue_paper_is_saved_to_the_library_with_its_venue(
    listed: list[dict[str, object]], colm_home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    home = home_copy(colm_home, tmp_path_factory, "venue-library")
    vid = str(next(r["id"] for r in listed if not r["arxiv"]))
    invoke("library", "add", vid, home=home)
    (entry,) = lines(invoke("library", "list", "--format", "json", home=home).stdout)
    assert (entry["id"], entry["venues"]) == (vid, [VENUE])


def test_import_says_what_it_did_and_a_second_import_changes_nothing(
    shared_data: Path, tmp_path: Path
) -> None:
    corl = str(shared_data / "venues" / "corl2025.json.gz")
    first = invoke("venues", "import", corl, home=tmp_path).stdout
    assert (
        "corl2025.json.gz: CoRL 2025: 263 records read, 0 linked to an arXiv paper, 263 kept as venue "
        "papers, 0 skipped" in first
    )
    assert "263 new, 0 changed, 0 unchanged, 0 removed" in first
    again = invoke("venues", "import", corl, home=tmp_path).stdout
    assert "0 new, 0 changed, 263 unchanged, 0 removed" in again
    siggraph = invoke("venues", "import", str(shared_data / "venues" / "siggraph2025.json.gz"), home=tmp_path)
    assert "406 records read" in siggraph.stdout and "304 skipped" in siggraph.stdout
    assert "skipped 304: the same record again (same id)" in siggraph.stdout
    assert "record 7 (549a18ffaa) skipped: the same record again (same id)" in siggraph.stderr
    assert (
        "CoRL 2025: 263 records, 0 linked to arXiv; Poster 221, Oral 42"
        in invoke("venues", home=tmp_path).stdout
    )


def test_import_refuses_bad_input_with_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "colm2025.json"
    bad.write_text('{"title": "an object"}', encoding="utf-8")
    ran = invoke("venues", "import", str(bad), home=tmp_path, check=False)
    assert ran.returncode == 1 and "error: colm2025.json is not a JSON array of records" in ran.stderr
    bad.write_text("[]", encoding="utf-8")
    slash = invoke(
        "venues", "import", str(bad), "--venue", "A/B", "--year", "2025", home=tmp_path, check=False
    )
    assert slash.returncode == 1 and "not a venue name: A/B" in slash.stderr
    missing = invoke("venues", "import", str(tmp_path / "none.json"), home=tmp_path, check=False)
    assert missing.returncode == 1 and "no such file" in missing.stderr
    assert invoke("venues", home=tmp_path).stdout.startswith("no accept lists imported yet")
