"""The homes the suite builds (``tests/support/homes.py``): a home ``seeded`` before it embeds takes the
vectors of the homes built so far this run from its vector cache and encodes none of those texts again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.data import EVIL, write_jsonl
from tests.support.homes import built_once, seeded
from tests.support.inproc import invoke

NO_MODEL = {"PAPERSIFT_MODEL_CACHE": "/proc/no-such-dir"}  # any text to encode fails: no model to load


def test_a_seeded_home_encodes_no_text_a_built_home_holds(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    papers = write_jsonl(tmp_path / "papers.jsonl", [{**EVIL}])

    def build(home: Path) -> None:
        invoke("ingest", str(papers), home=home)
        invoke("embed", home=home)

    built_once(tmp_path_factory, "seed-source", build)
    bare = tmp_path / "bare"
    invoke("ingest", str(papers), home=bare)
    with pytest.raises(AssertionError) as unseeded:  # it has to encode them, and cannot load the model
        invoke("embed", home=bare, env=NO_MODEL)
    assert isinstance(unseeded.value.__cause__, OSError)
    home = seeded(tmp_path / "seeded", tmp_path_factory)
    invoke("ingest", str(papers), home=home)
    embedded = invoke("embed", home=home, env=NO_MODEL)
    assert "index: 1 papers, 1 vectors" in embedded.stdout, embedded.stdout
