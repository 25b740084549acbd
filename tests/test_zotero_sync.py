"""``papersift library sync zotero``: the reader's library kept in step with Zotero through a local Zotero Web
API (``tests/zotero_server.py``) serving the real recorded library of ``../shared/data/zotero/`` plus the
items each test adds (a preprint saved from arXiv, an arXiv-DOI article, a journal article known by its title,
a paper only arXiv's API has), edits, trashes and deletes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import SecretStr

from papersift.library.zotero_api import ZoteroError
from papersift.library.zotero_sync import SyncReport, last_sync, libraries, sync_zotero
from papersift.services.accounts import personal_account
from papersift.settings import Settings
from papersift.store import Store, open_store
from papersift.store.records import Account, LibraryEntry
from papersift.web.models import LibraryAnswer
from tests.arxiv_server import ArxivServer, Reply
from tests.support.data import as_papers, spread_records
from tests.support.inproc import app_client, invoke
from tests.zotero_server import RECORDED_USER, Fault, Library, ZoteroServer

KEY = "zK3y-never-in-the-home-5f1c2a"
USER = str(RECORDED_USER)
RECORDED = 20  # items in the recording, none of them on arXiv


@pytest.fixture(scope="module")
def papers(shared_data: Path) -> list[dict[str, object]]:
    return spread_records(shared_data, 1000)  # 20 real papers across fields and years


@pytest.fixture
def zotero() -> Iterator[ZoteroServer]:
    with ZoteroServer(key=KEY, page_max=7) as server:
        yield server


@pytest.fixture
def home(tmp_path: Path, papers: list[dict[str, object]]) -> Path:
    home = tmp_path / "home"
    store = open_store(Settings(home=home))
    store.upsert(as_papers(papers))
    store.close()
    return home


def settings_for(home: Path, zotero: ZoteroServer, **more: Any) -> Settings:
    return Settings(home=home, zotero_url=zotero.url, zotero_key=SecretStr(KEY), **more)


class Opened:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store: Store = open_store(settings)
        self.reader: Account = personal_account(self.store, settings)

    def sync(self, **kwargs: Any) -> SyncReport:
        kwargs.setdefault("sleep", lambda s: None)
        return sync_zotero(self.store, self.settings, self.reader, libraries(RECORDED_USER), **kwargs)

    def entries(self) -> dict[str, LibraryEntry]:
        return {e.source.rpartition("/")[2]: e for e in self.store.library(self.reader.id)}


@pytest.fixture
def lib(home: Path, zotero: ZoteroServer) -> Iterator[Opened]:
    opened = Opened(settings_for(home, zotero))
    yield opened
    opened.store.close()


def preprint(key: str, paper: dict[str, object], **more: Any) -> dict[str, Any]:
    """An item as Zotero's arXiv translator saves a preprint."""
    pid = str(paper["id"])
    return {
        "key": key,
        "itemType": "preprint",
        "title": paper["title"],
        "creators": [{"creatorType": "author", "firstName": "A.", "lastName": "Writer"}],
        "abstractNote": paper["abstract"],
        "repository": "arXiv",
        "archiveID": f"arXiv:{pid}",
        "DOI": f"10.48550/arXiv.{pid}",
        "url": f"http://arxiv.org/abs/{pid}v1",
        "date": "2021-06-17",
        "collections": [],
        "tags": [{"tag": "Computer Science - Machine Learning", "type": 1}],
        "extra": "",
        **more,
    }


def article(key: str, title: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "itemType": "journalArticle", "title": title, "creators": [], "abstractNote": "",
            "date": "2020", "collections": [], "tags": [], "extra": "", **more}  # fmt: skip


def add_arxiv_items(zotero: ZoteroServer, papers: list[dict[str, object]], collection: str = "") -> None:
    """A preprint (archiveID), an article with only an arXiv DOI, an article whose title is a stored paper's
    written otherwise (case, punctuation): in ``collection`` when given."""
    inside = [collection] if collection else []
    zotero.user.put_item(preprint("PREPRNT2", papers[1], collections=inside))
    doi = f"10.48550/arXiv.{papers[2]['id']}"
    zotero.user.put_item(article("ARXDOI22", "A title Zotero was given", DOI=doi, collections=inside))
    shouted = str(papers[3]["title"]).upper().replace(" ", "  ") + "."
    zotero.user.put_item(article("BYTITLE2", shouted, collections=inside, publicationTitle="A Journal"))


def test_first_sync_reads_every_page_and_links_arxiv_items_by_id_doi_and_title(
    lib: Opened, zotero: ZoteroServer, papers: list[dict[str, object]]
) -> None:
    add_arxiv_items(zotero, papers)
    report = lib.sync()
    assert report.total("items") == RECORDED + 3
    assert report.total("matched") == 3 and report.total("kept") == RECORDED
    entries = lib.entries()
    for item, paper in (("PREPRNT2", papers[1]), ("ARXDOI22", papers[2]), ("BYTITLE2", papers[3])):
        assert entries[item].paper_id == paper["id"] and entries[item].key == paper["id"]
        assert entries[item].title == paper["title"]  # the stored paper's own record
    kept = entries["33TK9NH9"]  # a recorded journal article: its own text shapes the ranking
    assert kept.paper_id is None and kept.title.startswith("Biscrolling Nanotube Sheets")
    assert (
        kept.abstract.startswith("Multifunctional applications")
        and kept.source == f"zotero:users/{USER}/33TK9NH9"
    )
    assert "Sciences (miscellaneous)" in kept.tags  # its collections are its tags (folders)
    pages = zotero.requests("/items/top")
    assert len(pages) == 4  # 23 items, 7 a page: every Link rel="next" followed
    assert all(
        r.headers["zotero-api-key"] == KEY and r.headers["zotero-api-version"] == "3" for r in zotero.seen
    )
    assert all(KEY not in r.path and KEY not in str(r.query) for r in zotero.seen)


def test_second_sync_asks_since_the_version_and_gets_only_changes(
    lib: Opened, zotero: ZoteroServer, papers: list[dict[str, object]]
) -> None:
    add_arxiv_items(zotero, papers)
    lib.sync()
    version = zotero.user.version
    zotero.user.put_item(preprint("NEWPRNT2", papers[4]))  # added
    zotero.user.edit_item("33TK9NH9", title="Biscrolled yarns (edited)")  # changed
    zotero.user.delete_item("BYTITLE2")  # deleted
    zotero.seen.clear()
    report = lib.sync()
    asked = zotero.requests("/items/top")[0]
    assert asked.query["since"] == str(version) and asked.headers["if-modified-since-version"] == str(version)
    assert zotero.requests("/deleted")[0].query["since"] == str(version)
    assert report.total("items") == 2 and report.total("removed") == 1
    entries = lib.entries()
    assert "BYTITLE2" not in entries and entries["NEWPRNT2"].paper_id == papers[4]["id"]
    assert entries["33TK9NH9"].title == "Biscrolled yarns (edited)"
    assert (
        sum(e.source.endswith("33TK9NH9") for e in lib.store.library(lib.reader.id)) == 1
    )  # replaced, not added
    assert len(entries) == RECORDED + 3
    zotero.seen.clear()
    unchanged = lib.sync()  # nothing changed: a 304, and no /deleted asked
    assert unchanged.total("items") == 0 and unchanged.total("entries") == RECORDED + 3
    assert [r.path for r in zotero.seen if "items" in r.path or "deleted" in r.path] == [
        f"/users/{USER}/items/top"
    ]


def test_items_trashed_in_zotero_leave_the_library_and_the_readers_own_saves_stay(
    lib: Opened, zotero: ZoteroServer, papers: list[dict[str, object]]
) -> None:
    add_arxiv_items(zotero, papers)
    lib.store.save_entries(
        lib.reader.id, [LibraryEntry(key=str(papers[1]["id"]), title="mine", note="my note")]
    )
    lib.sync()
    mine = lib.store.library_entry(lib.reader.id, str(papers[1]["id"]))
    assert mine is not None and mine.source == "saved" and "Computer Science - Machine Learning" in mine.tags
    zotero.user.edit_item("ARXDOI22", deleted=1)  # moved to the trash
    zotero.user.delete_item("PREPRNT2")
    report = lib.sync()
    assert report.total("removed") == 1 and "ARXDOI22" not in lib.entries()
    assert lib.store.library_entry(lib.reader.id, str(papers[1]["id"])) is not None  # saved by the reader


def test_chosen_collections_and_those_below_them_count_and_an_item_moved_out_leaves(
    lib: Opened, zotero: ZoteroServer, papers: list[dict[str, object]]
) -> None:
    zotero.user.put_collection("MLCOLL22", "Machine learning")
    zotero.user.put_collection("LORACL22", "LoRA", parent="MLCOLL22")
    add_arxiv_items(zotero, papers, collection="LORACL22")
    report = lib.sync(collections=["machine learning"])  # any case
    assert report.total("outside") == RECORDED and set(lib.entries()) == {"PREPRNT2", "ARXDOI22", "BYTITLE2"}
    assert lib.entries()["PREPRNT2"].tags == ("Computer Science - Machine Learning", "LoRA")
    zotero.user.edit_item("BYTITLE2", collections=["9KH9TNSJ"])  # moved to Sherlock Holmes
    assert lib.sync(collections=["Machine learning"]).total("removed") == 1
    assert set(lib.entries()) == {"PREPRNT2", "ARXDOI22"}
    everything = lib.sync()  # another choice: read again from the start
    assert everything.libraries[0].since == 0 and len(lib.entries()) == RECORDED + 3


def test_not_for_me_collection_items_are_negatives_and_return_to_zero_when_moved_out(
    lib: Opened, zotero: ZoteroServer, papers: list[dict[str, object]]
) -> None:
    zotero.user.put_collection("MLCOLL22", "Machine learning")
    zotero.user.put_collection("NOPE2222", "Not for me")
    add_arxiv_items(zotero, papers, collection="MLCOLL22")
    zotero.user.put_item(preprint("DISLIKE2", papers[5], collections=["NOPE2222"]))
    report = lib.sync(collections=["Machine learning"], not_for_me=["Not for me"])
    assert report.total("not_for_me") == 1 and report.total("matched") == 4
    entries = lib.entries()
    assert entries["DISLIKE2"].rating == -1 and entries["DISLIKE2"].paper_id == papers[5]["id"]
    assert {e.rating for k, e in entries.items() if k != "DISLIKE2"} == {0}
    state = lib.store.get_state(f"zotero:{lib.reader.id}:users/{USER}")
    assert state is not None and orjson.loads(state)["choice"]["not_for_me"] == ["not for me"]
    zotero.user.edit_item("DISLIKE2", collections=["MLCOLL22"])
    lib.sync(collections=["Machine learning"], not_for_me=["Not for me"])
    assert lib.entries()["DISLIKE2"].rating == 0


def test_a_group_library_syncs_beside_the_users_and_each_keeps_its_own_entries(
    lib: Opened, zotero: ZoteroServer, papers: list[dict[str, object]]
) -> None:
    zotero.libraries["groups/169947"] = group = Library()
    group.put_item(preprint("GROUPIT2", papers[6]))
    both = libraries(RECORDED_USER, [169947])
    report = sync_zotero(lib.store, lib.settings, lib.reader, both, sleep=lambda s: None)
    assert [r.library for r in report.libraries] == [f"users/{USER}", "groups/169947"]
    assert lib.entries()["GROUPIT2"].source == "zotero:groups/169947/GROUPIT2"
    lib.sync(full=True)  # the user's library read in full: the group's entry is not the user's to remove
    assert "GROUPIT2" in lib.entries() and len(lib.entries()) == RECORDED + 1
    group.delete_item("GROUPIT2")
    report = sync_zotero(lib.store, lib.settings, lib.reader, both, sleep=lambda s: None)
    assert report.libraries[1].removed == 1 and "GROUPIT2" not in lib.entries()


def test_the_sync_and_its_state_are_the_same_on_both_backends(
    store: Store, zotero: ZoteroServer, papers: list[dict[str, object]], tmp_path: Path
) -> None:
    store.upsert(as_papers(papers))
    settings = settings_for(tmp_path / "home", zotero)
    reader = personal_account(store, settings)
    add_arxiv_items(zotero, papers)
    first = sync_zotero(store, settings, reader, libraries(RECORDED_USER), sleep=lambda s: None)
    assert first.total("matched") == 3 and first.total("entries") == RECORDED + 3
    zotero.user.delete_item("PREPRNT2")
    again = sync_zotero(store, settings, reader, libraries(RECORDED_USER), sleep=lambda s: None)
    assert again.libraries[0].since == first.libraries[0].version and again.total("removed") == 1
    assert len(store.library(reader.id)) == RECORDED + 2
    shown = last_sync(store, reader)
    assert shown is not None and shown["totals"]["removed"] == 1


def test_an_unknown_collection_is_a_clear_error_and_changes_nothing(
    lib: Opened, zotero: ZoteroServer
) -> None:
    with pytest.raises(ZoteroError, match=r"no collection named 'Quantum'.*Sherlock Holmes"):
        lib.sync(collections=["Quantum"])
    assert lib.store.library(lib.reader.id) == []


def test_retry_after_and_backoff_are_honoured(home: Path, zotero: ZoteroServer) -> None:
    opened = Opened(settings_for(home, zotero))
    zotero.faults += [Fault(429, {"Retry-After": "1"}), Fault(200, {"Backoff": "1"})]
    waits: list[str] = []
    report = opened.sync(sleep=time.sleep, on_wait=waits.append)
    times = [r.time for r in zotero.seen]
    assert times[1] - times[0] >= 1.0  # the 429 waited its Retry-After
    assert times[2] - times[1] >= 1.0  # the answer with Backoff: 1 delayed the next request
    assert report.total("kept") == RECORDED and len(waits) == 2 and "HTTP 429" in waits[0]
    opened.store.close()


def test_an_arxiv_paper_not_in_the_store_is_fetched_or_kept_offline_and_linked_later(
    home: Path, zotero: ZoteroServer, shared_data: Path
) -> None:
    atom = next((shared_data / "fixtures" / "api_atom").glob("id_1605.08386_s0_*.xml")).read_bytes()
    paper = {"id": "1605.08386", "title": "Heat-bath random walks with Markov bases", "abstract": "Graphs …"}
    zotero.user.put_item(preprint("HEATBATH", paper))
    offline = Opened(settings_for(home, zotero))  # the sandbox's arXiv: a closed port
    report = offline.sync()
    assert report.arxiv.startswith("offline") and report.total("kept") == RECORDED + 1
    kept = offline.entries()["HEATBATH"]
    assert kept.paper_id is None and kept.key == "1605.08386" and kept.title == paper["title"]
    offline.store.close()
    with ArxivServer() as arxiv:
        arxiv.queue(Reply(atom))
        online = Opened(settings_for(home, zotero, api_url=f"{arxiv.url}/api/query", request_interval=0))
        report = online.sync()  # nothing changed in Zotero: the kept item is linked now
        assert [r.param("id_list") for r in arxiv.requests] == ["1605.08386"]
    assert report.arxiv == "asked" and report.total("fetched") == 1 and report.total("items") == 0
    linked = online.entries()["HEATBATH"]
    assert linked.paper_id == "1605.08386" and online.store.get("1605.08386") is not None
    online.store.close()


def test_cli_sync_and_status_in_json_and_the_key_is_never_in_the_home(
    home: Path, zotero: ZoteroServer, papers: list[dict[str, object]]
) -> None:
    add_arxiv_items(zotero, papers)
    env = {"PAPERSIFT_ZOTERO_URL": zotero.url, "PAPERSIFT_ZOTERO_KEY": KEY}
    nobody = invoke("library", "sync", "zotero", home=home, env=env, check=False)  # never synced: whose?
    assert nobody.returncode == 2 and "--user ID" in nobody.stderr and not zotero.seen
    assert invoke("library", "sync", "mendeley", "--user", USER, home=home, check=False).returncode == 2
    ran = invoke("library", "sync", "zotero", "--user", USER, "--format", "json", home=home, env=env)
    shown = orjson.loads(ran.stdout)
    assert shown["totals"]["matched"] == 3 and shown["totals"]["kept"] == RECORDED and shown["seconds"] > 0
    text = invoke("library", "sync", "zotero", home=home, env=env).stdout  # alone: as the last time
    assert text.startswith("zotero: 0 items read") and f"{RECORDED + 3} entries from Zotero" in text
    status = orjson.loads(invoke("library", "status", "--format", "json", home=home).stdout)
    assert status["zotero_entries"] == RECORDED + 3 and status["last_sync"]["totals"]["items"] == 0
    assert "last sync" in invoke("library", "status", home=home).stdout
    wrong = invoke("library", "sync", "zotero", "--user", USER, home=home, check=False,
                   env={**env, "PAPERSIFT_ZOTERO_KEY": "wrong-" + KEY})  # fmt: skip
    assert wrong.returncode == 1 and "HTTP 403" in wrong.stderr and KEY not in wrong.stderr + wrong.stdout
    assert "HTTP 403: the key may not read this library (PAPERSIFT_ZOTERO_KEY)" in wrong.stderr
    chinese = invoke("library", "sync", "zotero", "--user", USER, home=home, check=False,
                     env={**env, "PAPERSIFT_ZOTERO_KEY": "wrong-" + KEY, "PAPERSIFT_LANG": "zh"})  # fmt: skip
    assert "HTTP 403：该密钥无权读取这个文库（PAPERSIFT_ZOTERO_KEY）" in chinese.stderr
    for path in home.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in ran.stdout + ran.stderr + text


def test_digest_syncs_the_configured_library_first(home: Path, zotero: ZoteroServer, tmp_path: Path) -> None:
    env = {"PAPERSIFT_ZOTERO_URL": zotero.url, "PAPERSIFT_ZOTERO_KEY": KEY, "PAPERSIFT_ZOTERO_USER": USER}
    ran = invoke("digest", "--markdown", str(tmp_path / "d.md"), home=home, env=env, check=False)
    assert f"zotero: {RECORDED} items read" in ran.stdout
    assert zotero.requests("/items/top")


def test_the_library_page_and_its_json_show_the_last_sync(lib: Opened, zotero: ZoteroServer) -> None:
    lib.sync()
    lib.store.close()
    with app_client(lib.settings.home) as client:
        data = client.get("/api/library").json()
        assert LibraryAnswer.model_validate(data).zotero is not None  # the shape OpenAPI documents
        assert data["zotero"]["totals"]["kept"] == RECORDED and data["zotero"]["libraries"][0]["library"] == (
            f"users/{USER}"
        )
        page = client.get("/library").text
        assert "Last Zotero sync" in page and f"{RECORDED} kept with their own text" in page
        zh = client.get("/library", headers={"Accept-Language": "zh-CN"}).text
        assert "上次 Zotero 同步" in zh and "条保留自身文本" in zh and "kept with their own text" not in zh
    lib.store = open_store(lib.settings)
