"""Sparse paper features for ranking: hashed tf-idf term vectors, author keys, categories and dates.

Each paper becomes an L2-normalised vector of its title and abstract words and word pairs, weighted like
arxiv-sanity (sublinear tf × idf, terms in more than 10% of papers or in only one dropped), hashed into
2^20 slots so the vocabulary needs no table and a new paper needs no refit. Beside the vectors sit each
paper's author keys (first initial + surname), primary category and announcement day, and each term
slot's document frequency (the words an any-word keyword query may leave out, see ``common``). All of it
is kept as flat numpy arrays in ``index/lexical/`` and memory-mapped, with an inverted copy of the term and
author matrices, so the overlap of one paper with every other is a sum over a few posting lists. Here: the
terms and keys, the arrays as read (``Lexical``, ``open_lexical``); ``index/lexical_build.py`` writes them.

Why not only FTS5: a whole-paper query with tf-idf weights ranked the dev citation pairs better than BM25
over FTS5 (nDCG@10 0.30 vs 0.28), and the arrays answer in about a millisecond at 300k papers.
"""

from __future__ import annotations

import itertools
import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papersift.records.analyzer import STOP_WORDS, fold, index_words, name_words

N_FEATURES = 1 << 20
MAX_DF = 0.1  # a term in more than this share of papers says nothing about relatedness
MIN_DF = 2
QUERY_MAX_DF = 0.02  # query terms more common than this are left out of the overlap (see ``key_terms``)
# an any-word keyword query (a sentence's) leaves out words in more than this share of the papers, as the
# tf-idf weights do; on the dev citation sentences hybrid Recall@10 was 0.5653 with it, 0.5602 without
# (and 0.5615 at 0.2, 0.5602 at 0.05, 0.5285 at 0.02)
KEYWORD_MAX_DF = MAX_DF
ARRAYS_VERSION = 3  # of the saved arrays' layout: other versions are not read

_ARRAYS = (
    "keys",
    "t_indptr",
    "t_indices",
    "t_data",
    "p_indptr",
    "p_docs",
    "p_data",
    "idf",
    "df",
    "pa_keys",
    "pa_docs",
    "primary",
    "day",
)


def terms(text: str) -> list[str]:
    """Words (stop words dropped) and adjacent word pairs of ``text``, accent-folded and lower-cased."""
    words = [w for w in index_words(text) if w not in STOP_WORDS]
    return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]


def term_slot(term: str) -> int:
    return zlib.crc32(term.encode()) % N_FEATURES


def author_key(name: str) -> str:
    """``"Jane Q. Doe"`` → ``"j doe"``: what two spellings of one author usually share."""
    parts = name_words(name)
    return f"{parts[0][:1]} {parts[-1]}" if parts else ""


def author_slot(name: str) -> int:
    key = author_key(name)
    return zlib.crc32(key.encode()) if key else -1


def term_counts(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The distinct term slots of ``text`` (ascending) and how often each occurs."""
    slots = np.fromiter((term_slot(t) for t in terms(text)), dtype=np.int64)
    if len(slots) == 0:
        return np.zeros(0, np.int32), np.zeros(0, np.float32)
    uniq, counts = np.unique(slots, return_counts=True)
    return uniq.astype(np.int32), counts.astype(np.float32)


def _weigh(slots: np.ndarray, counts: np.ndarray, idf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    weights = (1.0 + np.log(counts)) * idf[slots]
    keep = weights > 0
    slots, weights = slots[keep], weights[keep]
    norm = float(np.sqrt((weights * weights).sum()))
    return slots, (weights / norm if norm else weights).astype(np.float32)


@dataclass
class Lexical:
    """The memory-mapped arrays; row ``i`` is the paper with rowid ``keys[i]``.

    With a ``delta`` segment (the papers added since the arrays were built, see ``build_delta``) rows
    ``len(main)…`` are the delta's: every method answers over both, so rankers never see the seam.
    """

    arrays: dict[str, np.ndarray]
    categories: list[str]
    delta: Lexical | None = None

    def __post_init__(self) -> None:
        # plain ndarray views of the maps: same pages, without np.memmap's per-access overhead
        self.arrays = {name: np.asarray(array) for name, array in self.arrays.items()}
        self._main = len(self.arrays["keys"])
        self._joined: dict[str, np.ndarray] = {}
        if self.delta is not None:
            d = self.delta.arrays
            for name in ("keys", "primary", "day"):
                self._joined[name] = np.concatenate([self.arrays[name], d[name]])
            self._joined["df"] = self.arrays["df"].astype(np.int64) + d["df"]
            self._joined["postings"] = np.diff(self.arrays["p_indptr"]) + np.diff(d["p_indptr"])
            self.categories = list(self.delta.categories)  # the main list plus the delta's new ones

    def _array(self, name: str) -> np.ndarray:
        return self._joined.get(name, self.arrays[name])

    @property
    def keys(self) -> np.ndarray:
        """Store rowids, ascending."""
        return self._array("keys")

    @property
    def primary(self) -> np.ndarray:
        """Primary category codes (indexes into ``categories``)."""
        return self._array("primary")

    @property
    def day(self) -> np.ndarray:
        """Announcement (else v1) day as a proleptic ordinal; 0 when unknown."""
        return self._array("day")

    def __len__(self) -> int:
        return self._main + (len(self.delta) if self.delta is not None else 0)

    def positions(self, rowids: np.ndarray) -> np.ndarray:
        """Row positions of ``rowids`` (-1 where a rowid is not indexed)."""
        keys = self.keys
        at = np.searchsorted(keys, rowids)
        at = np.minimum(at, max(len(keys) - 1, 0))
        found = (keys[at] == rowids) if len(keys) else np.zeros(len(rowids), bool)
        return np.where(found, at, -1)

    def vectorize(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The normalised tf-idf vector of any text: (slots, weights)."""
        return _weigh(*term_counts(text), self.arrays["idf"])

    def common(self, word: str) -> bool:
        """Whether ``word`` is in over ``KEYWORD_MAX_DF`` of the papers (any-word queries leave it out)."""
        folded = fold(word)
        return bool(folded) and int(self._array("df")[term_slot(folded)]) > KEYWORD_MAX_DF * len(self)

    def row(self, position: int) -> tuple[np.ndarray, np.ndarray]:
        if position >= self._main and self.delta is not None:
            return self.delta.row(position - self._main)
        ptr = self.arrays["t_indptr"]
        lo, hi = int(ptr[position]), int(ptr[position + 1])
        return self.arrays["t_indices"][lo:hi], self.arrays["t_data"][lo:hi]

    def _posting_counts(self, slots: np.ndarray) -> np.ndarray:
        if "postings" in self._joined:
            counts: np.ndarray = self._joined["postings"][slots]
            return counts
        ptr = self.arrays["p_indptr"]
        lengths: np.ndarray = ptr[slots + 1] - ptr[slots]
        return lengths

    def key_terms(self, slots: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The query terms that are not common: in at most ``QUERY_MAX_DF`` of the papers.

        Common terms hold most of the postings and barely move the ranking (dev nDCG@10 0.4311 without
        them vs 0.4314 with, 5× fewer postings read), so overlaps and explanations use these only.
        """
        rare = self._posting_counts(slots) <= max(QUERY_MAX_DF * len(self), 1)
        return slots[rare], weights[rare]

    def candidates(self, slots: np.ndarray, weights: np.ndarray, n: int, terms: int = 24) -> np.ndarray:
        """Up to ``n`` rows sharing most weight in the query's ``terms`` weightiest key terms.

        Reads only those terms' postings (rare terms: short lists), so its cost does not grow with
        the store; ``cosine`` then scores the rows exactly.
        """
        slots, weights = self.key_terms(slots, weights)
        best = np.argsort(-weights)[:terms]
        rows, contributions = self._postings(slots[best], weights[best])
        if self.delta is not None:
            more, extra = self.delta._postings(slots[best], weights[best])
            rows, contributions = (
                np.concatenate([rows, more + self._main]),
                np.concatenate([contributions, extra]),
            )
        if len(rows) == 0:
            return np.zeros(0, np.int64)
        found, inverse = np.unique(rows, return_inverse=True)
        partial = np.bincount(inverse, weights=contributions)
        if len(found) > n:
            found = found[np.argpartition(-partial, n)[:n]]
        return found.astype(np.int64)

    def cosine(self, slots: np.ndarray, weights: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Exact cosine of the query vector (sorted slots) with the given rows."""
        if self.delta is not None:
            out = np.zeros(len(positions), np.float32)
            inside = positions < self._main
            out[inside] = self._cosine(slots, weights, positions[inside])
            out[~inside] = self.delta.cosine(slots, weights, positions[~inside] - self._main)
            return out
        return self._cosine(slots, weights, positions)

    def _cosine(self, slots: np.ndarray, weights: np.ndarray, positions: np.ndarray) -> np.ndarray:
        ptr = self.arrays["t_indptr"]
        take, lengths = _ranges(ptr[positions], ptr[positions + 1])
        row_slots, row_weights = self.arrays["t_indices"][take], self.arrays["t_data"][take]
        owner = np.repeat(np.arange(len(positions)), lengths)
        at = np.minimum(np.searchsorted(slots, row_slots), max(len(slots) - 1, 0))
        hit = slots[at] == row_slots if len(slots) else np.zeros(len(row_slots), bool)
        products = row_weights[hit] * weights[at[hit]]
        return np.bincount(owner[hit], weights=products, minlength=len(positions)).astype(np.float32)

    def _postings(self, slots: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every (row, query weight × row weight) of the given terms' posting lists (this segment only)."""
        ptr = self.arrays["p_indptr"]
        take, lengths = _ranges(ptr[slots], ptr[slots + 1])
        return self.arrays["p_docs"][take], self.arrays["p_data"][take] * np.repeat(weights, lengths)

    def _author_rows(self, unique: np.ndarray) -> list[np.ndarray]:
        pa_keys, pa_docs = self.arrays["pa_keys"], self.arrays["pa_docs"]
        lo = np.searchsorted(pa_keys, unique)
        hi = np.searchsorted(pa_keys, unique, side="right")
        rows = [pa_docs[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True) if b > a]
        if self.delta is not None:
            rows += [r.astype(np.int64) + self._main for r in self.delta._author_rows(unique)]
        return rows

    def coauthors(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows having any of the given author keys (ascending) and how many of them each has."""
        rows = self._author_rows(np.unique(slots[slots >= 0]))
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        found, counts = np.unique(np.concatenate(rows), return_counts=True)
        return found.astype(np.int64), counts


def _ranges(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The concatenated index ranges [start, end) (without a Python loop) and their lengths."""
    lengths = (ends - starts).astype(np.int64)
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(int(lengths.sum())), lengths


def term_names(text: str) -> dict[int, str]:
    """Slot → the first term of ``text`` hashed there: how a query's slots are read back as words."""
    names: dict[int, str] = {}
    for term in terms(text):
        names.setdefault(term_slot(term), term)
    return names


def shared_terms(
    names: dict[int, str],
    q_slots: np.ndarray,
    q_weights: np.ndarray,
    doc: tuple[np.ndarray, np.ndarray],
    n: int = 5,
) -> list[str]:
    """The ``n`` terms that add most to the overlap of a query and one paper, named by ``term_names``."""
    d_slots, d_weights = doc
    common, qi, di = np.intersect1d(q_slots, d_slots, assume_unique=True, return_indices=True)
    if len(common) == 0:
        return []
    contribution = q_weights[qi] * d_weights[di]
    picked: list[str] = []
    for i in np.argsort(-contribution):
        name = names.get(int(common[i]))
        if name and not any(name in p or p in name for p in picked):
            picked.append(name)
        if len(picked) == n:
            break
    return picked


def lexical_count(directory: Path) -> int | None:
    """How many papers the saved arrays hold (None when there are none, or they are unreadable)."""
    try:
        meta = json.loads((directory / "meta.json").read_text())
        readable = isinstance(meta, dict) and meta.get("version") == ARRAYS_VERSION
        return int(meta["count"]) if readable else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def open_lexical(directory: Path, delta: Path | None = None) -> Lexical | None:
    """Memory-map the saved arrays (None when missing or unreadable: rebuild with ``build_lexical``).

    ``delta``: a delta segment's directory (``build_delta``) to answer over as well; the main arrays alone
    when it is missing or unreadable.
    """
    if lexical_count(directory) is None:
        return None
    try:
        meta = json.loads((directory / "meta.json").read_text())
        arrays = {name: np.load(directory / f"{name}.npy", mmap_mode="r") for name in _ARRAYS}
    except (OSError, ValueError):
        return None
    if len(arrays["keys"]) != meta["count"] or {len(arrays["idf"]), len(arrays["df"])} != {N_FEATURES}:
        return None
    extra = open_lexical(delta) if delta is not None else None
    if extra is not None and len(extra) == 0:
        extra = None
    return Lexical(arrays=arrays, categories=list(meta["categories"]), delta=extra)


def segment_meta(directory: Path) -> dict[str, object]:
    """A segment's saved metadata ({} when unreadable): ``count``; ``after``, ``started`` of a delta."""
    try:
        meta = json.loads((directory / "meta.json").read_text())
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def author_slots(authors: Iterable[str]) -> np.ndarray:
    slots: np.ndarray = np.array(sorted({author_slot(a) for a in authors} - {-1}), dtype=np.int64)
    return slots
