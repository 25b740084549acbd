"""``serve`` says its URL only once it can answer a search at full speed, and never for a port it cannot use;
``sync`` says what it is waiting for."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from tests.support.data import ROOT
from tests.support.processes import free_port, run_cli


def test_serve_on_a_busy_port_fails_before_saying_its_url(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", "--port", str(port), home=tmp_path, check=False)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "http://" not in result.stderr


def test_serve_reports_ready_after_loading_the_indexes_and_model(embedded_home: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "papersift.cli", "serve", "--port", str(port)],
        env={**os.environ, "PAPERSIFT_HOME": str(embedded_home)},
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines = [proc.stderr.readline().strip() for _ in range(2)]
        assert lines[0].startswith("papersift: loading")
        assert lines[1] == f"papersift: ready at http://127.0.0.1:{port}/"
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            assert client.get("/healthz").json() == {"status": "ready"}
            found = client.get("/api/search", params={"q": "neutrino oscillations", "mode": "semantic"})
            assert found.status_code == 200 and found.json()["mode"] == "semantic"
            assert len(found.json()["results"]) == 10
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_sync_without_arxiv_says_what_it_asked_and_that_it_is_offline_at_once(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}/atom"
    env = {"PAPERSIFT_RSS_URL": closed, "PAPERSIFT_MAX_RETRIES": "1", "PAPERSIFT_REQUEST_INTERVAL": "0.1"}
    result = run_cli("sync", "cs.LG", home=tmp_path, check=False, env=env)
    assert result.returncode == 1
    assert f"sync: asking {closed} for cs.LG" in result.stderr
    assert f"offline: cannot reach {closed.split('/')[2]}" in result.stderr and "retry" not in result.stderr
