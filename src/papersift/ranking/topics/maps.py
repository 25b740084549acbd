"""A day's topic map: its papers grouped (``clusters``), named (``naming``), placed (``layout``).

Same papers, same map: the papers are taken in id order and every step has a fixed seed. A
configured model (``namer``) may name the topics instead of their phrases; a model that fails or
answers too few names names nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, timedelta

import numpy as np
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from papersift.index.indexes import Indexes
from papersift.ranking.phrases import occurs, phrases
from papersift.ranking.topics.book import PhraseBook, name_key, phrase_book, shown
from papersift.ranking.topics.caches import Naming
from papersift.ranking.topics.clusters import bounded, claimed, clustered, paper_vectors, regrouped
from papersift.ranking.topics.layout import layout
from papersift.ranking.topics.map_shapes import Cluster, TopicMap
from papersift.ranking.topics.naming import label_topics, named
from papersift.ranking.topics.parameters import PARAMETERS
from papersift.records.analyzer import fold
from papersift.records.paper import Paper
from papersift.records.taxonomy import category_named
from papersift.store import ListingEntry, Store

Namer = Callable[[list[tuple[list[str], list[str]]]], list[str]]
"""A model naming topics: (phrases, titles) per topic → one name per topic."""


def listing_entries(store: Store, category: str, when: date, days: int = 1) -> list[ListingEntry]:
    """The listings of ``category`` on the ``days`` days ending ``when``, each paper once (its
    first row)."""
    first = when - timedelta(days=days - 1)
    seen: dict[str, ListingEntry] = {}
    for day in store.announcement_days(category):
        if first <= day <= when:
            for entry in store.listing(category, day):
                seen.setdefault(entry.paper.id, entry)
    return list(seen.values())


def topic_map(indexes: Indexes, papers: Sequence[Paper], namer: Namer | None = None) -> TopicMap:
    """The map of ``papers``: their topics, named by ``namer`` (the configured model) or their
    phrases."""
    ordered = sorted({p.id: p for p in papers}.values(), key=lambda p: p.id)
    if not ordered:
        return TopicMap.make(category="", date="", clusters=[], points=[])
    with threadpool_limits(limits=1):  # small products: threads fighting over busy cores cost seconds
        vectors = paper_vectors(indexes, ordered)
        book = phrase_book(indexes.lexical, ordered)
        labels = clustered(vectors, book)
        labels, _ = claimed(vectors, labels, book)
        labels = bounded(vectors, regrouped(vectors, labels, book))
        coords = layout(vectors, labels)
        clusters, labels = name_topics(book, ordered, labels, namer)

    # topics largest first (ties: the first paper id), the other papers last; points in the caller's order
    order = sorted(range(len(clusters)), key=lambda t: (not clusters[t].label, -len(clusters[t].papers)))
    rank = {old: new for new, old in enumerate(order)}
    where = {p.id: i for i, p in enumerate(ordered)}
    points = []
    for paper_id in dict.fromkeys(p.id for p in papers):
        i = where[paper_id]
        x, y = coords[i]
        points.append(
            {
                "id": paper_id,
                "x": round(float(x), 4),
                "y": round(float(y), 4),
                "cluster": rank[int(labels[i])],
            }
        )
    return TopicMap.make(category="", date="", clusters=[clusters[t] for t in order], points=points)


def name_topics(
    book: PhraseBook, papers: Sequence[Paper], labels: np.ndarray, namer: Namer | None = None
) -> tuple[list[Cluster], np.ndarray]:
    """Each topic's ``Cluster`` and the papers' cluster numbers; the topics no name fits pooled
    into the day's other papers, one unnamed group (unless ``namer`` names every topic)."""
    found = label_topics(book, labels, final=True)
    topics = sorted(found)
    titles = {t: [papers[int(i)].title for i in np.flatnonzero(labels == t)][:12] for t in topics}
    asked = [([shown(book, k) for k in found[t].terms], titles[t]) for t in topics]
    try:
        names = namer(asked) if namer else []
    except Exception:  # a model that fails names nothing: the phrases name the topics
        names = []
    if len(names) == len(topics):
        found = {
            t: Naming(name.strip()[:60] or found[t].name, found[t].terms)
            for t, name in zip(topics, names, strict=True)
        }
    else:
        found, labels = _pooled(book, found, labels)

    keys = {k for naming in found.values() for k in naming.terms}
    labels = np.searchsorted(sorted(found), labels)
    clusters = []
    for n, topic in enumerate(sorted(found)):
        naming = found[topic]
        members = np.flatnonzero(labels == n)
        texts = [f"{papers[int(i)].title} {papers[int(i)].abstract}" for i in members]
        label = shown(book, naming.name) if naming.name in keys else naming.name
        label = _as_written(label, texts)
        terms = [shown(book, k) for k in naming.terms]
        terms = [label if label and name_key(k) == name_key(label) else k for k in terms]
        terms = [k for k in terms if k == label or any(occurs(fold(k), x) for x in texts)]
        ids = [papers[int(i)].id for i in members]
        clusters.append(Cluster.make(label=label, terms=terms, papers=ids))
    return clusters, labels


def _pooled(
    book: PhraseBook, found: dict[int, Naming], labels: np.ndarray
) -> tuple[dict[int, Naming], np.ndarray]:
    """The topics no name fits pooled into one unnamed group, the largest's number, their words its
    terms."""
    rest = [t for t, naming in found.items() if not named(book, naming.name)]
    if not rest:
        return found, labels
    rest.sort(key=lambda t: (-int((labels == t).sum()), t))
    words: dict[str, None] = {}
    for t in rest:
        word = found[t].name or next(iter(found[t].terms), "")
        if word:
            words[word] = None
    labels = np.where(np.isin(labels, rest), rest[0], labels)
    kept = {t: naming for t, naming in found.items() if t not in rest}
    kept[rest[0]] = Naming("", tuple(words)[: PARAMETERS.terms])
    return kept, labels


def _as_written(label: str, texts: list[str]) -> str:
    """A name as its topic's papers write it ("vision transformer", not "vision transformers",
    where the topic writes the singular); a category's name as it is."""
    if not label or category_named(label) is not None:
        return label
    if any(occurs(fold(label), x) for x in texts):
        return label
    key = name_key(label)
    forms = {p for x in texts for p in phrases(x, PARAMETERS.name_words) if name_key(p) == key}
    same_length = [p for p in forms if p.count(" ") == label.count(" ")]
    form = min(same_length, default=label)
    # each word in the label's case ("LLM agent" written "llm agents": "LLM agents")
    cased = []
    for word, as_named in zip(form.split(), label.split(), strict=True):
        same = word[: len(as_named)].lower() == as_named.lower()
        cased.append(as_named + word[len(as_named) :] if same else word)
    return " ".join(cased)
