"""Every setting says what it is for, and the README's settings table is the one the settings generate
(``python -m papersift.settings --readme README.md`` writes it), so neither can drift from the code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from papersift.settings import TABLE_END, TABLE_START, Settings, settings_table, with_table
from tests.support.data import ROOT


def test_every_setting_has_a_description() -> None:
    missing = [name for name, info in Settings.model_fields.items() if not (info.description or "").strip()]
    assert not missing, f"settings without Field(description=...): {missing}"


def test_the_readme_table_is_the_generated_one() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_table(readme) == readme, (
        "README.md's settings table is not the settings': python -m papersift.settings --readme README.md"
    )
    table = readme.partition(TABLE_START)[2].partition(TABLE_END)[0]
    assert table.count("| `PAPERSIFT_") == len(Settings.model_fields)  # one row per setting, in field order
    assert "| `PAPERSIFT_HOME` | `~/.local/share/papersift` |" in table


def test_the_table_follows_a_change_and_a_readme_without_markers_is_refused() -> None:
    stale = f"intro\n{TABLE_START}\n| old |\n{TABLE_END}\noutro\n"
    assert with_table(stale) == f"intro\n{TABLE_START}\n{settings_table()}{TABLE_END}\noutro\n"
    with pytest.raises(ValueError, match="markers"):
        with_table("no table here")


def test_the_command_prints_the_table() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "papersift.settings", "--markdown"], capture_output=True, text=True, check=True
    ).stdout
    assert out == settings_table()
