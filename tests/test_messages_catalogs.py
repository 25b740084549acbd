"""Typed messages and their catalogs: a Message is the English sentence the JSON and the CLI always said,
the 中文 catalog translates every msgid the code says (the one table of the messages, the CLI's lines and
the web's words, arXiv's category names) with the same placeholders, the committed template lists exactly
those msgids, the shipped .mo is the .po compiled, and the web's i18n holds no pattern over English
sentences: a message is looked up by its key. One placeholder style, plurals by msgid_plural, days and lists
by Babel."""

from __future__ import annotations

import ast
import inspect
import pickle
import re
from datetime import date, datetime
from pathlib import Path

import orjson
import pytest
from babel.messages.pofile import read_po
from jinja2 import DictLoader

from papersift.cli.help_words import catalog_template
from papersift.library.shapes import Understood
from papersift.llm.errors import ModelError
from papersift.ranking.evidence import cocited_reason, library_reasons
from papersift.ranking.pool import how_much_earlier
from papersift.records.catalogs import LOCALE, catalog_path, compiled, compiled_path, said, said_list
from papersift.records.english import COUNTED_OTHERWISE, DatePattern, ListPattern, Plural
from papersift.records.messages import ENGLISH, Message, counted, dated, reason, restored, say, stored
from papersift.records.paper import InvalidIdError, normalize_id
from papersift.sources.bibliography import read_bibliography
from papersift.sources.citetext import author_line
from papersift.web import i18n
from papersift.web.pages import make_templates

_PERCENT = re.compile(r"%\((\w+)\)s")
_BRACE = re.compile(r"\{(\w+)\}")


def _entries(path: Path) -> dict[tuple[str | None, str], str]:
    with path.open("rb") as f:
        return {(m.context, str(m.id)): str(m.string) for m in read_po(f) if m.id}


def test_a_message_is_the_english_sentence_the_faces_said_before() -> None:
    assert how_much_earlier(400) == "1 year earlier" and how_much_earlier(800) == "2 years earlier"
    assert (
        how_much_earlier(1) == "1 day earlier"
        and how_much_earlier(None, 0) == "the same month, submitted before"
    )
    assert (
        cocited_reason(1) == "cited together by 1 paper" and cocited_reason(3) == "cited together by 3 papers"
    )
    assert library_reasons(2, 1) == ["cites 2 papers of your library", "cited by 1 paper of your library"]
    assert author_line(["A B", "C D", "E F", "G H", "I J"]) == "A B, C D, E F and 2 more"
    assert say("text_cut", tokens=256, chars="300,000") == (
        "text cut to the model's 256-token window for the dense match (300,000 characters given); "
        "key terms use the first 100,000 characters"
    )
    match = say("sentence_match", mine=say("your_sentence", n=3), theirs=say("their_title"), cosine="0.61")
    assert match == "your sentence 3 ↔ their title (0.61)" and match.key == "sentence_match"
    again = pickle.loads(pickle.dumps(match))  # the page cache and the workers keep it a message
    assert (
        isinstance(again, Message)
        and again.args == match.args
        and said(again, "zh") == "你的第 3 句 ↔ 其标题（0.61）"
    )
    with pytest.raises(AttributeError):
        match.key = "other"  # type: ignore[misc]
    with pytest.raises(InvalidIdError) as raised:
        normalize_id("2699.00001")
    skipped = read_bibliography("2401.00001\nnot an id\n").errors[0]
    assert skipped.said() == str(skipped) == "line 2: not an arXiv id or arXiv URL: 'not an id'"
    assert said(skipped.said(), "zh") == "第 2 行：不是 arXiv 编号或 arXiv 网址：'not an id'"
    assert str(raised.value) == "not an arXiv id: '2699.00001' (month 99)"
    assert said(reason(raised.value), "zh") == "不是 arXiv 编号：'2699.00001'（月份 99）"


def test_an_error_raised_with_a_message_is_its_english_and_kept_as_the_message_in_a_column() -> None:
    three = say("model_answered_times_saying", status=429, times=say("three_times"), message='say "x" )]')
    error = ModelError(three)
    assert str(error) == 'the endpoint answered 429 three times: say "x" )]' and reason(error) is three
    assert said(error, "zh") == '端点返回 429（共 3 次）：say "x" )]'  # an error is said as its message
    assert orjson.loads(stored(three)) == {  # kept as data: its key, its arguments, its English
        "key": "model_answered_times_saying",
        "args": {
            "status": 429,
            "times": {"key": "three_times", "args": {}, "text": "three times"},
            "message": 'say "x" )]',
        },
        "text": 'the endpoint answered 429 three times: say "x" )]',
    }
    again = restored(stored(three))
    assert isinstance(again, Message) and again == three and said(again, "zh") == said(three, "zh")
    assert again.args["status"] == 429  # a number stays a number
    slow = say("model_unreachable", where="h:1", kind="ConnectError", times=say("times", n=4))
    assert said(restored(stored(slow)), "zh") == "无法连接 h:1（ConnectError，共 4 次）"
    plain = restored(stored("the endpoint answered 429 three times"))  # a text, not a message: as it is
    assert plain == "the endpoint answered 429 three times" and not isinstance(plain, Message)
    unknown = {"key": "no_such_key", "args": {"seconds": "30"}, "text": "timed out after 30 s"}
    assert restored(orjson.dumps(unknown).decode()) == "timed out after 30 s"  # a key this version lacks


def test_a_shapes_json_is_the_english_text_and_its_page_data_the_message() -> None:
    note = say("corrected", wrong="agnets", right="agents")
    shape = Understood.make(
        text_used="agents", original="agnets", rewritten=True, verbatim=False, applied=[note],
        corrections=[], translation=None, acronyms=[], suggestions=[], highlight=[],
    )  # fmt: skip
    assert shape.model_dump_json().count('"applied":["corrected: agnets → agents"]') == 1
    (kept,) = shape.dump()["applied"]
    assert kept == "corrected: agnets → agents" and isinstance(kept, Message)
    assert said(kept, "zh") == "已更正拼写：agnets → agents" and said(kept, "en") == kept


def test_the_chinese_catalog_translates_every_msgid_with_the_same_placeholders() -> None:
    with catalog_path("zh").open("rb") as f:
        zh = {(m.context, m.id): m.string for m in read_po(f, locale="zh") if m.id}
    missing, wrong = [], []
    for m in catalog_template():
        if not m.id:
            continue
        # a plural: its one form (中文: nplurals=1) with the plural msgid's placeholders
        english = m.id[-1] if isinstance(m.id, tuple) else m.id
        found = zh.get((m.context, m.id), "")
        chinese = found[0] if isinstance(found, tuple) and len(found) == 1 else found
        if not chinese or not isinstance(chinese, str):
            missing.append((m.context, m.id))
            continue
        otherwise = COUNTED_OTHERWISE.get(str(m.context), frozenset())
        for marks in (_PERCENT, _BRACE):
            if (set(marks.findall(english)) ^ set(marks.findall(chinese))) - otherwise:
                wrong.append((m.context, english, chinese))
    assert not missing and not wrong, (missing, wrong)
    assert {key for key in ENGLISH} <= {ctx for ctx, _ in zh}  # every key of the table is a context there
    assert i18n.interface("zh")["search"] == "搜索" and i18n.interface("en")["search"] == "Search"
    assert i18n.arxiv_name("Machine Learning", "zh") == "机器学习"


def test_the_committed_template_lists_exactly_the_msgids_the_code_says() -> None:
    # to regenerate: babel.messages.pofile.write_po(open(LOCALE / "papersift.pot", "wb"),
    # catalog_template(), width=110)
    committed = set(_entries(LOCALE / "papersift.pot"))
    said_now = {(m.context, str(m.id)) for m in catalog_template() if m.id}
    assert committed == said_now, (said_now - committed, committed - said_now)


def test_the_web_translates_by_key_never_by_a_pattern_over_english() -> None:
    tree = ast.parse(inspect.getsource(i18n))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "re" not in imported and "regex" not in imported
    assert not hasattr(i18n, "translate")


def test_the_templates_say_messages_and_category_names_in_the_pages_language(tmp_path: Path) -> None:
    env = make_templates(tmp_path, katex=False).env
    env.loader = DictLoader({"t.html": '{{ note | tr(lang) }} · {{ "Machine Learning" | arxiv_name(lang) }}'})
    page = env.get_template("t.html")
    note = say("no_listings_for", category="cs.XX")
    assert page.render(lang="zh", note=note) == "cs.XX 没有列表 · 机器学习"
    assert page.render(lang="en", note=note) == "no listings for cs.XX · Machine Learning"
    assert "jinja2.ext.InternationalizationExtension" not in env.extensions  # no second way to say a word


def test_one_table_one_placeholder_style_and_the_babel_checks_pass() -> None:
    # every text the faces say is in records/english.ENGLISH, python-format: no {name} placeholder (Typer's
    # own words, msgctxt typer, keep theirs), a literal percent written %%; the CLI's lines and the web's
    # words have no table of their own
    braces = [
        k for k, v in ENGLISH.items() if any(_BRACE.search(t) for t in (v if isinstance(v, tuple) else (v,)))
    ]
    assert not braces, braces
    assert not (LOCALE.parent / "cli" / "lines.py").exists() and not hasattr(i18n, "INTERFACE")
    with catalog_path("zh").open("rb") as f:
        errors = [(m.context, str(e)) for m, errs in read_po(f, locale="zh").check() for e in errs]
    assert errors == [("and_more", "unknown named placeholder 'total'")]  # COUNTED_OTHERWISE, on purpose


def test_a_count_is_said_by_ngettext_with_the_languages_plural_forms() -> None:
    assert not [k for k in ENGLISH if k.endswith("_1") and k[:-2] in ENGLISH]  # no K_1 beside K
    assert isinstance(ENGLISH["years_earlier"], Plural) and isinstance(ENGLISH["times"], Plural)
    one, two = counted("years_earlier", 1), counted("years_earlier", 2)
    assert (one, two) == ("1 year earlier", "2 years earlier")
    assert (said(one, "zh"), said(two, "zh")) == ("早 1 年", "早 2 年")
    assert (
        counted("times", 1) == "once"
        and counted("times", 5) == "5 times"
        and said(counted("times", 5), "zh") == "5 次"
    )
    with catalog_path("zh").open("rb") as f:
        zh = read_po(f, locale="zh")
    assert zh.plural_forms == "nplurals=1; plural=0;"
    plural = zh.get(("%(n)s year earlier", "%(n)s years earlier"), context="years_earlier")
    assert plural is not None and plural.string == ("早 %(n)s 年",)


def test_days_and_lists_are_said_by_babel() -> None:
    day = date(2007, 4, 4)
    assert isinstance(ENGLISH["listing_day"], DatePattern) and isinstance(ENGLISH["series"], ListPattern)
    assert not [k for k in ENGLISH if re.fullmatch(r"(weekday|weekday_short|month_short)_\d+", k)]
    assert (
        dated("listing_day", day) == "Wed, 04 Apr 2007"
        and said(dated("listing_day", day), "zh") == "2007-04-04（周三）"
    )
    assert dated("digest_day", day) == "Wed 04 Apr 2007" and said(dated("weekday", day), "zh") == "周三"
    version = dated("paper_version", datetime(2007, 4, 2, 19, 18), version=1, time="19:18")
    assert (
        version == "v1: Mon, 02 Apr 2007 19:18 UTC"
        and said(version, "zh") == "v1：2007-04-02（周一）19:18 UTC"
    )
    again = pickle.loads(pickle.dumps(version))
    assert isinstance(again, Message) and said(again, "zh") == said(version, "zh")
    names = ["A B", "C D", "E F", "G H", "I J"]
    assert (
        author_line(names) == "A B, C D, E F and 2 more"
        and said(author_line(names), "zh") == "A B、C D、E F 等 5 人"
    )
    venues = [say("language_en"), say("language_zh"), "COLM 2025"]
    assert said_list(venues, "en", series=True) == "English, 中文, COLM 2025"
    assert said_list(venues, "zh", series=True) == "英文、中文、COLM 2025"
    assert said_list(venues, "en", series=True, style="standard") == "English, 中文, and COLM 2025"
    assert said_list(venues, "zh", series=True, style="standard") == "英文、中文和COLM 2025"
    assert said_list(venues[:1], "zh", series=True) == "英文" and said_list([], "en", series=True) == ""


def test_the_shipped_mo_is_the_po_compiled_and_nothing_compiles_at_run_time() -> None:
    # `make catalogs` writes it; the .po edited and not compiled again fails here
    assert compiled_path("zh").read_bytes() == compiled("zh")
    from papersift.records import catalogs

    source = inspect.getsource(catalogs.translations)
    assert "gettext.translation" in source and "compiled(" not in source and "read_po" not in source


def test_every_key_the_cli_and_the_pages_name_is_in_the_table() -> None:
    # a CLI line is named by its key (``say.line("cli_…")``, ``refuse("cli_…")``, or a message's key); a
    # page's word by ``t.KEY``
    cli = Path(i18n.__file__).parent.parent / "cli"
    named = []
    for path in cli.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            f = getattr(node, "func", None)
            if (
                isinstance(node, ast.Call)
                and node.args
                and (
                    (isinstance(f, ast.Attribute) and f.attr == "line" and not isinstance(f.value, ast.Call))
                    or (isinstance(f, ast.Name) and f.id == "refuse")
                )
            ):
                todo = [node.args[0]]
                while todo:
                    e = todo.pop()
                    if isinstance(e, ast.IfExp):
                        todo += [e.body, e.orelse]
                    elif isinstance(e, ast.Constant):
                        named.append((path.name, e.value))
    assert len(named) > 150 and not [(p, k) for p, k in named if k not in ENGLISH]
    words = set()
    for page in (Path(i18n.__file__).parent / "templates").glob("*.html"):
        words |= set(re.findall(r"\bt\.(\w+)", page.read_text()))
    assert len(words) > 150 and not words - set(i18n.interface("en")), words - set(i18n.interface("en"))


def test_a_day_before_year_1000_is_said_not_refused() -> None:
    early = date(523, 7, 9)  # an API caller may ask for any day; strftime writes its year "523"
    assert dated("weekday", early) == "Friday" and said(dated("listing_day", early), "zh").endswith(
        "（周五）"
    )
