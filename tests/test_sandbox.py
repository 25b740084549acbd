"""Every test runs in its own temporary home (``tests/support/sandbox.py``): the settings a test or a
process it starts resolves point under pytest's temporary folder, never at the user's own folders, and the
check that the real folders are untouched by the run sees a change."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from papersift.settings import Settings
from tests.support.sandbox import REAL_DIRS, changes, run_folder, snapshot


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def test_the_settings_of_a_test_resolve_under_its_temporary_folder(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    base = tmp_path_factory.getbasetemp()
    settings = Settings()
    for path in (settings.home, settings.cache_path, settings.db_path, Path.home()):
        assert _inside(path, base), path
    assert _inside(settings.model_cache, run_folder(tmp_path_factory))  # one cache the run's workers share
    for path in (settings.home, settings.cache_path, settings.db_path, settings.model_cache, Path.home()):
        assert not any(_inside(path, real) for real in REAL_DIRS), path


def test_a_process_a_test_starts_resolves_under_the_temporary_folder_too(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    code = "from papersift.settings import Settings; s = Settings(); print(s.home); print(s.model_cache)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    home, model_cache = out.split()
    assert _inside(Path(home), tmp_path_factory.getbasetemp()), home
    assert _inside(Path(model_cache), run_folder(tmp_path_factory)), model_cache


def test_two_tests_do_not_share_a_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    mine = Path(os.environ["PAPERSIFT_HOME"])
    assert mine.name == "papersift" and mine.parent.name.startswith("test-home")
    # the session's home (what module and session fixtures see) is another folder
    assert not any(_inside(mine, p) for p in tmp_path_factory.getbasetemp().glob("session-home*"))


def test_the_run_check_sees_a_file_added_changed_or_removed(tmp_path: Path) -> None:
    watched = (tmp_path / "papersift", tmp_path / "absent")
    (tmp_path / "papersift").mkdir()
    (tmp_path / "papersift" / "a.db").write_bytes(b"1")
    before = snapshot(watched)
    assert changes(before, snapshot(watched)) == []
    (tmp_path / "papersift" / "b.db").write_bytes(b"2")
    (tmp_path / "papersift" / "a.db").write_bytes(b"11")
    assert changes(before, snapshot(watched)) == [
        f"changed: {tmp_path / 'papersift' / 'a.db'}",
        f"added: {tmp_path / 'papersift' / 'b.db'}",
    ]
    (tmp_path / "absent").mkdir()
    assert f"added: {tmp_path / 'absent'}" in changes(before, snapshot(watched))
