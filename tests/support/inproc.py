"""The faces run in this process, for the tests whose point is what papersift says, not that it runs as a
process of its own: the command line through Typer's ``CliRunner`` (``invoke``, answering like
``run_cli``) and the web app through an in-process ASGI client (``app_client``, answering like
``serving``). The tests of a real process (start-up, signals, the resident helper, a real port) keep
``tests.support.processes``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx


@dataclass(frozen=True, slots=True)
class Ran:
    """A command's exit status and what it wrote (the fields of ``subprocess.CompletedProcess`` it uses)."""

    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


def invoke(
    *args: str, home: Path, check: bool = True, env: dict[str, str] | None = None, stdin: str | None = None
) -> Ran:
    """Run ``papersift ARGS`` over ``home`` in this process (``cli.commands.app``, as ``main`` runs it when no
    resident helper answers); ``check``: fail unless it exits 0; ``stdin``: what it reads there."""
    from typer.testing import CliRunner

    from papersift.cli.commands import app

    variables = {"PAPERSIFT_HOME": str(home), "COLUMNS": "200", **(env or {})}
    before = dict(os.environ)  # a root option (--db, --home) sets its variable for the process: not past it
    try:
        result = CliRunner().invoke(app, list(args), input=stdin, env=variables)
    finally:
        for name in os.environ.keys() - before.keys():
            del os.environ[name]
        os.environ.update(before)
    ran = Ran(tuple(args), result.exit_code, result.stdout, result.stderr)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"papersift {' '.join(args)} raised:\n{result.stderr}") from result.exception
    if check and ran.returncode != 0:
        raise AssertionError(f"papersift {' '.join(args)} failed:\n{ran.stderr}")
    return ran


@contextlib.contextmanager
def app_client(home: Path, env: dict[str, str] | None = None, **settings: Any) -> Iterator[httpx.Client]:
    """The web app over ``home`` in this process, with the settings ``env`` (``PAPERSIFT_*``, set while it
    runs) and ``settings`` give it, started and stopped as a server starts and stops it (its lifespan), and a
    client that talks to it as a browser on 127.0.0.1 does."""
    import pytest
    from fastapi.testclient import TestClient

    from papersift.settings import Settings
    from papersift.web.app import create_app

    with pytest.MonkeyPatch.context() as patch:
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        app = create_app(Settings(home=home, **settings))
        with TestClient(app, base_url="http://127.0.0.1") as client:
            yield client
