"""The real processes the tests and the benchmarks start: the ``papersift`` command as a user runs it, a
``papersift serve`` on 127.0.0.1 with a client for it, and a free port for any server."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tests.support.data import ROOT


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now, for the real servers the tests start (HTTP, SMTP, PostgreSQL)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_cli(
    *args: str, home: Path, check: bool = True, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed ``papersift`` command as a user would, in its own process (``stdin``: what it
    reads there)."""
    env = {**os.environ, "PAPERSIFT_HOME": str(home), "COLUMNS": "200", **(env or {})}
    result = subprocess.run(
        [sys.executable, "-m", "papersift.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"papersift {' '.join(args)} failed:\n{result.stderr}")
    return result


@contextlib.contextmanager
def serving(
    home: Path,
    env: dict[str, str] | None = None,
    args: tuple[str, ...] = (),
    *,
    ready: bool = False,
    timeout: float = 60,
) -> Iterator[httpx.Client]:
    """A real ``papersift serve`` on 127.0.0.1 over ``home`` (extra settings, options), and a client, once it
    answers (``ready``: once ``/healthz`` says the query encoder is loaded); stopped afterwards."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "papersift.cli", "serve", "--host", "127.0.0.1", "--port", str(port), *args],
        env={**os.environ, "PAPERSIFT_HOME": str(home), **(env or {})},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # a pipe nobody reads would stall a talkative server
    )
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=timeout)
    try:
        for _ in range(max(300, int(timeout * 10))):
            try:
                answer = client.get("/healthz" if ready else "/openapi.json")
                if not ready or answer.json().get("status") == "ready":
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        else:
            raise AssertionError("papersift serve did not start")
        yield client
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=30)
