"""Recommendations per tag and "new this week" by followed authors, over real papers: a reader with a
"diffusion" and a "graphs" tag gets two rankings, each with its reasons, from the CLI (``recommend --tag``,
run in this process), the web (``/daily?tag=``, the app in this process) and a per-tag digest; a tag that
does not exist is a clear error in both languages."""

from __future__ import annotations

import gzip
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson
import pytest

from tests.support.data import write_jsonl
from tests.support.homes import seeded
from tests.support.inproc import app_client, invoke
from tests.support.smtp import local_inbox

pytestmark = pytest.mark.process

DAY = "2026-05-19"  # the Daily Papers day: the candidates below are re-announced on it
DIFFUSION = re.compile(r"\bdiffusion models?\b", re.IGNORECASE)
GRAPHS = re.compile(r"\bgraph (?:neural|convolutional) networks?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Tagged:
    home: Path
    diffusion: list[str]  # the day's diffusion papers (candidates), ids
    graphs: list[str]  # the day's graph papers
    titles: dict[str, str]


@pytest.fixture(scope="module")
def tagged(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Tagged:
    """Real papers of the 20k file: 6 diffusion-model papers tagged "diffusion" and 6 graph-network papers
    tagged "graphs" in the library; the other such papers, and 20 unrelated ones, announced on ``DAY``
    (their categories followed); 300 more for the background; embedded."""
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        records = [orjson.loads(line) for line in f]
    diffusion = [
        r for r in records if DIFFUSION.search(r["title"]) and r["primary_category"] in ("cs.CV", "cs.LG")
    ]
    graphs = [r for r in records if GRAPHS.search(r["title"]) and r["primary_category"].startswith("cs")]
    topical = {r["id"] for r in diffusion + graphs}
    other = [r for r in records[::60] if r["id"] not in topical]
    day = [{**r, "announced": DAY} for r in diffusion[6:16] + graphs[6:16] + other[:20]]
    home = seeded(tmp_path_factory.mktemp("tags"), tmp_path_factory)
    invoke(
        "ingest",
        str(write_jsonl(home / "papers.jsonl", diffusion[:6] + graphs[:6] + day + other[20:320])),
        home=home,
    )
    invoke("embed", home=home)
    invoke("library", "add", *(r["id"] for r in diffusion[:6]), "--tag", "diffusion", home=home)
    invoke("library", "add", *(r["id"] for r in graphs[:6]), "--tag", "graphs", home=home)
    followed = sorted({c for r in day for c in r["categories"] if c.startswith("cs.")})
    invoke("follow", *(x for c in followed for x in ("--category", c)), home=home)
    titles = {r["id"]: r["title"] for r in records}
    return Tagged(home, [r["id"] for r in diffusion[6:16]], [r["id"] for r in graphs[6:16]], titles)


def ranked(tagged: Tagged, tag: str) -> list[dict[str, object]]:
    out = invoke(
        "recommend", "--tag", tag, "-k", "8", "--date", DAY, "--format", "json", home=tagged.home
    ).stdout
    return [orjson.loads(line) for line in out.splitlines()]


def test_two_tags_give_two_rankings_each_led_by_its_own_topic_with_reasons(tagged: Tagged) -> None:
    diffusion, graphs = ranked(tagged, "diffusion"), ranked(tagged, "graphs")
    top_d, top_g = [str(p["id"]) for p in diffusion[:5]], [str(p["id"]) for p in graphs[:5]]
    assert top_d != top_g
    # 10 of the day's 37 papers are diffusion papers, 7 graph papers: 4 of 5 by chance is rare
    assert len(set(top_d) & set(tagged.diffusion)) >= 4, [tagged.titles[i] for i in top_d]
    assert len(set(top_g) & set(tagged.graphs)) >= 4, [tagged.titles[i] for i in top_g]
    for pick in diffusion + graphs:
        assert pick["why"], pick["id"]  # the same explanations as the whole library's ranking
    close = [str(w) for p in diffusion[:3] for w in p["why"] if str(w).startswith("close to")]  # type: ignore[attr-defined]
    assert close and all(DIFFUSION.search(c) or "diffusion" in c.lower() for c in close[:1])
    text = invoke("recommend", "--tag", "graphs", "-k", "3", "--date", DAY, home=tagged.home)
    assert "#01 " in text.stdout and "why: " in text.stdout
    assert "ranked by the papers of your tag “graphs” alone" in text.stderr
    folded = ranked(tagged, "DIFFUSION")  # a tag equal up to case is that tag
    assert [p["id"] for p in folded] == [p["id"] for p in diffusion]


def test_a_tag_that_does_not_exist_is_a_usage_error_in_both_languages(tagged: Tagged) -> None:
    english = invoke("recommend", "--tag", "nope", home=tagged.home, check=False)
    assert english.returncode == 2 and "Traceback" not in english.stderr
    assert english.stderr.strip() == "error: no tag “nope” in your library; your tags: diffusion, graphs"
    chinese = invoke(
        "recommend", "--tag", "nope", home=tagged.home, check=False, env={"PAPERSIFT_LANG": "zh"}
    )
    assert (
        chinese.returncode == 2 and "你的文库中没有标签“nope”；你的标签：diffusion, graphs" in chinese.stderr
    )
    for args in (["--markdown", str(tagged.home / "x.md")], ["--push"]):
        digest = invoke("digest", "--tag", "nope", *args, home=tagged.home, check=False)
        assert digest.returncode == 2 and "Traceback" not in digest.stderr, digest.stderr


def test_a_digest_per_tag_is_ranked_by_that_tag_and_says_so(tagged: Tagged, tmp_path: Path) -> None:
    for tag in ("diffusion", "graphs"):
        md = tmp_path / f"{tag}.md"
        invoke("digest", "--tag", tag, "--markdown", str(md), "--date", DAY, home=tagged.home)
        text = md.read_text(encoding="utf-8")
        assert f"_Ranked by the papers of your tag “{tag}” alone_" in text
        shown = re.findall(r"\(https://arxiv\.org/abs/([^)]+)\)", text)
        assert shown[:5] == [p["id"] for p in ranked(tagged, tag)[:5]]
        assert text.count("Why: ") >= 5 or text.count("why: ") >= 5 or "close to" in text
    zh = tmp_path / "zh.md"
    invoke(
        "digest",
        "--tag",
        "graphs",
        "--markdown",
        str(zh),
        "--date",
        DAY,
        home=tagged.home,
        env={"PAPERSIFT_LANG": "zh"},
    )
    assert "graphs" in zh.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def web(tagged: Tagged) -> Iterator[httpx.Client]:
    with app_client(tagged.home) as client:
        yield client


def test_the_daily_page_ranks_by_a_tag_with_reasons_and_names_the_tags(
    tagged: Tagged, web: httpx.Client
) -> None:
    answers = {
        tag: web.get(f"/api/daily/{DAY}", params={"tag": tag}).json() for tag in ("diffusion", "graphs")
    }
    ids = {tag: [e["id"] for e in a["entries"][:5]] for tag, a in answers.items()}
    assert ids["diffusion"] != ids["graphs"]
    assert ids["diffusion"] == [p["id"] for p in ranked(tagged, "diffusion")[:5]]  # the CLI's ranking
    for tag, answer in answers.items():
        assert answer["tag"] == tag and all(e["why"] for e in answer["entries"][:8])
    page = web.get(f"/daily/{DAY}", params={"tag": "graphs", "lang": "en"})
    assert page.status_code == 200 and "ranked by your tag “graphs” alone" in page.text
    assert 'href="/daily/2026-05-19?tag=diffusion"' in page.text  # the reader's tags, each a feed
    zh = web.get(f"/daily/{DAY}", params={"tag": "graphs", "lang": "zh"})
    assert "仅按你的标签“graphs”排序" in zh.text


def test_the_web_answers_a_tag_that_does_not_exist_with_a_clean_message(web: httpx.Client) -> None:
    page = web.get("/daily", params={"tag": "nope", "lang": "en"})  # (the cookie remembers a language)
    assert (
        page.status_code == 404 and "no tag “nope” in your library; your tags: diffusion, graphs" in page.text
    )
    assert "Traceback" not in page.text
    api = web.get("/api/daily", params={"tag": "nope"})
    assert api.status_code == 404 and "nope" in api.json()["error"]
    zh = web.get("/daily", params={"tag": "nope", "lang": "zh"})
    assert zh.status_code == 404 and "你的文库中没有标签“nope”" in zh.text


def test_new_this_week_by_followed_authors_in_recommend_and_on_the_daily_page(
    tagged: Tagged, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(tagged.home, home)
    paper = tagged.graphs[0]
    author = invoke("show", paper, "--format", "json", home=home).stdout
    name = orjson.loads(author)["authors"][0]
    invoke("follow", "--author", name, home=home)
    out = invoke("recommend", "--date", DAY, "-k", "3", home=home).stdout
    section = out.split("New this week by authors you follow", 1)
    assert len(section) == 2 and paper in section[1] and f"followed authors: {name}" in section[1]
    zh = invoke("recommend", "--date", DAY, "-k", "3", home=home, env={"PAPERSIFT_LANG": "zh"}).stdout
    assert "你关注的作者本周新论文" in zh
    with app_client(home) as client:
        answer = client.get(f"/api/daily/{DAY}").json()
        assert paper in [p["id"] for p in answer["followed_new"]]
        assert all(name in p["followed"] for p in answer["followed_new"])
        page = client.get(f"/daily/{DAY}").text
        assert "New this week by authors you follow" in page and f'href="/abs/{paper}"' in page


def test_a_tag_digest_is_mailed_apart_from_the_usual_one_and_daily_sends_the_followed_tags(
    tagged: Tagged, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(tagged.home, home)
    with local_inbox() as (inbox, port):
        env = {"PAPERSIFT_SMTP_PORT": str(port), "PAPERSIFT_MAIL_FROM": "radar@lab.example"}
        to = ["--email", "ada@lab.example", "--date", DAY]
        invoke("digest", "--tag", "graphs", *to, home=home, env=env)
        invoke("digest", *to, home=home, env=env)  # the usual digest of the same day: a channel of its own
        subjects = [str(m["Subject"]) for m in inbox.messages]
        assert len(subjects) == 2 and subjects[0].startswith("papersift: 20 papers like your tag “graphs”")
        assert subjects[1].startswith("papersift: 20 papers for me")
        refused = invoke("follow", "--digest-tag", "nope", home=home, check=False)
        assert refused.returncode == 2 and "no tag “nope”" in refused.stderr
        followed = invoke("follow", "--digest-tag", "diffusion", home=home).stdout
        assert "digest tags: diffusion" in followed
        assert "按标签的摘要：diffusion" in invoke("follow", home=home, env={"PAPERSIFT_LANG": "zh"}).stdout
        invoke("daily", "--no-sync", "--today", DAY, home=home, env=env)
        cron = [str(m["Subject"]) for m in inbox.messages[2:]]  # the latest listing's: usual, then the tag's
        assert len(cron) == 2 and "papers for me" in cron[0] and "like your tag “diffusion”" in cron[1]
        assert cron[0].rsplit(", ", 1)[1] == cron[1].rsplit(", ", 1)[1]  # the same day
