"""A file another process may read is written whole or not at all; one builder at a time holds the lock; a
file papersift loads but did not make is the one whose SHA-256 is pinned."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from papersift.records.files import atomic_path, locked, pinned_hash_differs, sha256_of, write_atomic


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_path(target) as partial:
        partial.write_bytes(b"half")
        raise RuntimeError("killed")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_a_whole_write_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "out.json"
    write_atomic(target, b"new")
    write_atomic(target, b"newer")
    assert target.read_bytes() == b"newer"
    assert [p.name for p in target.parent.iterdir()] == ["out.json"]


def test_a_second_builder_waits_for_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "build.lock"
    events: list[str] = []
    held = threading.Event()

    def first() -> None:
        with locked(lock):
            events.append("first in")
            held.set()
            time.sleep(0.3)
            events.append("first out")

    thread = threading.Thread(target=first)
    thread.start()
    held.wait()
    with locked(lock):  # another open file description: flock makes it wait
        events.append("second in")
    thread.join()
    assert events == ["first in", "first out", "second in"]


def test_a_file_is_checked_against_its_pinned_hash_once_and_again_when_it_changes(tmp_path: Path) -> None:
    model = tmp_path / "model.bin"
    model.write_bytes(b"weights" * 1000)
    pinned = sha256_of(model)
    stamps = tmp_path / "verified"
    assert pinned_hash_differs(model, pinned, stamps) is None
    stamp = stamps / f"{pinned}.json"
    remembered = stamp.stat().st_mtime_ns
    assert pinned_hash_differs(model, pinned, stamps) is None
    assert stamp.stat().st_mtime_ns == remembered  # found right before and unchanged: not hashed again
    model.write_bytes(b"WEIGHTS" * 1000)  # the same size, other bytes
    assert pinned_hash_differs(model, pinned, stamps) == sha256_of(model)
    assert not stamp.exists()  # a wrong file is not remembered as right


def test_a_file_pinned_to_another_hash_is_never_taken(tmp_path: Path) -> None:
    model = tmp_path / "model.bin"
    model.write_bytes(b"x")
    assert pinned_hash_differs(model, "0" * 64, tmp_path / "verified") == sha256_of(model)
    assert not list((tmp_path / "verified").glob("*.json"))
