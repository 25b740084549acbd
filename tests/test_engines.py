"""Embedding over a real Dask cluster on 127.0.0.1: the local engine's vectors, chunks that survive a killed
worker, a killed driver that resumes, a cluster that listens on loopback only, and a TLS-only cluster with
certificates made here (the same vectors; clients without the CA's certificate refused)."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import dask
import numpy as np
import psutil
import pytest
from distributed import Client, LocalCluster

from papersift.index.engines import DaskEngine, TlsFiles
from papersift.index.pipeline import embed_missing
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore
from tests.certs import Certificates, make_certificates
from tests.support.data import ROOT, as_papers, write_jsonl
from tests.support.inproc import invoke
from tests.support.processes import free_port

Vectors = dict[int, np.ndarray]


# `records`: 44 real papers spread over the 20k file: in chunks of 8, six chunks (more than the two per worker
# a cluster of two keeps in flight), the last a short one
SPREAD, SPREAD_COUNT, CHUNK = 200, 44, 8


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """Two worker processes of one thread each, every socket on 127.0.0.1; yields the scheduler's address."""
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as local:
        yield str(local.scheduler_address)


def fresh_store(path: Path, records: list[dict[str, object]]) -> SqliteStore:
    store = SqliteStore(path)
    store.upsert(as_papers(records))
    return store


def stored(store: SqliteStore) -> Vectors:
    batches = list(store.iter_vectors())
    keys, vectors = np.concatenate([b.keys for b in batches]), np.concatenate([b.vectors for b in batches])
    return dict(zip(keys.tolist(), vectors.astype(np.float32), strict=True))


@pytest.fixture(scope="module")
def local_vectors(tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, object]]) -> Vectors:
    """What the local engine stores for ``records`` in chunks of ``CHUNK``."""
    home = tmp_path_factory.mktemp("local")
    store = fresh_store(home / "papersift.db", records)
    assert embed_missing(store, Settings(home=home, embed_chunk=CHUNK)) == len(records)
    vectors = stored(store)
    store.close()
    return vectors


@pytest.mark.slow  # a cluster and a model per worker: 6-25 s on 2 shared cores
def test_dask_engine_stores_the_local_engines_vectors(
    tmp_path: Path, records: list[dict[str, object]], cluster: str, local_vectors: Vectors
) -> None:
    settings = Settings(home=tmp_path, embed_chunk=CHUNK)
    store = fresh_store(tmp_path / "papersift.db", records)
    written: list[int] = []
    with DaskEngine(settings, scheduler=cluster) as engine:
        assert engine.window == 4  # two chunks per worker
        done = embed_missing(store, settings, engine=engine, progress=written.append)
        assert embed_missing(store, settings, engine=engine) == 0
    assert done == len(records) and sorted(written) == [4] + [CHUNK] * 5
    vectors = stored(store)
    assert vectors.keys() == local_vectors.keys()
    worst = max(float(np.abs(vectors[k] - local_vectors[k]).max()) for k in vectors)
    assert worst <= 1e-5
    store.close()


@pytest.mark.slow  # a cluster and a model per worker: 6-25 s on 2 shared cores
def test_a_killed_worker_loses_no_chunk_and_writes_none_twice(
    tmp_path: Path, records: list[dict[str, object]], cluster: str, local_vectors: Vectors
) -> None:
    settings = Settings(home=tmp_path, embed_chunk=CHUNK)  # the local run's chunks: int8 scales span a batch
    store = fresh_store(tmp_path / "papersift.db", records)
    written: list[int] = []
    killed: list[int] = []
    with DaskEngine(settings, scheduler=cluster) as engine:
        pids: dict[str, int] = engine.client.run(os.getpid)

        def kill_a_busy_worker(n: int) -> None:
            written.append(n)
            if not killed:  # after the first chunk is written, while the other chunks run
                busy = [address for address, keys in engine.client.processing().items() if keys]
                assert busy, "no worker was running a chunk"
                killed.append(pids[busy[0]])
                os.kill(pids[busy[0]], signal.SIGKILL)

        done = embed_missing(store, settings, engine=engine, progress=kill_a_busy_worker)
        assert killed and killed[0] not in engine.client.run(os.getpid).values()  # that process is gone
    assert done == len(records) == sum(written) == store.vector_count()
    assert sorted(written) == [4] + [CHUNK] * 5  # each chunk written once
    vectors = stored(store)  # the chunks the dead worker had were run again, to the same vectors
    assert vectors.keys() == local_vectors.keys()
    assert max(float(np.abs(vectors[k] - local_vectors[k]).max()) for k in vectors) <= 1e-5
    store.close()


def listening(root: psutil.Process) -> list[str]:
    """The addresses that ``root`` and its children listen on."""
    found = []
    for proc in [root, *root.children(recursive=True)]:
        try:
            conns = proc.net_connections(kind="inet")
        except psutil.NoSuchProcess:
            continue
        found += [c.laddr.ip for c in conns if c.status == psutil.CONN_LISTEN]
    return found


@pytest.mark.slow  # a cluster and a model per worker: 6-25 s on 2 shared cores
def test_a_killed_driver_resumes_on_rerun_and_binds_only_loopback(
    tmp_path: Path, records: list[dict[str, object]]
) -> None:
    invoke("ingest", str(write_jsonl(tmp_path / "c.jsonl", records)), home=tmp_path)
    env = {**os.environ, "PAPERSIFT_HOME": str(tmp_path), "PAPERSIFT_EMBED_CHUNK": "2"}
    driver = subprocess.Popen(
        [sys.executable, "-m", "papersift.cli", "embed", "--engine", "dask", "--workers", "1"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the driver and its cluster die together
    )
    db = sqlite3.connect(tmp_path / "papersift.db", timeout=30)
    try:
        deadline = time.monotonic() + 120
        while db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0:
            assert driver.poll() is None and time.monotonic() < deadline, "no chunk was written"
            time.sleep(0.02)
        addresses = listening(psutil.Process(driver.pid))
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait(timeout=30)
    kept = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
    db.close()
    assert len(addresses) >= 3 and set(addresses) == {"127.0.0.1"}  # scheduler, nanny, worker, http
    assert 0 < kept < len(records) and kept % 2 == 0  # whole chunks only
    again = invoke("embed", "--engine", "dask", "--workers", "1", home=tmp_path).stdout
    assert f"embed: {len(records) - kept} papers embedded" in again
    assert f"index: {len(records)} papers, {len(records)} vectors" in again


def test_engine_options_are_checked(tmp_path: Path) -> None:
    bad = invoke("embed", "--engine", "ray", home=tmp_path, check=False)
    assert bad.returncode == 2 and "--engine must be local or dask" in bad.stderr
    local = invoke("embed", "--scheduler", "tcp://127.0.0.1:8786", home=tmp_path, check=False)
    assert local.returncode == 2 and "need --engine dask" in local.stderr
    both = ("embed", "--engine", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2")
    assert invoke(*both, home=tmp_path, check=False).returncode == 2


def connect_timeout(seconds: str) -> contextlib.AbstractContextManager[object]:
    """Dask's connect timeout for the commands run in this process (its environment variable is read once,
    when dask is first imported)."""
    return dask.config.set({"distributed.comm.timeouts.connect": seconds})


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path: Path, records: list[dict[str, object]]) -> None:
    invoke("ingest", str(write_jsonl(tmp_path / "c.jsonl", records[:3])), home=tmp_path)
    nobody = f"tcp://127.0.0.1:{free_port()}"
    with connect_timeout("1s"):
        result = invoke("embed", "--engine", "dask", "--scheduler", nobody, home=tmp_path, check=False)
    assert result.returncode == 1 and f"cannot reach the Dask scheduler at {nobody}" in result.stderr


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Certificates]]:
    """A real ``dask scheduler`` and ``dask worker`` (one process, one thread) speaking only TLS on 127.0.0.1,
    with certificates from a CA made here; yields the scheduler's tls:// address and the files."""
    folder = tmp_path_factory.mktemp("dask-tls")
    certs = make_certificates(folder)
    tls = ["--tls-ca-file", str(certs.ca), "--tls-cert", str(certs.cert), "--tls-key", str(certs.key)]
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}  # the workers unpickle papersift's task
    log = (folder / "cluster.log").open("wb")
    common = {"env": env, "cwd": ROOT, "stdout": log, "stderr": subprocess.STDOUT, "start_new_session": True}
    dask = [sys.executable, "-m", "dask"]
    on_loopback = ["--host", "127.0.0.1", "--no-dashboard", *tls]
    scheduler = subprocess.Popen(
        [*dask, "scheduler", "--protocol", "tls", "--port", str(port), *on_loopback],
        **common,  # type: ignore[call-overload]
    )
    worker = subprocess.Popen(
        [*dask, "worker", address, "--nthreads", "1", "--nworkers", "1", *on_loopback],
        **common,  # type: ignore[call-overload]
    )
    try:
        security = TlsFiles(certs.ca, certs.cert, certs.key).security()
        with Client(address, security=security, timeout=60) as client:  # type: ignore[no-untyped-call]
            client.wait_for_workers(1, timeout=120)
        yield address, certs
    finally:
        for proc in (worker, scheduler):
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        log.close()


def tls_options(certs: Certificates) -> list[str]:
    return ["--tls-ca", str(certs.ca), "--tls-cert", str(certs.cert), "--tls-key", str(certs.key)]


@pytest.mark.slow  # a TLS scheduler and a worker with its model: 10-30 s on 2 shared cores
def test_embed_over_a_tls_cluster_stores_the_local_engines_vectors(
    tmp_path: Path, records: list[dict[str, object]], tls_cluster: tuple[str, Certificates]
) -> None:
    address, certs = tls_cluster
    few = records[:24]
    local = fresh_store(tmp_path / "local.db", few)
    assert embed_missing(local, Settings(home=tmp_path, embed_chunk=8)) == len(few)
    expected = stored(local)
    local.close()
    home = tmp_path / "home"
    invoke("ingest", str(write_jsonl(tmp_path / "c.jsonl", few)), home=home)
    out = invoke(
        *("embed", "--engine", "dask", "--scheduler", address, *tls_options(certs)),
        home=home,
        env={"PAPERSIFT_EMBED_CHUNK": "8"},  # the local run's chunks: int8 scales span a batch
    ).stdout
    assert f"embed: {len(few)} papers embedded" in out
    store = SqliteStore(home / "papersift.db")
    vectors = stored(store)
    store.close()
    assert vectors.keys() == expected.keys()
    assert max(float(np.abs(vectors[k] - expected[k]).max()) for k in vectors) <= 1e-5


@pytest.mark.slow  # a TLS scheduler and a worker with its model: 10-30 s on 2 shared cores
def test_a_tls_cluster_refuses_clients_without_the_cas_certificate(
    tmp_path: Path, records: list[dict[str, object]], tls_cluster: tuple[str, Certificates]
) -> None:
    address, _ = tls_cluster
    invoke("ingest", str(write_jsonl(tmp_path / "c.jsonl", records[:3])), home=tmp_path)
    plain = invoke("embed", "--engine", "dask", "--scheduler", address, home=tmp_path, check=False)
    assert plain.returncode == 2 and "needs all of --tls-ca, --tls-cert and --tls-key" in plain.stderr
    tcp = address.replace("tls://", "tcp://")  # the same port spoken to in plain text
    with connect_timeout("3s"):
        result = invoke("embed", "--engine", "dask", "--scheduler", tcp, home=tmp_path, check=False)
    assert result.returncode == 1 and "cannot reach the Dask scheduler" in result.stderr
    stranger = make_certificates(tmp_path / "other-ca")  # a certificate from another CA
    with connect_timeout("3s"):
        result = invoke(
            "embed",
            "--engine",
            "dask",
            "--scheduler",
            address,
            *tls_options(stranger),
            home=tmp_path,
            check=False,
        )
    assert result.returncode == 1 and "cannot reach the Dask scheduler" in result.stderr
    assert "embed:" not in result.stdout


def test_tls_options_are_checked(tmp_path: Path) -> None:
    certs = make_certificates(tmp_path / "certs")
    tcp = ("embed", "--engine", "dask", "--scheduler", "tcp://127.0.0.1:8786", *tls_options(certs))
    result = invoke(*tcp, home=tmp_path, check=False)
    assert result.returncode == 2 and "need --scheduler tls://" in result.stderr
    partial = ("embed", "--engine", "dask", "--scheduler", "tls://127.0.0.1:8786", "--tls-ca", str(certs.ca))
    result = invoke(*partial, home=tmp_path, check=False)
    assert result.returncode == 2 and "needs all of --tls-ca, --tls-cert and --tls-key" in result.stderr
    missing = [*tls_options(certs)[:-1], str(tmp_path / "nope.pem")]
    result = invoke(
        "embed", "--engine", "dask", "--scheduler", "tls://127.0.0.1:1", *missing, home=tmp_path, check=False
    )
    assert result.returncode == 2 and "TLS file not found" in result.stderr
