"""The fixed words of the digests and pushes (the e-mail, Markdown, Atom, a push) in the reader's language:
which language a reader's digests speak (``digest_lang``: 中文 for a reader who follows with ``--lang zh``,
else ``settings.lang``), the day as they name it, a TL;DR's line, the reasons joined, the line under a paper
by followed authors, and the texts they show (``shown_texts``: a 中文 reader's stored 中文 TL;DRs over the
English ones). Every word is a message (``records/messages.py``) said from the catalogs
(``records/catalogs.py``); English is the text the digests always wrote, and paper text stays as the paper
writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from papersift.ranking.followed import FollowedPaper
from papersift.reading.shown import Texts, TldrShape
from papersift.records.catalogs import said, said_list
from papersift.records.messages import Arg, Message, dated, say, venue_badge
from papersift.settings import Settings
from papersift.sources.citetext import author_line
from papersift.store import Store
from papersift.store.records import Account


def digest_lang(store: Store, settings: Settings, reader: Account) -> str:
    """The language of ``reader``'s digests and pushes: 中文 when they read it (``follow --lang zh``), else
    the configured one (``PAPERSIFT_LANG``)."""
    return "zh" if "zh" in store.interests(reader.id).languages else settings.lang


def day_name(day: date) -> Message:
    """``Fri 21 Aug 2026`` (in 中文 ``2026-08-21（周五）``)."""
    return dated("digest_day", day)


def shown_texts(english: Texts, chinese: Texts | None) -> Texts:
    """The texts a 中文 reader's digest shows: each paper's 中文 TL;DR where one is stored, else its English
    one (titles and abstracts as the papers write them)."""
    if chinese is None:
        return english
    theirs = {k: r for k, r in chinese.chosen.items() if k[1] == "tldr" and r.text}
    return replace(english, chosen={**english.chosen, **theirs})  # the rest (links, venues) as they are


@dataclass(frozen=True, slots=True)
class Words:
    """How a digest or push says its words in ``lang``: ``words(key, **args)`` a message, ``words.said(m)``
    one already made (a reason, a note)."""

    lang: str = "en"

    def __call__(self, key: str, **args: Arg) -> str:
        return self.said(say(key, **args))

    def said(self, text: Any) -> str:
        return str(said(text, self.lang))

    def why(self, reasons: Iterable[Any]) -> str:
        """The reasons a paper was picked, each said, joined (a 中文 list by ``；``)."""
        return said_list(reasons, self.lang)

    def tldr(self, tldr: TldrShape, clean: Callable[[str], str] = str) -> str:
        """``TL;DR (key sentence): …`` (``clean``: the text as the face shows it), or why it is missing."""
        if not tldr.text:
            error = tldr.error if tldr.error is not None else "None"
            return self("digest_tldr_unavailable", error=error)
        by = say("digest_key_sentence") if tldr.by == "extractive" else str(tldr.by)
        return self("tldr_line_by", by=by, text=clean(tldr.text))

    def followed(self, found: FollowedPaper) -> str:
        """A followed author's paper under its title: its authors, its day, and which followed authors it
        names (``A, B and 3 more · 2026-05-18 · followed authors: B``)."""
        p = found.paper
        day = p.announced or p.published
        authors = self("followed_authors", authors=said_list(found.authors, self.lang, series=True))
        return " · ".join(x for x in (self.said(author_line(p.authors)), str(day or ""), authors) if x)

    def venues(self, texts: Texts | None, paper_id: str) -> str:
        """The paper's venues as its badges say them (``COLM 2025 · Poster``, several as a series); "" for a
        paper in none."""
        marks = (texts or Texts()).venues.get(paper_id, ())
        return said_list((venue_badge(m.venue, m.year, m.status) for m in marks), self.lang, series=True)
