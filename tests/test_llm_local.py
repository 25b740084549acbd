"""The local model: a GGUF file the reader names, loaded only when its SHA-256 is the pinned one (tested on
small files here, in every tier). For real (the ``llm`` tier, ``make test-llm GGUF=… GGUF_SHA256=…``):
llama.cpp's server with that file, started by the client itself on 127.0.0.1 on first use, one per home (a
second ask finds it), answering a short generation streamed and not, and gone once idle; skipped where the
``[llm]`` extra is not installed or no GGUF file is named (``PAPERSIFT_TEST_GGUF``, ``…_SHA256``)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from pydantic import ValidationError

from papersift.llm import client, local
from papersift.llm.errors import ModelError
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore

ASK_URL = """
import sys
from pathlib import Path
from papersift.llm import local
from papersift.settings import Settings
print(local.ensure(Settings(home=Path(sys.argv[1]), model_cache=Path(sys.argv[2]), llm_local=True,
                            llm_gguf=Path(sys.argv[3]), llm_gguf_sha256=sys.argv[4])))
"""


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[Settings]:
    s = Settings(
        home=tmp_path / "home",
        model_cache=tmp_path / "cache",
        llm_local=True,
        llm_idle_minutes=0.1,
        llm_gguf=os.environ.get("PAPERSIFT_TEST_GGUF") or None,
        llm_gguf_sha256=os.environ.get("PAPERSIFT_TEST_GGUF_SHA256") or None,
    )
    yield s
    local.stop(s)


@pytest.mark.llm
@pytest.mark.process  # its point is the model server's process: started, found, killed, restarted, gone
def test_the_local_model_starts_on_first_use_answers_and_stops_when_idle(
    settings: Settings, tmp_path: Path
) -> None:
    assert client.available(settings)
    assert not local.state(settings).running
    store = SqliteStore(tmp_path / "llm.db")
    try:
        messages = [{"role": "user", "content": "Reply with one word: hello"}]
        reply = client.complete(settings, messages, max_tokens=8, temperature=0.0, store=store)
        assert reply.text.strip()
        assert reply.model == local.model_name(settings)
        assert 0 < reply.completion_tokens <= 8
        running = local.state(settings)
        assert running.running and running.url and running.url.startswith("http://127.0.0.1:")
        assert running.rss_bytes and running.rss_bytes > 100_000_000  # the weights are loaded
        assert client.endpoint(settings).url == running.url  # one server per home: found, not started again
        gguf = (settings.llm_gguf, settings.llm_gguf_sha256)
        ask_args = map(str, (settings.home, settings.model_cache, *gguf))
        other = subprocess.run(  # another process of the same home finds it too
            [sys.executable, "-c", ASK_URL, *ask_args],
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


def _gguf(tmp_path: Path, blob: bytes = b"GGUF" + b"a" * 1000) -> tuple[Path, str]:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(blob)
    return path, hashlib.sha256(blob).hexdigest()


def _settings(tmp_path: Path, gguf: Path | None, sha256: str | None) -> Settings:
    return Settings(
        home=tmp_path / "home", model_cache=tmp_path / "cache", llm_gguf=gguf, llm_gguf_sha256=sha256
    )


def test_a_named_gguf_whose_hash_is_pinned_is_verified_once(tmp_path: Path) -> None:
    path, sha = _gguf(tmp_path)
    settings = _settings(tmp_path, path, sha)
    assert local.weights(settings) == path
    stamp = settings.model_cache / "verified" / f"{sha}.json"
    assert orjson.loads(stamp.read_bytes())["sha256"] == sha
    stamp_mtime = stamp.stat().st_mtime_ns
    assert local.weights(settings) == path
    assert stamp.stat().st_mtime_ns == stamp_mtime  # verified before: not hashed again
    path.write_bytes(b"GGUF" + b"x" * 1000)  # changed in place (same size): hashed again, refused
    with pytest.raises(ModelError, match=r"tiny\.gguf is not the pinned file: its SHA-256 is [0-9a-f]{64}"):
        local.weights(settings)
    assert not stamp.exists()


def test_a_gguf_that_is_not_the_pinned_one_is_refused_naming_both_hashes(tmp_path: Path) -> None:
    path, sha = _gguf(tmp_path)
    wrong = "0" * 64
    with pytest.raises(ModelError) as refused:
        local.weights(_settings(tmp_path, path, wrong))
    said = str(refused.value)
    assert sha in said and wrong in said and "nothing loaded" in said


def test_a_gguf_without_a_pinned_hash_or_a_path_is_not_loaded(tmp_path: Path) -> None:
    path, _ = _gguf(tmp_path)
    with pytest.raises(ModelError, match="PAPERSIFT_LLM_GGUF_SHA256"):
        local.weights(_settings(tmp_path, path, None))
    with pytest.raises(ModelError, match="does not exist"):
        local.weights(_settings(tmp_path, tmp_path / "gone.gguf", "0" * 64))
    with pytest.raises(ModelError, match="set PAPERSIFT_LLM_GGUF to its path"):
        local.weights(_settings(tmp_path, None, None))
    assert not local.ready(_settings(tmp_path, None, None))


def test_a_pinned_hash_that_is_not_hex_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        _settings(tmp_path, None, "not-a-hash")


def test_texts_of_the_local_model_carry_the_gguf_files_name(tmp_path: Path) -> None:
    path, sha = _gguf(tmp_path)
    assert local.model_name(_settings(tmp_path, path, sha)) == "tiny"
    named = Settings(home=tmp_path, llm_gguf=path, llm_gguf_sha256=sha, llm_model="qwen2.5-0.5b")
    assert local.model_name(named) == "qwen2.5-0.5b"
