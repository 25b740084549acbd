"""The resident query helper: real ``papersift`` processes start it, a real Unix socket reaches it, and what
it answers is what the command prints on its own."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from papersift.cli import resident
from tests.support.data import ROOT, write_jsonl
from tests.support.processes import run_cli

QUERY = "graph neural networks for predicting the properties of molecules"
NEW_PAPER = {
    "id": "2611.00042",
    "title": "Quokka populations counted by drones over Rottnest island",
    "abstract": "We count quokkas on Rottnest island with drones and a small detector trained on 900 photos.",
    "authors": ["Ada Lovelace"],
    "categories": ["cs.CV"],
    "primary_category": "cs.CV",
    "published": None,
    "announced": "2026-11-30",
}


def _wait(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _answers(argv: list[str] | None = None) -> bool:
    with socket.socket(socket.AF_UNIX) as conn:
        try:
            conn.connect(resident.socket_path(argv))
        except OSError:
            return False
    return True


@pytest.fixture
def helped(tmp_path: Path, embedded_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home, and a helper started by a real ``papersift search`` in it (helpers on for this test, in a
    runtime directory of its own); the helper is stopped afterwards."""
    home = tmp_path / "home"
    shutil.copytree(embedded_home, home)
    run_dir = Path(tempfile.mkdtemp(prefix="ps-"))  # short: a socket's path has at most 107 bytes
    os.chmod(run_dir, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    monkeypatch.setenv("PAPERSIFT_RESIDENT_MINUTES", "5")
    monkeypatch.setenv("PAPERSIFT_HOME", str(home))
    monkeypatch.setenv("COLUMNS", "200")
    run_cli("search", QUERY, home=home)
    _wait(_answers)
    yield home
    with contextlib.suppress(OSError, ValueError):
        os.kill(int(Path(resident.lock_path()).read_text()), signal.SIGTERM)
    _wait(lambda: not os.path.exists(resident.socket_path()), 30)
    shutil.rmtree(run_dir)


def _forwarded(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | None, str, str]:
    capsys.readouterr()
    code = resident.forward(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_only_search_and_related_without_standard_input_or_help_are_forwarded() -> None:
    assert resident.forwardable(["search", "graph"])
    assert resident.forwardable(["--home", "/x", "related", "--text", "some text"])
    assert resident.forwardable(["--db=sqlite:///x.db", "search", "graph", "--mode", "semantic"])
    assert not resident.forwardable(["search", "--queries-from", "-"])
    assert not resident.forwardable(["related", "--help"])
    assert not resident.forwardable(["embed"])
    assert not resident.forwardable(["--home", "search", "list"])  # "search" is --home's value here
    assert not resident.forwardable([])


def test_a_sigterm_while_a_command_runs_is_not_kept_as_that_commands_exit() -> None:
    """The first command a helper runs loads the model (seconds): a SIGTERM then must stop the helper, not
    end that command with code 0 and leave the helper serving (``run`` keeps a command's own exits)."""

    class Stopped:
        def main(self, **kwargs: object) -> None:
            resident._leave(signal.SIGTERM, None)

    kept = resident.Kept()
    kept.command = Stopped()
    with pytest.raises(resident.Leave):
        resident.run(["search", QUERY], kept)


def test_the_helper_answers_as_the_command_does_on_its_own(
    helped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for argv in (
        ["search", QUERY, "-k", "5"],
        ["search", QUERY, "--mode", "semantic", "--format", "json"],
        ["related", "--text", QUERY, "-k", "3"],
        ["search", QUERY, "--mode", "nonsense"],  # an error: the same message and exit code
    ):
        alone = run_cli(*argv, home=helped, check=False, env={"PAPERSIFT_RESIDENT_MINUTES": "0"})
        code, out, err = _forwarded(argv, capsys)
        assert (code, out, err) == (alone.returncode, alone.stdout, alone.stderr), argv
    # and a command run as a user runs it gets the helper's answer
    again = run_cli("search", QUERY, "-k", "5", home=helped)
    assert again.stdout.startswith("  1. [")


def test_the_helper_sees_papers_stored_and_indexes_published_after_it_started(
    helped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _forwarded(["search", "quokka drones", "--mode", "keyword"], capsys)
    assert code == 0 and NEW_PAPER["id"] not in out
    run_cli("ingest", str(write_jsonl(helped / "new.jsonl", [NEW_PAPER])), home=helped)
    code, out, _ = _forwarded(["search", "quokka drones", "--mode", "keyword"], capsys)
    assert code == 0 and f"[{NEW_PAPER['id']}]" in out.splitlines()[0]
    run_cli("embed", home=helped)  # publishes a new index generation
    code, out, _ = _forwarded(["search", str(NEW_PAPER["title"]), "--mode", "semantic", "-k", "3"], capsys)
    assert code == 0 and f"[{NEW_PAPER['id']}]" in out.splitlines()[0]


def test_a_helper_running_other_code_leaves_and_the_command_runs_here(
    helped: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resident, "code_stamp", lambda: "code changed since")
    assert _forwarded(["search", QUERY], capsys)[0] is None
    _wait(lambda: not os.path.exists(resident.socket_path()), 30)


def test_a_helper_ignores_garbage_keeps_one_instance_and_talks_only_through_private_places(
    helped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for garbage in (b"not json\n", b'{"argv": "search x", "cwd": "/", "env": {}}\n', b"[1, 2]\n"):
        with socket.socket(socket.AF_UNIX) as conn:
            conn.connect(resident.socket_path())
            conn.sendall(garbage)
            conn.settimeout(30)
            assert conn.recv(100) == b""  # dropped without an answer
    # a second helper finds the first one's lock and leaves; the first one goes on answering
    second = subprocess.run(
        [sys.executable, "-m", "papersift.cli.resident"],
        input=json.dumps(["search", QUERY]).encode(),
        cwd=ROOT,
        timeout=60,
    )
    assert second.returncode == 0
    assert _forwarded(["search", QUERY, "-k", "1"], capsys)[0] == 0
    # the socket is this user's alone, and nothing is sent through a directory others may write in
    assert stat.S_IMODE(os.stat(resident.socket_path()).st_mode) == 0o600
    directory = os.path.dirname(resident.socket_path())
    os.chmod(directory, 0o777)
    try:
        assert _forwarded(["search", QUERY, "-k", "1"], capsys)[0] is None
    finally:
        os.chmod(directory, 0o700)


def test_an_idle_helper_leaves_and_takes_its_socket_with_it(
    tmp_path: Path, embedded_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = Path(tempfile.mkdtemp(prefix="ps-"))
    os.chmod(run_dir, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    monkeypatch.setenv("PAPERSIFT_HOME", str(embedded_home))  # the helper's key: this install and home
    env = {"PAPERSIFT_RESIDENT_MINUTES": "0.03"}  # about 2 s
    run_cli("related", "--text", QUERY, "-k", "2", home=embedded_home, env=env)
    _wait(lambda: os.path.exists(resident.socket_path()))
    _wait(lambda: not os.path.exists(resident.socket_path()), 60)
    _wait(lambda: not os.path.exists(resident.lock_path()), 10)  # its lock file too: nothing stale is left
    assert os.listdir(run_dir) == []
    shutil.rmtree(run_dir)


def test_two_homes_keep_two_helpers_side_by_side_and_one_command_starts_one(
    tmp_path: Path, embedded_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    homes = [tmp_path / "a", tmp_path / "b"]
    for home in homes:
        shutil.copytree(embedded_home, home)
    run_dir = Path(tempfile.mkdtemp(prefix="ps-"))
    os.chmod(run_dir, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run_dir))
    monkeypatch.setenv("PAPERSIFT_RESIDENT_MINUTES", "5")
    monkeypatch.setenv("COLUMNS", "200")
    argvs = [["--home", str(home), "search", QUERY, "-k", "2"] for home in homes]
    try:
        assert resident.socket_path(argvs[0]) != resident.socket_path(argvs[1])
        # a second checkout (another install) of the same home has a helper of its own too
        assert resident.socket_path(argvs[0], install="/elsewhere/src/papersift") != resident.socket_path(
            argvs[0]
        )
        assert resident.linger(argvs[0])  # starts the first home's helper, handing it the lock it took
        assert not resident.linger(argvs[0])  # started (or starting): a second command starts none
        assert resident.linger(argvs[1])  # the second home's
        for argv in argvs:
            _wait(lambda argv=argv: _answers(argv))
        pids = {int(Path(resident.lock_path(argv)).read_text()) for argv in argvs}
        assert len(pids) == 2
        for argv, home in zip(argvs, homes, strict=True):  # each answers for its own home, the other lives on
            code, out, _ = _forwarded(argv, capsys)
            assert (
                code == 0
                and out == run_cli(*argv[2:], home=home, env={"PAPERSIFT_RESIDENT_MINUTES": "0"}).stdout
            )
        assert all(_answers(argv) for argv in argvs)
    finally:
        for argv in argvs:
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(Path(resident.lock_path(argv)).read_text()), signal.SIGTERM)
        for argv in argvs:
            _wait(lambda argv=argv: not os.path.exists(resident.socket_path(argv)), 30)
        shutil.rmtree(run_dir)


def test_a_command_line_refused_for_a_chinese_reader_is_run_and_said_here_in_chinese(
    helped: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERSIFT_LANG", "zh")
    assert _forwarded(["search", QUERY, "--bogus"], capsys)[0] is None  # the helper leaves it to the client
    code, out, _ = _forwarded(["search", QUERY, "-k", "5"], capsys)
    assert code == 0 and out.startswith("  1. [")  # a 中文 reader's search is still the helper's
    refused = run_cli("search", QUERY, "--bogus", home=helped, check=False, env={"PAPERSIFT_LANG": "zh"})
    assert refused.returncode == 2 and "没有这个选项：--bogus" in refused.stderr
    monkeypatch.setenv("PAPERSIFT_LANG", "en")
    code, _, err = _forwarded(["search", QUERY, "--bogus"], capsys)
    assert code == 2 and "No such option: --bogus" in err  # in English the helper answers it, as before


def test_the_helpers_command_line_carries_no_query(helped: Path) -> None:
    pid = int(Path(resident.lock_path()).read_text())
    command_line = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert b"papersift.cli.resident" in command_line  # the helper itself…
    assert not [a for a in command_line if QUERY.encode() in a or a == b"search"]  # …and no query


def test_minutes_zero_means_no_helper_even_one_already_running(
    helped: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["search", QUERY, "-k", "3"]
    assert _forwarded(argv, capsys)[0] == 0  # the running helper answers…
    monkeypatch.setenv("PAPERSIFT_RESIDENT_MINUTES", "0")
    assert _forwarded(argv, capsys)[0] is None and _answers()  # …but not a command with helpers off
    assert not resident.linger(argv)
    monkeypatch.delenv("PAPERSIFT_RESIDENT_MINUTES")  # the home's config says 0 as well
    (helped / "config.json").write_text(json.dumps({"resident_minutes": 0}))
    assert _forwarded(argv, capsys)[0] is None
    # a client of older code that still hands it a command with helpers off: the helper leaves
    with socket.socket(socket.AF_UNIX) as conn:
        conn.connect(resident.socket_path())
        env = {**resident._environment(), "PAPERSIFT_RESIDENT_MINUTES": "0"}
        request = {"argv": argv, "cwd": str(ROOT), "env": env, "stamp": resident.code_stamp()}
        conn.sendall(json.dumps(request).encode() + b"\n")
        conn.settimeout(30)
        assert json.loads(conn.recv(1000)) == {"stale": True}
    _wait(lambda: not os.path.exists(resident.socket_path()), 30)
    _wait(lambda: not os.path.exists(resident.lock_path()), 10)
