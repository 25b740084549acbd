"""The ``papersift`` command (``main``): a ``search`` or ``related`` goes to the resident query helper when
one answers (``papersift.cli.resident``); everything else, and those when none answers, runs here through
the command line of ``papersift.cli.commands``. Nothing heavy is imported before that choice. For a reader
not in English (``settings.environment_language``) the command line is said in their language: Typer's
gettext words (``cli/help_words.install``, before Typer is imported), then the help texts and the rest of
its frame (``cli/said_tree.py``); in English it runs as Typer builds it, and no catalog is read."""

from __future__ import annotations

import sys


def main() -> None:
    from papersift.cli import resident

    argv = sys.argv[1:]
    code = resident.forward(argv)
    if code is not None:
        sys.exit(code)
    from papersift.settings import environment_language

    lang = environment_language()
    if lang != "en":
        from papersift.cli import help_words

        help_words.install(lang)
    from papersift.cli.commands import app

    try:
        if lang == "en":
            app()
        else:
            from papersift.cli.said_tree import said_command

            said_command(app, lang)()
    except SystemExit as e:
        if not e.code:
            resident.linger(argv)
        raise
