"""The reader's CLI: library, import/export, follow, recommend, digests over real SMTP; each command run in
this process (``tests/support/inproc.invoke``) over a real store."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import feedparser
import orjson
import pytest

from tests.support.data import DAILY_DAYS, day_records
from tests.support.inproc import invoke
from tests.support.processes import free_port
from tests.support.smtp import Inbox, local_inbox

BROKEN = """@book{broken,
  title = {Unclosed
  author = {Nobody}

"""


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    with local_inbox() as served:
        yield served


@pytest.fixture
def home(daily_home: Path, tmp_path: Path) -> Path:
    """A private copy of the daily store, so each test starts with an empty library."""
    copy = tmp_path / "home"
    shutil.copytree(daily_home, copy)
    return copy


def titled(records: list[dict[str, object]], word: str) -> list[str]:
    return [str(r["id"]) for r in records if word in str(r["title"]).lower()]


def test_save_tag_rate_list_and_remove(home: Path) -> None:
    day = day_records(home, DAILY_DAYS[0])
    a, b = str(day[0]["id"]), str(day[1]["id"])
    out = invoke("library", "add", a, b, "--tag", "to read", home=home).stdout
    assert f"saved {a}" in out and f"saved {b}" in out
    invoke("library", "tag", a, "asr", home=home)
    invoke("library", "rate", a, "+1", home=home)
    invoke("library", "rate", b, "-1", home=home)
    invoke("library", "note", a, "compare with our baseline", home=home)
    rows = [
        orjson.loads(line)
        for line in invoke("library", "list", "--format", "json", home=home).stdout.splitlines()
    ]
    by_id = {r["id"]: r for r in rows}
    assert by_id[a]["rating"] == 1 and by_id[b]["rating"] == -1
    assert by_id[a]["tags"] == ["asr", "to read"] and by_id[a]["note"] == "compare with our baseline"
    tagged = invoke("library", "list", "--tag", "asr", "--format", "json", home=home).stdout.splitlines()
    assert [orjson.loads(line)["id"] for line in tagged] == [a]
    invoke("library", "remove", b, home=home)
    assert b not in invoke("library", "list", home=home).stdout


def test_unknown_ids_and_bad_ratings_are_clear_errors(home: Path) -> None:
    result = invoke("library", "add", "2601.99999", home=home, check=False)
    assert result.returncode == 1 and "no paper 2601.99999" in result.stderr
    result = invoke("library", "add", "not-an-id", home=home, check=False)
    assert result.returncode == 1 and "not an arXiv id" in result.stderr
    result = invoke("library", "rate", "2601.99999", "+2", home=home, check=False)
    assert result.returncode == 2 and "+1, -1 or 0" in result.stderr
    result = invoke("library", "tag", "2601.99999", "x", home=home, check=False)
    assert result.returncode == 1 and "not in me's library" in result.stderr


def test_import_links_arxiv_papers_keeps_the_rest_reports_bad_entries_and_exports(
    home: Path, tmp_path: Path
) -> None:
    day = day_records(home, DAILY_DAYS[0])
    plain = [r for r in day if re.fullmatch(r"[\w\s:,\-]+", str(r["title"]))]
    linked_by_id, linked_by_title = plain[0], plain[1]
    bib = tmp_path / "zotero.bib"
    bib.write_text(
        f"""@article{{first,
  title = {{Something on arXiv}},
  author = {{Doe, Jane}},
  eprint = {{{linked_by_id["id"]}}},
  archivePrefix = {{arXiv}},
  year = {{2026}},
  keywords = {{asr, zotero}}
}}

@inproceedings{{second,
  title = {{{linked_by_title["title"]}}},
  author = {{Roe, Richard}},
  year = {{2026}}
}}

"""
        + BROKEN
        + """@book{offline,
  title = {A Book Not on {arXiv}: Theory \\& Practice},
  author = {M{\\"u}ller, Hans and Smith, Ann},
  year = {1999},
  publisher = {Springer}
}
""",
        encoding="utf-8",
    )
    result = invoke("library", "import", str(bib), "--tag", "imported", home=home, check=False)
    assert result.returncode == 1  # one entry was bad: reported, the rest imported
    assert "2 linked to arXiv papers" in result.stdout and "1 kept with their own text" in result.stdout
    assert "zotero.bib:" in result.stderr and "skipped" in result.stderr
    rows = [
        orjson.loads(line)
        for line in invoke("library", "list", "--format", "json", home=home).stdout.splitlines()
    ]
    ids = {r["id"] for r in rows}
    assert {linked_by_id["id"], linked_by_title["id"]} <= ids
    offline = next(r for r in rows if r["id"] is None)
    assert (
        offline["title"] == "A Book Not on arXiv: Theory & Practice"
        and offline["authors"][0] == "Hans Müller"
    )
    assert "imported" in offline["tags"]
    exported = invoke("library", "export", "--tag", "imported", home=home).stdout
    assert exported.count("@") == 3 and f"eprint = {{{linked_by_id['id']}}}" in exported
    csl = orjson.loads(invoke("library", "export", "--format", "csl-json", home=home).stdout)
    assert len(csl) == 3 and any(item["title"].startswith("A Book Not on arXiv") for item in csl)
    # re-importing the export changes nothing
    again = tmp_path / "again.bib"
    again.write_text(exported, encoding="utf-8")
    assert "0 new in the library" in invoke("library", "import", str(again), home=home).stdout


def test_recommend_ranks_the_day_by_the_library_and_honours_never_words(home: Path) -> None:
    first, second = (day_records(home, d) for d in DAILY_DAYS)
    invoke("library", "add", *titled(first, "agent")[:5], "--rating", "1", home=home)
    invoke("follow", "--category", "cs.CL", "--category", "cs.AI", home=home)
    out = invoke("recommend", "--date", DAILY_DAYS[1], "-k", "5", "--format", "json", home=home).stdout
    picks = [orjson.loads(line) for line in out.splitlines()]
    assert len(picks) == 5 and [p["rank"] for p in picks] == [1, 2, 3, 4, 5]
    assert all(p["why"] for p in picks)
    agents = set(titled(second, "agent"))  # about a fifth of the day: 3 of 5 by chance is rare (~6%)
    assert len(agents & {p["id"] for p in picks}) >= 3, "a library of agent papers should lead with agents"
    followed = invoke("follow", "--never", "agent", "--lang", "zh", home=home).stdout
    assert "languages: English, 中文\n" in followed  # the languages named, said in the reader's language:
    assert "语言：英文、中文\n" in invoke("follow", home=home, env={"PAPERSIFT_LANG": "zh"}).stdout
    out = invoke("recommend", "--date", DAILY_DAYS[1], "-k", "500", "--format", "json", home=home).stdout
    kept = [orjson.loads(line) for line in out.splitlines()]
    whole_word = re.compile(r"\bagent\b", re.IGNORECASE)  # never-words match whole words
    assert kept and not any(whole_word.search(f"{p['title']} {p['abstract']}") for p in kept)


def test_digest_as_markdown_atom_and_email_sent_once_per_day(
    home: Path, tmp_path: Path, smtp: tuple[Inbox, int]
) -> None:
    inbox, port = smtp
    env = {"PAPERSIFT_SMTP_PORT": str(port), "PAPERSIFT_MAIL_FROM": "radar@lab.example"}
    invoke("follow", "--category", "cs.CL", home=home)
    md = tmp_path / "digest.md"
    atom = tmp_path / "digest.atom"
    invoke("digest", "--markdown", str(md), "--atom", str(atom), "--date", DAILY_DAYS[1], home=home)
    assert md.read_text().startswith("# Daily Papers for me, 2026-08-21")
    feed = feedparser.parse(atom.read_bytes())
    assert (
        not feed.bozo
        and len(feed.entries) == 20
        and feed.entries[0].link.startswith("https://arxiv.org/abs/")
    )
    out = invoke("digest", "--email", "ada@lab.example", "--date", DAILY_DAYS[1], home=home, env=env).stdout
    assert "1 digest(s) sent" in out and len(inbox.messages) == 1
    msg = inbox.messages[0]
    assert msg["To"] == "ada@lab.example" and msg["From"] == "radar@lab.example"
    text = msg.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = msg.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert "#01" in text and "<ol>" in html
    again = invoke("digest", "--email", "ada@lab.example", "--date", DAILY_DAYS[1], home=home, env=env).stdout
    assert "already sent" in again and len(inbox.messages) == 1


def test_a_failed_send_is_kept_and_delivered_by_the_next_run(home: Path, smtp: tuple[Inbox, int]) -> None:
    inbox, port = smtp
    dead = {"PAPERSIFT_SMTP_PORT": str(free_port()), "PAPERSIFT_SMTP_TIMEOUT": "2"}
    started = time.perf_counter()
    failed = invoke(
        "digest", "--email", "ada@lab.example", "--date", DAILY_DAYS[1], home=home, env=dead, check=False
    )
    assert failed.returncode == 1 and "kept; resent on the next run" in failed.stderr
    assert time.perf_counter() - started < 60
    ok = invoke("daily", "--no-sync", home=home, env={"PAPERSIFT_SMTP_PORT": str(port)})
    assert "1 sent" in ok.stdout and len(inbox.messages) == 1
    assert "2026-08-21" in str(inbox.messages[0]["Subject"]) or "21 Aug 2026" in str(
        inbox.messages[0]["Subject"]
    )


def test_private_feed_url_is_per_reader_and_can_be_renewed(home: Path) -> None:
    first = invoke("reader", "feed", home=home).stdout.strip()
    assert first.startswith("http://127.0.0.1:8000/feed/") and first.endswith(".atom")
    assert invoke("reader", "feed", home=home).stdout.strip() == first
    renewed = invoke("reader", "feed", "--new", home=home).stdout.strip()
    assert renewed != first


def test_a_bibtex_round_trip_keeps_keys_entry_types_and_eprints(home: Path, tmp_path: Path) -> None:
    stored = day_records(home, DAILY_DAYS[0])[0]["id"]
    bib = tmp_path / "mine.bib"
    bib.write_text(
        f"""@article{{vaswani2017,
  title = {{Attention Is All You Need}},
  author = {{Vaswani, Ashish and Shazeer, Noam}},
  year = {{2017}},
  eprint = {{1706.03762}},
  archivePrefix = {{arXiv}}
}}

@inproceedings{{mine2026,
  title = {{A stored paper under my own key}},
  author = {{Doe, Jane}},
  year = {{2026}},
  eprint = {{{stored}}},
  archivePrefix = {{arXiv}}
}}
""",
        encoding="utf-8",
    )
    invoke("library", "import", str(bib), "--tag", "roundtrip", home=home)
    exported = invoke("library", "export", "--tag", "roundtrip", home=home).stdout
    assert "@article{vaswani2017," in exported and "@inproceedings{mine2026," in exported
    assert "eprint = {1706.03762}" in exported and f"eprint = {{{stored}}}" in exported
    assert exported.count("archivePrefix = {arXiv}") == 2
    again = tmp_path / "again.bib"
    again.write_text(exported, encoding="utf-8")
    assert "0 new in the library" in invoke("library", "import", str(again), home=home).stdout


def test_a_file_that_is_no_bibliography_is_one_clear_error_naming_it_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    binary = tmp_path / "random.bin"
    binary.write_bytes(bytes(range(128, 256)) * 8)
    text = tmp_path / "notes.txt"
    text.write_text("hello world\nthis is not a bibliography\n")
    for path, problem in ((binary, "not UTF-8 text"), (text, "unrecognised format")):
        said = {
            lang: invoke("library", "import", str(path), home=home, check=False, env={"PAPERSIFT_LANG": lang})
            for lang in ("en", "zh")
        }
        assert said["en"].returncode == said["zh"].returncode == 1
        assert said["en"].stdout == said["zh"].stdout == ""  # no "import ():" summary of nothing
        assert (
            said["en"].stderr.startswith(f"error: {path}: {problem}")
            and said["en"].stderr.count(str(path)) == 1
        )
        assert said["zh"].stderr.startswith(f"错误：{path}：") and said["zh"].stderr.count(str(path)) == 1
    assert not invoke("library", "list", "--format", "json", home=home).stdout.strip()


def test_follow_shows_the_categories_daily_papers_read_when_none_is_followed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"PAPERSIFT_DEFAULT_CATEGORIES": "cs.CV,stat.ML"}
    english = invoke("follow", home=home, env=env).stdout
    assert english.startswith("categories: cs.CV, stat.ML (the default, as none is followed: --category)\n")
    chinese = invoke("follow", home=home, env={**env, "PAPERSIFT_LANG": "zh"}).stdout
    assert chinese.startswith("分类：cs.CV、stat.ML（尚未关注任何分类，这是默认值；用 --category 关注）\n")
    followed = invoke("follow", "--category", "cs.CL", home=home, env=env).stdout
    assert followed.startswith("categories: cs.CL\n")
