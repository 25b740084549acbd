"""Shared fixtures: the real data beside the checkout, fresh stores, and the CLI as a user runs it."""

from __future__ import annotations

import gzip
import itertools
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from papersift.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.exists():
        pytest.skip("../shared/data is not beside this checkout")
    return SHARED_DATA


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path / "papersift.db")
    yield s
    s.close()


@pytest.fixture(scope="session")
def real_records(shared_data: Path) -> list[dict[str, object]]:
    """The first 2,000 records of the 20k file plus 500 recent (announced) ones."""
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        head = [orjson.loads(line) for line in itertools.islice(f, 2000)]
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        recent = [r for r in itertools.islice(map(orjson.loads, f), 200_000, 300_000) if r.get("announced")][
            :500
        ]
    return head + recent


def write_jsonl(path: Path, records: list[dict[str, object]], gz: bool = False) -> Path:
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def run_cli(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the installed ``papersift`` command as a user would, in its own process."""
    env = {**os.environ, "PAPERSIFT_HOME": str(home), "COLUMNS": "200"}
    result = subprocess.run(
        [sys.executable, "-m", "papersift.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"papersift {' '.join(args)} failed:\n{result.stderr}")
    return result
