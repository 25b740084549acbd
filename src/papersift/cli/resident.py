"""The resident query helper: ``search`` and ``related`` answered by a process that keeps the store, the
current index generation and the model loaded, so that such a command costs a Python start and one round
trip on a Unix socket instead of importing and loading everything again (about 0.7 s on 2 cores).

Its life:

- a ``search`` or ``related`` that ran in its own process starts a helper in the background once it has
  printed its results (``linger``). The helper reads that command line on its standard input, never on
  its own (which ``ps`` shows every user: no query is there), and runs it once, its output dropped, to load
  what such commands need;
- ``resident_minutes`` 0 (``PAPERSIFT_RESIDENT_MINUTES=0``, or the home's config) means no helper at all: no
  command starts one or hands one a command, and a running helper asked by such a command leaves;
- ``forward`` (called by ``papersift.cli.main`` before anything heavy is imported) hands the next such
  command to it: the command line, the working directory, the environment that settings read and the stamp
  of the code. It prints what the helper answers and exits with its code. The command runs in its own
  process instead when no helper answers, when it reads standard input, when the helper runs other code
  than this process would (that helper then exits, and this command starts a new one), or when the helper
  refuses the command line (exit 2) of a reader not in English: ``main`` says that frame in the reader's
  language (``cli/said_tree.py``), the helper's command line in English only;
- the helper runs one command at a time through the same command line (``papersift.cli.commands``), with
  stores and indexes kept open between commands (``Kept``): a command sees every paper stored so far, and a
  newly published index generation, as ``serve`` does. It exits after ``resident_minutes`` without a
  command, and on SIGTERM, removing its socket and its lock file.

A helper serves one install and one store: its socket is named for this package's folder and the home (or
``--db`` / ``PAPERSIFT_DB``) a command names, so two checkouts, or two homes, each keep their own helper
side by side. ``linger`` takes the helper's lock before it starts one and hands the locked file to it, so
no moment exists in which a second command could start a second helper for the same install and home.

Only the user who started a helper can talk to it: its socket is in ``$XDG_RUNTIME_DIR`` (else in a
directory of ``/tmp`` that only this user may enter), readable by this user only, and the helper checks
the uid of each peer. This module imports only the standard library at the top: the client side runs
before anything else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sys
import zlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections import OrderedDict
    from collections.abc import Mapping

    from papersift.cli.common import Opened
    from papersift.index.encoder import Encoder
    from papersift.index.runtime import Papersift
    from papersift.settings import Settings

FORWARDED = ("search", "related")  # the commands a helper answers
ENV_PREFIX = "PAPERSIFT_"
# the homes, the terminal, and the locale (settings.lang: the language of the output)
ENV_NAMES = (
    "HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "TERM",
    "LC_ALL",
    "LC_MESSAGES",
    "LANG",
)
CONNECT_SECONDS = 2.0  # a helper that does not accept within this is treated as absent
REQUEST_SECONDS = 10.0  # a client that does not send its command within this is dropped
ANSWER_SECONDS = 120.0  # a helper that has not answered one query by then is stuck: the command runs here
BATCH_OPTIONS = ("--queries-from", "--ids-from")  # a batch's answer takes as long as it takes
KEPT = 2  # stores (each with its index generation) a helper keeps open, the most recently used
LOCK_SECONDS = 5.0  # a new helper waits this long for an old one to leave, then gives up


INSTALL = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this papersift package's folder
LOCK_FD = "--lock-fd="  # how ``linger`` hands the helper it starts the lock it took for it


def _root_option(argv: list[str], name: str) -> str | None:
    """The value of the root option ``name`` (``--home``, ``--db``) in ``argv``, before the command."""
    i = 0
    while i < len(argv):
        option, _, value = argv[i].partition("=")
        if option not in ("--home", "--db"):
            return None
        given = value if value else (argv[i + 1] if i + 1 < len(argv) else None)
        if option == name:
            return given
        i += 1 if value else 2
    return None


def served(argv: list[str], install: str = INSTALL) -> str:
    """What a helper for ``argv`` serves: this install, and the store the command names (``--db`` /
    ``PAPERSIFT_DB``, and the home: ``--home`` / ``PAPERSIFT_HOME`` / the default), as one short key."""
    home = _root_option(argv, "--home") or os.environ.get("PAPERSIFT_HOME")
    home = os.path.abspath(os.path.expanduser(home or "~/.local/share/papersift"))
    db = _root_option(argv, "--db") or os.environ.get("PAPERSIFT_DB") or ""
    return hashlib.blake2b(f"{install}\0{home}\0{db}".encode(), digest_size=8).hexdigest()


def socket_path(argv: list[str] | None = None, install: str = INSTALL) -> str:
    """Where the helper of this user, this install and the store ``argv`` names listens:
    ``$XDG_RUNTIME_DIR`` (made private by the login system), else a directory of ``/tmp`` named for the
    uid."""
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/tmp/papersift-{os.getuid()}"
    return os.path.join(runtime, f"papersift-{served(argv or [], install)}.sock")


def lock_path(argv: list[str] | None = None) -> str:
    """The helper's lock file, which holds the running helper's pid."""
    return socket_path(argv) + ".lock"


def _private(directory: str) -> bool:
    """``directory`` is this user's and nobody else may create or replace files in it."""
    try:
        st = os.stat(directory)
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def forwardable(argv: list[str]) -> bool:
    """``argv`` is a ``search`` or ``related`` command that reads no standard input and asks no help."""
    return _command(argv) in FORWARDED and "-" not in argv and "--help" not in argv


def _command(argv: list[str]) -> str | None:
    """The command name of ``argv``, after the root options (``--home``, ``--db``)."""
    i = 0
    while i < len(argv):
        if argv[i] in ("--home", "--db"):
            i += 2
        elif argv[i].startswith(("--home=", "--db=")):
            i += 1
        else:
            return argv[i]
    return None


def code_stamp() -> str:
    """What identifies the code a process runs: the interpreter, and each module of papersift (its path,
    size and modification time), so a helper never answers for code that has changed since it started."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parts = [sys.executable, sys.version]
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                st = os.stat(os.path.join(directory, name))
                parts.append(f"{directory}/{name}:{st.st_size}:{st.st_mtime_ns}")
    return f"{zlib.crc32('|'.join(parts).encode()):08x}-{len(parts)}"


def _forwarded(name: str) -> bool:
    """Whether a command's settings or output depend on the environment variable ``name``."""
    return name.startswith(ENV_PREFIX) or name in ENV_NAMES


def _environment() -> dict[str, str]:
    """The part of the environment that a command's settings and output depend on."""
    return {k: v for k, v in os.environ.items() if _forwarded(k)}


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    conn.sendall(json.dumps(message).encode() + b"\n")


def _receive(conn: socket.socket) -> dict[str, Any]:
    """One JSON line (``ValueError`` when what came is not one, ``OSError`` when the peer went away)."""
    chunks = []
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            raise ValueError("the connection closed before a whole message")
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    message = json.loads(b"".join(chunks))
    if not isinstance(message, dict):
        raise ValueError("not a JSON object")
    return message


def helpers_off(argv: list[str], env: dict[str, str] | None = None) -> bool:
    """Whether ``resident_minutes`` is 0 for ``argv``: ``PAPERSIFT_RESIDENT_MINUTES`` in ``env`` (this
    process's environment by default), else the home's config (``HOME/config.json``), read without the
    settings (this runs before anything heavy is imported)."""
    names: Mapping[str, str] = os.environ if env is None else env
    given: object = names.get("PAPERSIFT_RESIDENT_MINUTES")
    if given is None:
        home = _root_option(argv, "--home") or names.get("PAPERSIFT_HOME") or "~/.local/share/papersift"
        try:
            with open(os.path.join(os.path.expanduser(home), "config.json"), encoding="utf-8") as f:
                config = json.load(f)
        except (OSError, ValueError):
            return False
        given = config.get("resident_minutes") if isinstance(config, dict) else None
    try:
        return given is not None and float(str(given).strip()) <= 0
    except ValueError:
        return False  # refused by the settings: the command run here says so


def forward(argv: list[str]) -> int | None:
    """Run ``argv`` in this user's helper and print its output: the exit code, or None (no helper answers,
    the command is not one a helper runs, helpers are off, or the helper runs other code): run it here."""
    if not forwardable(argv) or helpers_off(argv):
        return None
    path = socket_path(argv)
    if not _private(os.path.dirname(path)):
        return None
    request = {"argv": argv, "cwd": os.getcwd(), "env": _environment(), "stamp": code_stamp()}
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CONNECT_SECONDS)
            conn.connect(path)
            _send(conn, request)
            batch = any(a.split("=")[0] in BATCH_OPTIONS for a in argv)
            conn.settimeout(None if batch else ANSWER_SECONDS)
            reply = _receive(conn)
    except (OSError, ValueError):
        return None  # no helper, or it went away: the command is read-only, so run it here
    if reply.get("stale") or not isinstance(reply.get("code"), int):
        return None
    sys.stderr.write(str(reply.get("stderr", "")))
    sys.stderr.flush()
    sys.stdout.write(str(reply.get("stdout", "")))
    sys.stdout.flush()
    return int(reply["code"])


def linger(argv: list[str]) -> bool:
    """After ``argv`` ran in this process: start a helper in the background (a new session, no terminal),
    unless ``argv`` is not a command helpers answer, ``resident_minutes`` is 0, or a helper for this install
    and store runs or is starting (its lock is held). True when one was started."""
    if not forwardable(argv):
        return False
    import subprocess

    from papersift.settings import Settings

    try:
        if Settings().resident_minutes <= 0:
            return False
    except ValueError:  # settings refused: the command said so already
        return False
    directory = os.path.dirname(socket_path(argv))
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError:
        return False
    if not _private(directory):
        return False
    lock = _locked(lock_path(argv), wait=False)
    if lock is None:
        return False
    with lock:  # the helper inherits the locked file: the lock is never free between this and its start
        helper = subprocess.Popen(
            [sys.executable, "-m", "papersift.cli.resident", f"{LOCK_FD}{lock.fileno()}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            pass_fds=(lock.fileno(),),
        )
        assert helper.stdin is not None
        try:  # the command line through a pipe: its query is no part of the helper's own
            helper.stdin.write(json.dumps(argv).encode() + b"\n")
            helper.stdin.close()
        except OSError:
            return False
    return True


class _Entry:
    """An open papersift kept (``index/runtime.py``: its store, and its current indexes, opened again when a
    new generation is published) and the SQLite file's (device, inode) when opened."""

    def __init__(self, papersift: Papersift, identity: tuple[int, int] | None) -> None:
        self.papersift = papersift
        self.identity = identity

    def close(self) -> None:
        self.papersift.close()


class Kept:
    """The open papersifts (stores with their current index generations) and models a helper keeps open
    between commands: the ``KEPT`` most recently used settings. A store whose SQLite file was replaced is
    opened again, and indexes are opened again when a new generation is published."""

    def __init__(self) -> None:
        from collections import OrderedDict

        self.entries: OrderedDict[str, _Entry] = OrderedDict()
        self.encoders: dict[str, Encoder] = {}
        self.command: Any = None  # the command line as click sees it, built once (``run``)

    def open(self, settings: Settings) -> Opened:
        """``settings``' store and current indexes, left open when the command ends."""
        from papersift.cli.common import Opened
        from papersift.index.runtime import open_papersift

        key = f"{os.getcwd()}|{settings.model_dump_json()}"
        identity = _identity(settings)
        entry = self.entries.pop(key, None)
        if entry is not None and entry.identity != identity:
            entry.close()
            entry = None
        if entry is None:
            # opening creates the file of a new store: its identity comes after
            papersift = open_papersift(settings, model=lambda: self.encoder(settings))
            entry = _Entry(papersift, _identity(settings))
        self.entries[key] = entry
        while len(self.entries) > KEPT:
            self.entries.popitem(last=False)[1].close()
        return Opened(entry.papersift, _indexes=entry.papersift.indexes(), owned=False)

    def encoder(self, settings: Settings) -> Encoder:
        """The model ``settings`` name, loaded once."""
        from papersift.index.encoder import load_encoder

        key = "|".join(
            str(v) for v in (settings.model, settings.runtime, settings.quantize, settings.model_cache)
        )
        if key not in self.encoders:
            self.encoders[key] = load_encoder(settings)
        return self.encoders[key]

    def close(self) -> None:
        while self.entries:
            self.entries.popitem()[1].close()


def _identity(settings: Settings) -> tuple[int, int] | None:
    """The SQLite file's (device, inode), None for PostgreSQL or a file not made yet."""
    from papersift.store import is_postgres_url, sqlite_path

    if settings.db and is_postgres_url(settings.db):
        return None
    try:
        st = os.stat(sqlite_path(settings.db) if settings.db else settings.db_path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def run(argv: list[str], kept: Kept) -> dict[str, Any]:
    """Run one command line as ``papersift ARGV`` would, with ``kept``'s stores: its output and exit code."""
    import io
    import traceback

    if kept.command is None:
        from typer.main import get_command

        from papersift.cli.commands import app

        kept.command = get_command(app)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            kept.command.main(args=argv, prog_name="papersift", obj=kept, standalone_mode=True)
            code = 0
        except SystemExit as e:
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
        except Exception:  # a bug: the client gets the traceback a command run on its own would print
            traceback.print_exc()
            code = 1
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}


def _answer(conn: socket.socket, kept: Kept, stamp: str) -> bool:
    """Answer one client; False when the helper should leave (the client runs other code)."""
    import struct

    pid_uid_gid = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    if struct.unpack("3i", pid_uid_gid)[1] != os.getuid():
        return True
    conn.settimeout(REQUEST_SECONDS)
    try:
        request = _receive(conn)
        argv, cwd, env = request["argv"], request["cwd"], request["env"]
        if not (
            isinstance(argv, list)
            and all(isinstance(a, str) for a in argv)
            and isinstance(cwd, str)
            and isinstance(env, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        ):
            raise ValueError("not a command")
    except (OSError, ValueError, KeyError):
        return True
    with contextlib.suppress(OSError):
        if request.get("stamp") != stamp:
            _send(conn, {"stale": True})
            return False
        if not forwardable(argv):
            _send(conn, {"stale": True})  # not ours to run: the client runs it
            return True
        if helpers_off(argv, env):
            _send(conn, {"stale": True})  # helpers are off for this client: it runs the command, this leaves
            return False
        for name in [k for k in os.environ if _forwarded(k)]:
            del os.environ[name]
        os.environ.update({k: v for k, v in env.items() if _forwarded(k)})
        try:
            os.chdir(cwd)
        except OSError as e:  # said in the client's language (its environment, set just above)
            from papersift.cli.common import spoken

            _send(conn, {"stdout": "", "stderr": spoken().line("cli_error", message=e) + "\n", "code": 1})
            return True
        conn.settimeout(None)
        from papersift.settings import environment_language

        answer = run(argv, kept)
        if answer["code"] == 2 and environment_language() != "en":
            answer = {"stale": True}  # a refused command line: the client's own run frames it in its language
        _send(conn, answer)
    return True


def _locked(path: str, *, wait: bool = True, fd: int | None = None) -> Any:
    """An exclusive lock on ``path`` (or on the open file ``fd`` a starting ``linger`` handed over), waiting
    up to ``LOCK_SECONDS`` when ``wait`` (None: another helper holds it)."""
    import fcntl
    import time

    handle = open(path, "a+b") if fd is None else os.fdopen(fd, "a+b")  # noqa: SIM115 (held for life)
    deadline = time.monotonic() + (LOCK_SECONDS if wait else 0)
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if fd is None and not _still_at(handle, path):  # a leaving helper removed it: take the new file
                handle.close()
                handle = open(path, "a+b")  # noqa: SIM115 (held for life)
                continue
            handle.truncate(0)
            handle.write(f"{os.getpid()}\n".encode())  # who holds it: `kill $(cat …lock)` stops the helper
            handle.flush()
            return handle
        except BlockingIOError:
            if time.monotonic() >= deadline:
                handle.close()
                return None
            time.sleep(0.1)


def _still_at(handle: Any, path: str) -> bool:
    """Whether the open file ``handle`` is still the file at ``path`` (a helper removes its lock file when
    it leaves: a lock taken on the removed file locks nothing)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(handle.fileno())
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _unlink(path: str) -> None:

    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


class Leave(BaseException):
    """SIGTERM, raised in the helper's main thread. Neither an ``Exception`` nor a ``SystemExit``: ``run``
    keeps a command's own exits and failures, and would otherwise swallow a SIGTERM that comes while a
    command runs (the first one, which loads the model, lasts seconds) and the helper would stay."""


def _leave(signum: int, frame: Any) -> None:
    raise Leave


def _command_line() -> list[str]:
    """The command line a helper loads for, as ``linger`` writes it on the helper's standard input: one
    JSON list of strings ([] when none came)."""
    try:
        given = json.loads(sys.stdin.readline() or "[]")
    except (OSError, ValueError):
        return []
    return [str(a) for a in given] if isinstance(given, list) else []


def main(args: list[str]) -> None:
    """The helper: read the command that started it on standard input, listen, load what that command
    needs, answer until idle; its socket and lock file removed when it leaves."""
    import signal

    from papersift.settings import Settings

    fd = int(args[0].removeprefix(LOCK_FD)) if args and args[0].startswith(LOCK_FD) else None
    argv = _command_line()
    path = socket_path(argv)
    lock = _locked(lock_path(argv), fd=fd)
    if lock is None:
        return
    try:
        idle = Settings().resident_minutes * 60
    except ValueError:
        idle = 0
    if idle <= 0 or not forwardable(argv):
        _unlink(lock_path(argv))
        lock.close()
        return
    kept = Kept()
    stamp = code_stamp()
    signal.signal(signal.SIGTERM, _leave)
    with contextlib.suppress(Leave), lock, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        _unlink(path)  # a helper that died left it (the lock says none is running)
        server.bind(path)
        try:
            os.chmod(path, 0o600)
            server.listen(16)
            run(argv, kept)  # load the store, the indexes and the model; clients wait in the backlog
            server.settimeout(idle)
            while True:
                try:
                    conn, _ = server.accept()
                except TimeoutError:
                    break
                with conn:
                    if not _answer(conn, kept, stamp):
                        break
        finally:
            _unlink(path)
            _unlink(lock_path(argv))  # while still held: the next helper locks a new file
            kept.close()


if __name__ == "__main__":
    main(sys.argv[1:])
