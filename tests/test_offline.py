"""Offline, every network command says so within seconds: the first connection to an arXiv service that
cannot be opened is an "offline: …" error, not a minute and a half of retries (arXiv's addresses pointed at
a port of 127.0.0.1 where nothing listens, as a machine without a network refuses them)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from papersift.services.demo import LOADING, latest_days
from tests.support.data import write_jsonl
from tests.support.inproc import app_client, invoke
from tests.support.processes import free_port


@pytest.fixture()
def nowhere() -> dict[str, str]:
    url = f"http://127.0.0.1:{free_port()}"
    return {
        "PAPERSIFT_RSS_URL": f"{url}/atom",
        "PAPERSIFT_API_URL": f"{url}/api/query",
        "PAPERSIFT_OAI_URL": f"{url}/oai",
        "PAPERSIFT_MAX_RETRIES": "5",
    }


@pytest.mark.parametrize(
    "args",
    [("sync", "cs.LG"), ("harvest", "oai", "--set", "cs"), ("daily", "cs.LG")],
    ids=["sync", "harvest", "daily"],
)
def test_a_network_command_offline_fails_within_seconds(
    args: tuple[str, ...], nowhere: dict[str, str], tmp_path: Path
) -> None:
    started = time.monotonic()
    result = invoke(*args, home=tmp_path / "home", env=nowhere, check=False)
    assert time.monotonic() - started < 20  # retries alone took 94 s
    assert "offline: cannot reach 127.0.0.1" in result.stderr, result.stderr
    if args[0] != "daily":  # the cron job goes on with what is stored
        assert result.returncode == 1


def test_the_demo_offline_without_a_snapshot_says_so_within_seconds(
    nowhere: dict[str, str], tmp_path: Path
) -> None:
    started = time.monotonic()
    args = ("demo", "--no-embed", "--shared", str(tmp_path / "no-data"))
    result = invoke(*args, home=tmp_path / "home", env=nowhere, check=False)
    assert time.monotonic() - started < 20  # one probe of arXiv, not its retries
    assert result.returncode != 0 and "offline: arXiv is unreachable" in result.stderr, result.stderr


def test_the_online_demos_background_days_offline_say_so_within_seconds(
    nowhere: dict[str, str], tmp_path: Path
) -> None:
    started = time.monotonic()  # what an online demo starts in the background: the earlier days from the API
    args = ("demo", "--part", "rest", "--days", "3", "--no-embed")
    result = invoke(*args, home=tmp_path / "home", env=nowhere)
    assert time.monotonic() - started < 20
    assert (
        result.stdout.startswith("offline: cannot reach ") and "only today's announcements" in result.stdout
    )
    assert not (tmp_path / "home" / LOADING).exists()


@pytest.mark.slow  # reads the 300k snapshot twice (its latest days, then their papers): data at scale
def test_the_offline_demo_loads_every_categorys_latest_days(tmp_path: Path, shared_data: Path) -> None:
    home = tmp_path / "demo"
    invoke("demo", "--offline", "--no-embed", "--days", "1", "--shared", str(shared_data), home=home)
    latest = latest_days(shared_data / "arxiv-300k.jsonl.gz", 1)
    for category in ("cs.LG", "cs.CV", "cs.CL", "cs.AI", "stat.ML", "hep-th", "astro-ph.GA"):
        (day,) = latest[category]  # the category's own latest day (the snapshot's cs.LG is sparse)
        listing = invoke("list", category.lower(), "--date", day.isoformat(), home=home)
        assert "#01" in listing.stdout, category  # any case of its name
        assert " 0 new" not in listing.stdout.splitlines()[0], category


def test_the_offline_demo_loads_the_latest_day_first_and_the_other_days_in_the_background(
    tmp_path: Path, shared_data: Path
) -> None:
    home = tmp_path / "demo"
    shown = invoke("demo", "--offline", "--no-embed", "--days", "2", "--shared", str(shared_data), home=home)
    assert "in the background" in shown.stdout and "demo.log" in shown.stdout
    assert (home / LOADING).exists()  # the pages say so from the first one on
    latest = latest_days(shared_data / "arxiv-300k.jsonl.gz", 2)["cs.AI"]
    first, last = sorted(latest)
    assert "#01" in invoke("list", "cs.AI", "--date", last.isoformat(), home=home).stdout  # the first page
    log = home / "demo.log"
    deadline = time.monotonic() + 240
    while (home / LOADING).exists() and time.monotonic() < deadline:
        time.sleep(1)
    assert "demo: loaded" in log.read_text(), log.read_text()
    assert not (home / LOADING).exists()
    earlier = invoke("list", "cs.AI", "--date", first.isoformat(), home=home)
    assert "#01" in earlier.stdout and " 0 new" not in earlier.stdout.splitlines()[0]


def test_while_the_demo_loads_its_other_days_every_page_says_so(
    tmp_path: Path, real_records: list[dict[str, object]]
) -> None:
    home = tmp_path / "home"
    invoke("ingest", str(write_jsonl(tmp_path / "few.jsonl", real_records[-50:])), home=home)
    (home / LOADING).touch()  # what `papersift demo --part rest` leaves while it loads
    with app_client(home) as client:
        assert "demo-loading" in client.get("/categories").text
        assert "演示仍在载入" in client.get("/categories", params={"lang": "zh"}).text
        (home / LOADING).unlink()
        assert "demo-loading" not in client.get("/categories").text  # not a cached page of the loading time


def test_make_demo_takes_a_port_and_days_and_the_readme_says_how_to_load_more() -> None:
    import shutil
    import subprocess

    from tests.support.data import ROOT

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    asked = ["make", "-n", "demo", "PORT=8123", "DAYS=14"]
    ran = subprocess.run(asked, cwd=ROOT, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert "demo --shared ../shared/data --days 14" in ran.stdout
    assert "serve --host 127.0.0.1 --port 8123" in ran.stdout
    readme = (ROOT / "README.md").read_text()
    assert "make demo PORT=" in readme
    for way in ("papersift demo --days N", "papersift harvest oai", "papersift ingest FILE"):
        assert way in readme, way
