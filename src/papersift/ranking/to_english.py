"""A query in another script in English: by ``Translate`` (the seam for a configured model) when given and
its answer passes the query's checks (``reading/checks.py``, against the dictionary's reading: ``Offline``),
else, for 中文 and other Han text, offline by the dictionary (``ranking.cedict``) over the segmenter's words;
``English.by`` says which reading it is, ``English.refused`` why a model's answer was set aside.

Among a word's senses the ones the store's papers use most win, and adjacent segments are read as the
phrases the store knows: a Viterbi pass over each segment's senses scores a sense by its document frequency
and a pair of neighbours by the frequency of the two words side by side (the lexical arrays' pair counts),
so "图 神经网络" reads "graph neural network", not "map neural network". Latin words of a mixed query are
kept as they are.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from papersift.index.indexes import Indexes
from papersift.index.lexical import term_slot
from papersift.index.vocabulary import Vocabulary
from papersift.ranking.cedict import Dictionary, dictionary
from papersift.ranking.query_form import HAN
from papersift.records.analyzer import STOP_WORDS, index_words
from papersift.records.messages import Message

Weighed = list[tuple[str, float]]  # a segment's readings, each with its weight, best first


@dataclass(frozen=True)
class HanRun:
    """A run of Han text as the dictionary read it: for each segment it read, its own senses and the senses
    that count only in a phrase with a neighbour (see ``_dictionary_english``)."""

    read: tuple[tuple[Weighed, Weighed], ...]


@dataclass(frozen=True)
class Offline:
    """The dictionary's reading of a query: the share of the query's 中文 characters (function words aside)
    that it read, every sense it weighed for them (what a model's translation is checked against,
    ``reading/checks.py``: one about something else shares few), and the query's parts: its other text as
    written and each Han run as read. Its English (``dictionary_english``) is chosen only when it is used."""

    covered: float = 0.0
    senses: tuple[str, ...] = ()
    parts: tuple[str | HanRun, ...] = ()


@dataclass(frozen=True)
class ModelAnswer:
    """What the model's translator gives for a query: its English when it passed the checks, else None and,
    when it answered something that failed them, why it was set aside (a message to show)."""

    text: str | None
    refused: Message | None = None


@dataclass(frozen=True)
class English:
    """A query read in English: the text (None: nothing read), whether it is the dictionary's loose
    word-by-word reading, which reading it is and why a model's answer was set aside."""

    text: str | None
    loose: bool
    by: Literal["model", "dictionary"]
    refused: Message | None = None


# the seam for a configured model (``reading/query_translation.py``): the query and the dictionary's
# reading of it in, the model's checked answer out
Translate = Callable[[str, Offline], ModelAnswer]

OPTIONS = 8  # readings of a 中文 segment the path over the query weighs
SYNONYM_WORDS = 12  # words sharing a sense whose other senses a segment may read as…
SYNONYM_SENSES = 3  # …when they have at most this many senses
PHRASE_DF = 5  # a phrase of a synonym with a neighbour: in this many papers at least, and in one in…
PHRASE_SHARE = 2000  # …this many
MAX_PAIR_SHARE = 0.1  # a pair without postings in more than this share of the papers (lexical's MAX_DF)
PAIRS_KEPT = 100_000  # pair counts kept with the lexical arrays object between queries
# suffixes that turn a word into another part of speech (-ize, -ity): read as a form of the word before
_ZH_SUFFIX = frozenset("化 性".split())
# Chinese function words: particles, conjunctions and prepositions a query carries no topic in
_ZH_FUNCTION = frozenset(
    "的 了 和 与 及 以及 或 或者 在 中 之 对 对于 关于 用 用于 是 把 被 等 进行 基于 通过".split()
    + "一种 一个 个 种 我 们 如何 什么 哪些 吗 呢 面向 利用 带 以 为 从 由 将 之间".split()
)


def to_english(indexes: Indexes, vocabulary: Vocabulary, query: str, translate: Translate | None) -> English:
    """``query`` in English: by ``translate`` (a model) when given and its answer passed the checks, else by
    the dictionary (a loose, word-by-word translation); the Latin words of a mixed query stay where they
    are."""
    offline = offline_reading(indexes, vocabulary, query)
    refused = None
    if translate is not None:
        answer = translate(query, offline)
        if answer.text:
            return English(answer.text, False, "model")
        refused = answer.refused
    return English(dictionary_english(indexes, vocabulary, offline), True, "dictionary", refused)


def offline_reading(indexes: Indexes, vocabulary: Vocabulary, query: str) -> Offline:
    """The dictionary's reading of ``query``: each run of Han text read (``_dictionary_senses``), the rest
    kept as it is."""
    parts: list[str | HanRun] = []
    senses: list[str] = []
    read = total = 0
    last = 0
    for m in HAN.finditer(query):
        parts.append(query[last : m.start()])
        run, covered, size, weighed = _dictionary_senses(indexes, vocabulary, m.group(0))
        parts.append(run)
        read, total, senses = read + covered, total + size, senses + weighed
        last = m.end()
    parts.append(query[last:])
    return Offline(read / total if total else 0.0, tuple(dict.fromkeys(senses)), tuple(parts))


def dictionary_english(indexes: Indexes, vocabulary: Vocabulary, offline: Offline) -> str | None:
    """The dictionary's English of a query read offline (None: nothing read): each Han run by its best
    reading (``_dictionary_english``), the rest as written."""
    pieces: list[str] = []
    for part in offline.parts:
        if isinstance(part, str):
            pieces.append(part)
        else:
            english = _dictionary_english(indexes, vocabulary, part)
            pieces.append(f" {english} " if english else " ")
    return " ".join("".join(pieces).split()) or None


def _segments(text: str, zh: Dictionary) -> list[str]:
    """The segmenter's words, each split further by longest dictionary match where the dictionary lacks it,
    and neighbours joined where the dictionary has the join (目标 检测 → 目标检测)."""
    words = [w for w in zh.segment(text) if w.strip()]
    pieces: list[str] = []
    for word in words:
        if zh.has(word) or word in _ZH_FUNCTION:
            pieces.append(word)
            continue
        at = 0
        while at < len(word):
            for size in range(min(zh.longest, len(word) - at), 0, -1):
                if zh.has(word[at : at + size]) or size == 1:
                    pieces.append(word[at : at + size])
                    at += size
                    break
    joined: list[str] = []
    i = 0
    while i < len(pieces):
        for span in (3, 2, 1):
            together = "".join(pieces[i : i + span])
            whole = i + span <= len(pieces) and not _ZH_FUNCTION.intersection(pieces[i : i + span])
            if span == 1 or (whole and zh.has(together)):
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


def _dictionary_senses(
    indexes: Indexes, vocabulary: Vocabulary, text: str
) -> tuple[HanRun, int, int, list[str]]:
    """A run of Han text as the dictionary reads it, the characters of it the dictionary read, all its
    characters (function words aside) and every sense weighed."""
    zh = dictionary(indexes.settings.model_cache)
    segments = _segments(text, zh)
    both = [(segment, _senses(indexes, vocabulary, zh, segment)) for segment in segments]
    covered = sum(len(segment) for segment, (own, _) in both if own)
    size = sum(len(segment) for segment in segments)
    read = tuple((own, near) for _, (own, near) in both if own)
    weighed = [sense for own, near in read for sense, _ in own + near]
    return HanRun(read), covered, size, weighed


def _dictionary_english(indexes: Indexes, vocabulary: Vocabulary, run: HanRun) -> str | None:
    """A run of Han text in English: the best path through its segments' readings."""
    read = run.read
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
    indexes: Indexes, vocabulary: Vocabulary, zh: Dictionary, segment: str
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """A segment's readings, best first, each weighed by how much the store's papers use it (a phrase as
    much as they write it whole): its own senses, those its compounds imply (神经 "neural" from
    神经网络) and the forms the papers write of each ("diffuse" → "diffusion"); and apart, the readings
    that count only in a phrase (see ``_dictionary_translation``): the one-word senses of the words
    sharing one of its senses, and a suffixed word's stem's senses (确定性 → 确定 "certain")."""
    stem = segment[:-1] if segment[-1] in _ZH_SUFFIX and len(segment) > 1 else segment
    own = segment if zh.has(segment) else stem
    direct = zh.senses(own)
    implied = [s for s in zh.implied(own) if s not in direct]
    near = _synonyms(zh, direct)
    if own != stem:
        near = [*zh.senses(stem), *near]
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


def _synonyms(zh: Dictionary, senses: list[str]) -> list[str]:
    """The one-word senses of the dictionary's other words that share a one-word sense of ``senses``."""
    out: list[str] = []
    for sense in senses:
        if " " in sense:
            continue
        for word in zh.words_with(sense)[:SYNONYM_WORDS]:
            theirs = zh.senses(word)
            if len(theirs) > SYNONYM_SENSES:  # a word of many senses is no synonym
                continue
            out += [s for s in theirs if " " not in s and s not in out and s not in senses]
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
    words = [w for w in index_words(sense) if w not in STOP_WORDS] or index_words(sense)
    if not words:
        return 0.0
    least = min(vocabulary.df(w) for w in words)
    if indexes is not None and indexes.lexical is not None and len(words) > 1:
        least = min(least, *(pair_df(indexes, a, b) for a, b in itertools.pairwise(words)))
    return math.log1p(least)


def _df(vocabulary: Vocabulary, indexes: Indexes, term: str) -> int:
    """Papers having a word, or a pair of words side by side (``pair_df``)."""
    if " " not in term:
        return vocabulary.df(term)
    a, b = term.split()[:2]
    return pair_df(indexes, a, b)


def pair_df(indexes: Indexes, a: str, b: str) -> int:
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
    return math.log1p(pair_df(indexes, left.split()[-1], right.split()[0]))


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
