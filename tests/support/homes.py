"""A module's own copy of a home a session fixture built (``server_home``, ``daily_home``, ``topics_home``):
what a module's tests change there (saves, ratings, fetched papers) stays in that module."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def home_copy(source: Path, factory: pytest.TempPathFactory, name: str) -> Path:
    """A copy of the built home ``source`` under a new temporary folder named for ``name``."""
    home = factory.mktemp(name) / "home"
    shutil.copytree(source, home)
    return home
