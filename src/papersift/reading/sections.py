"""Which sections of a paper's full text a prompt carries: those that fit the model's context
(``settings.reading_context_chars``, shared by the papers of one prompt), chosen for what is asked.

Each section (``sources/fulltext.Section``; text before the first heading is left out: the abstract is in
the prompt already) is scored against one or more queries: the reader's question for Ask, the five FAQ
questions for the FAQ, the title and abstract for a TL;DR. With an encoder (``Encode``: the MiniLM model
papersift already loads for its vectors, ``encoder_of``) the score is the cosine of the query's vector and
the section's (its heading and first words, the model's window), embedded at question time; without one, a
BM25 score of the query's words over the paper's own sections (the heading's words count three times).
Several queries take turns: each picks its best section not yet taken, so a FAQ gets its problem, its
method and its experiments rather than three method sections. A section longer than its share is cut at a
word; the chosen sections go to the prompt in the paper's order, numbered as the paper numbers them (``3``,
``3.2``: by their depth), so an answer can mark a claim ``[1 §3]``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from papersift.index.indexes import Indexes
from papersift.records.analyzer import STOP_WORDS, plain_words
from papersift.sources.fulltext import FullText

Encode = Callable[[list[str]], np.ndarray]

PIECES = 4  # a section's share of the budget is at most 1 / max(queries, PIECES)
MIN_PIECE = 400  # characters: a section is not cut shorter than this (the rest of the budget is left)
HEADING_WEIGHT = 3  # a query word in a section's heading counts this many times
ENCODE_CHARS = 1000  # characters of a section the encoder sees (MiniLM's window is 256 tokens)
TLDR_SHARE = 4  # a TL;DR carries a quarter of the budget: it is one sentence, made for every paper
FAQ_QUERIES = (
    "problem motivation introduction challenge",
    "related work prior approaches background",
    "method approach model architecture algorithm",
    "experiments results evaluation datasets benchmarks baselines",
    "limitations future work conclusion discussion",
)


@dataclass(frozen=True, slots=True)
class Passage:
    """A section as a prompt carries it: its number as the paper numbers it (``"3"``, ``"3.2"``), its
    heading, its text (``cut``: shortened to fit)."""

    number: str
    heading: str
    text: str
    cut: bool = False

    def json(self) -> dict[str, object]:
        return {"section": self.number, "heading": self.heading, "cut": self.cut}


def numbered(full: FullText) -> list[Passage]:
    """The paper's sections with text, numbered by depth (``3``, ``3.1``, ``3.1.2``); text before the first
    heading (level 0) left out."""
    counters = [0, 0, 0]
    out: list[Passage] = []
    for s in full.sections:
        if s.level <= 0:
            continue
        depth = min(s.level, 3) - 1
        counters[depth] += 1
        for deeper in range(depth + 1, 3):
            counters[deeper] = 0
        if not s.text.strip():
            continue
        number = ".".join(str(max(c, 1)) for c in counters[: depth + 1])
        out.append(Passage(number, " ".join(s.heading.split()), s.text.strip()))
    return out


def _words(text: str) -> list[str]:
    return [w for w in plain_words(text) if len(w) >= 3 and w not in STOP_WORDS]


def lexical_scores(passages: Sequence[Passage], query: str) -> np.ndarray:
    """BM25 (k1 1.2, b 0.75) of ``query``'s words in each passage, the paper's passages as the collection;
    heading words count ``HEADING_WEIGHT`` times."""
    docs = [Counter(_words(p.text) + _words(p.heading) * HEADING_WEIGHT) for p in passages]
    if not docs:
        return np.zeros(0, np.float32)
    lengths = np.array([sum(d.values()) for d in docs], np.float64)
    mean = max(float(lengths.mean()), 1.0)
    scores = np.zeros(len(docs), np.float64)
    for word in set(_words(query)):
        df = sum(1 for d in docs if word in d)
        if not df:
            continue
        idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        tf = np.array([d.get(word, 0) for d in docs], np.float64)
        scores += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * lengths / mean))
    return scores.astype(np.float32)


def dense_scores(passages: Sequence[Passage], queries: Sequence[str], encode: Encode) -> np.ndarray:
    """The cosine of each query's vector with each passage's (heading and first ``ENCODE_CHARS``
    characters): one row a query."""
    texts = [f"{p.heading}. {p.text[:ENCODE_CHARS]}" for p in passages]
    vectors = np.asarray(encode(list(queries) + texts), np.float32)
    return vectors[: len(queries)] @ vectors[len(queries) :].T


def choose(
    full: FullText | None, queries: Sequence[str], budget: int, encode: Encode | None = None
) -> tuple[Passage, ...]:
    """The sections of ``full`` that fit ``budget`` characters, chosen for ``queries`` (taking turns), in
    the paper's order; none without a full text, a budget or a query."""
    if full is None or budget < MIN_PIECE or not queries:
        return ()
    passages = numbered(full)
    if not passages:
        return ()
    if encode is not None:
        scores = dense_scores(passages, queries, encode)
    else:
        scores = np.stack([lexical_scores(passages, q) for q in queries])
    share = max(budget // max(len(queries), PIECES), MIN_PIECE)
    orders = [list(np.argsort(-row, kind="stable")) for row in scores]
    taken: dict[int, Passage] = {}
    left = budget
    while left >= MIN_PIECE and len(taken) < len(passages):
        progressed = False
        for order in orders:
            i = next((int(j) for j in order if int(j) not in taken), None)
            if i is None or left < MIN_PIECE:
                continue
            taken[i] = _fit(passages[i], min(share, left))
            left -= len(taken[i].text)
            progressed = True
        if not progressed:
            break
    return tuple(taken[i] for i in sorted(taken))


def _fit(passage: Passage, limit: int) -> Passage:
    if len(passage.text) <= limit:
        return passage
    cut = passage.text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return Passage(passage.number, passage.heading, cut.rstrip() + "…", cut=True)


def encoder_of(indexes: Indexes | None) -> Encode | None:
    """The encoder the indexes use when it is loaded already (a search or a related query loaded it), else
    None: the lexical score is used. Never loaded for this alone: on this project's loaded 2-core machine
    embedding one paper's sections took 1.5 s (9 sections) to 12 s (44), the lexical choice 10-250 ms."""
    if indexes is None or indexes.dense is None or indexes._encoder is None:
        return None
    return indexes._encoder.encode
