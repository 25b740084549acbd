"""A day's candidate names: which paper writes which phrase, and how a phrase is written.

A paper's candidates are its phrases (``phrases.phrases``) of up to ``name_words`` words, a
hyphen read as a space unless its compound holds a stop word (``chain-of-thought``), plurals
folded by the analyzer's rule (``singular``), and, as ``arxiv:`` keys, the named categories it
lists. No phrase runs from a title into its abstract.

A phrase is shown as its papers write it: the most common spelling (plural, hyphens), each word
in the case the abstracts write it mid-sentence (``KV cache``, ``LLM agents``, ``3D``,
``Gaussian splatting``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from papersift.index.lexical import Lexical
from papersift.ranking.phrases import phrases
from papersift.ranking.topics.caches import Caches, Written
from papersift.ranking.topics.parameters import PARAMETERS
from papersift.records.analyzer import ascii_letters, fold, phrase_key, unhyphenated
from papersift.records.paper import Paper
from papersift.records.taxonomy import canonical, category_name, category_named

CATEGORY = "arxiv:"
"""A name key of this prefix is an arXiv category's (``arxiv:eess.AS``)."""


@dataclass(frozen=True, slots=True)
class PhraseBook:
    """A set of papers' candidate names: which paper holds which phrase (``name_keys``, one column
    each)."""

    keys: list[str]
    column: dict[str, int]
    holds: sp.csr_matrix
    """Papers × keys: 1 where the paper holds the phrase (or lists the category)."""
    by_key: sp.csc_matrix
    """The same, by column."""
    texts: list[str]
    """Each paper's title and abstract, folded (``fold``: lower case, accents dropped)."""
    abstracts: list[str]
    """Each paper's abstract, accents dropped, its case kept: how a name is cased."""
    titles: list[str]
    """Each paper's title, likewise (an acronym's case where the abstracts lack the phrase)."""
    listing: np.ndarray
    """Which keys are arXiv categories' (``CATEGORY``)."""
    names_a_listing: np.ndarray
    """Which keys are the name of a category over ``day_share`` of the papers list (``machine
    learning`` on a cs.LG day): the field's vocabulary of the day, naming nothing."""
    longer: dict[str, list[int]]
    """Each phrase: the columns of the longer keys opening or ending with it."""
    lexical: Lexical | None
    """The store's lexical arrays: the background names are weighed against."""
    caches: Caches = field(default_factory=Caches)


def name_keys(text: str) -> set[str]:
    """The phrases a topic may be named by in ``text``, plurals folded ("a paper holds the name")."""
    found = phrases(unhyphenated(text), PARAMETERS.name_words)
    return {phrase_key(phrase) for phrase in found}


def name_key(label: str) -> str:
    """A topic's name as ``name_keys`` spells it (``Multi-Agent Systems`` → ``multi agent
    system``)."""
    return phrase_key(unhyphenated(fold(label)))


def phrase_book(lexical: Lexical | None, papers: Sequence[Paper]) -> PhraseBook:
    """The ``PhraseBook`` of ``papers``: their phrases and, as ``CATEGORY`` keys, their named
    categories."""

    def held(paper: Paper) -> set[str]:
        listed = set()
        for listed_as in paper.categories:
            category = canonical(listed_as)
            if category_named(category_name(category) or "") == category:
                listed.add(CATEGORY + category)
        return name_keys(f"{paper.title}. {paper.abstract}") | listed

    try:
        counter = CountVectorizer(analyzer=held, binary=True)
        holds = counter.fit_transform(papers)
        keys: list[str] = counter.get_feature_names_out().tolist()
    except ValueError:  # no phrase at all
        holds, keys = sp.csr_matrix((len(papers), 0)), []
    holds = sp.csr_matrix(holds, dtype=np.float64)
    column = {key: j for j, key in enumerate(keys)}

    listed = Counter(c for p in papers for c in {canonical(c) for c in p.categories})
    wide = {
        name_key(category_name(c) or "") for c, n in listed.items() if n > PARAMETERS.day_share * len(papers)
    }
    names_a_listing = np.array([key in wide for key in keys], bool)

    longer: dict[str, list[int]] = {}
    for j, key in enumerate(keys):
        words = key.split()
        for cut in range(1, len(words) - 1):
            for part in (" ".join(words[:-cut]), " ".join(words[cut:])):
                longer.setdefault(part, []).append(j)

    return PhraseBook(
        keys=keys,
        column=column,
        holds=holds,
        by_key=holds.tocsc(),
        texts=[fold(f"{p.title}. {p.abstract}") for p in papers],
        abstracts=[ascii_letters(p.abstract) for p in papers],
        titles=[ascii_letters(p.title) for p in papers],
        listing=np.array([key.startswith(CATEGORY) for key in keys], bool),
        names_a_listing=names_a_listing,
        longer=longer,
        lexical=lexical,
    )


def holding(book: PhraseBook, key: str) -> np.ndarray:
    """Which papers hold ``key`` (a boolean row)."""
    return np.asarray(book.by_key[:, book.column[key]].toarray().ravel() > 0)


def shown(book: PhraseBook, key: str) -> str:
    """``key`` as the book's papers holding it write it (a category: its name)."""
    if key.startswith(CATEGORY):
        return category_name(key.removeprefix(CATEGORY)) or key
    return written(book, key).form


def written(book: PhraseBook, key: str) -> Written:
    """How the papers holding ``key`` write it (cached in the book)."""
    cached = book.caches.written.get(key)
    if cached is not None:
        return cached
    pattern = r"(?:-|\s+)".join(re.escape(word) + "s?" for word in key.split())  # plurals
    mask = holding(book, key) if key in book.column else np.zeros(len(book.texts), bool)
    texts = "\0".join(compress(book.texts, mask))
    forms = Counter(re.sub(r"\s+", " ", f) for f in re.findall(rf"\b{pattern}\b", texts))
    form = max(forms, key=lambda f: (forms[f], f)) if forms else key
    alone = rf"\b(?<!\w-){pattern}\b(?!-\w)"
    only_in_compounds = bool(forms) and not re.search(alone, texts)
    abstracts = "\0".join(compress(book.abstracts, mask))
    titles = "\0".join(compress(book.titles, mask))
    found = Written(form=_cased(form, abstracts, titles), only_in_compounds=only_in_compounds)
    book.caches.written[key] = found
    return found


def _cased(form: str, abstracts: str, titles: str) -> str:
    """``form`` (lower case) with each word in the case the abstracts write it: an acronym or a
    mixed-case word as written (``LLM``, ``KV``, ``3D``, ``NeRF``), a capitalised word when
    every occurrence inside a sentence is capitalised (``Gaussian``), else lower case. Where the
    abstracts lack the phrase, the titles give an acronym's case only (they capitalise every word)."""
    words = re.split(r"(-|\s+)", form)  # the words and the separators between them, as in ``form``
    pattern = r"(?:-|\s+)".join(re.escape(word) + "s?" for word in words[::2])  # plurals
    in_titles = False
    found = list(re.finditer(rf"\b{pattern}\b", abstracts, re.IGNORECASE))
    if not found:
        in_titles = True
        found = list(re.finditer(rf"\b{pattern}\b", titles, re.IGNORECASE))
    source = titles if in_titles else abstracts
    variants = []
    for match in found:
        parts = re.split(r"(-|\s+)", re.sub(r"\s+", " ", match[0]))
        if len(parts) == len(words):
            variants.append((parts, _opens_sentence(source, match.start())))
    cased = []
    for i, word in enumerate(words):
        if i % 2:  # a separator
            cased.append(word)
            continue
        seen = [parts[i][: len(word)] for parts, _ in variants]  # a plural's "s" left out
        inside = [parts[i] for parts, opens in variants if not (i == 0 and opens)]
        mixed = Counter(w for w in seen if any(c.isupper() for c in w[1:]) or _digit_and_capital(w))
        if mixed:
            cased.append(max(mixed, key=lambda w: (mixed[w], w)))
        elif not in_titles and inside and all(w[:1].isupper() for w in inside):
            cased.append(word[:1].upper() + word[1:])
        else:
            cased.append(word)
    return "".join(cased)


def _digit_and_capital(word: str) -> bool:
    return any(c.isdigit() for c in word) and any(c.isupper() for c in word)


def _opens_sentence(text: str, at: int) -> bool:
    """Whether the text at ``at`` opens a sentence (or the text)."""
    before = text[:at].rstrip()
    return not before or before[-1] in ".!?:\0"
