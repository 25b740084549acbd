"""What a reader gets from the pages beyond the listings: honest search pages, 中文 messages, their own
state on rows, text as readers expect it, and serving hygiene (over a real ``papersift serve``)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from papersift.ranking.pool import Hit, how_much_earlier
from papersift.ranking.recommend import Recommendation
from papersift.records.catalogs import said
from papersift.records.messages import say
from papersift.services.listing import listing_counts
from papersift.settings import Settings
from papersift.sources.latex import plain_text, tex_text
from papersift.store import open_store
from papersift.web.display_text import highlight
from tests.test_web_library import csrf

Corpus = tuple[list[dict[str, object]], dict[str, set[str]]]


def in_chinese(server: httpx.Client, path: str, **params: object) -> str:
    """A page in 中文 from a client of its own (the language cookie must not stick to the shared one)."""
    return httpx.get(f"{server.base_url}{path}", params={**params, "lang": "zh"}, timeout=60).text  # type: ignore[arg-type]


def test_highlighting_never_marks_inside_an_entity() -> None:
    out = str(highlight("Maps & Scaling <b>amp</b> $a&b$", ["amp", "maps"]))
    assert out == "<mark>Maps</mark> &amp; Scaling &lt;b&gt;<mark>amp</mark>&lt;/b&gt; $a&amp;b$"


def test_latex_accents_and_commands_read_as_text_and_math_stays_for_katex() -> None:
    assert tex_text("Ruszczy\\'{n}ski and \\emph{risk} with $\\mathcal{O}(n)$") == (
        "Ruszczyński and risk with $\\mathcal{O}(n)$"
    )
    assert tex_text('G\\"odel: 50% & more') == "Gödel: 50% & more"
    assert tex_text("Plain title_with_underscore") == "Plain title_with_underscore"
    assert plain_text("A $\\mathcal{O}(n^{2})$ bound for \\textit{k}-means") == "A 𝒪(n²) bound for k-means"


def test_every_reason_and_note_reads_in_chinese() -> None:
    hit = Hit(None, 1.0, ["graph"], 0.8, 0.5, ["Xinyi Fan"], True, True)  # type: ignore[arg-type]
    object.__setattr__(hit, "paper", type("P", (), {"primary_category": "cs.LG"})())
    rec = Recommendation(
        1, 1.0, ((1, "A paper", 0.5),), ("graph",), ("Ada Lovelace",), ("Xinyi Fan",), "cs.LG"
    )
    english = re.compile(r"\b(same|shared|close|earlier|followed|authors|category|work|terms)\b")
    gaps = [how_much_earlier(*gap) for gap in ((0, None), (400, None), (None, 0), (None, 10), (None, 30))]
    for reason in [*hit.reasons(), *rec.reasons(), *gaps]:
        assert not english.search(said(reason, "zh")), reason
    notes = [
        say("text_cut", tokens=256, chars="300,000"),
        say("no_index_yet"),
        say("no_vectors_yet"),
        say("an_arxiv_id"),
        say("log_in_first"),
        say("wrong_login"),
        say("too_many_logins", seconds=900),
        say("stale_form"),
        say("no_listings_for", category="cs.LG"),
        say("not_in_store", id="2608.00001"),
    ]
    assert notes[0] == (
        "text cut to the model's 256-token window for the dense match (300,000 characters given); "
        "key terms use the first 100,000 characters"
    )
    for note in notes:
        assert not re.search(r"\b[a-z]{4,}\b", said(note, "zh").replace("papersift embed", "")), note
    assert said(say("earlier_work"), "en") == "earlier work"


def test_an_arxiv_id_search_opens_the_paper_and_its_api_has_one_result(
    server: httpx.Client, citation_corpus: Corpus
) -> None:
    pid = sorted(citation_corpus[1])[0]
    page = server.get("/search", params={"q": pid}, follow_redirects=True)
    assert page.url.path == f"/abs/{pid}" and page.status_code == 200
    assert len(server.get("/api/search", params={"q": pid}).json()["results"]) == 1
    assert server.get("/api/search", params={"q": pid, "page": 50}).json()["results"] == []


@pytest.mark.parametrize("query", ["xqzvbn plorkt", "😀", "("])
def test_queries_matching_nothing_say_no_good_matches(server: httpx.Client, query: str) -> None:
    page = server.get("/search", params={"q": query}).text
    assert page.count('class="paper"') == 0 and "No good matches" in page
    assert "没有好的匹配" in in_chinese(server, "/search", q=query)


def test_a_chinese_query_is_translated_and_searched_as_typed_it_matches_nothing(server: httpx.Client) -> None:
    page = server.get("/search", params={"q": "机器学习"}).text
    assert page.count('class="paper"') > 0 and "No good matches" not in page
    verbatim = server.get("/search", params={"q": "机器学习", "verbatim": "1"}).text
    assert verbatim.count('class="paper"') == 0 and "No good matches" in verbatim


def test_the_search_page_has_one_search_box_a_count_and_a_pager(server: httpx.Client) -> None:
    page = server.get("/search", params={"q": "quark mass", "mode": "keyword", "k": 10}).text
    assert page.count('type="search"') == 1
    assert "results 1–10" in page and 'rel="next"' in page  # the next part's link (web/parts.py)
    second = server.get("/search", params={"q": "quark mass", "mode": "keyword", "k": 10, "page": 2}).text
    assert "results 11–" in second and 'rel="prev"' in second


def test_the_language_link_keeps_the_query_and_filters(server: httpx.Client) -> None:
    page = server.get("/search", params={"q": "quark mass", "mode": "keyword", "category": "hep-ph"}).text
    link = re.search(r'href="([^"]+)" id="lang-switch"', page)
    assert link is not None
    assert link[1].replace("&amp;", "&") == "/search?q=quark+mass&mode=keyword&category=hep-ph&lang=zh"


def test_chinese_pages_translate_modes_badges_and_errors(server: httpx.Client) -> None:
    search = in_chinese(server, "/search", q="quark", k=10)
    assert ">混合<" in search and ">关键词<" in search and ">语义<" in search
    assert "更多结果：#11–#20" in search  # the next part's link (web/parts.py), as 中文 says it
    listing = in_chinese(server, "/list/cs.LG")
    assert '<span class="kind">交叉</span>' in listing or "cross" not in listing
    missing = in_chinese(server, "/abs/2608.00404")
    assert "库中没有 2608.00404" in missing


def test_related_text_api_honours_the_category(server: httpx.Client) -> None:
    results = server.get("/api/related", params={"text": "quark masses", "category": "math"}).json()[
        "results"
    ]
    assert results and all(any(c.startswith("math") for c in r["categories"]) for r in results)


def test_home_opens_the_category_with_the_most_new_papers_on_the_latest_day(
    server: httpx.Client, server_home: Path
) -> None:
    store = open_store(Settings(home=server_home))
    days = {c: store.announcement_days(c)[-1] for c, _ in store.listed_categories()}
    latest = max(days.values())
    new = {c: listing_counts(store.listing(c, latest))["new"] for c, _ in store.listed_categories(latest)}
    store.close()
    location = server.get("/", follow_redirects=False).headers["location"]
    assert new[location.removeprefix("/list/")] == max(new.values())


def test_listing_json_and_rows_carry_the_readers_state(reader_server: httpx.Client) -> None:
    entries = reader_server.get("/api/list/cs.LG").json()["entries"]
    assert all(e["saved"] is False and e["rating"] is None for e in entries)
    first, second = entries[0]["id"], entries[1]["id"]
    token = csrf(reader_server, "/list/cs.LG")
    reader_server.post("/library/rate", data={"id": first, "rating": "1", "csrf": token})
    reader_server.post("/library/rate", data={"id": second, "rating": "0", "csrf": token})
    after = {e["id"]: e for e in reader_server.get("/api/list/cs.LG").json()["entries"]}
    assert (after[first]["saved"], after[first]["rating"]) == (True, 1)
    assert (after[second]["saved"], after[second]["rating"]) == (True, 0)
    assert reader_server.get("/api/mine").json()["ratings"] == {first: 1, second: 0}
    assert "private" in reader_server.get("/api/mine").headers["cache-control"]


def test_pages_are_compressed_and_static_files_fingerprinted(server: httpx.Client) -> None:
    page = server.get("/list/cs.CR", headers={"Accept-Encoding": "gzip"})
    assert page.headers["content-encoding"] == "gzip" and page.headers["cache-control"] == "no-cache"
    api = server.get("/api/list/cs.CR", headers={"Accept-Encoding": "gzip"})
    assert api.headers["content-encoding"] == "gzip"
    css = re.search(r'href="(/static/style\.css\?v=\w+)"', page.text)
    assert css is not None
    assert "immutable" in server.get(css[1]).headers["cache-control"]
    assert server.get(re.search(r'rel="icon" href="([^"]+)"', page.text)[1]).status_code == 200  # type: ignore[index]
    assert '<meta name="description" content="cs.CR papers announced' in page.text


def test_titles_in_the_title_element_are_plain_text(server: httpx.Client) -> None:
    title = re.search(r"<title>(.*)</title>", server.get("/abs/2608.99999").text)
    assert title is not None and "$" not in title[1]


def test_the_library_page_untags_rerates_and_asks_before_removing(reader_server: httpx.Client) -> None:
    pid = reader_server.get("/api/list/cs.LG").json()["entries"][0]["id"]
    token = csrf(reader_server, "/library")
    reader_server.post(
        "/api/library", json={"id": pid, "tags": ["keep", "drop"]}, headers={"X-CSRF-Token": token}
    )
    page = reader_server.get("/library").text
    assert (
        'value="untag"' in page
        and '<details class="confirm">' in page
        and 'class="lib rerate inline"' in page
    )
    reader_server.post("/library/edit", data={"key": pid, "action": "untag", "tag": "drop", "csrf": token})
    reader_server.post("/library/rate", data={"id": pid, "rating": "-1", "csrf": token})
    entry = next(e for e in reader_server.get("/api/library").json()["entries"] if e["id"] == pid)
    assert entry["tags"] == ["keep"] and entry["rating"] == -1
