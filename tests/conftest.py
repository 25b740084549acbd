"""The suite's plugins: every test in its own temporary home (``tests/support/sandbox.py``), the shared
fixtures (``tests/support/fixtures.py``), the tiers (``tests/support/tiers.py``) and the order the workers
take the files in (``tests/support/schedule.py``). The helpers are
imported here too, for test modules that still take them from ``tests.conftest``; new code imports them
from ``tests.support``."""

from __future__ import annotations

import pytest

pytest.register_assert_rewrite("tests.support")  # before the imports below: their asserts say what failed

from tests.support.data import (  # noqa: E402, F401
    DAILY_DAYS,
    EVIL,
    ROOT,
    SHARED_DATA,
    as_papers,
    day_records,
    spread_records,
    write_jsonl,
)
from tests.support.fixtures import reopen  # noqa: E402, F401
from tests.support.processes import free_port, run_cli, serving  # noqa: E402, F401

pytest_plugins = [
    "tests.support.sandbox",
    "tests.support.fixtures",
    "tests.support.tiers",
    "tests.support.schedule",
]
