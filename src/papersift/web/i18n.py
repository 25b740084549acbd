"""The web's words and messages in the reader's language, and how a request picks one (paper text is never
translated). English is the one table (``records/english.py``: the messages, the CLI's lines and the pages'
words, each the msgid of its key) and arXiv's category names (msgctxt ``arXiv category``); the other
languages are gettext catalogs, ``papersift/locale/<lang>/LC_MESSAGES/papersift.po`` compiled to
``papersift.mo`` (the template ``papersift/locale/papersift.pot``), read through ``records/catalogs.py``,
as the CLI and the digests read them. The pages' templates get the table in the page's language as ``t``
(``{{ t.KEY }}``; placeholders by Jinja's ``format`` filter: ``{{ t.KEY | format(n=3) }}``), a message
through the ``tr`` filter and a category's name through ``arxiv_name``. A new word: add it to the table,
write the template again (``cli/help_words.catalog_template()``: this ``template`` with the CLI's help;
``tests/test_messages_catalogs.py`` says how), translate it in each .po and compile (``make catalogs``; the
tests fail until every one is).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from papersift.records.catalogs import DOMAIN, LANGUAGES, said, translations
from papersift.records.english import DatePattern, ListPattern, Plural
from papersift.records.messages import ENGLISH
from papersift.records.taxonomy import categories, groups

if TYPE_CHECKING:  # Babel and Jinja load with the first catalog or page (the CLI's English needs neither)
    from babel.messages.catalog import Catalog
    from jinja2 import Environment

CATEGORY = "arXiv category"  # the msgctxt of arXiv's category names
PATTERN_NOTE = "a CLDR date pattern (babel.dates.format_date), the language's own: EEE a short weekday"
LIST_NOTE = "a style of CLDR's list patterns (babel.lists.format_list), or series: A, B, C"


def pick_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    """``?lang=`` first, then the remembered cookie, then the browser's Accept-Language (its languages in
    the order of their q-values, RFC 9110 §12.5.4; ``q=0`` means not wanted), else English."""
    for choice in (query, cookie):
        if choice in LANGUAGES:
            return choice
    for tag in accepted(accept):
        for lang in LANGUAGES:
            if tag == lang or tag.startswith(f"{lang}-"):
                return lang
    return "en"


def accepted(header: str | None) -> list[str]:
    """The language tags of an Accept-Language header, lowercased, most wanted first (ties in the order
    given), those with ``q=0`` or an unreadable q left out."""
    ranked: list[tuple[float, int, str]] = []
    for n, part in enumerate((header or "").split(",")):
        tag, *params = (piece.strip() for piece in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag and 0.0 < q <= 1.0:
            ranked.append((-q, n, tag.lower()))
    return [tag for _, _, tag in sorted(ranked)]


@functools.cache
def interface(lang: str) -> Mapping[str, str]:
    """The table's texts in ``lang`` by key (read from its catalog when first asked for, then kept): the
    pages' ``t``. A counted text, a day's pattern or a list's style is said as a message (``tr``) instead."""
    found = translations(lang)
    return MappingProxyType(
        {
            key: found.pgettext(key, english)
            for key, english in ENGLISH.items()
            if isinstance(english, str) and not isinstance(english, DatePattern | ListPattern)
        }
    )


def arxiv_name(name: str, lang: str) -> str:
    """The English name of one of arXiv's categories or archives (``records/taxonomy.py``) in ``lang``."""
    return translations(lang).pgettext(CATEGORY, name)


def install(env: Environment) -> None:
    """The filters the pages' templates say catalog text with, in the language of the page rendered: ``tr``
    (a message) and ``arxiv_name`` (a category's name); the interface's words come as ``t``."""
    env.filters["tr"] = said
    env.filters["arxiv_name"] = arxiv_name


def template() -> Catalog:
    """The catalog template: the one table (a ``Plural`` with its msgid_plural; a day's pattern and a list's
    style with a comment for translators), then the category names."""
    from babel.messages.catalog import Catalog

    catalog = Catalog(project=DOMAIN, domain=DOMAIN, fuzzy=False)
    for key, english in ENGLISH.items():
        if isinstance(english, Plural):
            catalog.add((english.one, english.other), context=key)
        elif isinstance(english, DatePattern):
            catalog.add(english, context=key, auto_comments=[PATTERN_NOTE])
        elif isinstance(english, ListPattern):
            catalog.add(english, context=key, auto_comments=[LIST_NOTE])
        else:
            catalog.add(english, context=key)
    for g in groups():
        for a in g.archives:
            catalog.add(a.name, context=CATEGORY)
    for c in categories():
        catalog.add(c.name, context=CATEGORY)
    return catalog
