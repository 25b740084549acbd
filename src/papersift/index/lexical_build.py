"""The lexical arrays' build (``index/lexical.py`` reads them): every stored paper tokenised once, out of
core, into the memory-mapped term matrix, its posting lists, the author keys, categories and days.

``build_lexical`` makes the main arrays from every paper; ``build_delta`` a delta segment of the papers
added since, weighed with the main arrays' idf. Either writes a scratch directory beside ``directory`` and
swaps it in whole, so a reader sees the old arrays or the new ones, never a half-written mix.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papersift.index.lexical import (
    ARRAYS_VERSION,
    MAX_DF,
    MIN_DF,
    N_FEATURES,
    Lexical,
    author_slots,
    term_counts,
)
from papersift.store import Store

ROWS_PER_PASS = 100_000  # rows weighed and inverted at once: bounds the build's memory at any store size


def build_lexical(
    store: Store,
    directory: Path,
    progress: Callable[[int], None] | None = None,
    rows_per_pass: int = ROWS_PER_PASS,
) -> int:
    """(Re)build the arrays from every stored paper; returns how many papers they hold.

    Out of core (memory grows with per-paper facts, not with the postings): the first pass tokenises each
    paper once, appending its term slots and counts to scratch files and summing document frequencies;
    the second (``_invert``) weighs and normalises ``rows_per_pass`` rows at a time into the memory-mapped
    term matrix and scatters them into the posting lists, whose offsets the frequencies already fix.
    """
    return _build(store, directory, progress, rows_per_pass, after=0, frozen=None)


def build_delta(store: Store, directory: Path, main: Lexical, after: int, started: float) -> int:
    """A delta segment: the arrays of the papers with rowids above ``after``, weighed with ``main``'s idf.

    Frozen idf keeps the main arrays untouched (adding a day costs a tokenise of that day only); the
    weights drift from a full rebuild's only as much as the day moves the document frequencies.
    ``started`` (a Unix time, kept in the metadata) says since when papers have gone to a delta.
    """
    return _build(store, directory, None, ROWS_PER_PASS, after=after, frozen=main, started=started)


def _build(
    store: Store,
    directory: Path,
    progress: Callable[[int], None] | None,
    rows_per_pass: int,
    after: int,
    frozen: Lexical | None,
    started: float | None = None,
) -> int:
    tmp = directory.with_name(directory.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    first = _tokenise(store, tmp, progress, after)
    n = len(first.keys)
    if frozen is None:
        idf = (np.log((1.0 + n) / (1.0 + first.df)) + 1.0).astype(np.float32)
        idf[(first.df < MIN_DF) | (first.df > MAX_DF * n)] = 0.0
        known: list[str] = []
    else:
        idf, known = np.asarray(frozen.arrays["idf"]), list(frozen.categories)
    p_indptr = np.zeros(N_FEATURES + 1, dtype=np.int64)
    np.cumsum(np.where(idf > 0, first.df, 0), out=p_indptr[1:])
    t_indptr = _invert(first, idf, p_indptr, tmp, rows_per_pass)
    order = np.argsort(first.author_keys, kind="stable")
    categories = known + sorted(set(first.primaries) - set(known))  # a delta keeps the main codes
    code = {c: i for i, c in enumerate(categories)}
    arrays: dict[str, np.ndarray] = {
        "keys": np.array(first.keys, dtype=np.int64),
        "t_indptr": t_indptr,
        "p_indptr": p_indptr,
        "idf": idf,
        "df": first.df.astype(np.int32),
        "pa_keys": first.author_keys[order],
        "pa_docs": first.author_rows[order],
        "primary": np.array([code[c] for c in first.primaries], dtype=np.int32),
        "day": np.array(first.days, dtype=np.int32),
    }
    for name, values in arrays.items():
        np.save(tmp / f"{name}.npy", values)
    meta: dict[str, object] = {"version": ARRAYS_VERSION, "count": n, "categories": categories}
    if frozen is not None:
        meta.update(after=after, started=started)
    (tmp / "meta.json").write_text(json.dumps(meta))
    _swap(tmp, directory)
    return n


@dataclass
class _FirstPass:
    """What tokenising every paper leaves: per-row facts, term-entry offsets and document frequencies."""

    keys: list[int]
    indptr: np.ndarray
    entries: int
    df: np.ndarray
    author_keys: np.ndarray
    author_rows: np.ndarray
    primaries: list[str]
    days: list[int]


def _invert(
    first: _FirstPass, idf: np.ndarray, p_indptr: np.ndarray, tmp: Path, rows_per_pass: int
) -> np.ndarray:
    """The second pass: the weighed term matrix and its postings, written into ``tmp``; the row offsets."""
    n, total = len(first.keys), int(p_indptr[-1])
    out = {
        name: np.lib.format.open_memmap(tmp / f"{name}.npy", mode="w+", dtype=dtype, shape=(total,))
        for name, dtype in (
            ("t_indices", np.int32),
            ("t_data", np.float32),
            ("p_docs", np.int32),
            ("p_data", np.float32),
        )
    }
    t_indptr = np.zeros(n + 1, dtype=np.int64)
    raw_slots, raw_counts = _raw(tmp / "slots.raw", np.int32), _raw(tmp / "counts.raw", np.uint16)
    cursor = p_indptr[:-1].copy()
    written = 0
    for lo in range(0, n, rows_per_pass):
        hi = min(lo + rows_per_pass, n)
        a, b = int(first.indptr[lo]), int(first.indptr[hi])
        slots = np.asarray(raw_slots[a:b])
        rows = np.repeat(np.arange(lo, hi, dtype=np.int32), np.diff(first.indptr[lo : hi + 1]))
        weights = (1.0 + np.log(np.maximum(raw_counts[a:b].astype(np.float32), 1.0))) * idf[slots]
        norms = np.sqrt(np.bincount(rows - lo, weights=weights * weights, minlength=hi - lo))
        weights = (weights / np.where(norms > 0, norms, 1.0)[rows - lo]).astype(np.float32)
        keep = weights > 0
        slots, weights, rows = slots[keep], weights[keep], rows[keep]
        np.cumsum(np.bincount(rows - lo, minlength=hi - lo), out=t_indptr[lo + 1 : hi + 1])
        t_indptr[lo + 1 : hi + 1] += written
        out["t_indices"][written : written + len(slots)] = slots
        out["t_data"][written : written + len(slots)] = weights
        written += len(slots)
        # postings: rows ascend within a slot because passes run in row order and the sort is stable
        order = np.argsort(slots, kind="stable")
        by_slot = slots[order]
        here = np.bincount(by_slot, minlength=N_FEATURES)
        group_start = np.cumsum(here) - here
        dest = cursor[by_slot] + (np.arange(len(by_slot)) - group_start[by_slot])
        out["p_docs"][dest] = rows[order]
        out["p_data"][dest] = weights[order]
        cursor += here
    del raw_slots, raw_counts
    for array in out.values():
        array.flush()
    del out
    (tmp / "slots.raw").unlink(missing_ok=True)
    (tmp / "counts.raw").unlink(missing_ok=True)
    return t_indptr


def _tokenise(store: Store, tmp: Path, progress: Callable[[int], None] | None, after: int = 0) -> _FirstPass:
    keys: list[int] = []
    lengths: list[int] = []
    author_parts: list[np.ndarray] = []
    author_lengths: list[int] = []
    primaries: list[str] = []
    days: list[int] = []
    df = np.zeros(N_FEATURES, dtype=np.int64)
    slot_buf: list[np.ndarray] = []
    count_buf: list[np.ndarray] = []
    with open(tmp / "slots.raw", "wb") as slot_file, open(tmp / "counts.raw", "wb") as count_file:

        def spill() -> None:
            if slot_buf:
                slots = np.concatenate(slot_buf)
                df[:] += np.bincount(slots, minlength=N_FEATURES)
                slots.tofile(slot_file)
                np.minimum(np.concatenate(count_buf), 65535).astype(np.uint16).tofile(count_file)
                slot_buf.clear()
                count_buf.clear()

        for rowid, paper in store.iter_rows(after=after):
            slots, counts = term_counts(f"{paper.title} | {paper.abstract}")
            keys.append(rowid)
            slot_buf.append(slots)
            count_buf.append(counts)
            lengths.append(len(slots))
            authors = author_slots(paper.authors)
            author_parts.append(authors)
            author_lengths.append(len(authors))
            primaries.append(paper.primary_category)
            day = paper.announced or paper.published
            days.append(day.toordinal() if day else 0)
            if len(keys) % 5000 == 0:
                spill()
                if progress:
                    progress(5000)
        spill()
    n = len(keys)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    author_keys = np.concatenate(author_parts) if n else np.zeros(0, np.int64)
    author_rows = np.repeat(np.arange(n, dtype=np.int32), author_lengths)
    return _FirstPass(keys, indptr, int(indptr[-1]), df, author_keys, author_rows, primaries, days)


def _raw(path: Path, dtype: type[np.generic]) -> np.ndarray:
    """A scratch file of the first pass, memory-mapped (numpy cannot map an empty file)."""
    if path.stat().st_size == 0:
        return np.zeros(0, dtype)
    return np.asarray(np.memmap(path, dtype=dtype, mode="r"))


def _swap(tmp: Path, directory: Path) -> None:
    """Put the finished ``tmp`` directory in place of ``directory`` (readers of the old files keep them)."""
    if directory.exists():
        old = directory.with_name(directory.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        directory.replace(old)
        tmp.replace(directory)
        shutil.rmtree(old)
    else:
        tmp.replace(directory)
