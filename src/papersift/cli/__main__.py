"""``python -m papersift.cli``: the ``papersift`` command."""

from papersift.cli import main

main()
