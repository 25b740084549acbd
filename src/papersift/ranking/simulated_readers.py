"""The simulated readers of ``papersift eval recommend`` (``evaluate.py``): a citing paper is a reader at each
library size, its library the papers closest to it in the citation graph (its own references first), half its
references hidden among random corpus papers as the "day's papers"; ``tag_readers``, the same reader's
library split into tags (for the per-tag ranking of ``recommend --tag``); and ``reader_split``, the fixed
``tune`` / ``heldout`` halves of the readers (and of the queries of ``related`` and ``search``).

Tags are made by clustering, not by the citing paper's sections: the corpus holds titles and abstracts,
not the full text that would say in which section each reference is cited. A library of ``TAG_MIN`` or more
papers is split into ``TAGS`` tags by k-means of its papers' vectors (scikit-learn, a fixed seed), as a
reader who files papers by topic would; each hidden reference belongs to the tag whose centroid it is
closest to (cosine), so a tag's hidden papers are those its own papers should find.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import numpy as np

from papersift.records.paper import Paper

if TYPE_CHECKING:
    from papersift.ranking.eval_corpus import Corpus

POOL = 200  # random corpus papers each reader's hidden papers are mixed into
LIBRARY_SIZES = (1, 3, 10, 30)
TAGS = 2  # tags a simulated reader's library is split into (``tag_readers``)
TAG_MIN = 3  # the least library that is split: at 1 or 2 papers a tag is a single paper or none


def reader_split(query_id: str) -> str:
    """``tune`` or ``heldout``: a fixed half of the readers by a hash of the citing paper's id."""
    return "tune" if zlib.crc32(query_id.encode()) % 2 == 0 else "heldout"


@dataclass(frozen=True, slots=True)
class SimulatedReader:
    """A citing paper as a reader at one library size: papers of its citation neighbourhood are the library,
    half its references hide among random papers."""

    query: int  # corpus positions, here and below
    library: tuple[int, ...]  # newest added first
    hidden: frozenset[int]
    candidates: tuple[int, ...]  # the "day's papers": hidden + POOL random, shuffled


def appeared(paper: Paper) -> date | None:
    """The day a paper appeared: its announcement, else its first version."""
    return paper.announced or paper.published


def _neighbours(c: Corpus, gold: dict[str, set[str]]) -> dict[int, set[int]]:
    """The citation pairs as an undirected graph over corpus positions."""
    graph: dict[int, set[int]] = defaultdict(set)
    for query, cited in gold.items():
        a = c.position.get(query)
        for b in (c.position.get(x) for x in cited):
            if a is not None and b is not None and a != b:
                graph[a].add(b)
                graph[b].add(a)
    return graph


def _interests(
    graph: dict[int, set[int]], query: int, first: list[int], banned: set[int], most: int, rng: Any
) -> list[int]:
    """The reader's library papers, closest first: ``first`` (its own kept references), then ring after ring
    of the citation neighbourhood of the citing paper and of what is already in, each ring ordered by its
    links into what is in (ties at random); never a ``banned`` paper (the hidden ones), never through one."""
    order = list(first)
    inside = {query, *first}
    while len(order) < most:
        links: dict[int, int] = defaultdict(int)
        for node in inside:
            for other in graph.get(node, ()):
                if other not in inside and other not in banned:
                    links[other] += 1
        if not links:
            break
        ring = sorted(links)
        tie = rng.permutation(len(ring))
        ring = [ring[i] for i in sorted(range(len(ring)), key=lambda i: (-links[ring[i]], tie[i]))]
        order += ring
        inside.update(ring)
    return order[:most]


def simulate_readers(
    c: Corpus,
    gold: dict[str, set[str]],
    seed: int,
    split: str,
    sizes: tuple[int, ...] = LIBRARY_SIZES,
) -> dict[int, list[SimulatedReader]]:
    """The same readers at each library size in ``sizes``: one per citing paper with at least 2 references in
    the corpus and a citation neighbourhood of at least ``max(sizes)`` library papers.

    With the reader's own generator (``seed`` and a hash of its id): the references are shuffled, the last
    half rounded down hides among ``POOL`` random corpus papers that are neither the citing paper, its
    references nor its largest library; the library of size N is the N closest papers of ``_interests``
    (its kept references first, then the papers citing or cited by it or by them, and so on): a reader
    whose library grows around one topic. Library papers are added on their own announcement (else v1)
    day, and the candidates are the same at every size.
    """
    graph = _neighbours(c, gold)
    most = max(sizes)
    readers: dict[int, list[SimulatedReader]] = {n: [] for n in sizes}
    every = np.arange(len(c.ids))
    for qid in sorted(gold):
        if qid not in c.position or (split != "all" and reader_split(qid) != split):
            continue
        query = c.position[qid]
        refs = sorted(c.position[r] for r in gold[qid] if r in c.position and c.position[r] != query)
        if len(refs) < 2:
            continue
        rng = np.random.default_rng([seed, zlib.crc32(qid.encode())])
        shuffled = [refs[i] for i in rng.permutation(len(refs))]
        half = (len(shuffled) + 1) // 2
        hidden = shuffled[half:]
        interests = _interests(graph, query, shuffled[:half], set(hidden), most, rng)
        if len(interests) < most:
            continue
        eligible = np.setdiff1d(every, [query, *refs, *interests])
        pool = rng.choice(eligible, min(POOL, len(eligible)), replace=False).tolist()
        candidates = [*hidden, *pool]
        candidates = [candidates[i] for i in rng.permutation(len(candidates))]
        for n in sizes:
            newest = sorted(interests[:n], key=lambda i: -(appeared(c.papers[i]) or date.min).toordinal())
            readers[n].append(SimulatedReader(query, tuple(newest), frozenset(hidden), tuple(candidates)))
    return readers


@dataclass(frozen=True, slots=True)
class TaggedReader:
    """One tag of a simulated reader's library: its papers (newest first, as the library) and the hidden
    references that belong to it (``tag_readers``); the candidates stay the reader's."""

    reader: SimulatedReader
    library: tuple[int, ...]
    hidden: frozenset[int]


def tag_readers(c: Corpus, reader: SimulatedReader, tags: int = TAGS) -> list[TaggedReader]:
    """The reader's library split into ``tags`` tags by k-means of its papers' vectors, each hidden reference
    given to the tag of the nearest centroid (cosine); only tags holding a hidden reference (none below
    ``TAG_MIN`` library papers)."""
    library = list(reader.library)
    if len(library) < max(TAG_MIN, tags):
        return []
    from sklearn.cluster import KMeans

    vectors = c.vectors[library].astype(np.float64)
    labels = KMeans(n_clusters=tags, n_init=4, random_state=0).fit_predict(vectors)
    if len(set(labels.tolist())) < tags:  # fewer distinct papers than tags
        return []
    centroids = np.stack([vectors[labels == t].mean(axis=0) for t in range(tags)])
    centroids /= np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
    hidden = sorted(reader.hidden)
    nearest = np.argmax(c.vectors[hidden] @ centroids.T, axis=1) if hidden else np.zeros(0, int)
    out = []
    for t in range(tags):
        mine = frozenset(h for h, n in zip(hidden, nearest.tolist(), strict=True) if n == t)
        papers = tuple(p for p, label in zip(library, labels.tolist(), strict=True) if label == t)
        if mine and papers:
            out.append(TaggedReader(reader, papers, mine))
    return out
