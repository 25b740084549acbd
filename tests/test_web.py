"""The web UI and JSON API, served by a real ``papersift serve`` process on 127.0.0.1 over real papers."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.support.data import EVIL, write_jsonl
from tests.support.processes import run_cli

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]


def test_listing_page_and_its_json_twin(server: httpx.Client) -> None:
    data = server.get("/api/list/cs.CR").json()
    assert data["category"] == "cs.CR" and data["entries"][0]["number"] == 1
    assert set(data["counts"]) == {"new", "cross", "replace"}
    page = server.get(f"/list/cs.CR/{data['date']}")
    assert page.status_code == 200 and "#01" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_paper_and_related_pages(server: httpx.Client, citation_corpus: Corpus) -> None:
    pid = sorted(citation_corpus[1])[0]
    data = server.get(f"/api/abs/{pid}", params={"k": 5}).json()
    assert data["id"] == pid and len(data["related"]) == 5 and "@misc{" in data["bibtex"]
    assert all(r["id"] != pid and r["why"] for r in data["related"])
    page = server.get(f"/abs/{pid}")
    assert page.status_code == 200 and "Related papers" in page.text and data["related"][0]["id"] in page.text
    zh = server.get(f"/abs/{pid}", params={"lang": "zh"})
    assert "相关论文" in zh.text and zh.cookies.get("lang") == "zh"
    assert "相关论文" in server.get(f"/abs/{pid}", headers={"accept-language": "zh-CN,zh;q=0.9"}).text
    server.cookies.delete("lang")  # the shared client: later tests read the pages in English
    text = server.get("/api/related", params={"text": "quark masses from lattice QCD", "k": 4}).json()
    assert len(text["results"]) == 4


def test_search_modes_pages_and_syntax(server: httpx.Client) -> None:
    for mode in ("hybrid", "keyword", "semantic"):
        data = server.get("/api/search", params={"q": "quark mass", "mode": mode, "k": 3}).json()
        assert data["mode"] == mode and 0 < len(data["results"]) <= 3
    for q in ['"', "AND(", "*", "NEAR(x"]:
        assert server.get("/api/search", params={"q": q}).status_code == 200
        assert server.get("/search", params={"q": q}).status_code == 200


def test_everything_from_papers_is_escaped(server: httpx.Client) -> None:
    for path in ("/abs/2608.99999", "/list/cs.CR", "/search?q=Mallory&mode=keyword"):
        html = server.get(path).text
        assert "<script>alert" not in html and "<img src=x" not in html
        assert "&lt;script&gt;alert(" in html


def test_bad_input_gives_404_or_400_with_a_message(server: httpx.Client) -> None:
    assert server.get("/abs/2501.99999").status_code == 404
    assert server.get("/api/abs/not-an-id").status_code == 404
    assert server.get("/list/cs.CR/2026-13-45").status_code == 404
    assert server.get("/list/no.such").status_code == 404
    bad = server.get("/api/search", params={"q": "x", "mode": "fuzzy"})
    assert bad.status_code == 400 and "mode must be one of" in bad.json()["error"]
    assert server.get("/api/search", params={"q": "x", "k": 5000}).status_code == 400
    assert server.get("/api/related", params={"text": "x" * 30_000}).status_code == 400
    assert server.get("/api/related", params={"text": "   "}).status_code == 400
    paths = server.get("/openapi.json").json()["paths"]
    assert {
        "/api/list/{category}/{day}",
        "/api/abs/{paper_id}",
        "/api/search",
        "/api/related",
    } <= paths.keys()


def test_katex_and_the_assets_are_served_by_the_app_itself(server: httpx.Client) -> None:
    for path in (
        "/static/katex/katex.min.js",
        "/static/katex/katex.min.css",
        "/static/app.js",
        "/static/style.css",
    ):
        assert server.get(path).status_code == 200, path
    html = server.get("/abs/2608.99999").text
    assert 'src="/static/katex/katex.min.js"' in html and "https://" not in html.split("<main>")[0]


def test_daily_papers_and_atom_feeds(server: httpx.Client) -> None:
    import feedparser

    data = server.get("/api/daily").json()
    assert data["date"] == "2026-08-21" and [p["id"] for p in data["entries"]] == ["2608.99997", "2608.99998"]
    assert [p["number"] for p in data["entries"]] == [1, 2]  # once each, though 2608.99998 is in two
    assert "A followed paper 7" in server.get("/daily").text
    assert server.get("/daily/2026-13-01").status_code == 404
    feed = server.get("/list/cs.CR.atom")
    assert feed.headers["content-type"].startswith("application/atom+xml")
    parsed = feedparser.parse(feed.content)
    assert (
        not parsed.bozo
        and parsed.entries[0].title
        and parsed.entries[0].link.startswith("https://arxiv.org/abs/")
    )
    evil = next(e for e in parsed.entries if "2608.99999" in e.link)
    assert evil.title.startswith("<script>")  # kept as text: escaped XML, not markup
    search = feedparser.parse(server.get("/search.atom", params={"q": "quark mass"}).content)
    assert not search.bozo and len(search.entries) > 0


def test_cached_listings_follow_the_store(server: httpx.Client, server_home: Path, tmp_path: Path) -> None:
    before = server.get("/api/list/cs.CR").json()
    assert server.get("/list/cs.CR").text == server.get("/list/cs.CR").text  # served from the cache
    late = {**EVIL, "id": "2608.99996", "title": "A late arrival", "abstract": "Plain.", "authors": ["Bob"]}
    run_cli("ingest", str(write_jsonl(tmp_path / "late.jsonl", [late])), home=server_home)
    after = server.get("/api/list/cs.CR").json()
    assert len(after["entries"]) == len(before["entries"]) + 1
    assert "A late arrival" in server.get("/list/cs.CR").text


def test_search_words_are_highlighted_outside_math_and_after_escaping() -> None:
    from papersift.web.app import highlight

    out = str(highlight("Quark <b>masses</b> & $quark_i$ mass", ["quark", "masses", "the"]))
    assert out == "<mark>Quark</mark> &lt;b&gt;<mark>masses</mark>&lt;/b&gt; &amp; $quark_i$ mass"
    assert str(highlight("<i>x</i>", None)) == "&lt;i&gt;x&lt;/i&gt;"


def test_search_page_marks_the_query_words(server: httpx.Client) -> None:
    page = server.get("/search", params={"q": "quark mass", "mode": "keyword"})
    assert page.status_code == 200 and "<mark>" in page.text


def test_the_page_cache_drops_the_least_recently_used_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from papersift.settings import Settings
    from papersift.web import state as web_state

    monkeypatch.setattr(web_state, "CACHE_ENTRIES", 3)
    app_state = web_state.open_state(Settings(home=tmp_path))
    computed: list[str] = []

    def get(key: str) -> None:
        app_state.cached((key,), lambda: computed.append(key))

    for key in "abcadab":
        get(key)
    assert computed == ["a", "b", "c", "d", "b"]  # "a" stayed (used again), "b" was the oldest when "d" came
    app_state.close()
