"""The index directory (``Settings.index_dir``) and the only code that writes it: generations, pointer, lock.

Layout::

    index/build.lock           builds take an exclusive flock on it (one build at a time, any process)
    index/current              the name of the generation to serve, replaced atomically (temp, fsync, rename)
    index/g00000042-1f3a9c/    one complete generation: dense.usearch + dense.json, lexical/, delta/,
                               readers.lock and MANIFEST.json (written last: the completeness marker)
    index/.tmp-g00000043-…/    a build in progress (a killed build leaves it; the next build removes it)

A build writes every file of a new generation into a temporary directory (hard links for files it keeps from
the previous one), fsyncs the files and the directory, writes the manifest (each file's size and CRC-32),
renames the directory into place and only then points ``current`` at it. A ``kill -9`` at any point
therefore leaves ``current`` naming the last complete generation. Readers pin the generation they map with a
shared flock on its ``readers.lock``; a build removes older generations whose lock it can take exclusively
(nobody maps them any more). Opening checks that the manifest is there and every file has its size (and, for
small files, its CRC): a damaged generation is never served.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import shutil
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from papersift.records.messages import Message, say
from papersift.store import StoreError

POINTER = "current"
LOCK = "build.lock"
MANIFEST = "MANIFEST.json"
READERS = "readers.lock"
_PREFIX = "g"
_TMP = ".tmp-"
_DEAD = ".dead-"
CHECK_CRC_BELOW = 16 << 20  # files smaller than this are checked byte for byte on open; larger ones by size


class BuildRunningError(StoreError):
    """Another process holds the build lock (raised only when not waiting for it)."""


class IndexBuildError(StoreError):
    """A build failed (disk full, store locked…); the previous generation keeps serving."""


@dataclass
class Generation:
    """A complete generation, pinned (shared flock) until ``close`` or until it is garbage collected."""

    path: Path
    manifest: dict[str, Any]
    _pin: IO[bytes] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        return self.path.name

    def close(self) -> None:
        if self._pin is not None:
            self._pin.close()  # closing the file releases the flock
            self._pin = None

    def __del__(self) -> None:
        self.close()


# -- the build lock ---------------------------------------------------------------------------------------
_held: dict[Path, tuple[IO[str], int]] = {}  # lock path -> (open file, depth): re-entrant within a process
_held_guard = threading.Lock()


@contextlib.contextmanager
def build_lock(index_dir: Path, wait: bool = True) -> Iterator[None]:
    """Hold the inter-process build lock; ``wait=False`` raises ``BuildRunningError`` when another holds it.

    Re-entrant in one process (``embed`` holds it across embedding and the ``refresh`` calls inside).
    """
    index_dir.mkdir(parents=True, exist_ok=True)
    path = index_dir / LOCK
    with _held_guard:
        if path in _held:
            handle, depth = _held[path]
            _held[path] = (handle, depth + 1)
            entered = True
        else:
            entered = False
    if not entered:
        handle = path.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                running = _running(handle)
                handle.close()
                raise BuildRunningError(running) from None
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        with _held_guard:
            _held[path] = (handle, 1)
    try:
        yield
    finally:
        with _held_guard:
            handle, depth = _held[path]
            if depth > 1:
                _held[path] = (handle, depth - 1)
            else:
                del _held[path]
                handle.close()


def _running(handle: IO[str]) -> Message:
    """That another build runs, in the process the lock file names when it names one."""
    handle.seek(0)
    pid = handle.read().strip()
    return say("build_running_pid", pid=pid) if pid.isdigit() else say("build_running")


def build_running(index_dir: Path) -> bool:
    """Whether some process holds the build lock now (a probe: takes and drops it when free)."""
    try:
        with build_lock(index_dir, wait=False):
            return False
    except BuildRunningError:
        return True


# -- reading ----------------------------------------------------------------------------------------------
def pointer_stamp(index_dir: Path) -> tuple[int, int] | None:
    """A cheap fingerprint of the pointer file (inode, mtime): it changes when a generation is published."""
    try:
        st = os.stat(index_dir / POINTER)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def current_name(index_dir: Path) -> str | None:
    try:
        name = (index_dir / POINTER).read_text().strip()
    except OSError:
        return None
    return name if name.startswith(_PREFIX) and "/" not in name else None


def _verify(path: Path) -> dict[str, Any] | None:
    """The manifest of a complete, undamaged generation (None otherwise)."""
    try:
        manifest = json.loads((path / MANIFEST).read_text())
        files = manifest["files"]
        for rel, (size, crc) in files.items():
            file = path / rel
            if file.stat().st_size != size:
                return None
            if size < CHECK_CRC_BELOW and _crc(file) != crc:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return manifest if isinstance(manifest, dict) else None


def open_current(index_dir: Path) -> Generation | None:
    """The current generation, verified and pinned; None when there is none (or it is damaged)."""
    for _ in range(5):  # a build may remove the generation between reading the pointer and pinning it
        name = current_name(index_dir)
        if name is None:
            return None
        path = index_dir / name
        try:
            pin = (path / READERS).open("rb")
        except OSError:
            if current_name(index_dir) == name:
                return None
            continue
        try:
            fcntl.flock(pin, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # being removed right now
            pin.close()
            continue
        if not (path / MANIFEST).exists():  # removed before we pinned it: read the pointer again
            pin.close()
            continue
        manifest = _verify(path)
        if manifest is None:
            pin.close()
            return None
        return Generation(path, manifest, pin)
    return None


# -- writing ----------------------------------------------------------------------------------------------
def _crc(path: Path) -> int:
    crc = 0
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            crc = zlib.crc32(chunk, crc)
    return crc


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sequence(name: str | None) -> int:
    try:
        return int((name or "").removeprefix(_PREFIX).split("-")[0])
    except ValueError:
        return 0


def begin(index_dir: Path) -> Path:
    """A fresh temporary directory for the next generation (call under ``build_lock``)."""
    _remove_leftovers(index_dir)
    name = f"{_PREFIX}{_sequence(current_name(index_dir)) + 1:08d}-{secrets.token_hex(3)}"
    tmp = index_dir / f"{_TMP}{name}"
    tmp.mkdir(parents=True)
    (tmp / READERS).touch()
    return tmp


def link_from(source: Path, target: Path) -> None:
    """Put ``source``'s files (a file or a directory of files, never changed once written) at ``target``."""
    if source.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        for item in source.iterdir():
            link_from(item, target / item.name)
    else:
        try:
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)


def publish(index_dir: Path, tmp: Path, facts: dict[str, Any], previous: Generation | None) -> Path:
    """Make ``tmp`` the current generation: fsync, manifest, rename, pointer (then call ``remove_unused``
    once ``previous`` is closed: this process's own pin would keep it)."""
    known = previous.manifest.get("files", {}) if previous else {}
    files: dict[str, tuple[int, int]] = {}
    for file in sorted(p for p in tmp.rglob("*") if p.is_file() and p.name not in (MANIFEST, READERS)):
        rel = str(file.relative_to(tmp))
        size = file.stat().st_size
        old = known.get(rel)
        if previous is not None and old is not None and same_file(previous.path / rel, file):
            files[rel] = (size, int(old[1]))  # a hard link to a file already checked
            continue
        with file.open("rb") as f:
            os.fsync(f.fileno())
        files[rel] = (size, _crc(file))
    for directory in {tmp, *(p for p in tmp.rglob("*") if p.is_dir())}:
        _fsync_dir(directory)
    manifest = tmp / MANIFEST
    with manifest.open("w") as f:
        json.dump({**facts, "files": files}, f)
        f.flush()
        os.fsync(f.fileno())
    _fsync_dir(tmp)
    final = index_dir / tmp.name.removeprefix(_TMP)
    tmp.rename(final)
    _fsync_dir(index_dir)
    pointer = index_dir / f"{_TMP}{POINTER}-{secrets.token_hex(3)}"
    with pointer.open("w") as f:
        f.write(final.name + "\n")
        f.flush()
        os.fsync(f.fileno())
    pointer.replace(index_dir / POINTER)
    _fsync_dir(index_dir)
    return final


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file (a hard link of the other); False when either is missing."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def discard(tmp: Path) -> None:
    shutil.rmtree(tmp, ignore_errors=True)


def _remove_leftovers(index_dir: Path) -> None:
    """What killed builds left: temporary generations and pointers (call under ``build_lock``)."""
    for item in index_dir.iterdir():
        if item.name.startswith((_TMP, _DEAD)):
            if item.is_dir():
                shutil.rmtree(item, ignore_errors=True)
            else:
                item.unlink(missing_ok=True)


def remove_unused(index_dir: Path) -> list[str]:
    """Remove every generation but the current one that no process has pinned; returns their names."""
    keep = current_name(index_dir)
    removed: list[str] = []
    for item in sorted(index_dir.iterdir()):
        if not item.is_dir() or not item.name.startswith(_PREFIX) or item.name == keep:
            continue
        try:
            handle = (item / READERS).open("rb")
        except OSError:  # no lock file: an unreadable generation, nobody can have pinned it
            handle = None
        try:
            if handle is not None:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            dead = index_dir / f"{_DEAD}{item.name}"
            item.rename(dead)  # under the exclusive lock: a reader pinning next finds it gone
            shutil.rmtree(dead, ignore_errors=True)
            removed.append(item.name)
        except BlockingIOError:
            pass  # still mapped by a server or a CLI call: removed by a later build
        finally:
            if handle is not None:
                handle.close()
    return removed


def build_error(e: BaseException, index_dir: Path) -> IndexBuildError:
    """The message a failed build gives (the previous generation keeps serving)."""
    keeps = "the previous index generation keeps serving"
    full = isinstance(e, OSError) and (
        e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) or "written" in str(e)  # numpy: a short write
    )
    if full:
        return IndexBuildError(f"no space left to write the indexes in {index_dir} ({e}); {keeps}")
    if "locked" in str(e) or "busy" in str(e):
        return IndexBuildError(f"the store stayed locked by another writer during the index build; {keeps}")
    return IndexBuildError(f"the index build failed: {e}; {keeps}")
