"""Topic names: which phrases of a set of papers name which of its topics, and how a name is shown.

* Candidates (``phrase_book``): the phrases of each paper's title and abstract as ``phrases.phrases`` reads
  them (one to ``NAME_WORDS`` words of one run, hyphens read as spaces unless the compound holds a stop
  word), plurals folded (``name_keys``); the store's share of papers writing each (the lexical arrays' word
  and pair document frequencies, an upper bound) is its background.
* A phrase qualifies for a topic when at least a third of its papers hold it, ``CONTRAST`` times the share
  of the rest of the set, and under a third of the rest (``large language model`` names no group of a
  cs.CL day). Scored by class-based TF-IDF with the store as background: share in the topic ×
  log(1 + papers per topic / (papers of the set holding it + the store's share × the set's size)).
* Parts of speech from lemminflect's lexicon (Penn tags of every reading of a word, ``tags``): a name is a
  noun phrase: its last word readable as a noun, each other word as a noun, an adjective or a participle,
  none a superlative or comparative (``strongest baseline``), none a bare count. A word the lexicon lacks
  is the field's own (``llms``, ``splatting``) unless English writes it often (wordfreq Zipf ≥
  ``ZIPF_COMMON``: ``four``, ``eight``); on the 809 papers of 2026-05-12 that rule was needed by 11 keys.
* A phrase inside a longer one (at its start or end) held by ``CUT_SHORT`` of its topic's holders is that
  longer phrase cut short: the longer one names the topic if it qualifies, else neither does
  (``large language`` of ``large language model``, ``percentage points`` of ``5 percentage points``).
  A phrase shown as one hyphenated compound (``multi-agent``) names a topic only through the best
  qualifying phrase holding it, else after every other phrase and arXiv category.
* The name: the best noun phrase of two to five words, else (once the topics are formed) the arXiv category
  a third of the topic's papers list, ``CATEGORY_CONTRAST`` times as often as the rest, else a lone word
  that names a term (``phrases.names_a_term``, in at most ``LABEL_MAX_DF`` of the store). Each name once a
  day, none the opening words of another's (largest topics choose first). The terms: the name, then the
  qualifying phrases by maximal marginal relevance (``MMR``: score against overlap of their papers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import pairwise
from typing import Any

import numpy as np
import scipy.sparse as sp

from papersift.index.lexical import Lexical, term_slot
from papersift.ranking.phrases import GENERIC, fold, names_a_term, phrases, word_rarity
from papersift.ranking.topic_clusters import MIN_TOPIC, Doc
from papersift.records.taxonomy import canonical, category_name
from papersift.records.words import STOP_WORDS

NAME_WORDS = 5  # words of a name at most
MIN_SHARE = 1 / 3  # a name's phrase is in at least this share of the topic's papers
CONTRAST = 1.5  # … and at least this many times as common in it as in the other papers of the set
CATEGORY_CONTRAST = 3.0  # a category naming a topic: at least this many times as common in it
CUT_SHORT = 0.6  # a phrase inside a longer one this share of its topic's holders hold is cut short
NAME_MAX_DF = 0.2  # a phrase in more of the store than this is its field's vocabulary: names nothing
LABEL_MAX_DF = 0.3  # a lone word in more of the store than this names nothing (``based``, ``propose``)
ZIPF_COMMON = 4.0  # a word unknown to the lexicon this common in English is no term (numbers, fillers)
MMR = 0.7  # the terms' weight of relevance against redundancy
TERMS = 5  # terms listed per topic
BLOB = 0.5  # a topic holding more of the set than this is split like one no phrase names
CATEGORY = "arxiv:"  # a name key of this prefix is an arXiv category's (``arxiv:eess.AS``)
NOUN, MODIFIER, GRADED = {"NN", "NNS", "VBG"}, {"NN", "JJ", "VBN", "VBG"}, {"JJS", "JJR", "RBS", "RBR"}
Found = dict[int, tuple[str, tuple[str, ...]]]  # topic → (name key, term keys)


@dataclass(frozen=True, slots=True)
class PhraseBook:
    """A set of papers' candidate names: which paper holds which phrase (``name_keys``, one column each)."""

    keys: list[str]
    column: dict[str, int]
    holds: sp.csr_matrix  # papers × keys: 1 where the paper holds the phrase
    background: np.ndarray  # each key's share of the store's papers (0 without the lexical arrays)
    variants: dict[str, set[str]]  # each key's phrases before plurals are folded
    written: list[frozenset[str]]  # each paper's phrases before plurals are folded
    texts: list[str]  # each paper's title and abstract
    categories: list[str]  # the arXiv categories the papers list (canonical ids), one per column
    listed: sp.csr_matrix  # papers × categories
    rarity: Any  # a word's idf in the store (``phrases.word_rarity``)
    memo: dict[object, Any] = field(default_factory=dict)


def term_key(term: str) -> str:
    """A term with plural words made singular (``"language models"`` → ``"language model"``)."""
    return " ".join(map(_singular, term.split()))


@cache
def _singular(w: str) -> str:
    return w[:-1] if len(w) > 4 and w.endswith("s") and not w.endswith("ss") else w


_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


def _unhyphenated(text: str) -> str:
    """Hyphens between words as spaces, except in a compound holding a stop word (``chain-of-thought``)."""

    def split(m: re.Match[str]) -> str:
        return m[0] if any(p.lower() in STOP_WORDS for p in m[0].split("-")) else m[0].replace("-", " ")

    return _COMPOUND.sub(split, text)


def name_keys(text: str) -> set[str]:
    """The phrases a topic may be named by in ``text``, plurals folded ("a paper holds the name")."""
    return {term_key(p) for p in phrases(_unhyphenated(text), NAME_WORDS)}


def name_key(label: str) -> str:
    """A topic's name as ``name_keys`` spells it (``Multi-Agent Systems`` → ``multi agent system``)."""
    return term_key(" ".join(_unhyphenated(fold(label)).split()))


def phrase_book(lexical: Lexical | None, papers: list[Doc]) -> PhraseBook:
    """The ``PhraseBook`` of ``papers`` (each text's phrases found once)."""
    texts = [f"{d.title}. {d.abstract}" for d in papers]  # no phrase runs from the title into the abstract
    written = [frozenset(phrases(_unhyphenated(t), NAME_WORDS)) for t in texts]
    column: dict[str, int] = {}
    variants: dict[str, set[str]] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, found in enumerate(written):
        mine = {column.setdefault(term_key(p), len(column)) for p in found}
        for p in found:
            variants.setdefault(term_key(p), set()).add(p)
        rows += [i] * len(mine)
        cols += sorted(mine)
    size = len(lexical) if lexical is not None else 0
    df = lexical.arrays["df"] if lexical is not None and size else np.zeros(1 << 20)

    def store_df(phrase: str) -> float:  # the lexical arrays hold words and adjacent pairs (an upper bound)
        words = phrase.split()
        pairs = [f"{a} {b}" for a, b in pairwise(words)] or words
        return float(min(df[term_slot(p)] for p in pairs))

    held = np.bincount(cols, minlength=len(column))  # a key one paper holds names nothing
    background = np.array(
        [max(map(store_df, variants[k])) if held[j] > 1 else 0.0 for k, j in column.items()]
    )
    background /= max(size, 1)
    cats: dict[str, int] = {}
    listed = {
        (i, cats.setdefault(canonical(c), len(cats)))
        for i, d in enumerate(papers)
        for c in d.categories
        if category_name(c)
    }
    return PhraseBook(
        list(column), column, _ones(rows, cols, (len(papers), len(column))), background, variants, written, texts,
        list(cats), _ones([i for i, _ in listed], [j for _, j in listed], (len(papers), len(cats))), word_rarity(lexical),
    )  # fmt: skip


def _ones(rows: list[int], cols: list[int], shape: tuple[int, int]) -> sp.csr_matrix:
    """A ``shape`` matrix of ones at (``rows[i]``, ``cols[i]``)."""
    return sp.csr_matrix(
        (np.ones(len(rows)), (np.array(rows, np.int64), np.array(cols, np.int64))), shape=shape
    )


def book_rows(book: PhraseBook, mask: np.ndarray) -> PhraseBook:
    """The book of the papers ``mask`` selects."""
    if mask.all():
        return book
    rows = np.flatnonzero(mask).tolist()
    take = [book.written[i] for i in rows], [book.texts[i] for i in rows]
    return replace(
        book, holds=book.holds[rows], written=take[0], texts=take[1], listed=book.listed[rows], memo={}
    )


def holding(book: PhraseBook, key: str) -> np.ndarray:
    """Which papers hold ``key`` (a boolean row)."""
    if "csc" not in book.memo:
        book.memo["csc"] = book.holds.tocsc()
    csc, j, row = book.memo["csc"], book.column[key], np.zeros(book.holds.shape[0], bool)
    row[csc.indices[csc.indptr[j] : csc.indptr[j + 1]]] = True
    return row


def shown(book: PhraseBook, key: str) -> str:
    """``key`` as the book's papers holding it write it most often (a category: its name)."""
    if key.startswith(CATEGORY):
        return category_name(key.removeprefix(CATEGORY)) or key
    if ("shown", key) not in book.memo:
        forms: dict[str, int] = {}
        for i in np.flatnonzero(holding(book, key)).tolist() if key in book.column else []:
            for p in book.variants[key] & book.written[i]:
                pattern = r"\b" + r"(?:-|\s+)".join(map(re.escape, p.split())) + r"\b"
                for f in re.findall(pattern, fold(book.texts[i])) or [p]:
                    forms[re.sub(r"\s+", " ", f)] = forms.get(re.sub(r"\s+", " ", f), 0) + 1
        book.memo["shown", key] = max(forms, key=lambda f: (forms[f], f)) if forms else key
    return str(book.memo["shown", key])


@cache
def tags(word: str) -> frozenset[str]:
    """The Penn tags of every reading lemminflect's lexicon knows ``word`` by (empty if it knows none)."""
    import lemminflect

    return frozenset(
        t for ls in lemminflect.getAllLemmas(word).values() for lemma in ls
        for t, forms in lemminflect.getAllInflections(lemma).items() if word in forms
    )  # fmt: skip


@cache
def _own_word(word: str) -> bool:
    """A word the lexicon lacks that English seldom writes, or letters and digits: the field's own (``llms``,
    ``3d``)."""
    from wordfreq import zipf_frequency

    mixed = any(c.isdigit() for c in word)
    return any(c.isalpha() for c in word) and (mixed or float(zipf_frequency(word, "en")) < ZIPF_COMMON)


def noun_phrase(book: PhraseBook, key: str) -> bool:
    """Whether a phrase of two or more words reads as a noun phrase (see module), as its papers write it."""
    words = shown(book, key).replace("-", " ").split()
    if len(words) < 2 or not key.replace(" ", "").isascii():
        return False
    head, known = words[-1], [tags(w) for w in words]
    if known[-1] & GRADED or not (known[-1] & NOUN or (not known[-1] and head.isalpha() and _own_word(head))):
        return False
    return all(
        not (t & GRADED) and (t & MODIFIER or (not t and not w.isdigit() and _own_word(w)))
        for w, t in zip(words[:-1], known[:-1], strict=True)
    )


def lone_term(book: PhraseBook, word: str) -> bool:
    """Whether a lone word names a term: a noun or the field's own word, ``phrases.names_a_term``, in at
    most ``LABEL_MAX_DF`` of the store, no generic word of every abstract."""
    if ("term", word) not in book.memo:
        found = (
            tags(word) if word not in GENERIC and word.isalpha() and len(word) >= 4 else frozenset({"JJS"})
        )
        book.memo["term", word] = (
            not found & GRADED and (bool(found & NOUN) or (not found and _own_word(word)))
            and book.background[book.column[word]] <= LABEL_MAX_DF and names_a_term(word, book.rarity)
        )  # fmt: skip
    return bool(book.memo["term", word])


def _longer(book: PhraseBook) -> dict[str, list[int]]:
    """Each phrase's columns of the longer keys opening or ending with it."""
    if "longer" not in book.memo:
        found: dict[str, list[int]] = {}
        for j, key in enumerate(book.keys):
            words = key.split()
            for cut in range(1, len(words) - 1):
                found.setdefault(" ".join(words[:-cut]), []).append(j)
                found.setdefault(" ".join(words[cut:]), []).append(j)
        book.memo["longer"] = found
    return book.memo["longer"]  # type: ignore[no-any-return]


def label_topics(
    book: PhraseBook,
    labels: np.ndarray,
    categories: bool = False,
    only: set[int] | None = None,
    terms: bool = False,
) -> Found:
    """Each topic's name and terms (keys; see module), largest topics choosing first; with ``categories``
    a topic no phrase names may be named by an arXiv category (``CATEGORY`` + its id); given ``only``,
    just those topics, each as if it chose first; with ``terms``, the terms too (else only the name)."""
    memo = ("labels", labels.astype(np.int64).tobytes(), categories, tuple(sorted(only or ())), terms)
    if memo in book.memo:
        return dict(book.memo[memo])
    n, sizes = len(labels), np.bincount(labels)
    onehot = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(len(sizes), n))
    counts, total = np.asarray((onehot @ book.holds).toarray()), np.asarray(book.holds.sum(axis=0)).ravel()
    listed = np.asarray((onehot @ book.listed).toarray())
    average, used, found = n / max(int((sizes > 0).sum()), 1), set[str](), Found()
    # a key one paper holds is in a third of a topic of three papers at most: else only shared keys count
    cols = np.flatnonzero(total >= (1 if min(sizes[sizes > 0]) <= 3 else 2))
    for topic in sorted((t for t in range(len(sizes)) if sizes[t]), key=lambda t: (-int(sizes[t]), t)):
        if only is not None and topic not in only:
            continue
        inside = counts[topic][cols]
        share, rest = inside / sizes[topic], (total[cols] - inside) / max(n - sizes[topic], 1)
        fit = cols[
            (share >= MIN_SHARE)
            & (share >= CONTRAST * rest)
            & (rest < MIN_SHARE)
            & (book.background[cols] <= NAME_MAX_DF)
        ]
        weight = (
            counts[topic][fit] / sizes[topic] * np.log1p(average / (total[fit] + n * book.background[fit]))
        )
        score = {book.keys[j]: float(w) for j, w in zip(fit.tolist(), weight.tolist(), strict=True)}
        ranked = sorted(score, key=lambda k: (-score[k], k))
        cats = (
            _categories(book, listed[topic], listed.sum(axis=0), int(sizes[topic]), n) if categories else []
        )
        label = _label(book, ranked, counts[topic], used, cats)
        used.add(label) if label else None
        found[topic] = (label, _terms(book, labels == topic, label, ranked, score) if terms else ())
    book.memo[memo] = found
    return dict(found)


def _label(book: PhraseBook, ranked: list[str], inside: np.ndarray, used: set[str], cats: list[str]) -> str:
    """A topic's name from its qualifying keys, best first (see module); ``""`` when none fits."""
    longer, halves, fit = _longer(book), [], set(ranked)
    for key in ranked:
        if " " not in key or _taken(key, used):
            continue
        if _half(book, key):  # a modifier: the best qualifying noun phrase holding it, else a last resort
            wider = [k for k in ranked if f" {key} " in f" {k} " and k != key and not _taken(k, used)]
            wider = [k for k in wider if noun_phrase(book, k) and not _half(book, k)]
            if wider:
                return wider[0]
            halves.append(key)
            continue
        cut = max(longer.get(key, []), key=lambda j: (inside[j], book.keys[j]), default=None)
        if cut is not None and inside[cut] >= CUT_SHORT * inside[book.column[key]]:
            whole = book.keys[cut]
            if (
                whole in fit
                and not _taken(whole, used)
                and noun_phrase(book, whole)
                and not _half(book, whole)
            ):
                return whole
        elif noun_phrase(book, key):
            return key
    words = (k for k in ranked if " " not in k and k not in used and lone_term(book, k))
    return next(iter([c for c in cats if c not in used] + halves), None) or next(words, "")


def _terms(
    book: PhraseBook, mask: np.ndarray, label: str, ranked: list[str], score: dict[str, float]
) -> tuple[str, ...]:
    """The name, then up to ``TERMS`` qualifying phrases by MMR: relevance (score, scaled to the best)
    against the most any picked term shares of papers with it (Jaccard), none inside another."""
    pool = [k for k in ranked[: 8 * TERMS] if (noun_phrase(book, k) if " " in k else lone_term(book, k))]
    picked = [label] if label else []
    held = {
        k: set(np.flatnonzero(mask & holding(book, k)).tolist())
        for k in pool + [p for p in picked if p in book.column]
    }
    top = max(score.values(), default=1.0)
    while len(picked) < TERMS:
        pool = [k for k in pool if not any(f" {k} " in f" {p} " or f" {p} " in f" {k} " for p in picked)]
        if not pool:
            break

        def gain(k: str) -> float:
            overlap = max(
                (len(held[k] & held[p]) / len(held[k] | held[p]) for p in picked if p in held), default=0.0
            )
            return MMR * score[k] / top - (1 - MMR) * overlap

        picked.append(max(pool, key=lambda k: (gain(k), k)))
    return tuple(picked)


def _categories(book: PhraseBook, inside: np.ndarray, total: np.ndarray, size: int, n: int) -> list[str]:
    """The category keys that may name a topic (see module), best first."""
    share, rest = inside / size, (total - inside) / max(n - size, 1)
    fit = np.flatnonzero((share >= MIN_SHARE) & (share >= CATEGORY_CONTRAST * rest))
    weight = {j: float(share[j] * share[j] / (share[j] + rest[j])) for j in fit.tolist()}
    return [
        CATEGORY + book.categories[j] for j in sorted(weight, key=lambda j: (-weight[j], book.categories[j]))
    ]


def _taken(name: str, used: set[str]) -> bool:
    """Whether the day has used ``name``, a name opening with it or one it opens with."""
    return any(
        u == name or (" " in u and " " in name and (u.startswith(f"{name} ") or name.startswith(f"{u} ")))
        for u in used
    )


def _half(book: PhraseBook, key: str) -> bool:
    """Whether a phrase is shown as one hyphenated compound (``multi-agent``): half a phrase."""
    form = shown(book, key)
    return " " not in form and "-" in form


def named(book: PhraseBook, name: str) -> bool:
    """Whether a name (a key) is a phrase of two to five words, not one hyphenated compound, or a category."""
    return name.startswith(CATEGORY) or (2 <= len(name.split()) <= NAME_WORDS and not _half(book, name))


def unsettled(book: PhraseBook, labels: np.ndarray) -> list[tuple[int, str]]:
    """The topics (largest first) no phrase names, and one holding over ``BLOB`` of a set big enough for two
    topics (most of the day in one topic draws no map), with their names."""
    sizes, n = np.bincount(labels), len(labels)
    found = label_topics(book, labels)
    blob = [t for t in found if n >= 2 * MIN_TOPIC and sizes[t] > BLOB * n]
    return sorted(
        ((t, name) for t, (name, _) in found.items() if not named(book, name) or t in blob),
        key=lambda x: (-int(sizes[x[0]]), x[0]),
    )


def unphrased(book: PhraseBook, labels: np.ndarray) -> int:
    """Papers in ``unsettled`` topics, those of unnamed topics counted twice."""
    sizes = np.bincount(labels)
    return sum(int(sizes[t]) * (1 + (not name)) for t, name in unsettled(book, labels))


def seeds(
    book: PhraseBook, labels: np.ndarray, members: np.ndarray, most: int = 4, least: int = 3
) -> list[np.ndarray]:
    """For a topic's ``members``: which of them hold each of its ``most`` most held noun phrases (held by
    ``least`` or more of them and ``CONTRAST`` times as large a share of them as of the rest)."""
    inside = np.asarray(book.holds[members].sum(axis=0)).ravel()
    rest = (np.asarray(book.holds.sum(axis=0)).ravel() - inside) / max(len(labels) - len(members), 1)
    fit = np.flatnonzero((inside >= least) & (inside / len(members) >= CONTRAST * rest)).tolist()
    keys = [book.keys[j] for j in sorted(fit, key=lambda j: (-int(inside[j]), book.keys[j]))]
    return [holding(book, k)[members] for k in keys if " " in k and noun_phrase(book, k)][:most]
