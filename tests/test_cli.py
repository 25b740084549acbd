"""The ``papersift`` command over a store built from real data: in this process (``tests.support.inproc``)
where a test pins what a command says, its exit code or its effect on the store; as a user runs it, in a
process of its own, where the process is the point: ``main``'s help and refused command line said in the
reader's language (``help_words.install``, ``cli/said_tree.py``), ``serve``'s refusal, and a root option
before the command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from papersift.sources.latex import plain_text
from tests.support.data import write_jsonl
from tests.support.inproc import invoke
from tests.support.processes import run_cli


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, real_records: list[dict[str, object]]) -> Path:
    home = tmp_path_factory.mktemp("home")
    data = write_jsonl(home / "papers.jsonl.gz", real_records, gz=True)
    result = invoke("ingest", str(data), home=home)
    assert f"ingest: {len(real_records)} new, 0 updated, 0 skipped, 0 failed" in result.stdout
    return home


def _latest_listing(home: Path, category: str) -> list[dict[str, object]]:
    out = invoke("list", category, "--format", "json", home=home).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_list_text_follows_the_listing_layout(home: Path) -> None:
    rows = _latest_listing(home, "cs.AI")
    day = rows[0]["listing_date"]
    text = invoke("list", "cs.AI", "--date", str(day), home=home).stdout
    first = rows[0]
    lines = text.splitlines()
    assert lines[0].startswith("cs.AI — ") and "new" in lines[0]
    assert lines[2].startswith(f"#01  {day}  ")
    assert lines[3] == plain_text(first["title"])  # the JSON keeps arXiv's LaTeX, the text is plain
    authors = first["authors"]
    assert isinstance(authors, list)
    if len(authors) > 3:
        assert lines[4].endswith(f"and {len(authors) - 3} more")
    assert lines[5] == plain_text(first["abstract"])


def test_list_json_has_the_interface_fields(home: Path) -> None:
    rows = _latest_listing(home, "cs.AI")
    assert [r["number"] for r in rows] == list(range(1, len(rows) + 1))
    for r in rows:
        assert {"id", "title", "authors", "categories", "announced", "kind"} <= r.keys()
    kinds = [r["kind"] for r in rows]
    assert kinds == sorted(kinds, key=["new", "cross", "replace", "replace-cross"].index)


def test_a_store_without_vectors_is_noted_once_and_never_for_a_keyword_search(home: Path) -> None:
    hybrid = invoke("search", "graph", home=home)
    assert hybrid.stderr.count("note: no vectors yet") == 1
    for query in ("graph", "图神经网络"):  # a 中文 query opens the indexes to read it
        keyword = invoke("search", query, "--mode", "keyword", home=home)
        assert "no vectors yet" not in keyword.stderr, query


def test_list_unknown_category_or_day_is_a_clear_error(home: Path) -> None:
    r = invoke("list", "nope.XX", home=home, check=False)
    assert r.returncode == 2 and "nope.XX is not an arXiv category" in r.stderr
    r = invoke("list", "econ.TH", home=home, check=False)
    assert r.returncode == 1 and "no listings for 'econ.TH'" in r.stderr
    r = invoke("list", "cs.AI", "--date", "1999-01-01", home=home, check=False)
    assert r.returncode == 1  # never fetched: said as such
    assert "The listing of Friday 1999-01-01 is not stored here; run `papersift sync`" in r.stderr
    r = invoke("list", "cs.AI", "--date", "yesterday", home=home, check=False)
    assert r.returncode == 2 and "not a date" in r.stderr


def test_show_formats(home: Path, real_records: list[dict[str, object]]) -> None:
    pid = str(real_records[0]["id"])
    as_json = json.loads(invoke("show", pid, "--format", "json", home=home).stdout)
    assert as_json["id"] == pid and as_json["title"] == real_records[0]["title"]
    bib = invoke("show", f"https://arxiv.org/abs/{pid}v1", "--format", "bibtex", home=home).stdout
    assert bib.startswith("@misc{") and f"eprint = {{{pid}}}" in bib
    text = invoke("show", pid, home=home).stdout
    assert text.startswith(f"arXiv:{pid}")
    missing = invoke("show", "2601.99999", home=home, check=False)
    assert missing.returncode == 1 and "not in the store" in missing.stderr
    bad = invoke("show", "banana", home=home, check=False)
    assert bad.returncode == 2 and "not an arXiv id" in bad.stderr


def test_search_json_is_ranked_and_filtered(home: Path) -> None:
    out = invoke(
        "search", "language models", "-k", "5", "--category", "cs", "--format", "json", home=home
    ).stdout
    hits = [json.loads(line) for line in out.splitlines()]
    assert 0 < len(hits) <= 5
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(any(c.startswith("cs.") for c in h["categories"]) for h in hits)


def test_search_by_id_opens_the_paper(home: Path, real_records: list[dict[str, object]]) -> None:
    pid = str(real_records[5]["id"])
    out = invoke("search", f"arXiv:{pid}", "--format", "json", home=home).stdout
    assert json.loads(out.splitlines()[0])["id"] == pid


def test_search_syntax_never_crashes(home: Path) -> None:
    for query in ['"', "AND(", "a* OR", "NEAR(x"]:
        assert invoke("search", query, home=home, check=False).returncode == 0


def test_ingest_exit_code_reports_failures(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "2601.00001", "title": "ok", "categories": ["cs.LG"]}\n{broken\n')
    r = invoke("ingest", str(bad), home=tmp_path / "h", check=False)
    assert r.returncode == 1
    assert "1 new" in r.stdout and "1 failed" in r.stdout
    assert "bad.jsonl: record line 2: malformed JSON" in r.stderr


def test_demo_offline_loads_recent_real_papers(tmp_path: Path, shared_data: Path) -> None:
    r = invoke("demo", "--offline", "--no-embed", "--days", "1", "--shared", str(shared_data), home=tmp_path)
    assert "demo: " in r.stdout and " new" in r.stdout
    assert "`papersift list " in r.stdout and "#01  " not in r.stdout  # a summary, not the whole listing


def test_demo_without_network_or_data_says_so(tmp_path: Path) -> None:
    r = invoke("demo", "--offline", "--shared", str(tmp_path / "none"), home=tmp_path, check=False)
    assert r.returncode == 1 and "no offline data was found" in r.stderr


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_db_option_picks_the_store_for_every_command(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path, real_records: list[dict[str, object]]
) -> None:
    elsewhere = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    url = elsewhere if backend == "sqlite" else str(request.getfixturevalue("pg_dsn"))
    records = [r for r in real_records if r.get("announced")][:50]
    data = write_jsonl(tmp_path / "papers.jsonl", records)
    home = tmp_path / "home"
    invoke("--db", url, "ingest", str(data), home=home)
    shown = invoke("--db", url, "show", str(records[0]["id"]), "--format", "json", home=home).stdout
    assert json.loads(shown)["id"] == records[0]["id"]
    assert not (home / "papersift.db").exists()  # nothing went to the default store
    if backend == "sqlite":
        assert (tmp_path / "elsewhere.db").exists()


def _commands(group: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    import click

    out = [prefix]
    if isinstance(group, click.Group) or hasattr(group, "commands"):
        for name, cmd in group.commands.items():  # type: ignore[attr-defined]
            out += _commands(cmd, (*prefix, name))
    return out


def test_help_shows_no_type_placeholders() -> None:
    import typer.main
    from typer.testing import CliRunner

    from papersift.cli.commands import app

    runner = CliRunner()
    commands = _commands(typer.main.get_command(app))
    assert len(commands) > 20
    for command in commands:
        result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, command
        assert not re.search(r"<(bool|str|int|float|path|list)[^>]*>", result.output), (
            command,
            result.output,
        )


def test_help_keeps_bracketed_words_as_written() -> None:
    """Rich's markup would eat "[n]" ("each claim marked ."): a help text's brackets are shown as written."""
    import typer.main
    from typer.testing import CliRunner

    from papersift.cli.commands import app

    runner, root = CliRunner(), typer.main.get_command(app)
    bracketed = 0
    for command in _commands(root):
        cmd = root
        for name in command:
            cmd = cmd.commands[name]  # type: ignore[attr-defined]
        output = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "300"}).output
        for written in re.findall(r"\\?\[[a-z]+\]", cmd.help or ""):
            bracketed += 1
            assert written.lstrip("\\") in output, (command, written)
    assert bracketed  # ask's "[n]" at least


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def _titles(text: str) -> list[str]:
    """The titles of the panels of ``text``, in order."""
    return [line.split()[1] for line in text.splitlines() if line.startswith("╭")]


def _panel_row(text: str, row: str) -> bool:
    """``row`` is a row of a panel of ``text``, as written (its box and padding around it)."""
    return any(line.startswith(f"│ {row}") for line in text.splitlines())


def test_help_is_said_in_the_readers_language_and_english_as_it_was(tmp_path: Path) -> None:
    zh, timed = {"PAPERSIFT_LANG": "zh"}, {"PYTHONPROFILEIMPORTTIME": "1"}  # import times go to stderr
    root = run_cli("--help", home=tmp_path, env={**zh, **timed})
    search = run_cli("search", "--help", home=tmp_path, env=zh).stdout
    assert _lines(root.stdout)[1:4] == [
        " 用法：python -m papersift.cli [选项] 命令 [参数]...",
        "",
        " papersift：自托管的 arXiv 论文雷达。",
    ]
    assert _titles(root.stdout) == ["选项", "命令"]
    assert _panel_row(root.stdout, "--help              显示本帮助并退出。")
    assert _panel_row(
        root.stdout,
        "search     搜索：混合（BM25 + 向量 + tf-idf，默认）、关键词（BM25）或语义搜索，可加筛选条件。",
    )
    assert _lines(search)[3:6] == [
        " 搜索：混合（BM25 + 向量 + tf-idf，默认）、关键词（BM25）或语义搜索，可加筛选条件。",
        "",
        " 查询会先被理解：中文会被翻译，拼写错误会被更正，缩写会与全称匹配"
        "（提示会说明做了什么；--exact 按输入原样搜索）。",
    ]
    assert _titles(search) == ["参数", "选项"]
    assert _panel_row(
        search, "--mode          -m      TEXT                  hybrid、keyword 或 semantic。 [默认：hybrid]"
    )
    assert _panel_row(
        search, "--exact                                       按输入原样搜索：不翻译、不更正、不匹配缩写。"
    )
    assert "[环境变量：PAPERSIFT_HOME]" in search and "babel" not in root.stderr  # a compiled .mo, no Babel
    english = run_cli("--help", home=tmp_path, env={"PAPERSIFT_LANG": "en", **timed})
    search = run_cli("search", "--help", home=tmp_path, env={"PAPERSIFT_LANG": "en"}).stdout
    assert "babel" not in english.stderr  # English reads no catalog
    assert _lines(english.stdout)[1:4] == [
        " Usage: python -m papersift.cli [OPTIONS] COMMAND [ARGS]...",
        "",
        " papersift: a self-hosted research-paper radar for arXiv.",
    ]
    assert _panel_row(english.stdout, "--help              Show this message and exit.")
    assert _lines(search)[1:7] == [
        " Usage: python -m papersift.cli search [OPTIONS] [query]",
        "",
        " Search: hybrid (BM25 + vectors + tf-idf, the default), keyword (BM25) or semantic, with filters.",
        "",
        " A query is understood first: 中文 is translated, misspellings corrected, acronyms matched with "
        "their long forms (the notes say what was done; --exact searches the query as typed).",  # one line
        "",  # at 200 columns: the paragraph is the terminal's to wrap, not the docstring's
    ]
    assert _titles(search) == ["Arguments", "Options"]
    assert _panel_row(
        search, "--mode          -m      TEXT                  hybrid, keyword or semantic. [default: hybrid]"
    )
    assert "[env var: PAPERSIFT_HOME]" in search


def test_the_chinese_help_keeps_each_texts_options_names_and_escaped_brackets() -> None:
    import typer.main

    from papersift.cli.commands import app
    from papersift.cli.help_words import HELP, help_texts
    from papersift.records.catalogs import translations

    # options, settings, code, and the escaped brackets of rich's markup (which would eat a bare "[n]")
    kept = (r"--[\w-]+", r"PAPERSIFT_\w+", r"``[^`]+``|`[^`]+`", r"\\\[\w+\]")
    for english in help_texts(typer.main.get_command(app)):
        chinese = translations("zh").pgettext(HELP, english)
        assert chinese != english, english
        for written in kept:
            assert sorted(re.findall(written, chinese)) == sorted(re.findall(written, english)), english


def test_a_refused_command_line_is_framed_in_the_readers_language(tmp_path: Path) -> None:
    asked = (("search", "--bogus"), ("serach",), ("show",), ("search", "a", "b"), ("list", "cs.AI", "--date"))
    said = {}
    for lang in ("zh", "en"):
        runs = [run_cli(*a, home=tmp_path, env={"PAPERSIFT_LANG": lang}, check=False) for a in asked]
        assert [r.returncode for r in runs] == [2] * len(asked)
        said[lang] = [
            [line.strip("│ ") for line in _lines(r.stderr) if not line.startswith(("╭", "╰"))] for r in runs
        ]
        assert {title for r in runs for title in _titles(r.stderr)} == {"错误" if lang == "zh" else "Error"}
    assert said["zh"] == [
        [
            "用法：python -m papersift.cli search [选项] [query]",
            "运行 'python -m papersift.cli search --help' 查看帮助。",
            "没有这个选项：--bogus",
        ],
        [
            "用法：python -m papersift.cli [选项] 命令 [参数]...",
            "运行 'python -m papersift.cli --help' 查看帮助。",
            "没有命令 'serach'。你是想用 'search', 'enrich' 吗？",
        ],
        [
            "用法：python -m papersift.cli show [选项] {ID}",
            "运行 'python -m papersift.cli show --help' 查看帮助。",
            "缺少参数 'ID'。",
        ],
        [
            "用法：python -m papersift.cli search [选项] [query]",
            "运行 'python -m papersift.cli search --help' 查看帮助。",
            "多余的参数（b）",
        ],
        ["选项 '--date' 需要一个值。"],
    ]
    assert said["en"] == [  # English as it always was
        [
            "Usage: python -m papersift.cli search [OPTIONS] [query]",
            "Try 'python -m papersift.cli search --help' for help.",
            "No such option: --bogus",
        ],
        [
            "Usage: python -m papersift.cli [OPTIONS] COMMAND [ARGS]...",
            "Try 'python -m papersift.cli --help' for help.",
            "No such command 'serach'. Did you mean 'search', 'enrich'?",
        ],
        [
            "Usage: python -m papersift.cli show [OPTIONS] {ID}",
            "Try 'python -m papersift.cli show --help' for help.",
            "Missing argument 'ID'.",
        ],
        [
            "Usage: python -m papersift.cli search [OPTIONS] [query]",
            "Try 'python -m papersift.cli search --help' for help.",
            "Got unexpected extra argument(s) (b)",
        ],
        ["Option '--date' requires an argument."],
    ]


def test_home_may_come_before_the_command(home: Path) -> None:
    """As a user runs it: ``papersift --home HOME list …`` in a process of its own (``main`` reads the root
    options for its resident helper before Typer parses the command line)."""
    result = run_cli("--home", str(home), "list", "cs.AI", "--format", "json", home=Path("/nonexistent"))
    assert result.stdout.strip()


def test_the_cli_says_its_messages_in_the_readers_language(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zh = {"PAPERSIFT_LANG": "zh"}
    bad = invoke("related", "notanid", "2101.99999", home=home, env=zh, check=False)
    assert bad.returncode == 1
    assert "错误：不是 arXiv 编号：'notanid'" in bad.stderr and "错误：库中没有 2101.99999" in bad.stderr
    english = invoke("related", "notanid", home=home, check=False)
    assert "error: not an arXiv id: 'notanid'" in english.stderr
    as_json = invoke("related", "notanid", "--format", "json", home=home, env=zh, check=False)
    assert json.loads(as_json.stdout)["error"] == "not an arXiv id: 'notanid'"  # JSON is never translated
    monkeypatch.delenv("PAPERSIFT_LANG")  # the locale, as gettext reads it, picks the language
    chinese = invoke("recommend", "-k", "3", home=home, env={"LANG": "zh_CN.UTF-8", "LC_ALL": ""})
    assert re.search(r"为 me 选出 \d+ 篇论文", chinese.stderr), chinese.stderr
    c_locale = invoke("recommend", "-k", "3", home=home, env={"LANG": "zh_CN.UTF-8", "LC_ALL": "C.UTF-8"})
    assert re.search(r"\d+ papers for me on", c_locale.stderr), c_locale.stderr


def test_the_cli_says_its_summaries_in_the_readers_language(tmp_path: Path) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text('{"id": "2601.00001", "title": "ok", "categories": ["cs.LG"]}\n{broken\n')
    zh, en = {"PAPERSIFT_LANG": "zh"}, {"PAPERSIFT_LANG": "en"}
    for lang, home in ((zh, tmp_path / "zh"), (en, tmp_path / "en")):
        ingested = invoke("ingest", str(papers), home=home, env=lang, check=False)
        assert ingested.returncode == 1
        saved = invoke("library", "add", "2601.00001", home=home, env=lang)
        listed = invoke("library", "list", home=home, env=lang)
        status = invoke("digest", "status", home=home, env=lang)
        said = (ingested.stdout, saved.stdout, listed.stderr, status.stdout)
        if lang is zh:
            chinese = (
                "ingest：新增 1，更新 0，跳过 0，失败 1",
                "已收藏 2601.00001：ok",
                "1 篇论文",
                "尚未给 me 发过邮件或推送",
            )
            assert said == tuple(f"{line}\n" for line in chinese)
            assert ingested.stderr.startswith("错误：")
        else:  # English as it always was
            english = ("ingest: 1 new, 0 updated, 0 skipped, 1 failed", "saved 2601.00001: ok", "1 papers")
            assert said == tuple(f"{line}\n" for line in (*english, "nothing mailed or pushed for me yet"))
            assert ingested.stderr.startswith("error: ")


def test_the_cli_refuses_a_command_line_in_the_readers_language(tmp_path: Path) -> None:
    missing = tmp_path / "missing.bib"
    asked = (
        ("list", "cs.AI", "--date", "yesterday"),
        ("library", "import", str(missing)),
        ("show", "not-an-id"),
        ("search", "--mode", "fuzzy", "graphs"),
    )
    for lang in ("zh", "en"):
        said = [invoke(*a, home=tmp_path / lang, env={"PAPERSIFT_LANG": lang}, check=False) for a in asked]
        assert [r.returncode for r in said] == [2, 1, 2, 2]
        errors = tuple(r.stderr for r in said)
        if lang == "zh":
            assert errors == (
                "错误：--date：不是日期（格式为 YYYY-MM-DD）：'yesterday'\n",
                f"错误：{missing}：文件不存在\n",
                errors[2],
                "错误：--mode 须为 keyword, semantic, hybrid 之一，不能是 'fuzzy'\n",
            )
            assert errors[2].startswith("错误：") and "not an arXiv id" not in errors[2]
        else:  # English as it always was
            assert errors == (
                "error: --date: not a date (YYYY-MM-DD): 'yesterday'\n",
                f"error: {missing}: no such file\n",
                "error: not an arXiv id: 'not-an-id'\n",
                "error: --mode must be one of keyword, semantic, hybrid, not 'fuzzy'\n",
            )


def test_the_cli_says_its_own_lines_in_the_readers_language_and_english_as_it_was(tmp_path: Path) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        '{"id": "2601.00001", "title": "ok", "categories": ["cs.LG"]}\n'
    )  # no abstract: no TL;DR
    said = {}
    for lang in ("zh", "en"):
        home, env = tmp_path / lang, {"PAPERSIFT_LANG": lang}
        invoke("ingest", str(papers), home=home, env=env)
        created = invoke("reader", "add", "ada", "--password-stdin", home=home, env=env, stdin="pass-word\n")
        listed = invoke("reader", "list", home=home, env=env)
        shown = invoke("show", "2601.00001", home=home, env=env)
        links = invoke("show", "2601.00001", "--references", "--cited-by", home=home, env=env)
        unset = invoke("list", "cs.LG", home=home, env={**env, "PAPERSIFT_INGEST_CHUNK": "many"}, check=False)
        public = run_cli("serve", "--host", "0.0.0.0", home=home, env=env, check=False)
        assert (unset.returncode, public.returncode) == (2, 2)
        said[lang] = (
            created.stdout + listed.stdout,
            shown.stdout.splitlines()[-1],
            links.stdout,
            unset.stderr,
            public.stderr,
        )
    assert said["zh"] == (
        "已创建读者 ada\nada\t-\t0 篇论文\n",
        "TL;DR 不可用：摘要中没有可展示的句子",
        "参考文献（0 篇；本库中有 0 篇）\n被引用（本库中有 0 篇）\n",
        "错误：设置：PAPERSIFT_INGEST_CHUNK：不是整数：many\n",
        "错误：拒绝在 0.0.0.0 上提供服务：没有账户时，任何能访问它的人都能读取和修改文库。请设置 "
        "PAPERSIFT_ACCOUNTS=true（并用 `papersift reader add` 添加读者），或加上 --public-read-only"
        "（只提供列表和搜索），或在 127.0.0.1 上提供服务。\n",
    )
    assert said["en"] == (  # English as it always was
        "reader ada created\nada\t-\t0 papers\n",
        "TL;DR unavailable: the abstract has no sentence to show",
        "References (0; 0 in this store)\nCited by (0 in this store)\n",
        "error: settings: PAPERSIFT_INGEST_CHUNK: not a whole number: many\n",
        "error: refusing to serve on 0.0.0.0: without accounts anyone who can reach it could read and change "
        "the library. Set PAPERSIFT_ACCOUNTS=true (and add readers with `papersift reader add`), pass "
        "--public-read-only (listings and search only), or serve on 127.0.0.1.\n",
    )


KAGGLE = [  # the Kaggle snapshot's layout: versions with their times, comments, journal-ref, DOI, license
    {
        "id": "0704.0001", "title": "Prompt diphoton production", "authors": "C. Bal\\'azs, E. L. Berger",
        "abstract": "A fully differential calculation.", "categories": "hep-ph", "comments": "37 pages",
        "journal-ref": "Phys.Rev.D76:013009,2007", "doi": "10.1103/PhysRevD.76.013009",
        "license": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/", "update_date": "2008-11-13",
        "versions": [
            {"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"},
            {"version": "v2", "created": "Tue, 24 Jul 2007 20:10:27 GMT"},
        ],
    },
    {
        "id": "0704.0003", "title": "A cross-listed paper", "authors": "A. Author", "abstract": "Another.",
        "categories": "hep-th hep-ph",
        "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:20:42 GMT"}],
    },
]  # fmt: skip


def test_list_and_show_say_their_fixed_words_in_the_readers_language(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "arxiv-metadata-oai-snapshot.json", KAGGLE)
    said = {}
    for lang in ("zh", "en"):
        home, env = tmp_path / lang, {"PAPERSIFT_LANG": lang}
        invoke("ingest", str(data), home=home, env=env)
        listed = invoke("list", "hep-ph", home=home, env=env).stdout.splitlines()
        shown = invoke("show", "0704.0001", home=home, env=env).stdout.splitlines()
        said[lang] = (listed, shown[3:13])
    (zh, zh_shown), (en, en_shown) = said["zh"], said["en"]
    assert [n for n, line in enumerate(en) if zh[n] != line] == [0, 8]  # paper text as the paper writes it
    assert (zh[0], zh[8], zh_shown) == (
        "hep-ph — 2007-04-04（周三）：1 篇新论文，1 篇交叉列表，0 篇替换",
        "#02  2007-04-04  hep-th hep-ph  （从 hep-th 交叉列出）",
        [
            "分类：hep-ph", "公布日期：2007-04-04", "提交日期：2007-04-02", "更新日期：2007-07-24",
            "备注：37 pages", "期刊引用：Phys.Rev.D76:013009,2007", "DOI：10.1103/PhysRevD.76.013009",
            "许可协议：http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
            "  v1：2007-04-02（周一）19:18 UTC", "  v2：2007-07-24（周二）20:10 UTC",
        ],
    )  # fmt: skip
    assert (en[0], en[8], en_shown) == (  # English as it always was
        "hep-ph — Wed, 04 Apr 2007: 1 new, 1 cross-lists, 0 replacements",
        "#02  2007-04-04  hep-th hep-ph  (cross-list from hep-th)",
        [
            "Categories: hep-ph", "Announced: 2007-04-04", "Submitted: 2007-04-02", "Updated: 2007-07-24",
            "Comments: 37 pages", "Journal-ref: Phys.Rev.D76:013009,2007", "DOI: 10.1103/PhysRevD.76.013009",
            "License: http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
            "  v1: Mon, 02 Apr 2007 19:18 UTC", "  v2: Tue, 24 Jul 2007 20:10 UTC",
        ],
    )  # fmt: skip


# a help text cut at the panel's edge: "each with wh… │" (Rich crops a word it cannot wrap, as a run of 中文)
_CUT = re.compile(r"…\s?│$")


def _help_at_80_columns_is_whole(output: str, command: tuple[str, ...]) -> None:
    lines = _lines(output)
    assert not [line for line in lines if _CUT.search(line)], (command, output)
    assert all(len(line) <= 80 for line in lines if line[:1] < "\u4e00"), (command, output)


def test_help_at_80_columns_cuts_no_sentence_and_keeps_no_line_break_of_the_source() -> None:
    import typer.main
    from typer.testing import CliRunner

    from papersift.cli.commands import app

    runner, root = CliRunner(), typer.main.get_command(app)
    for command in _commands(root):
        output = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"}).output
        _help_at_80_columns_is_whole(output, command)
    said = runner.invoke(app, ["--help"], env={"COLUMNS": "80"}).output
    panel = " ".join(" ".join(line.strip("│ ") for line in _lines(said) if line.startswith("│")).split())
    # a docstring's line breaks are not the terminal's: "…its references or the papers citing it." reads whole
    assert "or its references or the papers citing it." in panel
    assert "each with why it matches." in panel


@pytest.mark.parametrize("command", [(), ("embed",), ("recommend",), ("daily",), ("fulltext",), ("digest",)])
def test_chinese_help_at_80_columns_folds_its_text_and_cuts_nothing(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    output = run_cli(*command, "--help", home=tmp_path, env={"COLUMNS": "80", "PAPERSIFT_LANG": "zh"}).stdout
    assert "用法" in output
    _help_at_80_columns_is_whole(output, command)


def test_list_with_no_date_opens_the_latest_day_of_new_papers_not_one_of_cross_lists(tmp_path: Path) -> None:
    def record(pid: str, categories: list[str], day: str) -> dict[str, object]:
        title = f"Paper {pid}"
        return {"id": pid, "title": title, "abstract": "Plain text.", "authors": ["Ada Lovelace"]} | {
            "categories": categories,
            "primary_category": categories[0],
            "announced": day,
        }

    records = [
        record("2607.00001", ["cs.CV"], "2026-07-01"),
        record("2607.00002", ["cs.CV"], "2026-07-01"),
        record("2607.00101", ["cs.LG", "cs.CV"], "2026-07-02"),  # cs.CV's later day: a cross-list only
    ]
    home = tmp_path / "home"
    invoke("ingest", str(write_jsonl(tmp_path / "days.jsonl", records)), home=home)
    for lang in ("en", "zh"):
        said = invoke("list", "cs.CV", home=home, env={"PAPERSIFT_LANG": lang}).stdout
        assert "2026-07-01" in said and "2026-07-02" not in said.split("\n#01")[0], said
        assert "Paper 2607.00001" in said and "Paper 2607.00101" not in said
    later = invoke("list", "cs.CV", "--date", "2026-07-02", home=home).stdout
    assert "Paper 2607.00101" in later  # the day of cross-lists is still there when asked for
