"""Topic names: the phrase naming each topic of a day, by c-TF-IDF and one measure.

**The measure.** A topic's name is a phrase (``book.name_keys``) that

* at least ``min_share`` (a third) of the topic's papers write, two papers at least (one paper's
  phrase names nothing: a topic of one paper stays among the day's other papers);
* at most ``day_share`` (a quarter) of the day's papers write: a phrase more of the day writes
  is the field's vocabulary of the day ("large language models" on cs.AI) and names nothing, nor
  does the name of a category more of the day lists ("machine learning" on cs.LG);
* is ``contrast`` times as common in its topic as in the rest of the day.

Among the phrases meeting it, the topic's name is the best by **c-TF-IDF** (BERTopic's
class-based tf-idf): the share of the topic writing the phrase times ``log(1 + A / f)``, ``A``
the day's average topic size and ``f`` the phrase's count in the day plus its share of the store
(``lexical``'s word pairs) times the day's papers, so a phrase common in the store weighs
little. Then, best first:

* it reads as a noun phrase (``wording.noun_phrase``);
* a phrase opening or ending a longer one that ``cut_short`` of its holders write names as the
  longer ("large language" → "large language models");
* a hyphenated compound (``multi-agent``) names through the best phrase holding it;
* the final name (not one while topics are formed) is a collocation: each word pair of it
  written together by ``collocation`` of the store's papers writing the pair's rarer word;
* each name once a day, and none opening with another name of the day.

Last come a category most of the topic lists (``category_contrast``, final naming only), the
store's vocabulary (``store_vocabulary``) or a phrase written only inside compounds, then a lone
word (``wording.lone_term``): no name, but nearer one while topics are formed. The terms listed
with a name are the topic's next phrases by maximal marginal relevance (``mmr``)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise

import numpy as np
import scipy.sparse as sp

from papersift.index.lexical import term_slot, terms
from papersift.ranking.topics.book import CATEGORY, PhraseBook, holding, shown, written
from papersift.ranking.topics.caches import InStore, Naming, Partition
from papersift.ranking.topics.parameters import PARAMETERS
from papersift.ranking.topics.wording import half, lone_term, noun_phrase

P = PARAMETERS


def named(book: PhraseBook, name: str) -> bool:
    """Whether a name (a key) is a phrase of two to five words, not one hyphenated compound, or a
    category."""
    if name.startswith(CATEGORY):
        return True
    return 2 <= len(name.split()) <= P.name_words and not half(book, name)


def label_topics(
    book: PhraseBook, labels: np.ndarray, final: bool = False, only: Iterable[int] = ()
) -> dict[int, Naming]:
    """Each topic's ``Naming``, largest topic first (``only``: those topics, each as if first).
    While topics are formed only phrases name them; the ``final`` naming lets a category name
    one and lists each topic's terms."""
    asked = Partition(labels.astype(np.int64).tobytes(), final, tuple(sorted(only)))
    if asked in book.caches.namings:
        return dict(book.caches.namings[asked])

    n = len(labels)
    sizes = np.bincount(labels)
    topics = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(len(sizes), n))
    counts = np.asarray((topics @ book.holds).toarray())  # topics × keys: papers writing each key
    total = np.asarray(book.holds.sum(axis=0)).ravel()  # the day's papers writing each key
    day = total / max(n, 1)
    average = n / max(int((sizes > 0).sum()), 1)

    chosen = [t for t in range(len(sizes)) if sizes[t] and (not only or t in set(only))]
    used: set[str] = set()
    found: dict[int, Naming] = {}
    for topic in sorted(chosen, key=lambda t: -sizes[t]):
        size = int(sizes[topic])
        inside = counts[topic]
        share = inside / size
        rest = (total - inside) / max(n - size, 1)
        measured = (inside >= 2) & (share >= P.min_share) & (day <= P.day_share) & ~book.names_a_listing
        phrases = np.flatnonzero(measured & ~book.listing & (share >= P.contrast * rest))
        scored = _c_tf_idf(book, phrases, inside, size, total, average, final)

        categories = []
        if final:
            listed = measured & book.listing & (share >= P.category_contrast * rest)
            ordered = sorted(
                np.flatnonzero(listed).tolist(),
                key=lambda j: (-share[j] * share[j] / (share[j] + rest[j]), book.keys[j]),
            )
            categories = [book.keys[j] for j in ordered]

        ranked = sorted(scored, key=lambda k: (-scored[k], k))
        name = _name(book, ranked, inside, used, categories)
        if name:
            used.add(name)
        listed_terms = _terms(book, labels == topic, name, ranked, scored) if final else ()
        found[topic] = Naming(name, listed_terms)
    book.caches.namings[asked] = found
    return dict(found)


def _c_tf_idf(
    book: PhraseBook,
    columns: np.ndarray,
    inside: np.ndarray,
    size: int,
    total: np.ndarray,
    average: float,
    final: bool,
) -> dict[str, float]:
    """Each phrase's c-TF-IDF weight in a topic (see module). While topics are formed the store's
    vocabulary is left out; a final name must be a collocation."""
    stored = [in_store(book, book.keys[j]) for j in columns.tolist()]
    keep = [s.collocation if final else s.share <= P.store_vocabulary for s in stored]
    columns = columns[np.array(keep, bool)] if len(columns) else columns
    common = np.array([s.share for s, k in zip(stored, keep, strict=True) if k])
    weight = inside[columns] / size * np.log1p(average / (total[columns] + len(book.texts) * common))
    return {book.keys[j]: float(w) for j, w in zip(columns.tolist(), weight.tolist(), strict=True)}


def in_store(book: PhraseBook, key: str) -> InStore:
    """A phrase in the store (cached in the book): the share of the papers writing its rarest word
    pair as shown, and whether it is a collocation, each pair of its terms in ``collocation`` of
    the papers writing the pair's rarer word (or it holds a hyphenated compound, the field's
    own)."""
    lexical = book.lexical
    if lexical is None or not len(lexical):
        return InStore(share=0.0, collocation=True)
    cached = book.caches.in_store.get(key)
    if cached is not None:
        return cached
    form = shown(book, key).lower()
    df = lexical.arrays["df"]
    pairs = [p for p in terms(form) if " " in p and "-" not in form]
    collocation = all(
        df[term_slot(p)] >= P.collocation * min(df[term_slot(w)] for w in p.split()) for p in pairs
    )
    words = form.replace("-", " ").split()
    spans = [" ".join(pair) for pair in pairwise(words)] or words
    rarest = min(float(df[term_slot(span)]) for span in spans)
    found = InStore(share=rarest / len(lexical), collocation=collocation)
    book.caches.in_store[key] = found
    return found


def _name(
    book: PhraseBook, ranked: list[str], inside: np.ndarray, used: set[str], categories: list[str]
) -> str:
    """A topic's name from its measured phrases, best first (see module); ``""`` when none fits."""
    fit = set(ranked)
    last: list[str] = []

    def taken(key: str) -> bool:  # a name of the day, or one opening with it or it opens with
        return key in used or any(
            (" " in u and f"{key} ".startswith(f"{u} ")) or u.startswith(f"{key} ") for u in used
        )

    for key in ranked:
        if " " not in key or taken(key):
            continue
        if half(book, key):  # a modifier: the best measured noun phrase holding it
            wider = [k for k in ranked if f" {key} " in f" {k} " and k != key and not taken(k)]
            wider = [k for k in wider if noun_phrase(book, k) and not half(book, k)]
            if wider:
                return wider[0]
            continue
        whole = _uncut(book, key, inside)
        if whole not in fit or taken(whole) or not noun_phrase(book, whole) or half(book, whole):
            continue
        piece = whole == key and written(book, key).only_in_compounds
        if not piece and in_store(book, whole).share <= P.store_vocabulary:
            return whole
        last.append(whole)  # the store's vocabulary, a piece of compounds ("level preference"): last

    for key in [*categories, *last]:
        if key not in used:
            return key
    for key in ranked:
        if " " not in key and key not in used and lone_term(book, key):
            return key
    return ""


def _uncut(book: PhraseBook, key: str, inside: np.ndarray) -> str:
    """``key``, or the longer phrase opening or ending with it that ``cut_short`` of its holders
    write."""
    longer = book.longer.get(key, [])
    if not longer:
        return key
    most = max(longer, key=lambda j: (inside[j], book.keys[j]))
    if inside[most] >= P.cut_short * inside[book.column[key]]:
        return book.keys[most]
    return key


def _terms(
    book: PhraseBook, mask: np.ndarray, name: str, ranked: list[str], scored: dict[str, float]
) -> tuple[str, ...]:
    """The name, then up to ``terms`` phrases by MMR: score against papers shared (Jaccard), none
    nested."""
    pool = [k for k in ranked[: 8 * P.terms] if (noun_phrase(book, k) if " " in k else lone_term(book, k))]
    picked = [name] if name else []
    top = max(scored.values(), default=1.0)
    held = {k: mask & holding(book, k) for k in [*pool, name] if k in book.column and CATEGORY not in k}

    def gain(key: str) -> float:
        overlap = [(held[key] & held[p]).sum() / (held[key] | held[p]).sum() for p in picked if p in held]
        return P.mmr * scored[key] / top - (1 - P.mmr) * max(overlap, default=0.0)

    for _ in range(P.terms - len(picked)):
        pool = [k for k in pool if not any(f" {k} " in f" {p} " or f" {p} " in f" {k} " for p in picked)]
        if not pool:
            break
        picked.append(max(pool, key=lambda k: (gain(k), k)))
    return tuple(picked)
