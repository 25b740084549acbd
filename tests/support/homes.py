"""The homes the session fixtures build and the copies the tests work on: ``built_once`` builds a home once
for the whole run (pytest-xdist's workers share it: the first that asks builds it, the others wait for it)
and hands each session its own copy; ``home_copy`` is a module's own copy of such a home
(``server_home``, ``daily_home``, ``topics_home``): what a module's tests change there (saves, ratings,
fetched papers) stays in that module. ``seeded`` gives a home about to embed the vectors the homes built so
far hold, so that no text is encoded twice a run."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from papersift.settings import Settings
from papersift.store.cache import VectorCache
from tests.support.sandbox import run_folder


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
    shared = run_folder(factory)
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


def seeded(home: Path, factory: pytest.TempPathFactory) -> Path:
    """``home`` (made if missing) with every vector the homes built so far this run hold (``built_once``) in
    its vector cache, so that ``papersift embed`` there takes a text's vector from the cache instead of
    encoding the text again: the same vector, as a text's vector never depends on the batch it is encoded
    in (``index/onnx_encoder.py``)."""
    path = Settings(home=home).cache_path
    VectorCache(path).close()  # made as papersift makes it
    with contextlib.closing(sqlite3.connect(path, uri=True)) as cache:
        for source in sorted(run_folder(factory).glob("built-*/home/vector-cache.db")):
            # read as the finished file it is: no lock, no -wal or -shm beside it while a worker copies it
            cache.execute("ATTACH DATABASE ? AS source", (f"{source.as_uri()}?immutable=1",))
            cache.execute("INSERT OR IGNORE INTO vectors SELECT key, vec FROM source.vectors")
            cache.commit()
            cache.execute("DETACH DATABASE source")
    return home
