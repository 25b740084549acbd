"""The order the workers take the test files in (``tests/support/schedule.py``): files with slow tests
first, then those starting processes, then the rest; a file's tests stay together and in their order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from tests.support import schedule


@dataclass
class Collected:
    """As much of a collected test as the ordering reads: its id and its markers."""

    nodeid: str
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> Any:
        return name if name in self.marks else None


def test_slow_files_go_first_then_process_files_then_the_rest_each_file_whole() -> None:
    items = [
        Collected("tests/test_a.py::one"),
        Collected("tests/test_b.py::one", {"process"}),
        Collected("tests/test_a.py::two"),
        Collected("tests/test_c.py::one"),
        Collected("tests/test_c.py::two", {"slow", "process"}),
        Collected("tests/test_d.py::one", {"process"}),
    ]
    given = cast(list[pytest.Item], items)
    schedule.pytest_collection_modifyitems(cast(pytest.Config, None), given)
    assert [item.nodeid for item in given] == [
        "tests/test_c.py::one",
        "tests/test_c.py::two",
        "tests/test_b.py::one",
        "tests/test_d.py::one",
        "tests/test_a.py::one",
        "tests/test_a.py::two",
    ]
