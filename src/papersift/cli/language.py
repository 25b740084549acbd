"""The CLI's text output in the reader's language (``settings.lang``: ``PAPERSIFT_LANG``, else the locale):
what papersift says (a reason, a note, an error: ``records/messages.py``) and the lines around it, from the
same catalogs as the web pages (``records/catalogs.py``; the lines: ``web/i18n.py``'s ``INTERFACE``). English
is the text as the code writes it, and no catalog is read for it; JSON output is never translated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Speech:
    """How the CLI says things in ``lang``: ``speech(message)`` a message, ``speech.line(key, **values)``
    one of the interface's lines (``INTERFACE["cli_…"]``) with its values (messages said in ``lang`` too)."""

    lang: str = "en"

    def __call__(self, text: Any) -> str:
        if self.lang == "en":
            return str(text)
        from papersift.records.catalogs import said

        return str(said(text, self.lang))

    def joined(self, texts: Any) -> str:
        """Several messages, each said in ``lang``, joined as a list (``records/catalogs.said_list``)."""
        from papersift.records.catalogs import said_list

        return said_list(texts, self.lang)

    def line(self, key: str, **values: Any) -> str:
        from papersift.web.i18n import INTERFACE, interface

        words = INTERFACE if self.lang == "en" else interface(self.lang)
        return words[f"cli_{key}"].format(**{k: self(v) for k, v in values.items()})


ENGLISH = Speech("en")
