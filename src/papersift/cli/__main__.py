"""``python -m papersift.cli``: the ``papersift`` command."""

from papersift.cli import main

if __name__ == "__main__":
    main()
