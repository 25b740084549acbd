"""The CLI's text output in the reader's language (``settings.lang``: ``PAPERSIFT_LANG``, else the locale):
what papersift says (a reason, a note, an error: ``records/messages.py``) and the lines around it (the
``cli_…`` entries of the one table, ``records/english.py``), from the same catalogs as the web pages
(``records/catalogs.py``). English is the table's text, and no catalog is read for it; JSON output is never
translated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Speech:
    """How the CLI says things in ``lang``: ``speech(message)`` a message, ``speech.line(key, **values)``
    the table's text ``key`` (a CLI line ``cli_…``, or any message) with its values (messages said in
    ``lang`` too)."""

    lang: str = "en"

    def __call__(self, text: Any) -> str:
        if self.lang == "en":
            return str(text)
        from papersift.records.catalogs import said

        return str(said(text, self.lang))

    def joined(self, texts: Any, *, series: bool = False) -> str:
        """Several messages, each said in ``lang``, joined as a list (``records/catalogs.said_list``; with
        ``series``: as Babel joins a list, ``a, b, and c`` / ``a、b和c``)."""
        from papersift.records.catalogs import said_list

        return said_list(texts, self.lang, series=series)

    def line(self, key: str, **values: Any) -> str:
        from papersift.records.messages import Message

        return self(Message(key, **values))


ENGLISH = Speech("en")
