"""The reader's web pages and API on a real server: saving and rating from any page, the personal Daily
Papers, import / export, CSRF, and (with accounts) logins, rate limiting and readers kept apart."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import feedparser
import httpx
import pytest

from tests.support.data import DAILY_DAYS, ROOT, day_records
from tests.support.homes import home_copy
from tests.support.inproc import app_client, invoke
from tests.support.processes import run_cli, serving

TOKEN = re.compile(r'name="csrf" value="([^"]+)"')


def csrf(client: httpx.Client, path: str = "/login") -> str:
    """The form token of this client's browser session (the first page also sets its cookie)."""
    match = TOKEN.search(client.get(path).text)
    assert match, "every page with a form carries the CSRF token"
    return match.group(1)


def agent_ids(home: Path, day: str) -> list[str]:
    """The day's papers with "agent" in their title (about a fifth of these two days)."""
    return [str(r["id"]) for r in day_records(home, day) if "agent" in str(r["title"]).lower()]


@pytest.fixture(scope="module")
def personal_home(daily_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(daily_home, tmp_path_factory, "personal")


@pytest.fixture(scope="module")
def personal(personal_home: Path) -> Iterator[httpx.Client]:
    with serving(personal_home) as client:
        yield client


def test_rating_papers_from_a_page_reorders_the_daily_papers(
    personal: httpx.Client, personal_home: Path
) -> None:
    before = personal.get(f"/api/daily/{DAILY_DAYS[1]}").json()
    assert before["ranking"] == "arXiv order" and before["entries"][0]["number"] == 1
    token = csrf(personal, f"/daily/{DAILY_DAYS[1]}")
    for pid in agent_ids(personal_home, DAILY_DAYS[0])[:5]:
        response = personal.post(
            "/library/rate", data={"id": pid, "rating": "1", "csrf": token, "next": "/daily"}
        )
        assert response.status_code == 303 and response.headers["location"] == "/daily"
    after = personal.get(f"/api/daily/{DAILY_DAYS[1]}").json()
    assert after["ranking"] == "library" and all(e["why"] for e in after["entries"][:5])
    top = {e["id"] for e in after["entries"][:5]}
    assert len(top & set(agent_ids(personal_home, DAILY_DAYS[1]))) >= 3
    page = personal.get(f"/daily/{DAILY_DAYS[1]}")
    assert "ranked by your library" in page.text
    library = personal.get("/api/library").json()
    assert {e["rating"] for e in library["entries"]} == {1}


def test_forms_without_the_right_csrf_token_are_refused(personal: httpx.Client, personal_home: Path) -> None:
    pid = str(day_records(personal_home, DAILY_DAYS[1])[0]["id"])
    csrf(personal)
    assert personal.post("/library/rate", data={"id": pid, "rating": "1"}).status_code == 403
    assert personal.post("/library/rate", data={"id": pid, "csrf": "forged"}).status_code == 403
    stranger = httpx.Client(base_url=str(personal.base_url))
    assert stranger.post("/library/rate", data={"id": pid, "csrf": csrf(personal)}).status_code == 403
    assert personal.post("/api/library", json={"id": pid}).status_code == 403


def test_the_json_api_saves_tags_and_removes(personal: httpx.Client, personal_home: Path) -> None:
    pid = str(day_records(personal_home, DAILY_DAYS[1])[1]["id"])
    headers = {"X-CSRF-Token": csrf(personal)}
    saved = personal.post(
        "/api/library", json={"id": pid, "tags": ["asr"], "rating": -1}, headers=headers
    ).json()
    assert saved["id"] == pid and saved["tags"] == ["asr"] and saved["rating"] == -1
    assert pid in {e["id"] for e in personal.get("/api/library", params={"tag": "asr"}).json()["entries"]}
    bad = personal.post("/api/library", json={"id": "2601.99999"}, headers=headers)
    assert bad.status_code == 404 and "no paper 2601.99999" in bad.json()["error"]
    assert personal.delete(f"/api/library/{pid}", headers=headers).json() == {"removed": pid}
    assert personal.delete(f"/api/library/{pid}", headers=headers).status_code == 404
    assert "/api/library" in personal.get("/openapi.json").json()["paths"]


def test_import_upload_and_export_download(personal: httpx.Client, personal_home: Path) -> None:
    pid = str(day_records(personal_home, DAILY_DAYS[0])[5]["id"])
    bib = (
        f"@misc{{x, title={{On arXiv}}, eprint={{{pid}}}, archivePrefix={{arXiv}}}}\n"
        "@book{y, title={Offline <b>book</b>}}\n"
    )
    page = personal.post(
        "/library/import",
        data={"csrf": csrf(personal), "tag": "upload"},
        files={"file": ("lib.bib", bib.encode())},
    )
    assert page.status_code == 200 and "Imported" in page.text and "&lt;b&gt;book&lt;/b&gt;" in page.text
    exported = personal.get("/library/export.bib", params={"tag": "upload"}).text
    assert f"eprint = {{{pid}}}" in exported and "Offline" in exported
    assert len(personal.get("/library/export.json", params={"tag": "upload"}).json()) == 2


def test_the_private_feed_needs_its_secret_token(personal: httpx.Client, personal_home: Path) -> None:
    url = run_cli("reader", "feed", home=personal_home).stdout.strip()
    token_path = url[url.index("/feed/") :]
    feed = feedparser.parse(personal.get(token_path).content)
    assert not feed.bozo and feed.entries and feed.feed.title.startswith("papersift Daily Papers for me")
    assert personal.get("/feed/not-the-token.atom").status_code == 404


# -- a lab server: accounts --------------------------------------------------------------------
def _python_path() -> dict[str, str]:
    """The checkout's code when the shell points at it (a worktree), else the installed package."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def add_account(home: Path, name: str, password: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "papersift.cli", "reader", "add", name, "--password-stdin"],
        input=password + "\n",
        text=True,
        check=True,
        capture_output=True,
        env={
            "PAPERSIFT_HOME": str(home),
            "HOME": os.environ["HOME"],
            "PATH": "/usr/bin:/bin",
            **_python_path(),
        },
        cwd=ROOT,
    )


@pytest.fixture(scope="module")
def lab(daily_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    home = tmp_path_factory.mktemp("lab") / "home"
    shutil.copytree(daily_home, home)
    add_account(home, "ada", "ada's password")
    add_account(home, "bob", "bob's password")
    with serving(home, {"PAPERSIFT_ACCOUNTS": "true", "PAPERSIFT_LOGIN_ATTEMPTS": "3"}) as client:
        yield client


def log_in(lab: httpx.Client, name: str, password: str) -> httpx.Client:
    client = httpx.Client(base_url=str(lab.base_url), timeout=60)
    response = client.post(
        "/login", data={"name": name, "password": password, "csrf": csrf(client), "next": "/library"}
    )
    assert response.status_code == 303, response.text
    return client


def test_a_lab_server_asks_for_a_login_before_any_library(lab: httpx.Client) -> None:
    assert lab.get("/api/library").status_code == 401
    assert lab.get("/library", follow_redirects=False).headers["location"] == "/login?next=/library"
    assert lab.get("/api/daily").json()["ranking"] == "arXiv order"
    wrong = lab.post("/login", data={"name": "ada", "password": "nope-nope", "csrf": csrf(lab)})
    assert wrong.status_code == 401 and "wrong name or password" in wrong.text


def test_readers_never_see_or_change_each_others_library(lab: httpx.Client) -> None:
    ada, bob = log_in(lab, "ada", "ada's password"), log_in(lab, "bob", "bob's password")
    assert (
        "papersift_session" in ada.cookies
        and ada.cookies["papersift_session"] != bob.cookies["papersift_session"]
    )
    pid = lab.get("/api/daily").json()["entries"][0]["id"]
    ada.post("/api/library", json={"id": pid, "rating": 1}, headers={"X-CSRF-Token": csrf(ada)})
    assert [e["id"] for e in ada.get("/api/library").json()["entries"]] == [pid]
    assert bob.get("/api/library").json()["entries"] == []
    assert bob.delete(f"/api/library/{pid}", headers={"X-CSRF-Token": csrf(bob)}).status_code == 404
    assert [e["id"] for e in ada.get("/api/library").json()["entries"]] == [pid]
    assert "ada" in ada.get("/library").text and "bob" not in ada.get("/library").text
    ada.post("/logout", data={"csrf": csrf(ada)})
    assert ada.get("/api/library").status_code == 401


def test_wrong_passwords_are_rate_limited(lab: httpx.Client) -> None:
    client = httpx.Client(base_url=str(lab.base_url))
    token = csrf(client)
    for _ in range(3):
        client.post("/login", data={"name": "bob", "password": "guess-guess", "csrf": token})
    locked = client.post("/login", data={"name": "bob", "password": "bob's password", "csrf": token})
    assert locked.status_code == 429 and "too many failed logins" in locked.text
    assert 1 <= int(locked.headers["retry-after"]) <= 60  # a back-off, never a lock-out of the name


def test_notes_and_read_marks_from_the_library_page(personal: httpx.Client, personal_home: Path) -> None:
    pid = str(day_records(personal_home, DAILY_DAYS[0])[7]["id"])
    token = csrf(personal)
    personal.post("/library/rate", data={"id": pid, "csrf": token})
    for action, extra in (("note", {"note": "read <this> first"}), ("read", {})):
        response = personal.post("/library/edit", data={"key": pid, "action": action, "csrf": token, **extra})
        assert response.status_code == 303
    entry = next(e for e in personal.get("/api/library").json()["entries"] if e["id"] == pid)
    assert entry["note"] == "read <this> first" and entry["read"] is True
    page = personal.get("/library").text
    assert "read &lt;this&gt; first" in page and "mark unread" in page
    bad = personal.post("/library/edit", data={"key": pid, "action": "explode", "csrf": token})
    assert bad.status_code == 400


def test_an_imported_javascript_url_never_becomes_a_link(tmp_path: Path) -> None:
    bib = tmp_path / "evil.bib"
    bib.write_text(
        "@misc{a, title = {Script link}, url = {javascript:alert(document.cookie)}}\n"
        "@misc{b, title = {Data link}, url = { data:text/html,<script>alert(1)</script>}}\n"
        "@misc{c, title = {Good link}, url = {https://example.org/paper}}\n",
        encoding="utf-8",
    )
    invoke("library", "import", str(bib), home=tmp_path)
    listed = invoke("library", "list", "--format", "json", home=tmp_path).stdout
    assert "javascript:" not in listed and "data:" not in listed
    with app_client(tmp_path) as client:
        page = client.get("/library").text
        entries = client.get("/api/library").json()["entries"]
    assert "Script link" in page and "javascript:" not in page and "data:text" not in page
    assert 'href="https://example.org/paper"' in page
    assert {e["title"]: e["url"] for e in entries} == {
        "Script link": None,
        "Data link": None,
        "Good link": "https://example.org/paper",
    }
