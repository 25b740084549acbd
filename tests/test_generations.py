"""Index generations: one build at a time (flock), atomic publication, damaged or half-written generations
never served, unused ones removed; real ``embed`` processes killed (-9) at several points or run two at once,
and real ``papersift serve`` processes that answer with a new day once ``embed`` publishes it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from papersift.index.generations import (
    BuildRunningError,
    build_lock,
    build_running,
    current_name,
    open_current,
)
from papersift.index.indexes import open_indexes
from papersift.index.pipeline import refresh
from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store import open_store
from tests.support.data import ROOT, write_jsonl
from tests.support.inproc import invoke
from tests.support.processes import serving

Records = list[dict[str, object]]


SPREAD, SPREAD_COUNT = 151, 130  # `records`: 130 real papers; 100 for the base store, 30 for a new day


@pytest.fixture(scope="module")
def base_home(tmp_path_factory: pytest.TempPathFactory, records: Records) -> Path:
    """100 papers ingested and embedded by the CLI's commands (one index generation)."""
    home = tmp_path_factory.mktemp("base")
    invoke("ingest", str(write_jsonl(home / "base.jsonl", records[:100])), home=home)
    assert "index: 100 papers, 100 vectors" in invoke("embed", home=home).stdout
    return home


def fresh(base: Path, into: Path) -> Path:
    shutil.copytree(base, into)
    return into


def embed_proc(home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "papersift.cli", "embed"],
        env={**os.environ, "PAPERSIFT_HOME": str(home)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def counts(home: Path) -> tuple[int, int] | None:
    """(papers, vectors) of the current generation; None when there is none."""
    generation = open_current(home / "index")
    if generation is None:
        return None
    try:
        return int(generation.manifest["papers"]), int(generation.manifest["vectors"])
    finally:
        generation.close()


# -- the lock and the directory -----------------------------------------------------------------------
def test_the_build_lock_is_exclusive_across_processes_and_reentrant_within_one(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from papersift.index.generations import build_lock\n"
            f"with build_lock(Path({str(tmp_path)!r})):\n    print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    try:
        assert build_running(tmp_path)
        with (
            pytest.raises(
                BuildRunningError, match=rf"another index build is running \(process {holder.pid}\)"
            ),
            build_lock(tmp_path, wait=False),
        ):
            pass
    finally:
        holder.kill()
        holder.wait()
    assert not build_running(tmp_path)
    with build_lock(tmp_path, wait=False), build_lock(tmp_path, wait=False):  # re-entrant in one process
        assert not build_running(tmp_path)  # this process holds it: the probe re-enters


def test_only_complete_undamaged_generations_are_served(tmp_path: Path, records: Records) -> None:
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    store.upsert([paper_from_record(r, "test") for r in records[:40]])
    index = settings.index_dir
    assert open_indexes(store, settings).lexical is None  # nothing built yet: nothing served
    assert refresh(store, settings) == (40, 0)
    name = current_name(index)
    assert name is not None and (index / name / "MANIFEST.json").exists()
    assert refresh(store, settings) == (40, 0) and current_name(index) == name  # unchanged: nothing written
    # a killed build's leftovers are never read, and the next build removes them
    (index / ".tmp-g00000099-abcdef" / "lexical").mkdir(parents=True)
    served = open_indexes(store, settings)
    assert served.lexical is not None and len(served.lexical) == 40 and served.name == name
    # a damaged file: the generation is not served at all (keyword evidence only)
    keys = index / name / "lexical" / "keys.npy"
    good = keys.read_bytes()
    keys.write_bytes(good[:-8] + b"\xff" * 8)
    assert open_current(index) is None and open_indexes(store, settings).lexical is None
    keys.write_bytes(good[:100])
    assert open_current(index) is None
    keys.write_bytes(good)
    assert open_current(index) is not None
    store.upsert([paper_from_record(r, "test") for r in records[40:50]])
    assert refresh(store, settings) == (50, 0)
    assert not list(index.glob(".tmp-*"))
    store.close()


def test_a_new_day_goes_to_a_delta_and_unused_generations_are_removed(
    tmp_path: Path, records: Records
) -> None:
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    store.upsert([paper_from_record(r, "test") for r in records[:100]])
    refresh(store, settings)
    first = open_indexes(store, settings)  # pins its generation
    assert first.lexical is not None and first.lexical.delta is None
    store.upsert([paper_from_record(r, "test") for r in records[100:104]])
    refresh(store, settings)
    second = open_indexes(store, settings)
    assert second.lexical is not None and second.lexical.delta is not None and len(second.lexical) == 104
    main = settings.index_dir / second.name / "lexical" / "t_data.npy"
    assert main.stat().st_nlink == 2  # the main arrays are shared with the first generation, not rewritten
    assert (settings.index_dir / first.name).exists()  # still mapped by ``first``
    first.generation.close()  # type: ignore[union-attr]
    store.upsert([paper_from_record(r, "test") for r in records[104:106]])
    refresh(store, settings)
    assert not (settings.index_dir / first.name).exists()  # unpinned: removed by the next build
    assert (settings.index_dir / second.name).exists()
    store.close()


def test_a_failed_build_says_why_and_the_previous_generation_keeps_serving(
    tmp_path: Path, records: Records
) -> None:
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    store.upsert([paper_from_record(r, "test") for r in records[:20]])
    refresh(store, settings)
    before = current_name(settings.index_dir)
    store.close()
    # the whole lexical build again (a deletion), in a process that may not write files over 1 MB
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        from papersift.index.pipeline import refresh
        from papersift.records.paper import Deleted
        from papersift.settings import Settings
        from papersift.store import StoreError, open_store
        settings = Settings(home={str(tmp_path)!r})
        store = open_store(settings)
        store.upsert([Deleted({str(records[3]["id"])!r})])
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))
        try:
            refresh(store, settings)
        except StoreError as e:
            print(e)
            sys.exit(3)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 3, done.stderr
    assert "no space left to write the indexes" in done.stdout
    assert "previous index generation keeps serving" in done.stdout
    assert current_name(settings.index_dir) == before and counts(tmp_path) == (20, 0)
    assert not list(settings.index_dir.glob(".tmp-*"))


# -- real embed processes ---------------------------------------------------------------------------------
def test_two_embeds_at_once_take_turns(tmp_path: Path, base_home: Path, records: Records) -> None:
    home = fresh(base_home, tmp_path / "home")
    invoke("ingest", str(write_jsonl(home / "day.jsonl", records[100:])), home=home)
    first, second = embed_proc(home), embed_proc(home)
    outs = [p.communicate(timeout=300) for p in (first, second)]
    assert [p.returncode for p in (first, second)] == [0, 0], outs
    assert any("another index build is running" in err and "waiting" in err for _, err in outs)
    assert all("Traceback" not in err for _, err in outs)
    assert sorted(out.split("embed: ")[1].split(" papers")[0] for out, _ in outs) == ["0", "30"]
    assert all("index: 130 papers, 130 vectors" in out for out, _ in outs)
    assert counts(home) == (130, 130)


def _wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], seconds: float = 120) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        if condition():
            return True
        time.sleep(0.002)
    return False


def test_kill_9_of_embed_at_any_point_leaves_the_last_generation_and_the_next_run_completes(
    tmp_path: Path, base_home: Path, records: Records
) -> None:
    """One home, one new day, ``embed`` killed while starting, while writing a generation, just after the
    pointer moved; each time the current generation is complete, and the fourth run finishes the work."""
    home = fresh(base_home, tmp_path / "home")
    index = home / "index"
    settings = Settings(home=home)
    invoke("ingest", str(write_jsonl(home / "day.jsonl", records[100:])), home=home)
    for point in ("starting", "building", "swapped"):
        before = current_name(index)
        proc = embed_proc(home)
        if point == "starting":
            time.sleep(0.5)
            hit = True
        elif point == "building":  # a temporary generation being written
            hit = _wait_for(lambda: any(p.name.startswith(".tmp-g") for p in index.iterdir()), proc)
        else:  # the pointer has just moved
            hit = _wait_for(lambda last=before: current_name(index) != last, proc)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        assert hit, f"embed finished before reaching {point}"
        found = counts(home)
        assert found is not None and found[0] in (100, 130) and found[1] in (100, 130), point
        store = open_store(settings)
        served = open_indexes(store, settings)
        assert served.lexical is not None and served.dense is not None and served.generation is not None
        served.generation.close()
        store.close()
    assert "index: 130 papers, 130 vectors" in invoke("embed", home=home).stdout
    assert counts(home) == (130, 130)
    assert not list(index.glob(".tmp-*")) and len(list(index.glob("g*"))) == 1


# -- real servers ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("workers", [1, 2])
def test_a_running_server_answers_with_a_new_day_after_embed(
    tmp_path: Path, base_home: Path, records: Records, workers: int
) -> None:
    home = fresh(base_home, tmp_path / "home")
    new = records[100:]
    probe = {str(r["id"]): str(r["title"]) for r in new[:3]}
    with serving(home, args=("--workers", str(workers))) as client:

        def found(pid: str, title: str) -> bool:
            semantic = client.get("/api/search", params={"q": title, "mode": "semantic", "k": 3})
            text = client.get("/api/related", params={"text": title, "k": 3})
            assert semantic.status_code == 200 and text.status_code == 200
            return pid in {r["id"] for r in semantic.json()["results"]} and pid in {
                r["id"] for r in text.json()["results"]
            }

        assert not any(found(pid, title) for pid, title in probe.items())
        invoke("ingest", str(write_jsonl(home / "day.jsonl", new)), home=home)
        failures: list[str] = []
        stop = threading.Event()

        def keep_reading() -> None:  # a reader who never stops while embed runs
            with httpx.Client(base_url=client.base_url, timeout=60) as reader:
                while not stop.is_set():
                    for path in ("/api/search?q=quantum&k=5", "/api/related?text=dark+matter&k=5"):
                        response = reader.get(path)
                        if response.status_code != 200:
                            failures.append(f"{path}: {response.status_code}")

        thread = threading.Thread(target=keep_reading)
        thread.start()
        try:
            assert "index: 130 papers, 130 vectors" in invoke("embed", home=home).stdout
            finished = time.monotonic()
            while not all(found(pid, title) for pid, title in probe.items() for _ in range(workers * 2)):
                assert time.monotonic() - finished < 10, "the server did not switch to the new generation"
                time.sleep(0.2)
        finally:
            stop.set()
            thread.join()
        assert failures == []
