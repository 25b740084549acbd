"""Reference evidence: what the papers' reference lists (``store/fulltext_rows.py``) say about how two papers
or a
paper and a reader's library are related, for the rankers' scores and their "why".

- Bibliographic coupling: the references two papers share. A reference is the same in both lists when it
  names the same arXiv id (resolved to a store paper, or read from the entry), else the same DOI, else the
  same title (lower case, words only, at least four words). Its strength is Salton's cosine,
  ``shared / sqrt(|A| · |B|)``, the term related papers add to their score (``related.W_COUPLING``).
- Co-citation: the store's papers whose references name both.
- Library citations: how many papers of a reader's library a paper cites, and how many of them cite it.

A paper without references has no evidence: nothing here changes its rank or its reasons.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from papersift.records.analyzer import plain_words
from papersift.records.messages import Message, counted, say
from papersift.sources.fulltext import Reference
from papersift.store import Store

MAX_CITING = 200  # citing papers looked at for co-citation (the newest first)


def reference_key(ref: Reference) -> str | None:
    """What identifies the work an entry names, across papers' lists (None: too little to tell)."""
    arxiv = ref.resolved or ref.arxiv_id
    if arxiv:
        return f"arxiv:{arxiv}"
    if ref.doi:
        return f"doi:{ref.doi.lower()}"
    if ref.title:
        words = plain_words(ref.title)
        if len(words) >= 4:
            return "title:" + " ".join(words)
    return None


def reference_keys(refs: Iterable[Reference]) -> frozenset[str]:
    return frozenset(k for r in refs if (k := reference_key(r)) is not None)


@dataclass(frozen=True, slots=True)
class Coupling:
    """The references the query paper shares with each candidate (by rowid): counts and Salton's cosine."""

    shared: dict[int, int]
    strength: dict[int, float]

    def array(self, keys: np.ndarray) -> np.ndarray:
        return np.array([self.strength.get(int(k), 0.0) for k in keys.tolist()], np.float32)


def coupling(store: Store, paper_id: str, keys: np.ndarray) -> Coupling | None:
    """The bibliographic coupling of ``paper_id`` with the papers of rowids ``keys``; None when the paper
    has no references stored (then nothing is looked up)."""
    mine = reference_keys(store.references(paper_id))
    if not mine or not len(keys):
        return None
    papers = store.by_rowids([int(k) for k in keys.tolist()])
    ids = {p.id: rowid for rowid, p in papers.items()}
    links = store.paper_links(list(ids))
    shared: dict[int, int] = {}
    strength: dict[int, float] = {}
    for pid, link in links.items():
        theirs = reference_keys(link.references)
        both = len(mine & theirs)
        if both:
            shared[ids[pid]] = both
            strength[ids[pid]] = both / math.sqrt(len(mine) * len(theirs))
    return Coupling(shared, strength)


def cocited(store: Store, paper_id: str, others: Sequence[str]) -> dict[str, int]:
    """For each of ``others``: how many store papers cite both it and ``paper_id`` (absent: none)."""
    citing = [c.paper_id for c in store.cited_by(paper_id)[:MAX_CITING]]
    if not citing or not others:
        return {}
    wanted = set(others)
    counts: dict[str, int] = {}
    for link in store.paper_links(citing).values():
        for cited in {r.resolved for r in link.references if r.resolved in wanted}:
            assert cited is not None
            counts[cited] = counts.get(cited, 0) + 1
    return counts


def library_citations(
    store: Store, paper_ids: Sequence[str], library: Collection[str]
) -> dict[str, tuple[int, int]]:
    """For each of ``paper_ids``: (papers of ``library`` it cites, papers of ``library`` citing it); papers
    with neither are left out."""
    if not paper_ids or not library:
        return {}
    out: dict[str, tuple[int, int]] = {}
    for pid, link in store.paper_links(list(paper_ids)).items():
        cites = len({r.resolved for r in link.references if r.resolved in library and r.resolved != pid})
        cited = len({c.paper_id for c in link.cited_by if c.paper_id in library})
        if cites or cited:
            out[pid] = (cites, cited)
    return out


def coupling_reason(n: int) -> Message:
    return say("cites_same", n=n)


def cocited_reason(n: int) -> Message:
    return counted("cited_together", n)


def library_reasons(cites: int, cited: int) -> list[Message]:
    """Why a paper matters to a reader's library, in words."""
    out = []
    if cites:
        out.append(counted("cites_library", cites))
    if cited:
        out.append(counted("cited_by_library", cited))
    return out
