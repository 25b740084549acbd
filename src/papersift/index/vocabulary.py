"""The store's own vocabulary, kept beside the lexical arrays in each index generation: what query
understanding (``ranking.understand``) reads.

Three facts about the stored papers' titles and abstracts, each a JSON file in ``vocabulary/``:

- ``words.json``: every word (accent-folded, lower-cased, as the lexical arrays tokenise) in at least
  ``MIN_DF`` papers and how many papers have it: the speller's dictionary, weighed by frequency, and the
  test of whether the corpus knows a word;
- ``acronyms.json``: short forms and the long forms they stand for, learned the Schwartz–Hearst way (a
  parenthesised short form right after its long form, "graph neural networks (GNNs)"), with how many papers
  define each pair;
- ``authors.json``: the surnames of the stored authors (a query word that is one is never corrected).

Built when the lexical arrays are (``build_vocabulary``); a delta (the papers added since) is counted on top
of the previous generation's vocabulary (``extend_vocabulary``), so it is updated with the lexical index.
Each file is written to a temporary name and renamed into place.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from papersift.records.analyzer import fold, index_words, name_words, singular, singular_acronym
from papersift.store import Store

MIN_DF = 2  # a word in one paper only is a typo as often as not (the lexical arrays give it no weight)
_VERSION = 3  # 3: long forms' last word by ``records.analyzer.singular`` ("analysis" kept whole)
_PAREN = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9\-]{1,9})\s*\)")
_CLAUSE_END = re.compile(r"[.;:!?()\[\]]")


def long_key(long_form: str) -> str:
    """A long form as it is looked up: its index words (``index_words``), the last one ``singular``."""
    words = index_words(long_form)
    if words:
        words[-1] = singular(words[-1])
    return " ".join(words)


def _match_start(short: str, long: str) -> int | None:
    """Schwartz & Hearst (2003): where in ``long`` the long form of ``short`` starts (None: no match).

    Every letter and digit of the short form, right to left, must be found in the long form, right to
    left, and its first one must start a word of it.

    Hand-written on purpose, measured against the kept implementation on PyPI (``abbreviations`` 0.2.5,
    Schwartz–Hearst, MIT) over the first 4,000 papers of ``arxiv-20k``, both behind the filters of
    ``acronym_pairs``: it finds 843 of these 887 pairs and 14 others, so it would lose 44 good ones
    ("point spread function", "discrete cosine transform", "belief propagation") for wrong ones ("TMS$^+$" →
    "tms do not exhibit prominent molecular ion"), and it runs 25× slower (0.74 s against 0.03 s).
    """
    s, i = len(short) - 1, len(long) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (long[i].lower() != c or (s == 0 and i > 0 and long[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return None
        i -= 1
        s -= 1
    return i + 1


def acronym_pairs(text: str) -> list[tuple[str, str]]:
    """The (short form, long form) pairs ``text`` defines, e.g. ``("GNN", "graph neural networks")``."""
    pairs: list[tuple[str, str]] = []
    for m in _PAREN.finditer(text):
        short = m.group(1)
        capitals = sum(c.isupper() for c in singular_acronym(short))
        if capitals < 2 or short[0].isdigit():  # "GNN", "IoT", never "(In)" or "(Fig"
            continue
        before = text[: m.start()]
        cut = [e.end() for e in _CLAUSE_END.finditer(before)]
        clause = before[cut[-1] :] if cut else before
        words = clause.split()
        n = len(singular_acronym(short))
        window = " ".join(words[-min(n + 5, 2 * n) :])
        start = _match_start(singular_acronym(short), window)
        if start is None:
            continue
        long_form = window[start:].strip(" ,-")
        if len(long_form.split()) < 2 or len(long_form) <= len(short) or short.lower() in long_form.lower():
            continue
        pairs.append((singular_acronym(short), long_form))
    return pairs


def _surnames(authors: Iterable[str]) -> set[str]:
    names: set[str] = set()
    for author in authors:
        parts = name_words(author)
        if parts:
            names.add(parts[-1])
    return names


@dataclass
class Counts:
    """What one pass over papers counts (``add``), merged onto a previous vocabulary for a delta."""

    papers: int = 0
    last: int = 0  # the highest rowid counted
    words: Counter[str] = field(default_factory=Counter)
    acronyms: dict[str, Counter[str]] = field(default_factory=dict)
    authors: set[str] = field(default_factory=set)

    def add(self, rowid: int, title: str, abstract: str, authors: Iterable[str]) -> None:
        self.papers += 1
        self.last = max(self.last, rowid)
        self.words.update(set(index_words(f"{title} {abstract}")))
        for short, long_form in dict.fromkeys(acronym_pairs(f"{title}. {abstract}")):
            if len(key := long_key(long_form).split()) >= 2:  # words a query can be matched on
                self.acronyms.setdefault(short, Counter())[" ".join(key)] += 1
        self.authors |= _surnames(authors)


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def _save(counts: Counts, directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    _write_json(directory / "words.json", {w: n for w, n in counts.words.items() if n >= MIN_DF})
    _write_json(directory / "acronyms.json", {s: dict(c) for s, c in sorted(counts.acronyms.items())})
    _write_json(directory / "authors.json", sorted(counts.authors))
    # the meta last: a directory without it is not a vocabulary (``open_vocabulary``)
    meta = {"version": _VERSION, "papers": counts.papers, "last": counts.last}
    _write_json(directory / "meta.json", meta)
    return counts.papers


def build_vocabulary(store: Store, directory: Path) -> int:
    """Count every stored paper into ``directory``; returns how many papers were counted."""
    counts = Counts()
    for rowid, paper in store.iter_rows(after=0):
        counts.add(rowid, paper.title, paper.abstract, paper.authors)
    return _save(counts, directory)


def extend_vocabulary(store: Store, previous: Path, directory: Path) -> int | None:
    """The previous vocabulary plus the papers stored after the last one it counted (None when there is
    no readable previous vocabulary: build one instead). Words in one paper only are not kept, so a word
    of one paper before and one after counts once: a delta's counts are a lower bound until the next full
    build."""
    old = open_vocabulary(previous)
    if old is None:
        return None
    counts = Counts(papers=old.papers, last=old.last, words=Counter(old.words), authors=set(old.authors))
    counts.acronyms = {s: Counter(c) for s, c in old.acronyms.items()}
    for rowid, paper in store.iter_rows(after=old.last):
        counts.add(rowid, paper.title, paper.abstract, paper.authors)
    return _save(counts, directory)


@dataclass
class Vocabulary:
    """A saved vocabulary; each part is read from its file when first used."""

    directory: Path
    papers: int
    last: int

    @cached_property
    def words(self) -> dict[str, int]:
        """Word → how many papers have it (words in at least ``MIN_DF`` papers)."""
        data: dict[str, int] = json.loads((self.directory / "words.json").read_text())
        return data

    @cached_property
    def acronyms(self) -> dict[str, dict[str, int]]:
        """Short form → {long form (``long_key``) → papers defining it}."""
        data: dict[str, dict[str, int]] = json.loads((self.directory / "acronyms.json").read_text())
        return data

    @cached_property
    def authors(self) -> frozenset[str]:
        return frozenset(json.loads((self.directory / "authors.json").read_text()))

    def df(self, word: str) -> int:
        """How many papers have ``word`` (0 for a word in fewer than ``MIN_DF``)."""
        return self.words.get(fold(word), 0)


def open_vocabulary(directory: Path) -> Vocabulary | None:
    """The vocabulary saved in ``directory`` (None when missing or unreadable)."""
    try:
        meta = json.loads((directory / "meta.json").read_text())
        if not isinstance(meta, dict) or meta.get("version") != _VERSION:
            return None
        return Vocabulary(directory, int(meta["papers"]), int(meta["last"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
