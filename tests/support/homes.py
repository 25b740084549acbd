"""The homes the session fixtures build and the copies the tests work on: ``built_once`` builds a home once
for the whole run (pytest-xdist's workers share it: the first that asks builds it, the others wait for it)
and hands each session its own copy; ``home_copy`` is a module's own copy of such a home
(``server_home``, ``daily_home``, ``topics_home``): what a module's tests change there (saves, ratings,
fetched papers) stays in that module."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock


def home_copy(source: Path, factory: pytest.TempPathFactory, name: str) -> Path:
    """A copy of the built home ``source`` under a new temporary folder named for ``name``."""
    home = factory.mktemp(name) / "home"
    shutil.copytree(source, home)
    return home


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """This session's copy of the home ``build`` fills (given an empty folder), built once a run: under
    pytest-xdist in the folder all the run's workers share (their temporary folders' parent), by the first
    worker that asks for it while the others wait on its lock, then copied by each; in one process, in its
    own temporary folder. A build that fails leaves nothing behind, and the next worker to ask tries again."""
    shared = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    built = shared / f"built-{name}"
    with FileLock(f"{built}.lock"):
        if not (built / "home").is_dir():
            scratch = shared / f"building-{name}"
            shutil.rmtree(scratch, ignore_errors=True)
            scratch.mkdir()
            build(scratch)
            built.mkdir()
            scratch.rename(built / "home")
    return home_copy(built / "home", factory, name)
