"""Phrases as written: what a reason ("shared terms: …") or a topic's name may quote of a paper.

A text is cut into runs of words at punctuation, LaTeX and stop words (so no phrase crosses "and" or "we
propose"); URLs, e-mail addresses and code-hosting paths are dropped first (no "xrazymee" from
``github.com/xrazymee/repo``). A phrase is one to ``MAX_WORDS`` consecutive words of one run, lower-cased
and accent-folded, neither starting nor ending with a verb or filler every abstract uses (``propose``,
``based``, ``using``), not made of generic nouns alone (``model``, ``results``, ``large models``), never a
lone number or letter. ``occurs(phrase, text)`` is the check the tests make: the
phrase's words appear one after the other, inside one run of the text.

``shared_phrases`` picks the best few phrases two texts share, by the rarity of their words in the store
(the lexical arrays' document frequencies), longer phrases first among equals, none inside another.
``reason_phrases`` does it for a reason ("shared terms: …"), where a lone word must be a term
(``names_a_term``): by part of speech (lemminflect's English lexicon) and by how much more often the
store's papers write it than English does (wordfreq), not by a word list.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from papersift.index.lexical import Lexical, term_slot
from papersift.records.analyzer import STOP_WORDS, phrase_key, phrase_pieces

MAX_WORDS = 4
# a lone word is a term when the store's papers hold it at least ``TERM_RATIO`` times as often as English
# texts of ``TEXT_WORDS`` words would (wordfreq); one that is also a verb, adjective or adverb must reach
# ``SPECIFIC_RATIO``. Measured on a tenth of the 300k file: stop 0.04, games 0.19, engage 0.42, informed
# 0.74 fall below 1; struggle 3.3 (also a verb), rapid 4.6 (an adjective), images 6.5 below 10; graph 24,
# quantum 32, lattice 58 (also verbs or adjectives) above; attention 2.1 and accuracy 36 are nouns only;
# svd, jailbreak, fine-tuning are in no English lexicon: the field's own words
TEXT_WORDS = 150
TERM_RATIO = 1.0
SPECIFIC_RATIO = 10.0
FILLER = frozenset(  # verbs and fillers of every abstract: never the first or last word of a phrase
    """ability able achieve achieves achieved achieving address addresses addressing apply applied
    available based better called conduct conducted consider consistent demonstrate demonstrates
    discuss effective effectively enable enables enabling evaluate evaluated existing extensive find finds
    first further given improve improved improves including introduce introduced introduces leverage
    leverages leveraging make makes novel obtain offers outperform outperforms overall present presents
    propose proposed proposes provide provides recent recently release released remain remains require
    requires second show shown shows significant significantly simple strong superior three two use
    used uses using via well widely yet""".split()
)
GENERIC = FILLER | frozenset(  # … and nouns of every abstract: fine inside a phrase, never one alone
    """analysis approach approaches benchmark benchmarks case challenge challenges code comprehensive
    current data design designed develop developed different efficient evaluation experiment experimental
    experiments framework frameworks high key large limited low method methods model models new paper
    performance problem problems research result results set state studies study task tasks technique
    techniques type wide work works baseline baselines single multiple multi various several general
    specific standard real world different average adaptive diverse modern manually content dataset
    datasets scale user users studied findings insights observations failure failures output outputs
    input inputs""".split()
)
_HIDDEN = re.compile(
    r"(?:https?://|www\.)\S+|\S+@\S+|\b[\w.-]+\.(?:com|org|io|net|ai|edu)/\S*|\$[^$]*\$|\\[a-zA-Z]+",
    re.IGNORECASE,
)


def pieces(text: str) -> list[str]:
    """The text's words and punctuation marks in order, folded (``fold``); URLs, e-mail addresses,
    code-hosting paths and LaTeX read as a full stop."""
    return phrase_pieces(_HIDDEN.sub(" . ", text))


def runs(text: str) -> list[list[str]]:
    """The text's runs of words (see module): split at punctuation and stop words."""
    out: list[list[str]] = []
    run: list[str] = []
    for piece in pieces(text):
        if not piece[0].isalnum() or piece in STOP_WORDS:
            if run:
                out.append(run)
            run = []
        else:
            run.append(piece)
    if run:
        out.append(run)
    return out


def _fit(words: list[str]) -> bool:
    if words[0] in FILLER or words[-1] in FILLER or all(w in GENERIC for w in words):
        return False
    if len(words) == 1:
        word = words[0]
        return len(word) >= 3 and not word.isdigit() and any(c.isalpha() for c in word)
    return any(len(w) >= 3 and w.isalpha() for w in words)


def phrases(text: str, max_words: int = MAX_WORDS) -> set[str]:
    """Every phrase of ``text`` (see module): the word spans ``_fit`` keeps, its tests made once per word."""
    found: set[str] = set()
    for run in runs(text):
        filler = [w in FILLER for w in run]
        generic = [w in GENERIC for w in run]
        solid = [len(w) >= 3 and w.isalpha() for w in run]
        for i, first in enumerate(run):
            if filler[i]:
                continue
            if len(first) >= 3 and not first.isdigit() and any(c.isalpha() for c in first) and not generic[i]:
                found.add(first)
            all_generic, any_solid = generic[i], solid[i]
            for j in range(i + 1, min(len(run), i + max_words)):
                all_generic = all_generic and generic[j]
                any_solid = any_solid or solid[j]
                if not filler[j] and not all_generic and any_solid:
                    found.add(" ".join(run[i : j + 1]))
    return found


def occurs(phrase: str, text: str) -> bool:
    """Whether ``phrase``'s words follow one another inside one run of ``text``."""
    words = phrase.split()
    n = len(words)
    return any(run[i : i + n] == words for run in runs(text) for i in range(len(run) - n + 1))


def word_rarity(lexical: Lexical | None) -> Callable[[str], float]:
    """A word's idf in the store (from the lexical arrays; 1.0 each without them)."""
    if lexical is None or not len(lexical):
        return lambda word: 1.0
    df, size = lexical.arrays["df"], len(lexical)
    return lambda word: math.log((1 + size) / (1 + float(df[term_slot(word)])))


def best_phrases(candidates: Iterable[str], rarity: Callable[[str], float], n: int) -> list[str]:
    """The ``n`` weightiest phrases (summed rarity of their words), none inside another picked one."""
    scored = sorted(candidates, key=lambda p: (-sum(rarity(w) for w in p.split()), -len(p), p))
    picked: list[str] = []
    for phrase in scored:
        # a phrase and its plural are one reason ("language models", "language model")
        padded = f" {phrase_key(phrase)} "
        if not any(padded in f" {phrase_key(p)} " or f" {phrase_key(p)} " in padded for p in picked):
            picked.append(phrase)
        if len(picked) == n:
            break
    return picked


def shared_phrases(a: str, b: str, rarity: Callable[[str], float], n: int = 3) -> list[str]:
    """The best ``n`` phrases found in both texts as written (see module), fit to be a reason."""
    return reason_phrases(phrases(a) & phrases(b), rarity, n)


def reason_phrases(candidates: Iterable[str], rarity: Callable[[str], float], n: int) -> list[str]:
    """``best_phrases`` of a reason: phrases of several words, and lone words that name a term (never
    "stop", "normalized", "struggle" as what two papers share)."""
    return best_phrases((p for p in candidates if " " in p or names_a_term(p, rarity)), rarity, n)


def names_a_term(word: str, rarity: Callable[[str], float]) -> bool:
    """Whether a lone word is a term of the papers (see ``TERM_RATIO``): unknown to the English lexicon,
    or readable as a noun and written by the store's papers ``TERM_RATIO`` times as often as by English
    texts (``SPECIFIC_RATIO`` times when it is also a verb, adjective or adverb). ``rarity`` is the store's
    idf, log((1 + papers) / (1 + df)): exp(-idf) is the share of papers holding the word."""
    readings = _readings(word)
    if not readings:
        return True
    if "NOUN" not in readings:
        return False
    return _ratio(word, rarity) >= (TERM_RATIO if readings == {"NOUN"} else SPECIFIC_RATIO)


def fields_word(word: str, rarity: Callable[[str], float]) -> bool:
    """Whether the store's papers write ``word`` ``SPECIFIC_RATIO`` times as often as English texts (any
    part of speech: ``generative`` 814, ``computational`` 153; ``original`` 1.5, ``various`` 4.5)."""
    return word not in GENERIC and _ratio(word, rarity) >= SPECIFIC_RATIO


def _ratio(word: str, rarity: Callable[[str], float]) -> float:
    english = 1 - (1 - 10 ** (_zipf(word) - 9)) ** TEXT_WORDS
    return math.exp(-rarity(word)) / max(english, 1e-12)


@cache
def _readings(word: str) -> frozenset[str]:
    """The parts of speech lemminflect's lexicon knows ``word`` as (NOUN, VERB, ADJ…); none if unknown."""
    lemmas: dict[str, Any] = _lemminflect().getAllLemmas(word)
    return frozenset(lemmas)


@cache
def _lemminflect() -> Any:
    import lemminflect

    return lemminflect


def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))
