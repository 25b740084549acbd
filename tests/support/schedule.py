"""The order in which pytest-xdist's workers take the test files (``--dist loadfile``, each file whole on
one worker; ``--no-loadscope-reorder`` keeps this order): the files holding ``slow`` tests first, then
those starting processes (``process``, marked by ``tests/support/tiers.py``), then the in-process rest, each
group in its collected order. Long files started early and short ones left for the end mean the run does
not end with one worker on a long file while the others wait (xdist's own order is by the number of tests
a file holds, which sends a file of three long tests last)."""

from __future__ import annotations

import pytest


def weight(items: list[pytest.Item]) -> int:
    """0 for a file with a ``slow`` test, 1 for one with a ``process`` test, else 2: the earlier taken."""
    if any(item.get_closest_marker("slow") for item in items):
        return 0
    if any(item.get_closest_marker("process") for item in items):
        return 1
    return 2


@pytest.hookimpl(trylast=True)  # after tiers.py has marked the process tests
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    ordered = sorted(files.values(), key=weight)  # stable: each group in its collected order
    items[:] = [item for group in ordered for item in group]
