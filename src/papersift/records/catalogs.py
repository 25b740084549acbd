"""The gettext catalogs every face reads a language from: which languages there are (``LANGUAGES``), where
their catalogs lie (``papersift/locale/<lang>/LC_MESSAGES/papersift.po``, compiled to ``papersift.mo``
beside it by ``make catalogs``; the template ``papersift.pot``), ``translations(lang)`` (the compiled
catalog, read with Python's gettext; English: the table's texts as they are), ``said(message, lang)`` (a
typed message, ``records/messages.py``, in a language), ``said_list`` (several, joined as a list is in that
language) and ``fit`` (said text padded to a column of a table). The web pages (``web/i18n.py``: Jinja), the
CLI (``cli/language.py``) and the digests and pushes (``library/``) all say the one table
(``records/english.py``) through it.
"""

from __future__ import annotations

import functools
import gettext
from gettext import NullTranslations
from io import BytesIO
from pathlib import Path
from typing import Any

from papersift.records.messages import Message, joined, reason, spoken

LANGUAGES = ("en", "zh")
DOMAIN = "papersift"
LOCALE = Path(__file__).resolve().parent.parent / "locale"  # package data (pyproject)


def catalog_path(lang: str) -> Path:
    """The .po catalog of ``lang``."""
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def compiled_path(lang: str) -> Path:
    """The compiled catalog of ``lang`` (``make catalogs`` writes it from the .po; shipped in the package)."""
    return catalog_path(lang).with_suffix(".mo")


@functools.cache
def translations(lang: str) -> NullTranslations:
    """The catalog of ``lang`` (English: the table's texts as they are), read from its compiled .mo."""
    if lang == "en":
        return NullTranslations()
    return gettext.translation(DOMAIN, LOCALE, languages=[lang])


def compiled(lang: str) -> bytes:
    """The .mo of ``lang`` compiled from its .po with Babel, as ``make catalogs`` writes it (and a test
    checks the shipped one is); nothing compiles a catalog at run time."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with catalog_path(lang).open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    out = BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def compile_catalogs() -> None:
    """``make catalogs``: each language's .mo written from its .po."""
    for lang in LANGUAGES[1:]:
        compiled_path(lang).write_bytes(compiled(lang))


def said(text: Any, lang: str) -> Any:
    """A message (``records/messages.py``) in ``lang``, its arguments that are messages too; an error what
    it was raised saying (``reason``); anything else (paper text, a name) as it is."""
    if isinstance(text, BaseException):
        text = reason(text)
    if not isinstance(text, Message) or lang == "en":
        return text
    args = {name: said(value, lang) for name, value in text.args.items()}
    return spoken(text.key, args, translations(lang), lang)


def fit(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` columns as a terminal shows it (Rich's cell width: a 中文
    character takes two), on the right (``right``: on the left); a longer text as it is. The columns of a
    table said in 中文."""
    from rich.cells import cell_len

    pad = " " * max(0, width - cell_len(text))
    return pad + text if right else text + pad


def said_list(texts: Any, lang: str, *, series: bool = False, style: str = "series") -> str:
    """Several messages, each said in ``lang``, joined as a list is there: clauses by ``; `` (中文 ``；``:
    CLDR has no list of clauses), or with ``series`` by Babel's list patterns in ``style``
    (``records/messages.joined``): a list of values ``A, B, C`` (中文 ``A、B、C``) by default, or a
    ``babel.lists.format_list`` style (``standard``: ``A, B, and C``; 中文 ``A、B和C``)."""
    items = [str(said(t, lang)) for t in texts]
    if series:
        return joined(items, style, lang)
    return ("；" if lang == "zh" else "; ").join(items)
