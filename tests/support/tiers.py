"""The suite's tiers, as markers: ``process`` on every test of a module that starts papersift (or a browser,
a Dask cluster) in a process of its own, or that uses a fixture which does, ``torch`` on the tests of the
``[torch]`` runtime (skipped where it is not installed), ``llm`` on those of the local default model (the
``[llm]`` extra, skipped where it is not installed). ``make test-fast`` runs what is none of these (and not
``slow``), ``make test-torch`` the ``torch`` tests, ``make test-llm`` the ``llm`` ones, ``make test``
everything. A test whose point is what
papersift says, not that it runs as a process, runs the faces in process (``tests/support/inproc.py``) and
stays in the fast tier.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

# fixtures that run `papersift` (or a browser, a cluster) in processes of their own; the homes the tests
# share (embedded_home, daily_home, topics_home, …) are built in process (tests/support/fixtures.py)
PROCESS_FIXTURES = frozenset({"shared_server", "reader_server", "browser", "lab", "cluster"})
# what a module holds when its tests run the command or the server in processes of their own
# (tests/support/processes.py)
PROCESS_HELPERS = ("run_cli", "serving")
# modules whose tests start such processes themselves (subprocess, a cluster's processes)
PROCESS_MODULES = frozenset(
    {
        "test_generations",
        "test_engines",
        "test_resident",
        "test_serve_ready",
        "test_ingest",
        "test_browser",
        "test_browser_topics",
        "test_web_security",
    }
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    has_torch = importlib.util.find_spec("sentence_transformers") is not None
    has_llm = (
        bool(os.environ.get("PAPERSIFT_TEST_GGUF")) and importlib.util.find_spec("llama_cpp") is not None
    )
    for item in items:
        if _starts_processes(item):
            item.add_marker(pytest.mark.process)
        if item.get_closest_marker("torch") and not has_torch:
            item.add_marker(pytest.mark.skip(reason="needs the [torch] runtime: make test-torch"))
        if item.get_closest_marker("llm") and not has_llm:
            item.add_marker(pytest.mark.skip(reason="needs the [llm] extra and a GGUF: make test-llm GGUF=…"))


def _starts_processes(item: pytest.Item) -> bool:
    """Whether ``item`` starts papersift (or a browser, a cluster) in a process of its own: its module is
    one of ``PROCESS_MODULES`` or holds a helper of ``PROCESS_HELPERS``, or it uses a ``PROCESS_FIXTURES``."""
    if PROCESS_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    if not isinstance(item, pytest.Function):
        return False
    module = item.module
    if module.__name__.rpartition(".")[2] in PROCESS_MODULES:
        return True
    return any(name in vars(module) for name in PROCESS_HELPERS)
