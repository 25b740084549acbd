"""The homes the session fixtures build and the copies the tests work on: ``built_once`` builds a home once
for the whole run (pytest-xdist's workers share it: the first that asks builds it, the others wait for it)
and hands each session its own copy; ``home_copy`` is a module's own copy of such a home
(``server_home``, ``daily_home``, ``topics_home``): what a module's tests change there (saves, ratings,
fetched papers) stays in that module. ``seeded`` gives a home about to embed the vectors the homes built so
far hold, so that no text is encoded twice a run."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from papersift.settings import Settings
from papersift.store.cache import VectorCache
from tests.support.sandbox import made_once, run_folder


def home_copy(source: Path, factory: pytest.TempPathFactory, name: str) -> Path:
    """A copy of the built home ``source`` under a new temporary folder named for ``name``."""
    home = factory.mktemp(name) / "home"
    shutil.copytree(source, home)
    return home


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """This session's copy of the home ``build`` fills (given an empty folder), built once a run: under
    pytest-xdist in the folder all the run's workers share (their temporary folders' parent), by the first
    worker that asks for it while the others wait on its lock, then copied by each; in one process, in its
    own temporary folder (``sandbox.made_once``). A build that fails leaves nothing behind, and the next
    worker to ask tries again."""
    built = made_once(run_folder(factory) / f"built-{name}" / "home", build)
    return home_copy(built, factory, name)


def seeded(home: Path, factory: pytest.TempPathFactory) -> Path:
    """``home`` (made if missing) with every vector the homes built so far this run hold (``built_once``) in
    its vector cache, so that ``papersift embed`` there takes a text's vector from the cache instead of
    encoding the text again: the same vector, as a text's vector never depends on the batch it is encoded
    in (``index/onnx_encoder.py``)."""
    with contextlib.closing(VectorCache(Settings(home=home).cache_path)) as cache:
        for source in sorted(run_folder(factory).glob("built-*/home/vector-cache.db")):
            cache.add_from(source)
    return home
