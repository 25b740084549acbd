"""No dead ends on a real server over two real days of cs.AI: a paper the store lacks links its arXiv page
and offers to fetch it (offline: a clear "offline: …"), a day without a listing links the nearest days,
an arXiv id or URL in the search box opens the paper, HEAD is answered wherever GET is, categories are
read in any case, /favicon.ico is there, "and N more" is said in 中文, the paper page shows the reader's
tags and note, and search says how many results it has."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import httpx
import pytest
from starlette.routing import Mount

from papersift.settings import Settings
from papersift.web.app import create_app
from papersift.web.contract import every_route
from tests.arxiv_server import ArxivServer, Reply
from tests.support.data import DAILY_DAYS
from tests.support.homes import home_copy
from tests.support.inproc import invoke
from tests.support.processes import free_port, serving

DAY = DAILY_DAYS[1]
MISSING = "2501.99999"


@pytest.fixture(scope="module")
def dead_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(topics_home, tmp_path_factory, "dead-ends")


@pytest.fixture(scope="module")
def site(dead_home: Path) -> Iterator[httpx.Client]:
    nowhere = f"http://127.0.0.1:{free_port()}/api/query"  # offline: nothing listens there
    with serving(dead_home, {"PAPERSIFT_API_URL": nowhere}) as client:
        yield client


def a_paper(client: httpx.Client) -> dict[str, object]:
    entries: list[dict[str, object]] = client.get(f"/api/list/cs.AI/{DAY}").json()["entries"]
    return next(e for e in entries if len(e["authors"]) > 3)  # type: ignore[arg-type]


def test_a_paper_not_in_the_store_links_arxiv_and_offline_offers_no_fetch(site: httpx.Client) -> None:
    page = site.get(f"/abs/{MISSING}")
    assert page.status_code == 404
    assert f'href="https://arxiv.org/abs/{MISSING}"' in page.text
    assert "/fetch" not in page.text  # arXiv's API does not answer: no button that can only fail
    api = site.get(f"/api/abs/{MISSING}")
    assert api.status_code == 404
    assert api.json()["links"] == [{"label": f"arXiv:{MISSING}", "href": f"https://arxiv.org/abs/{MISSING}"}]
    listing = site.get(f"/list/cs.AI/{DAY}").text
    token = listing.split('name="csrf" value="')[1].split('"')[0]
    fetched = site.post(f"/abs/{MISSING}/fetch", data={"csrf": token})
    assert fetched.status_code == 503 and "offline: cannot reach 127.0.0.1" in fetched.text


def test_online_a_missing_paper_offers_to_fetch_it(dead_home: Path) -> None:
    with (
        ArxivServer(lambda request: Reply(b"")) as api,
        serving(dead_home, {"PAPERSIFT_API_URL": f"{api.url}/api/query"}) as client,
    ):
        page = client.get(f"/abs/{MISSING}")
    assert page.status_code == 404 and f'action="/abs/{MISSING}/fetch"' in page.text


def test_a_day_without_a_listing_links_the_nearest_days(site: httpx.Client) -> None:
    before, after = DAILY_DAYS
    between = date.fromisoformat(after) - timedelta(days=1)
    if between.isoformat() == before:  # consecutive days: a day after both
        between = date.fromisoformat(after) + timedelta(days=1)
    page = site.get(f"/list/cs.AI/{between}")
    assert page.status_code == 404
    assert f'href="/list/cs.AI/{after}"' in page.text
    links = site.get(f"/api/list/cs.AI/{between}").json()["links"]
    assert {"label": after, "href": f"/list/cs.AI/{after}"} in links
    mapped = site.get(f"/map/cs.AI/{between}")
    assert mapped.status_code == 404 and f'href="/map/cs.AI/{after}"' in mapped.text
    unknown = site.get("/list/no.SUCH")
    assert unknown.status_code == 404 and 'href="/categories">all categories</a>' in unknown.text
    assert "arxiv.org/list/no.SUCH" not in unknown.text  # no link to a listing arXiv does not have
    held_none = site.get("/list/q-bio.PE")  # a category of arXiv this store holds no paper of
    assert held_none.status_code == 404 and 'href="https://arxiv.org/list/q-bio.PE/new"' in held_none.text
    in_chinese = site.get("/list/q-bio.PE?lang=zh")
    assert 'href="/categories">全部分类</a>' in in_chinese.text and "q-bio.PE 没有列表" in in_chinese.text


def test_an_arxiv_id_or_url_in_the_search_box_opens_the_paper(site: httpx.Client) -> None:
    pid = str(a_paper(site)["id"])
    spellings = (
        pid,
        f"{pid}v2",
        f"arXiv:{pid}",
        f" arxiv:{pid} ",
        f"https://arxiv.org/abs/{pid}v2",
        f"https://arxiv.org/abs/{pid}?context=cs",  # as arXiv's own listings link a paper
        f"https://arxiv.org/pdf/{pid}",
        f"https://arxiv.org/pdf/{pid}v1.pdf",
        f"arxiv.org/abs/{pid}",
        f"http://export.arxiv.org/abs/{pid}",
    )
    for q in spellings:
        found = site.get("/search", params={"q": q})
        assert found.status_code == 303 and found.headers["location"] == f"/abs/{pid}", q
        api = site.get("/api/search", params={"q": q}).json()  # the API answers that one paper
        assert [r["id"] for r in api["results"]] == [pid] and api["notes"] == ["an arXiv id: that paper"], q
    for q, missing in (
        (MISSING, MISSING),
        (f"{MISSING}v3", MISSING),
        ("hep-th/9901001", "hep-th/9901001"),  # old-style ids, versioned and as URLs
        ("hep-th/9901001v2", "hep-th/9901001"),
        ("https://arxiv.org/abs/hep-th/9901001v1", "hep-th/9901001"),
        ("https://arxiv.org/pdf/math.GT/0309136v2.pdf", "math/0309136"),
    ):
        assert site.get("/search", params={"q": q}).headers["location"] == f"/abs/{missing}", q
        api = site.get("/api/search", params={"q": q}).json()  # no search of the id's digits as words
        assert api["results"] == [] and api["notes"] == [f"{missing} is not in the store"], q
        assert api["total"] == {"count": 0, "capped": False}, q
    page = site.get(f"/abs/{missing}")  # where the redirect lands: arXiv's page of it
    assert page.status_code == 404 and f'href="https://arxiv.org/abs/{missing}"' in page.text


def test_head_is_answered_on_every_get_route_of_the_app(site: httpx.Client, tmp_path: Path) -> None:
    pid = str(a_paper(site)["id"])
    values = {"category": "cs.AI", "day": DAY, "paper_id:path": pid, "token": "no-such-feed"}
    values |= {"name": "COLM", "year": "2025"}  # a venue (none stored here: a 404)
    queries = {"/search.atom": "?q=agents", "/api/search": "?q=agents", "/api/related": "?text=agents"}
    app = create_app(Settings(home=tmp_path / "routes"))
    paths = [r.path for r in every_route(app.routes) if "GET" in (getattr(r, "methods", None) or ())]
    for mount in (r for r in app.routes if isinstance(r, Mount)):  # the static files: one of each mount
        directory = Path(str(getattr(mount.app, "directory", "")))
        paths.append(f"{mount.path}/{min(f.name for f in directory.iterdir() if f.is_file())}")
    assert len(paths) > 30
    for route in paths:
        names = re.findall(r"\{([^}]+)\}", route)
        assert set(names) <= set(values), f"{route}: give the test a value for {names}"
        path = re.sub(r"\{([^}]+)\}", lambda m: values[m.group(1)], route) + queries.get(route, "")
        got, head = site.get(path), site.head(path)
        assert head.status_code == got.status_code != 405, path
        assert head.content == b"", path
        assert head.headers.get("content-type") == got.headers.get("content-type"), path


def test_head_is_answered_wherever_get_is(site: httpx.Client) -> None:
    for path in ("/", f"/list/cs.AI/{DAY}", "/api/list/cs.AI", "/categories", "/favicon.ico", "/healthz"):
        got, head = site.get(path), site.head(path)
        assert head.status_code == got.status_code != 405, path
        assert head.content == b"" and head.headers.get("content-type") == got.headers.get("content-type")
    assert site.head(f"/abs/{MISSING}").status_code == 404


def test_categories_are_read_in_any_case(site: httpx.Client, dead_home: Path) -> None:
    for path, spelled in (
        (f"/list/cs.ai/{DAY}", f"/list/cs.AI/{DAY}"),
        ("/list/CS.AI", "/list/cs.AI"),
        (f"/api/map/cs.ai/{DAY}", f"/api/map/cs.AI/{DAY}"),
        ("/list/cs.ai.atom", "/list/cs.AI.atom"),
        ("/search?q=agents&category=cs.ai", "/search?q=agents&category=cs.AI"),
    ):
        moved = site.get(path)
        assert moved.status_code == 308 and moved.headers["location"] == spelled, path
        assert site.get(path, follow_redirects=True).status_code == 200, path
    out = invoke("list", "cs.ai", "--date", DAY, home=dead_home).stdout
    assert out == invoke("list", "cs.AI", "--date", DAY, home=dead_home).stdout and "#01" in out


def test_the_favicon_is_served(site: httpx.Client) -> None:
    icon = site.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    assert icon.text.lstrip().startswith("<svg")


def test_and_n_more_is_said_in_chinese(site: httpx.Client) -> None:
    paper = a_paper(site)
    everyone = len(paper["authors"])  # type: ignore[arg-type]
    others = everyone - 3
    english = site.get(f"/list/cs.AI/{DAY}?lang=en").text
    chinese = site.get(f"/list/cs.AI/{DAY}?lang=zh").text
    assert f"and {others} more" in english
    assert f"等 {everyone} 人" in chinese and " more</p>" not in chinese and "等另外" not in chinese


def test_the_paper_page_shows_the_readers_tags_and_note(site: httpx.Client, dead_home: Path) -> None:
    pid = str(a_paper(site)["id"])
    assert '<aside class="reader-entry"' not in site.get(f"/abs/{pid}").text
    invoke("library", "add", pid, home=dead_home)
    invoke("library", "tag", pid, "to-read", "<b>bold</b>", home=dead_home)
    invoke("library", "note", pid, "Compare with section 4 <script>", home=dead_home)
    page = site.get(f"/abs/{pid}?lang=en").text
    entry = page.split('<aside class="reader-entry"')[1].split("</aside>")[0]
    assert ">to-read</a>" in entry and "&lt;b&gt;bold&lt;/b&gt;" in entry
    assert "Compare with section 4 &lt;script&gt;" in entry
    assert '<span class="label">Your tags: </span>' in entry
    in_chinese = site.get(f"/abs/{pid}?lang=zh").text.split('<aside class="reader-entry"')[1]
    assert '<span class="label">你的标签：</span>' in in_chinese  # a full-width colon, as 中文 writes it
    assert '<span class="label">你的笔记：</span>' in in_chinese


def test_search_says_how_many_results_it_has(site: httpx.Client) -> None:
    data = site.get("/api/search", params={"q": "agents", "mode": "keyword"}).json()
    total = data["total"]
    assert total["count"] >= len(data["results"]) > 0 and isinstance(total["capped"], bool)
    page = site.get("/search", params={"q": "agents", "mode": "keyword", "lang": "en"}).text
    shown = f"{total['count']}+ results" if total["capped"] else f"{total['count']} results"
    assert shown in page


def test_the_cron_job_and_the_harvest_read_categories_and_sets_in_any_case(tmp_path: Path) -> None:
    with ArxivServer(lambda request: Reply(b"gone", status=404, content_type="text/plain")) as rss:
        env = {"PAPERSIFT_RSS_URL": rss.url}
        invoke("daily", "cs.lg", "CS.ai", home=tmp_path / "home", env=env, check=False)
        assert [r.path for r in rss.requests][:1] == ["/cs.LG"]  # arXiv's feed of cs.LG, not of "cs.lg"
    with ArxivServer(lambda request: Reply(b"gone", status=404, content_type="text/plain")) as oai:
        env = {"PAPERSIFT_OAI_URL": f"{oai.url}/oai"}
        invoke("harvest", "oai", "--set", "Physics:HEP-TH", home=tmp_path / "home", env=env, check=False)
        assert [r.param("set") for r in oai.requests][:1] == ["physics:hep-th"]


def test_the_default_categories_are_read_in_any_case(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, default_categories=("cs.lg", "STAT.ML", "hep-TH", "no.SUCH"))
    assert settings.default_categories == ("cs.LG", "stat.ML", "hep-th", "no.SUCH")  # unknown: as given


def test_the_categories_a_reader_follows_on_the_library_page_are_read_in_any_case(
    site: httpx.Client, dead_home: Path
) -> None:
    token = site.get("/library").text.split('name="csrf" value="')[1].split('"')[0]
    form = {"categories": "cs.ai, STAT.ml\ncs.AI", "authors": "", "must": "", "never": "", "csrf": token}
    assert site.post("/library/interests", data=form).status_code == 303
    assert "categories: cs.AI, stat.ML\n" in invoke("follow", home=dead_home).stdout


def test_category_options_are_read_in_any_case(site: httpx.Client, dead_home: Path) -> None:
    pid = str(a_paper(site)["id"])
    spelled = invoke("related", pid, "-k", "3", "-c", "cs.AI", "-f", "json", home=dead_home).stdout
    typed = invoke("related", pid, "-k", "3", "-c", "cs.ai", "-f", "json", home=dead_home).stdout
    assert typed == spelled and '"results":[{' in typed
    found = invoke("search", "agents", "-k", "3", "-c", "CS.AI", "-f", "json", home=dead_home).stdout
    assert found == invoke("search", "agents", "-k", "3", "-c", "cs.AI", "-f", "json", home=dead_home).stdout
    assert "categories: cs.AI" in invoke("follow", "-c", "cs.ai", home=dead_home).stdout
