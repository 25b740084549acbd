"""The language of a page: ``?lang=``, then the remembered cookie, then the browser's Accept-Language read
with its q-values (a language the browser ranks lower, or refuses with ``q=0``, does not win by coming
first), else English."""

from __future__ import annotations

from papersift.web.i18n import accepted, pick_language


def test_the_query_and_the_cookie_come_before_the_browser() -> None:
    assert pick_language("zh", "en", "en-US") == "zh"
    assert pick_language(None, "zh", "en-US") == "zh"
    assert pick_language("fr", None, "zh-CN") == "zh"  # a language papersift lacks is no choice


def test_accept_language_is_read_by_its_q_values_not_its_order() -> None:
    assert pick_language(None, None, "en;q=0.3, zh-CN;q=0.9") == "zh"
    assert pick_language(None, None, "zh-TW;q=0.2, en-GB") == "en"
    assert pick_language(None, None, "zh-CN, zh;q=0.9, en;q=0.8") == "zh"
    assert pick_language(None, None, "fr-FR, de;q=0.9, zh;q=0.5, en;q=0.4") == "zh"


def test_a_refused_or_unreadable_language_is_not_taken() -> None:
    assert pick_language(None, None, "zh;q=0, en;q=0.1") == "en"
    assert pick_language(None, None, "zh;q=abc") == "en"
    assert pick_language(None, None, "zhx, english") == "en"  # prefixes of other tags are not languages
    assert pick_language(None, None, "zhx-CN;q=1, zh;q=0.5") == "zh"
    assert pick_language(None, None, None) == "en" and pick_language(None, None, "") == "en"


def test_accepted_keeps_the_browsers_order_between_equal_q_values() -> None:
    assert accepted("de, en;q=0.8, zh;q=0.8, fr;q=0") == ["de", "en", "zh"]
    assert accepted(" ZH-cn ;q=0.7 , en ") == ["en", "zh-cn"]
