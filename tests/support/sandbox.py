"""Every test in its own temporary home: ``HOME``, ``XDG_CACHE_HOME``, ``XDG_DATA_HOME`` and
``PAPERSIFT_HOME`` point under pytest's temporary folder, for the session's fixtures and again for each
test, so nothing the suite runs (in process or in a child process) reaches the user's own
``~/.local/share/papersift`` or ``~/.cache/papersift``. The int8 model derived once per machine
(``settings.model_cache``) is one temporary folder for the whole run, shared by pytest-xdist's workers: a
copy of the user's when there is one, else derived there once per run (about 10 s).

The CLI's language is English (``PAPERSIFT_LANG``), whatever the machine's locale. arXiv's addresses
(``PAPERSIFT_OAI_URL``, ``_API_URL``, ``_RSS_URL``) point at a closed port on 127.0.0.1.

The real home is snapshotted (every file under the two folders, with its size and mtime) when the plugin
loads and again when the session ends; a difference fails the run.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from filelock import FileLock

SANDBOXED = ("HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "PAPERSIFT_HOME")


def real_dirs() -> tuple[Path, ...]:
    """The user's papersift folders, as the code would resolve them outside the sandbox."""
    home = Path(os.environ.get("HOME") or Path.home())
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    return home / ".local" / "share" / "papersift", data / "papersift", cache / "papersift"


def snapshot(dirs: tuple[Path, ...]) -> dict[str, tuple[int, int]]:
    """Every file under ``dirs``: its path, size and mtime (ns); a folder that is missing holds nothing."""
    found: dict[str, tuple[int, int]] = {}
    for top in dirs:
        if top.exists():
            found[str(top)] = (0, 0)
            for path in sorted(top.rglob("*")):
                st = path.lstat()
                found[str(path)] = (st.st_size, st.st_mtime_ns)
    return found


def changes(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> list[str]:
    """What differs between two snapshots, one line a path."""
    return [
        f"{'added' if p not in before else 'removed' if p not in after else 'changed'}: {p}"
        for p in sorted(set(before) | set(after))
        if before.get(p) != after.get(p)
    ]


REAL_DIRS = real_dirs()
REAL_MODEL_CACHE = REAL_DIRS[2] / "models"
BEFORE = snapshot(REAL_DIRS)


ARXIV_URLS = {"PAPERSIFT_OAI_URL": "/oai", "PAPERSIFT_API_URL": "/api/query", "PAPERSIFT_RSS_URL": "/atom"}
ARXIV_URLS |= {"PAPERSIFT_EPRINT_URL": "/e-print", "PAPERSIFT_PDF_URL": "/pdf", "PAPERSIFT_S2_URL": "/s2"}


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: arXiv's addresses point there in every test, so no
    test (or a page's offline probe) sends anything to arXiv; a test of a client serves arXiv itself."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _point_home_at(patch: pytest.MonkeyPatch, root: Path) -> None:
    for name, sub in zip(SANDBOXED, ("home", "cache", "data", "papersift"), strict=True):
        (root / sub).mkdir(parents=True, exist_ok=True)
        patch.setenv(name, str(root / sub))


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of the whole run: the one pytest-xdist's workers share (their temporary
    folders' parent), or this session's own in one process."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(folder: Path, make: Callable[[Path], None]) -> Path:
    """``folder``, filled by ``make`` (given an empty folder beside it, renamed into place when it is
    done) by the first process that asks for it, while the others wait on its lock. A ``make`` that fails
    leaves nothing behind, and the next process to ask tries again."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{folder}.lock"):
        if not folder.is_dir():
            scratch = folder.with_name(f"{folder.name}.making")
            shutil.rmtree(scratch, ignore_errors=True)
            scratch.mkdir()
            make(scratch)
            scratch.rename(folder)
    return folder


def _copy_of_the_users_models(scratch: Path) -> None:
    if REAL_MODEL_CACHE.is_dir():  # read only: the user's derived model, copied
        shutil.copytree(REAL_MODEL_CACHE, scratch, dirs_exist_ok=True)


def run_model_cache(factory: pytest.TempPathFactory) -> Path:
    """The model cache of the whole run: one folder that pytest-xdist's workers share (their temporary
    folders' parent), so the int8 model is derived once a run (``index/onnx_encoder.quantized`` takes the
    cache's lock: the first process derives it, the others wait and use it), or copied once from the
    user's own cache."""
    return made_once(run_folder(factory) / "models", _copy_of_the_users_models)


@pytest.fixture(scope="session", autouse=True)
def sandboxed_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's home (for session- and module-scoped fixtures) and the shared model cache."""
    models = run_model_cache(tmp_path_factory)
    with pytest.MonkeyPatch.context() as patch:
        _point_home_at(patch, tmp_path_factory.mktemp("session-home"))
        patch.setenv("PAPERSIFT_MODEL_CACHE", str(models))
        patch.setenv("PAPERSIFT_LANG", "en")  # the CLI speaks English whatever the machine's locale
        nowhere = f"http://127.0.0.1:{_closed_port()}"  # a test that means arXiv serves it itself
        for name, path in ARXIV_URLS.items():
            patch.setenv(name, nowhere + path)
        yield models


@pytest.fixture(autouse=True)
def sandboxed_test(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """This test's own home, cache and data folders (restored to the session's afterwards)."""
    with pytest.MonkeyPatch.context() as patch:
        _point_home_at(patch, tmp_path_factory.mktemp("test-home"))
        yield


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when the user's own papersift folders changed while it ran."""
    changed = changes(BEFORE, snapshot(REAL_DIRS))
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_sep("=", "the suite changed the user's own papersift folders", red=True)
            for line in changed[:20]:
                reporter.write_line(line)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
