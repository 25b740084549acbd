"""What a query is written as, before understanding reads it: its tokens (a quoted phrase, an -exclusion,
a word: ``TOKEN``) and its script (Han, kana, Latin or another: ``script_of``)."""

from __future__ import annotations

import re
import unicodedata

from papersift.records.query import QUERY_PARTS

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
KANA = re.compile(r"[\u3040-\u30ff]")
TOKEN = QUERY_PARTS  # a query's parts as understanding rewrites them (``records.query``)


def script_of(text: str) -> str:
    """The first non-Latin script of ``text`` by Unicode name ("CJK", "HANGUL", "CYRILLIC"…; "LATIN")."""
    if text.isascii():  # most queries: no letter of another script to look for
        return "LATIN"
    for ch in HAN.sub(" ", text) if HAN.search(text) and not KANA.search(text) else text:
        if ch.isalpha() and not ch.isascii():
            name = unicodedata.name(ch, "")
            if name and not name.startswith("LATIN"):
                return name.split()[0]
    return "LATIN"


def mostly_other(text: str) -> bool:
    """Whether most of ``text``'s letters are of a script other than Latin (not the β of "β-decay")."""
    letters = [ch for ch in text if ch.isalpha()]
    other = [ch for ch in letters if not ch.isascii() and not unicodedata.name(ch, "").startswith("LATIN")]
    return 2 * len(other) > len(letters)


def reads_pairs(query: str) -> bool:
    """Whether understanding ``query`` reads the lexical arrays' pair counts (a 中文 query's phrases): a
    face that skips opening them for keyword search must open them for such a query, or it would read
    "图神经网络" word by word ("map neural network") where every other path reads "graph neural network"."""
    return bool(HAN.search(query))
