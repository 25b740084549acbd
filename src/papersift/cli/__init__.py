"""The ``papersift`` command (``main``): a ``search`` or ``related`` goes to the resident query helper when
one answers (``papersift.cli.resident``); everything else, and those when none answers, runs here through
the command line of ``papersift.cli.commands``. Nothing heavy is imported before that choice."""

from __future__ import annotations

import sys


def main() -> None:
    from papersift.cli import resident

    argv = sys.argv[1:]
    code = resident.forward(argv)
    if code is not None:
        sys.exit(code)
    from papersift.cli.commands import app

    try:
        app()
    except SystemExit as e:
        if not e.code:
            resident.linger(argv)
        raise
