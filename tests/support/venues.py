"""COLM 2025's real accept list and the store the venue tests share (``colm_home``, registered by
``tests/support/fixtures.py``): the papers of ``arxiv-300k`` whose titles are COLM's, ingested, the list
imported (its records linked to them, the others venue papers of their own), everything embedded."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import orjson
import pytest

from papersift.records.analyzer import fold_title
from tests.support.data import SHARED_DATA, write_jsonl
from tests.support.homes import built_once, seeded
from tests.support.inproc import invoke

COLM = SHARED_DATA / "venues" / "colm2025.json.gz"
COLM_RECORDS = 418  # the records of COLM 2025's list, every one a Poster
BADGE = "COLM 2025 · Poster"


def colm_arxiv_records(shared_data: Path) -> list[dict[str, object]]:
    """The papers of ``arxiv-300k`` whose titles are, case and punctuation folded, titles of COLM 2025's
    list (207): the arXiv versions its records link to."""
    with gzip.open(shared_data / "venues" / "colm2025.json.gz", "rb") as f:
        titles = {fold_title(r["title"]) for r in json.load(f)}
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        return [r for r in map(orjson.loads, f) if fold_title(r["title"]) in titles]


@pytest.fixture(scope="session")
def colm_home(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """COLM 2025's arXiv papers ingested, then its accept list imported, all embedded (built once a
    run; a module that changes it works on its own copy, ``tests/support/homes.py``)."""

    def build(home: Path) -> None:
        seeded(home, tmp_path_factory)
        colm = write_jsonl(home / "colm-arxiv.jsonl", colm_arxiv_records(shared_data))
        invoke("ingest", str(colm), home=home)
        invoke("venues", "import", str(shared_data / "venues" / "colm2025.json.gz"), home=home)
        invoke("embed", home=home)

    return built_once(tmp_path_factory, "colm", build)
