"""A file another process may read is written whole or not at all; one builder at a time holds the lock."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from papersift.records.files import atomic_path, locked, write_atomic


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
