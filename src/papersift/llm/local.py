"""The local model: with no ``llm_url`` and ``llm_local`` on, papersift serves a GGUF file the reader names.

What it is for: a machine with no model server and no provider key still gets model TL;DRs, 中文 and FAQ,
with nothing sent anywhere. It is opt-in: ``PAPERSIFT_LLM_LOCAL=true``, the ``[llm]`` extra (llama.cpp
through ``llama-cpp-python``, its ``llama_cpp.server``: an OpenAI-compatible server) and a GGUF model file
of the reader's own choosing, ``PAPERSIFT_LLM_GGUF``, with the SHA-256 its publisher gives for it,
``PAPERSIFT_LLM_GGUF_SHA256``. papersift ships and downloads no weights: the file is hashed before it is
first loaded, and a file that is not the pinned one is an error naming both hashes; the verification is
remembered in the model cache (``records/files.pinned_hash_differs``) and done again when the file changes.
A reader who already runs a model server (llama.cpp's ``llama-server``, Ollama, LM Studio, vLLM) needs none
of this: ``papersift llm setup`` finds it and sets ``llm_url``.

``ensure(settings)`` gives the server's base URL, starting it on first use: one server per home, however many
processes ask, under the lock file ``home/llm/local.lock``; the server's pid and port are recorded in
``home/llm/local.json``. The parent binds a free port on 127.0.0.1 and hands the listening socket to the
child (no port race). The child (``python -m papersift.llm.local``) counts its requests and exits once
nothing has used it for ``llm_idle_minutes`` (each ``ensure`` also marks a use), removing its record.
``stop(settings)`` ends it at once; ``state(settings)`` says whether it runs, and its memory.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from papersift.llm.errors import ModelError
from papersift.records.files import locked, pinned_hash_differs, write_atomic
from papersift.records.messages import say

if TYPE_CHECKING:
    from papersift.settings import Settings

RUNTIME = "llama_cpp"
CONTEXT = 8192  # tokens of context the server gives each request
_START_TIMEOUT = 180.0  # seconds the model may take to load
_EXTRA = "pip install 'papersift[llm]'"


@dataclass(frozen=True)
class LocalState:
    """The local model as ``papersift llm status`` shows it."""

    installed: bool
    running: bool
    pid: int | None = None
    port: int | None = None
    started: str | None = None
    rss_bytes: int | None = None

    @property
    def url(self) -> str | None:
        return f"http://127.0.0.1:{self.port}/v1" if self.running and self.port else None


def threads(settings: Settings) -> int:
    """The server's CPU threads: ``llm_threads``, or half the cores (llama.cpp's advice: one per physical
    core; on the busy 2-core dev machine one reply of ~16 tokens took 2 s with one thread, 22 s with two,
    which spin waiting on each other when the other is descheduled: one noisy comparison, not a bench)."""
    return settings.llm_threads or max(1, (os.cpu_count() or 2) // 2)


def installed() -> bool:
    """Whether the runtime is installed (the ``[llm]`` extra)."""
    return importlib.util.find_spec(RUNTIME) is not None


def ready(settings: Settings) -> bool:
    """Whether the local model can be served: the runtime is installed and a GGUF file is named."""
    return installed() and settings.llm_gguf is not None


def model_name(settings: Settings) -> str:
    """The name texts written by the local model carry: ``llm_model``, else the GGUF file's name."""
    if settings.llm_model:
        return settings.llm_model
    return settings.llm_gguf.stem if settings.llm_gguf else "local-gguf"


def weights(settings: Settings) -> Path:
    """The GGUF file named by the settings, verified against its pinned SHA-256 (``ModelError`` if not)."""
    if settings.llm_gguf is None:
        raise ModelError(say("model_no_gguf"))
    if not settings.llm_gguf.is_file():
        raise ModelError(say("model_gguf_missing", path=str(settings.llm_gguf)))
    if not settings.llm_gguf_sha256:
        raise ModelError(say("model_gguf_no_sha256", path=str(settings.llm_gguf)))
    expected = settings.llm_gguf_sha256.lower()
    found = pinned_hash_differs(settings.llm_gguf, expected, settings.model_cache / "verified")
    if found:
        raise ModelError(say("file_not_pinned", path=str(settings.llm_gguf), found=found, expected=expected))
    return settings.llm_gguf


def ensure(settings: Settings) -> str:
    """The base URL of the local model's server (``http://127.0.0.1:PORT/v1``), started if it is not up."""
    if importlib.util.find_spec(RUNTIME) is None:
        raise ModelError(say("model_no_runtime", install=_EXTRA))
    folder = _folder(settings)
    with locked(folder / "local.lock"):
        (folder / "local.used").touch()
        record = _record(settings)
        if record and _running(record):
            return f"http://127.0.0.1:{record['port']}/v1"
        return _start(settings, weights(settings))


def stop(settings: Settings) -> bool:
    """End this home's local server now (waiting for it to exit); whether one was running."""
    folder = _folder(settings)
    with locked(folder / "local.lock"):
        record = _record(settings)
        if not record or not _running(record):
            (folder / "local.json").unlink(missing_ok=True)
            return False
        pid = int(record["pid"])
        os.kill(pid, signal.SIGTERM)
        for _ in range(100):
            if not _pid_alive(pid):
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
        (folder / "local.json").unlink(missing_ok=True)
        return True


def state(settings: Settings) -> LocalState:
    """Whether the local model is installed and running here (its pid, port, start and memory)."""
    record = _record(settings)
    if not record or not _running(record):
        return LocalState(installed=installed(), running=False)
    pid = int(record["pid"])
    return LocalState(
        installed=True,
        running=True,
        pid=pid,
        port=int(record["port"]),
        started=str(record.get("started") or "") or None,
        rss_bytes=rss(pid),
    )


def rss(pid: int, peak: bool = False) -> int | None:
    """A process's resident memory in bytes (its peak with ``peak``), from /proc; None where unreadable."""
    field = "VmHWM:" if peak else "VmRSS:"
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


def _folder(settings: Settings) -> Path:
    folder = settings.home / "llm"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _record(settings: Settings) -> dict[str, Any] | None:
    try:
        data = orjson.loads((settings.home / "llm" / "local.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return data if isinstance(data, dict) and "pid" in data and "port" in data else None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return True


def _running(record: dict[str, Any]) -> bool:
    """The recorded server is alive and is ours (its command line names this module)."""
    pid = int(record["pid"])
    if not _pid_alive(pid):
        return False
    try:
        return b"papersift.llm.local" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def _start(settings: Settings, model: Path) -> str:
    folder = _folder(settings)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = int(listener.getsockname()[1])
    command = [
        sys.executable,
        "-m",
        "papersift.llm.local",
        "--fd",
        str(listener.fileno()),
        "--model",
        str(model),
        "--alias",
        model_name(settings),
        "--record",
        str(folder / "local.json"),
        "--idle-minutes",
        str(settings.llm_idle_minutes),
        "--threads",
        str(threads(settings)),
    ]
    log = folder / "local.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            pass_fds=(listener.fileno(),),
            start_new_session=True,  # outlives the command that started it; stopped when idle
        )
    listener.close()
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + _START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ModelError(say("model_not_started", line=_last_line(log), log=str(log)))
        try:
            if httpx.get(f"{url}/models", timeout=2.0, trust_env=False).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    else:
        process.kill()
        raise ModelError(say("model_not_started_within", seconds=f"{_START_TIMEOUT:g}", log=str(log)))
    _write_record(
        folder / "local.json",
        {
            "pid": process.pid,
            "port": port,
            "model": model_name(settings),
            "started": datetime.now(UTC).isoformat(),
        },
    )
    return url


def _write_record(path: Path, record: dict[str, Any]) -> None:
    write_atomic(path, orjson.dumps(record))


def _last_line(log: Path) -> str:
    try:
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "no log"
    return lines[-1][:200] if lines else "no output"


class _Activity:
    """An ASGI wrapper that counts requests in flight and when the last one ended."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.lock = threading.Lock()
        self.inflight = 0
        self.last = time.monotonic()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with self.lock:
            self.inflight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            with self.lock:
                self.inflight -= 1
                self.last = time.monotonic()

    def idle_for(self) -> float:
        with self.lock:
            return 0.0 if self.inflight else time.monotonic() - self.last


def _watch(server: Any, activity: _Activity, record: Path, idle_s: float) -> None:
    """Ask the server to exit once neither a request nor an ``ensure`` has come for ``idle_s`` seconds."""
    used = record.with_name("local.used")
    while not server.should_exit:
        time.sleep(min(5.0, max(0.2, idle_s / 4)))
        with locked(record.with_name("local.lock")):
            try:
                since_ensure = time.time() - used.stat().st_mtime
            except OSError:
                since_ensure = idle_s
            if min(activity.idle_for(), since_ensure) >= idle_s:
                _forget(record)
                server.should_exit = True


def _forget(record: Path) -> None:
    try:
        if orjson.loads(record.read_bytes()).get("pid") == os.getpid():
            record.unlink()
    except (OSError, orjson.JSONDecodeError, AttributeError):
        pass


def main(argv: list[str] | None = None) -> None:
    """The server process: llama.cpp's OpenAI-compatible app on the inherited socket, exiting when idle."""
    parser = argparse.ArgumentParser(prog="python -m papersift.llm.local")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--record", type=Path, required=True)
    parser.add_argument("--idle-minutes", type=float, required=True)
    parser.add_argument("--threads", type=int, required=True)
    args = parser.parse_args(argv)

    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    listener = socket.socket(fileno=args.fd)
    host, port = listener.getsockname()[:2]
    app = create_app(
        server_settings=ServerSettings(host=host, port=port, interrupt_requests=False),
        model_settings=[
            ModelSettings(
                model=args.model,
                model_alias=args.alias,
                n_ctx=CONTEXT,
                n_threads=args.threads,
                n_threads_batch=args.threads,
                logits_all=False,  # llama-cpp-python's server default (True) scores the whole vocabulary
                # at every prompt token: the 0.5B model's 152k-word output layer is most of its compute
                verbose=False,
            )
        ],
    )
    activity = _Activity(app)
    server = uvicorn.Server(uvicorn.Config(activity, log_level="warning", lifespan="off"))
    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "should_exit", True))
    watcher = threading.Thread(
        target=_watch, args=(server, activity, args.record, args.idle_minutes * 60), daemon=True
    )
    watcher.start()
    try:
        server.run(sockets=[listener])
    finally:
        _forget(args.record)


if __name__ == "__main__":
    main()
