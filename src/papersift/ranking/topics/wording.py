"""Whether a phrase reads as a name: a noun phrase by lemminflect's lexicon, a lone word a term.

* A noun phrase: no superlative or comparative, no count (``58m parameters``), no verb phrase
  (``offering critical contextual signals``); a generic head or its modifier needs a noun or the
  field's word (``phrases.fields_word``: not "original models", "specific layers"); not generic
  words alone, the head's plural folded ("research papers").
* A word the lexicon lacks is the field's own below Zipf ``zipf_common`` (``LLMs``, ``3D``).
* A hyphenated compound shown alone (``multi-agent``) is half a phrase: it names through the
  best phrase holding it."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from papersift.ranking.phrases import GENERIC, fields_word, names_a_term, word_rarity
from papersift.ranking.topics.book import PhraseBook, shown
from papersift.ranking.topics.parameters import PARAMETERS

NOUN = frozenset({"NN", "NNS", "VBG"})
MODIFIER = frozenset({"NN", "JJ", "VBN", "VBG"})
GRADED = frozenset({"JJS", "JJR", "RBS", "RBR"})
VERBAL = frozenset({"VBG", "VBN"})  # "offering", "trained"
COUNT = re.compile(r"\d+(?:[.,]\d+)?(?:[kmbt]|x)?")  # "58m", "7b", "12"


@cache
def tags(word: str) -> frozenset[str]:
    """The Penn tags of every reading lemminflect's lexicon knows ``word`` by (empty if it knows
    none)."""
    from lemminflect import getAllInflections, getAllLemmas

    lemmas = [lemma for found in getAllLemmas(word).values() for lemma in found]
    return frozenset(
        tag for lemma in lemmas for tag, forms in getAllInflections(lemma).items() if word in forms
    )


@cache
def own_word(word: str) -> bool:
    """A word the lexicon lacks that is letters and digits (``3d``) or seldom English (``llms``)."""
    from wordfreq import zipf_frequency

    if not any(c.isalpha() for c in word):
        return False
    return any(c.isdigit() for c in word) or float(zipf_frequency(word, "en")) < PARAMETERS.zipf_common


def rarity(book: PhraseBook) -> Callable[[str], float]:
    """A word's idf in the book's store (cached in the book)."""
    if book.caches.rarity is None:
        book.caches.rarity = word_rarity(book.lexical)
    return book.caches.rarity


def noun_phrase(book: PhraseBook, key: str) -> bool:
    """Whether a phrase of two or more words reads as a noun phrase (see module), as its papers
    write it."""
    form = shown(book, key).lower()
    read = [(word, tags(word)) for word in form.replace("-", " ").split()]
    if len(read) < 2:
        return False
    head, head_tags = read[-1]
    modifiers = read[:-1]
    if head_tags & GRADED:
        return False
    if {word for word, _ in modifiers} | {key.split()[-1]} <= GENERIC:
        return False  # generic words alone
    if not (head_tags & NOUN or (not head_tags and head.isalpha() and own_word(head))):
        return False
    own = [not t and not word.isdigit() and own_word(word) for word, t in modifiers]
    for (_, t), is_own in zip(modifiers, own, strict=True):
        if t & GRADED or not (t & MODIFIER or is_own):
            return False
    if any(COUNT.fullmatch(word) for word, _ in read):
        return False  # a count or measure ("58m parameters")
    first, first_tags = read[0]
    verb = first_tags & VERBAL and "JJ" in read[1][1] and not fields_word(first, rarity(book))
    if verb and "-" not in form.split()[0]:
        return False  # a verb phrase ("offering critical signals")
    if "-" in form or not {read[-1][0], read[-2][0]} & GENERIC:
        return True  # a hyphenated compound ("high-resolution") is the field's own
    # a generic head or head's modifier needs a noun modifier or the field's word ("original models")
    return any(
        is_own or "JJ" not in t or fields_word(word, rarity(book))
        for (word, t), is_own in zip(modifiers, own, strict=True)
    )


def lone_term(book: PhraseBook, word: str) -> bool:
    """Whether a lone word is a term: a noun or the field's own, 4+ letters, not generic,
    ``names_a_term``."""
    cached = book.caches.lone_terms.get(word)
    if cached is not None:
        return cached
    found = tags(word)
    plain = word not in GENERIC and word.isalpha() and len(shown(book, word)) >= 4
    fits = plain and not found & GRADED and (bool(found & NOUN) or (not found and own_word(word)))
    term = fits and names_a_term(word, rarity(book))
    book.caches.lone_terms[word] = term
    return term


def half(book: PhraseBook, key: str) -> bool:
    """Whether a phrase is shown as one hyphenated compound (``multi-agent``): half a phrase."""
    form = shown(book, key)
    return " " not in form and "-" in form
