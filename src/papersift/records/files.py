"""Writing files another process may open at any moment, the one way every layer does it.

``atomic_path`` yields a temporary name in the target's folder; when the block ends without an error the
file is fsynced, renamed onto the target and the folder fsynced (a reader sees the old file or the new one,
never half of one, and the rename survives a crash); on an error the temporary file goes and the target is
untouched. ``write_atomic`` writes bytes that way. ``locked`` holds an exclusive ``flock`` on a lock file
(one builder at a time, in any process): a build checks again, under the lock, whether another process made
the file while it waited.

``pinned_hash_differs`` checks a file papersift loads but did not make (a model, a tokenizer) against the
SHA-256 pinned for it, hashing it only when it is new or changed since it was last found right.

The index's generations (``index/generations``) and the resident helper (``cli/resident``) keep their own
locks: they try without waiting and name the holder, and readers pin a generation with a shared lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the file ``path`` (made if missing), held for the block; waits for the holder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """A temporary path beside ``target`` to write; renamed onto ``target`` (fsynced) when the block ends
    without an error, removed when it raises."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}-", suffix=".tmp", dir=target.parent)
    os.close(fd)
    partial = Path(name)
    try:
        yield partial
        with partial.open("rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, target)
        _fsync_folder(target.parent)
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()


def write_atomic(target: Path, data: bytes) -> None:
    """``data`` as the file ``target``, written whole or not at all (``atomic_path``)."""
    with atomic_path(target) as partial:
        partial.write_bytes(data)


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sha256_of(path: Path) -> str:
    """The SHA-256 of the file ``path``, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


def pinned_hash_differs(path: Path, sha256: str, stamps: Path) -> str | None:
    """None when the file ``path`` has the SHA-256 ``sha256``; else the hash it has.

    A file found right is remembered in ``stamps/SHA256.json`` with its size and mtime, and hashed again only
    when either changed, so a model checked once costs nothing more to load. A file found wrong loses that
    record."""
    stamp = stamps / f"{sha256}.json"
    if _stamped(path, stamp, sha256):
        return None
    with locked(stamps / ".lock"):
        if _stamped(path, stamp, sha256):
            return None
        found = sha256_of(path)
        if found != sha256:
            stamp.unlink(missing_ok=True)
            return found
        st = path.stat()
        record = {"path": str(path), "sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
        write_atomic(stamp, json.dumps(record).encode())
    return None


def _stamped(path: Path, stamp: Path, sha256: str) -> bool:
    try:
        st = path.stat()
        seen = json.loads(stamp.read_bytes())
    except (OSError, ValueError):
        return False
    wanted = {"path": str(path), "sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    return bool(seen == wanted)
