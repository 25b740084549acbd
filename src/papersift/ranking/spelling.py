"""Misspellings in a query: which words may be corrected, to what, and the near words the corpus knows.

A word the corpus does not know (in fewer than ``KNOWN_DF`` papers) is corrected to the commonest word
within edit distance 2 (1 below ``LONG_WORD`` letters) of the symmetric-delete speller (``symspellpy``) over
the vocabulary, when that word is common (``COMMON_DF`` papers and ``RATIO``× the misspelling) and starts
with the same letter. Never corrected: a known word (Adam, GRPO), another form of one ("refs"), a word with a
digit, inner capitals or a non-ASCII letter, capitalised names joined by a hyphen (Boros-Moll), an arXiv id,
a quoted phrase, an author's surname or the ``author`` filter. When more than half of the unknown words
have no near common word, the query is gibberish and nothing is corrected.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from papersift.index.vocabulary import Vocabulary
from papersift.ranking.query_form import TOKEN
from papersift.records.analyzer import (
    LETTERS,
    STOP_WORDS,
    fold,
    index_words,
    latin_words,
    letter_words,
    named_compound,
)
from papersift.records.paper import is_arxiv_id

KNOWN_DF = 3  # a word in this many papers is the corpus's own: never corrected
COMMON_DF = 3  # a correction must be in at least this many papers…
RATIO = 10  # …and this many times as many as the word it replaces
LONG_WORD = 8  # letters from which two edits may be corrected (one below: "toggled" is not "tagged")
# what turns a word into another form of it: "refs" and "repulsively" are words, not misspellings
_ENDINGS = frozenset("s es d ed ing ly er ers ness".split())


def corrected(
    vocabulary: Vocabulary, text: str, author: str | None, skip: set[str]
) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with its misspelled words corrected, and the (word, correction) pairs."""
    protected = set(index_words(author or "")) | skip
    found: dict[str, str] = {}
    hopeless = 0
    unknown = 0
    for m in TOKEN.finditer(text):
        token = m.group(3)
        if token is None or token.startswith("-"):
            continue
        # the words that could be corrected first: most tokens have none, and then the tests of an id
        # and of a name (the dearer ones) are not needed
        words = [word for word in letter_words(token) if _checkable(vocabulary, word, protected)]
        if not words or is_arxiv_id(token) or ":" in token:
            continue
        if named_compound(token.strip(".,;()")):  # Boros-Moll, Navier-Stokes: named after people
            continue
        for word in words:
            unknown += 1
            better = _nearest(vocabulary, word)
            if better is None:
                hopeless += 1
            else:
                found[word] = better
    if not found or 2 * hopeless > unknown:  # mostly words with no near common word: gibberish
        return text, []
    parts: list[str] = []
    last = 0
    for m in TOKEN.finditer(text):
        if m.group(3) is None or m.group(3).startswith("-"):
            continue
        token = m.group(3)
        fixed = LETTERS.sub(lambda w: _cased(w.group(0), found.get(w.group(0))), token)
        parts.append(text[last : m.start()] + fixed)
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), list(found.items())


def near_words(vocabulary: Vocabulary, text: str, n: int) -> list[str]:
    """Words within two edits of ``text``'s unknown words, commonest first (``n`` at most)."""
    speller = _speller(vocabulary)
    found: list[str] = []
    for word in latin_words(text):
        if len(word) < 3 or vocabulary.df(word) >= KNOWN_DF:
            continue
        for s in speller.lookup(fold(word), _verbosity().ALL, max_edit_distance=2)[: 3 * n]:
            if s.term != fold(word) and s.term not in found:
                found.append(s.term)
    found.sort(key=lambda term: -vocabulary.df(term))
    return found[:n]


def _cased(word: str, correction: str | None) -> str:
    if correction is None:
        return word
    return correction.capitalize() if word[:1].isupper() else correction


def _checkable(vocabulary: Vocabulary, word: str, protected: set[str]) -> bool:
    """Whether ``word`` may be corrected: a lower-case (or capitalised) word of 3+ letters the corpus does
    not know, not a name."""
    if len(word) < 3 or not word.isascii() or not word.isalpha() or not word[1:].islower():
        return False
    folded = word.lower()  # an ASCII word folds to its lower case
    if folded in STOP_WORDS or folded in protected or folded in vocabulary.authors:
        return False
    return vocabulary.df(folded) < KNOWN_DF


def _nearest(vocabulary: Vocabulary, word: str) -> str | None:
    folded = fold(word)
    distance = 2 if len(folded) >= LONG_WORD else 1
    have = vocabulary.df(folded)
    best: tuple[int, int, str] | None = None
    for s in _speller(vocabulary).lookup(folded, _verbosity().CLOSEST, max_edit_distance=distance):
        if folded.startswith(s.term) and folded[len(s.term) :] in _ENDINGS:
            return None  # another form of a known word
        if s.term == folded or s.count < max(COMMON_DF, RATIO * max(have, 1)):
            continue
        if s.term[0] != folded[0]:  # typists rarely miss the first letter: "flower" is not "lower"
            continue
        key = (s.distance, -s.count, s.term)
        if best is None or key < best:
            best = key
    return best[2] if best else None


@cache
def _verbosity() -> Any:
    from symspellpy import Verbosity

    return Verbosity


def _speller(vocabulary: Vocabulary) -> Any:
    """The symmetric-delete speller over the vocabulary's common words, built on first use and kept with
    the vocabulary object (so once per index generation in a server)."""
    speller = vocabulary.__dict__.get("_speller")
    if speller is None:
        from symspellpy import SymSpell

        speller = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
        for word, n in vocabulary.words.items():
            if n >= COMMON_DF and word.isalpha() and len(word) >= 3:
                speller.create_dictionary_entry(word, n)
        vocabulary.__dict__["_speller"] = speller
    return speller
