"""The gettext catalogs every face reads a language from: which languages there are (``LANGUAGES``), where
their catalogs lie (``papersift/locale/<lang>/LC_MESSAGES/papersift.po``, the template
``papersift.pot`` beside them), ``translations(lang)`` (a catalog compiled in memory with Babel when first
used; English: the msgids as they are), ``said(message, lang)`` (a typed message, ``records/messages.py``,
in a language), ``said_list`` (several, joined as a list is in that language) and ``fit`` (said text
padded to a column of a table). The web pages
(``web/i18n.py``: the interface's words, Jinja), the CLI (``cli/language.py``) and the digests and pushes
(``reader/``) all say messages through it. Babel loads with the first catalog read, never for English.
"""

from __future__ import annotations

import functools
from gettext import NullTranslations
from io import BytesIO
from pathlib import Path
from typing import Any

from papersift.records.messages import ENGLISH, Message, reason

LANGUAGES = ("en", "zh")
DOMAIN = "papersift"
LOCALE = Path(__file__).resolve().parent.parent / "locale"  # package data (pyproject)


def catalog_path(lang: str) -> Path:
    """The .po catalog of ``lang``."""
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(lang: str) -> NullTranslations:
    """The catalog of ``lang`` (English: the msgids as they are), compiled in memory from its .po."""
    if lang == "en":
        return NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    with catalog_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    compiled = BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def said(text: Any, lang: str) -> Any:
    """A message (``records/messages.py``) in ``lang``, its arguments that are messages too; an error what
    it was raised saying (``reason``); anything else (paper text, a name) as it is."""
    if isinstance(text, BaseException):
        text = reason(text)
    if not isinstance(text, Message) or lang == "en":
        return text
    args = {name: said(value, lang) for name, value in text.args.items()}
    return translations(lang).pgettext(text.key, ENGLISH[text.key]) % args


def fit(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` columns as a terminal shows it (Rich's cell width: a 中文
    character takes two), on the right (``right``: on the left); a longer text as it is. The columns of a
    table said in 中文."""
    from rich.cells import cell_len

    pad = " " * max(0, width - cell_len(text))
    return pad + text if right else text + pad


def said_list(texts: Any, lang: str, *, series: bool = False) -> str:
    """Several messages, each said in ``lang``, joined as a list is there: clauses by ``; `` (中文 ``；``),
    or with ``series`` the items of a series by ``, `` (中文 ``、``)."""
    joint = ("、" if series else "；") if lang == "zh" else (", " if series else "; ")
    return joint.join(str(said(t, lang)) for t in texts)
