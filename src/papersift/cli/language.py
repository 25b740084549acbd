"""The CLI's text output in the reader's language (``settings.lang``: ``PAPERSIFT_LANG``, else the locale):
what papersift says (a reason, a note, an error: ``records/messages.py``) and the lines around it, from the
same catalogs as the web pages (``records/catalogs.py``; the lines: ``cli/lines.py``'s ``LINES``). English
is the text as the code writes it, and no catalog is read for it; JSON output is never translated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Speech:
    """How the CLI says things in ``lang``: ``speech(message)`` a message, ``speech.line(key, **values)``
    one of the CLI's lines (``LINES["cli_…"]``) with its values (messages said in ``lang`` too)."""

    lang: str = "en"

    def __call__(self, text: Any) -> str:
        if self.lang == "en":
            return str(text)
        from papersift.records.catalogs import said

        return str(said(text, self.lang))

    def joined(self, texts: Any, *, series: bool = False) -> str:
        """Several messages, each said in ``lang``, joined as a list (``records/catalogs.said_list``; with
        ``series``: the items of a series, ``a, b`` / ``a、b``)."""
        from papersift.records.catalogs import said_list

        return said_list(texts, self.lang, series=series)

    def line(self, key: str, **values: Any) -> str:
        from papersift.cli.lines import LINES
        from papersift.records.catalogs import translations

        context = f"cli_{key}"  # English: the msgid as it is (no catalog is read)
        words = translations(self.lang).pgettext(context, LINES[context])
        return words.format(**{k: self(v) for k, v in values.items()})


ENGLISH = Speech("en")
