"""The pytest fixtures the test modules share (registered by ``tests/conftest.py``), each defined here once:
the real data, fresh stores of both backends, homes built by the CLI in process (once a run: ``built_once``),
real servers over them, the browser, and the records and opened indexes a module names with a constant of
its own (``SPREAD``, ``INDEXES_HOME``). A session fixture lives here, never in a test module: imported
from one, it would be built again for each module importing it (pytest caches a fixture per definition)."""

from __future__ import annotations

import gzip
import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import orjson
import pytest

from papersift.index.indexes import Indexes
from papersift.index.runtime import open_papersift
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.sqlite import SqliteStore
from tests.reading_server import LlmServer
from tests.support.browser import CHROMIUM, FLAGS
from tests.support.data import DAILY_DAYS, EVIL, SHARED_DATA, announced_on, spread_records, write_jsonl
from tests.support.homes import built_once, home_copy, seeded
from tests.support.inproc import invoke
from tests.support.processes import serving
from tests.support.venues import colm_home as colm_home  # COLM 2025's list over its arXiv papers

if TYPE_CHECKING:
    from tests.pg import PgServer


@pytest.fixture(scope="session", autouse=True)
def no_resident_helpers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test starts a resident query helper (``papersift.cli.resident``) unless it asks for one, and
    none talks to a helper of the user running the tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PAPERSIFT_RESIDENT_MINUTES", "0")
        patch.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
        yield


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.exists():
        pytest.skip("../shared/data is not beside this checkout")
    return SHARED_DATA


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One real PostgreSQL + pgvector server on 127.0.0.1 for the session (skips its tests if none)."""
    from tests.pg import PgServer, PgUnavailableError

    try:
        server = PgServer.start()
    except PgUnavailableError as e:
        pytest.skip(f"no PostgreSQL server for the postgres backend: {e}")
    yield server
    server.stop()


@pytest.fixture
def pg_dsn(pg_server: PgServer) -> Iterator[str]:
    """A fresh, empty database on the session's server."""
    dsn = pg_server.database()
    yield dsn
    pg_server.drop(dsn)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A fresh store of each backend: every test that takes it runs against both."""
    if request.param == "sqlite":
        s: Store = SqliteStore(tmp_path / "papersift.db")
    else:
        from papersift.store.postgres import PostgresStore

        s = PostgresStore(request.getfixturevalue("pg_dsn"))
    yield s
    s.close()


def reopen(store: Store) -> Store:
    """A second, independent connection to the same store."""
    from papersift.store.postgres import PostgresStore

    if isinstance(store, PostgresStore):
        return PostgresStore(store.dsn)
    assert isinstance(store, SqliteStore)
    return SqliteStore(store.path)


@pytest.fixture(scope="module")
def records(request: pytest.FixtureRequest, shared_data: Path) -> list[dict[str, object]]:
    """Real papers spread over the 20k file: every ``SPREAD``-th record (a constant of the test module),
    the first ``SPREAD_COUNT`` of them where the module sets one."""
    step: int = request.module.SPREAD
    return spread_records(shared_data, step)[: getattr(request.module, "SPREAD_COUNT", None)]


@pytest.fixture(scope="module")
def indexes(request: pytest.FixtureRequest) -> Iterator[Indexes]:
    """The indexes of the home fixture the test module names in ``INDEXES_HOME`` (default
    ``embedded_home``), opened as a ranker reads them; their generation and store closed afterwards."""
    home: Path = request.getfixturevalue(getattr(request.module, "INDEXES_HOME", "embedded_home"))
    with open_papersift(Settings(home=home)) as opened:
        yield opened.indexes()


@pytest.fixture(scope="session")
def real_records(shared_data: Path) -> list[dict[str, object]]:
    """The first 2,000 records of the 20k file plus 500 recent (announced) ones."""
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        head = [orjson.loads(line) for line in itertools.islice(f, 2000)]
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        tail = itertools.islice(f, 200_000, 300_000)  # the lines before it are skipped, not parsed
        recent = [r for r in map(orjson.loads, tail) if r.get("announced")][:500]
    return head + recent


@pytest.fixture(scope="session")
def citation_corpus(shared_data: Path) -> tuple[list[dict[str, object]], dict[str, set[str]]]:
    """~400 real papers: 30 query papers of the dev citation pairs, the papers they cite, random filler."""
    gold: dict[str, set[str]] = {}
    with gzip.open(shared_data / "relevance-dev.jsonl.gz", "rb") as f:
        for row in map(orjson.loads, f):
            gold.setdefault(row["query_id"], set()).add(row["candidate_id"])
    queries = sorted(q for q, cited in gold.items() if len(cited) >= 3)[:30]
    wanted = set(queries) | {c for q in queries for c in gold[q]}
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        records = list(map(orjson.loads, f))
    chosen = [r for r in records if r["id"] in wanted]
    filler = [r for r in records[::50] if r["id"] not in wanted][: 400 - len(chosen)]
    return chosen + filler, {q: gold[q] for q in queries}


@pytest.fixture(scope="session")
def embedded_home(
    tmp_path_factory: pytest.TempPathFactory,
    citation_corpus: tuple[list[dict[str, object]], dict[str, set[str]]],
) -> Path:
    """A home whose store holds the citation corpus, embedded and indexed by ``papersift embed``."""

    def build(home: Path) -> None:
        seeded(home, tmp_path_factory)
        invoke("ingest", str(write_jsonl(home / "corpus.jsonl", citation_corpus[0])), home=home)
        result = invoke("embed", home=home)
        assert f"index: {len(citation_corpus[0])} papers, {len(citation_corpus[0])} vectors" in result.stdout

    return built_once(tmp_path_factory, "embedded", build)


@pytest.fixture(scope="session")
def server_home(tmp_path_factory: pytest.TempPathFactory, embedded_home: Path) -> Path:
    """The embedded store plus three papers written here: one full of HTML, two in a followed category."""
    followed = [  # two papers new in a followed category (cs.LG) on the same day, one also cross-listed
        {
            **EVIL,
            "id": f"2608.9999{i}",
            "title": f"A followed paper {i}",
            "abstract": "Plain text.",
            "authors": ["Ada Lovelace"],
            "categories": cats,
            "primary_category": cats[0],
        }
        for i, cats in ((7, ["cs.LG"]), (8, ["cs.LG", "stat.ML"]))
    ]

    def build(home: Path) -> None:
        shutil.copytree(embedded_home, home, dirs_exist_ok=True)
        invoke("ingest", str(write_jsonl(home / "evil.jsonl", [EVIL, *followed])), home=home)

    return built_once(tmp_path_factory, "web", build)


@pytest.fixture(scope="session")
def shared_server(server_home: Path) -> Iterator[httpx.Client]:
    """A real ``papersift serve`` on 127.0.0.1 over ``server_home`` for the session, and its client."""
    with serving(server_home) as client:
        yield client


@pytest.fixture
def server(shared_server: httpx.Client) -> httpx.Client:
    """The session's server, its client holding no cookie from an earlier test (a page asked for with
    ``?lang=zh`` leaves the language in a cookie, and a login its session)."""
    shared_server.cookies.clear()
    return shared_server


@pytest.fixture(scope="session")
def daily_home(
    tmp_path_factory: pytest.TempPathFactory, shared_data: Path, embedded_home: Path, topics_home: Path
) -> Path:
    """The embedded corpus plus every cs.CL / cs.AI paper announced on two real days, embedded (the cs.AI
    ones' vectors taken from ``topics_home``, built first)."""

    def build(home: Path) -> None:
        shutil.copytree(embedded_home, home, dirs_exist_ok=True)
        seeded(home, tmp_path_factory)
        days = write_jsonl(home / "days.jsonl", announced_on(shared_data, DAILY_DAYS))
        invoke("ingest", str(days), home=home)
        invoke("embed", home=home)

    return built_once(tmp_path_factory, "daily", build)


@pytest.fixture(scope="session")
def topics_home(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """Every cs.AI paper (new or cross-listed) of the two real days of ``DAILY_DAYS``, ingested and embedded
    (about 150): the listing the topic map, the light pages and the search pages are tested over."""

    def build(home: Path) -> None:
        records = [r for r in announced_on(shared_data, DAILY_DAYS) if "cs.AI" in r["categories"]]
        seeded(home, tmp_path_factory)
        invoke("ingest", str(write_jsonl(home / "days.jsonl", records)), home=home)
        invoke("embed", home=home)

    return built_once(tmp_path_factory, "topics", build)


@pytest.fixture(scope="module")
def reader_home(server_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``server_home`` a module's tests may save and rate papers in."""
    return home_copy(server_home, tmp_path_factory, "reader")


@pytest.fixture(scope="module")
def reader_server(reader_home: Path) -> Iterator[httpx.Client]:
    with serving(reader_home) as client:
        yield client


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Debian's chromium, headless, driven by Playwright (launched once a module)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def llm() -> Iterator[LlmServer]:
    """A local model server answering in the hosted APIs' shapes (``tests/reading_server.py``)."""
    with LlmServer() as server:
        yield server
