"""Typed messages and their catalogs: a Message is the English sentence the JSON and the CLI always said,
the 中文 catalog translates every msgid the code says (the interface's words, every message, arXiv's
category names) with the same placeholders, the committed template lists exactly those msgids, and the
web's i18n holds no pattern over English sentences: a message is looked up by its key."""

from __future__ import annotations

import ast
import inspect
import pickle
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from jinja2 import DictLoader

from papersift.cli.help_words import catalog_template
from papersift.llm.errors import ModelError
from papersift.ranking.evidence import cocited_reason, library_reasons
from papersift.ranking.pool import how_much_earlier
from papersift.reader.shapes import Understood
from papersift.records.catalogs import LOCALE, catalog_path, said
from papersift.records.english import COUNTED_OTHERWISE
from papersift.records.messages import ENGLISH, Message, reason, restored, say, stored
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


def test_an_error_raised_with_a_message_is_its_english_and_kept_as_the_message_in_a_text_column() -> None:
    three = say("model_answered_times_saying", status=429, times=say("times_3"), message='say "x" )]')
    error = ModelError(three)
    assert str(error) == 'the endpoint answered 429 three times: say "x" )]' and reason(error) is three
    assert said(error, "zh") == '端点返回 429（共 3 次）：say "x" )]'  # an error is said as its message
    kept = stored(three)
    assert kept.startswith(f"{three} [say model_answered_times_saying(") and kept.endswith(")]")
    again = restored(kept)
    assert isinstance(again, Message) and again == three and said(again, "zh") == said(three, "zh")
    slow = say("model_unreachable", where="h:1", kind="ConnectError", times=say("times", n=4))
    assert said(restored(stored(slow)), "zh") == "无法连接 h:1（ConnectError，共 4 次）"
    for text in (  # what is not a stored message is read as it is: older failures, a failed check
        "the endpoint answered 429 three times",
        "the TL;DR repeats the title [check copies_title()]",
        'timed out after 30 s [say no_such_key(seconds="30")]',
    ):
        assert restored(text) == text and not isinstance(restored(text), Message)


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
    zh = _entries(catalog_path("zh"))
    missing, wrong = [], []
    for m in catalog_template():
        if not m.id:
            continue
        english, chinese = str(m.id), zh.get((m.context, str(m.id)), "")
        if not chinese:
            missing.append((m.context, english))
        otherwise = COUNTED_OTHERWISE.get(str(m.context), frozenset())
        for marks in (_PERCENT, _BRACE):
            if (set(marks.findall(english)) ^ set(marks.findall(chinese))) - otherwise:
                wrong.append((m.context, english, chinese))
    assert not missing and not wrong, (missing, wrong)
    assert {key for key in ENGLISH} <= {ctx for ctx, _ in zh}  # every message key is a context in the catalog
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
