"""Topic names: which phrases of a set of papers name which of its topics, and how a name is shown. Each
rule with what it keeps out (``bench/topic_names.py``: the busiest cs.LG, cs.CV, cs.CL days, later 10 days):

* Candidates: each paper's phrases (``phrases.phrases``) of up to ``NAME_WORDS`` words, a hyphen a space
  unless its compound holds a stop word, plurals folded by the analyzer's rule (``singular``; a rule of its
  own left 15.8% unnamed, not 15.6%, and named "computer vision" on cs.CV); and its named categories.
* A name is in ``MIN_SHARE`` of its topic's papers and two at least (else one-paper topics left by
  ``claimed``: "raster data captures"), ``CONTRAST``× the rest of the day's share, under ``MIN_SHARE`` of it.
* Scored by c-TF-IDF against the day and the store (the lexical arrays' word pair frequencies); one in over
  ``NAME_MAX_DF`` of the store is the field's vocabulary: it names no topic being formed ("language models"
  named a mixed group: 2026-05-12 NMI 0.367 at 0.25, 0.393 at 0.2; at 0.15, 0.437 but 42% unnamed).
* A noun phrase by lemminflect's lexicon (``tags``; else 12 like "across multiple"): no superlative or
  comparative, no count (``COUNT``: "58m parameters"), no verb phrase (``VERBAL`` + adjective: "offering
  critical contextual signals"); a generic head or its modifier needs a noun or the field's word
  (``phrases.fields_word``: "original models", "specific layers"; unnamed 15.5% → 15.8%); not generic
  words alone, the head's plural folded ("research papers").
* A final name or term is a collocation (``background``): each pair of its words in ``COLLOCATION`` of the
  store's papers writing the rarer one, or it holds a hyphenated compound ("human-object interaction":
  0.026). Out: "quality dataset" 0.009, "joint improvement" 0.022, "machine learning approach" 0.034 (in
  at 0.03; at 0.04 "intrinsic biases" 0.036 is out too): 12.8% unnamed, not 12.4%; NMI 0.392 either way.
* A word the lexicon lacks is the field's own below Zipf ``ZIPF_COMMON`` (else 4: "state-of-the-art llms").
* A phrase opening or ending a longer one ``CUT_SHORT`` of its holders hold names as it (else "large vision").
* A hyphenated compound (``multi-agent``) names through the best phrase holding it (alone, none of the 10
  days' topics). Last a category (``CATEGORY_CONTRAST``), the field's vocabulary (else 15.6% unnamed, not
  12.4%; first: NMI 0.390, not 0.392) or a phrase written only inside compounds (else "level preference",
  of "sentence-level preference"), then a lone word (``lone_term``): no name, but nearer one while topics
  are formed (without, 16.2% unnamed). Each name once a day.
* Terms: the name, then the others by maximal marginal relevance (``MMR``; without, 20 terms change).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import chain, compress, pairwise
from typing import Any, cast

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from papersift.index.lexical import Lexical, term_slot, terms
from papersift.ranking.phrases import GENERIC, fields_word, names_a_term, phrases, word_rarity
from papersift.records.analyzer import STOP_WORDS, fold, singular
from papersift.records.paper import Paper
from papersift.records.taxonomy import canonical, category_name, category_named

NAME_WORDS = 5  # words of a name at most
MIN_SHARE = 1 / 3  # a name's phrase is in at least this share of the topic's papers
CONTRAST = 1.5  # … and at least this many times as common in it as in the other papers of the set
CATEGORY_CONTRAST = 3.0  # a category naming a topic: at least this many times as common in it
CUT_SHORT = 0.6  # a phrase inside a longer one this share of its topic's holders hold is cut short
NAME_MAX_DF = 0.2  # a phrase in more of the store than this is its field's vocabulary: names nothing
COLLOCATION = 0.035  # a final name's word pairs: each in this share of the papers holding its rarer word
ZIPF_COMMON = 4.0  # a word unknown to the lexicon this common in English is no term (numbers, fillers)
MMR = 0.7  # the terms' weight of relevance (score) against redundancy (papers shared with a picked term)
TERMS = 5  # terms listed per topic
CATEGORY = "arxiv:"  # a name key of this prefix is an arXiv category's (``arxiv:eess.AS``)
NOUN, MODIFIER, GRADED = {"NN", "NNS", "VBG"}, {"NN", "JJ", "VBN", "VBG"}, {"JJS", "JJR", "RBS", "RBR"}
VERBAL, COUNT = {"VBG", "VBN"}, re.compile(r"\d+(?:[.,]\d+)?(?:[kmbt]|x)?")  # "offering"; "58m", "7b", "12"
Found = dict[int, tuple[str, tuple[str, ...]]]  # topic → (name key, term keys)


@dataclass(frozen=True, slots=True)
class PhraseBook:
    """A set of papers' candidate names: which paper holds which phrase (``name_keys``, one column each)."""

    keys: list[str]
    column: dict[str, int]
    holds: sp.csr_matrix  # papers × keys: 1 where the paper holds the phrase (or lists the category)
    by_key: sp.csc_matrix  # the same, by column
    texts: list[str]  # each paper's title and abstract, folded
    listing: np.ndarray  # which keys are arXiv categories' (``CATEGORY``)
    lexical: Lexical | None  # the store's lexical arrays: the background
    memo: dict[Any, Any] = field(default_factory=dict)


def _unhyphenated(text: str) -> str:
    """Hyphens between words as spaces, except in a compound holding a stop word (``chain-of-thought``)."""
    return re.sub(
        r"[^\W\d_]+(?:-[^\W\d_]+)+",
        lambda m: m[0] if STOP_WORDS & {*m[0].lower().split("-")} else m[0].replace("-", " "),
        text,
    )


def name_keys(text: str) -> set[str]:
    """The phrases a topic may be named by in ``text``, plurals folded ("a paper holds the name")."""
    return {" ".join(map(singular, p.split())) for p in phrases(_unhyphenated(text), NAME_WORDS)}


def name_key(label: str) -> str:
    """A topic's name as ``name_keys`` spells it (``Multi-Agent Systems`` → ``multi agent system``)."""
    return " ".join(map(singular, _unhyphenated(fold(label)).split()))


def phrase_book(lexical: Lexical | None, papers: Sequence[Paper]) -> PhraseBook:
    """The ``PhraseBook`` of ``papers``: their phrases and, as ``CATEGORY`` keys, their named categories."""

    def held(d: Paper) -> set[str]:  # a paper's keys (no phrase runs from the title into the abstract)
        listed = {c for c in map(canonical, d.categories) if category_named(category_name(c) or "") == c}
        return name_keys(f"{d.title}. {d.abstract}") | {CATEGORY + c for c in listed}

    try:
        counter = CountVectorizer(analyzer=held, binary=True)
        holds, keys = counter.fit_transform(papers), counter.get_feature_names_out().tolist()
    except ValueError:  # no phrase at all
        holds, keys = sp.csr_matrix((len(papers), 0)), []
    texts, holds = [fold(f"{d.title}. {d.abstract}") for d in papers], sp.csr_matrix(holds, dtype=np.float64)
    listing = np.array([k.startswith(CATEGORY) for k in keys], bool)
    return PhraseBook(keys, {k: j for j, k in enumerate(keys)}, holds, holds.tocsc(), texts, listing, lexical)


def holding(book: PhraseBook, key: str) -> np.ndarray:
    """Which papers hold ``key`` (a boolean row)."""
    return np.asarray(book.by_key[:, book.column[key]].toarray().ravel() > 0)


def shown(book: PhraseBook, key: str) -> str:
    """``key`` as the book's papers holding it write it most often (a category: its name)."""
    if key.startswith(CATEGORY):
        return category_name(key.removeprefix(CATEGORY)) or key
    if ("shown", key) not in book.memo:
        pattern = r"(?:-|\s+)".join(re.escape(w) + "s?" for w in key.split())  # plurals
        texts = "\0".join(compress(book.texts, holding(book, key))) if key in book.column else ""
        forms = Counter(re.sub(r"\s+", " ", f) for f in re.findall(rf"\b{pattern}\b", texts))
        book.memo["shown", key] = max(forms, key=lambda f: (forms[f], f)) if forms else key
        book.memo["piece", key] = forms and not re.search(rf"\b(?<!\w-){pattern}\b(?!-\w)", texts)
    return str(book.memo["shown", key])


@cache
def tags(word: str) -> frozenset[str]:
    """The Penn tags of every reading lemminflect's lexicon knows ``word`` by (empty if it knows none)."""
    from lemminflect import getAllInflections, getAllLemmas

    lemmas = (lemma for found in getAllLemmas(word).values() for lemma in found)
    return frozenset(t for lemma in lemmas for t, forms in getAllInflections(lemma).items() if word in forms)


@cache
def _own_word(word: str) -> bool:
    """A word the lexicon lacks that is letters and digits (``3d``) or seldom English (``llms``)."""
    from wordfreq import zipf_frequency

    mixed = any(c.isdigit() for c in word)
    return any(c.isalpha() for c in word) and (mixed or float(zipf_frequency(word, "en")) < ZIPF_COMMON)


def noun_phrase(book: PhraseBook, key: str) -> bool:
    """Whether a phrase of two or more words reads as a noun phrase (see module), as its papers write it."""
    read = [(w, tags(w)) for w in shown(book, key).replace("-", " ").split()]
    (head, last), fits = read[-1], len(read) > 1 and not read[-1][1] & GRADED
    fits = fits and not {w for w, _ in read[:-1]} | {key.split()[-1]} <= GENERIC  # not generic words alone
    if not fits or not (last & NOUN or (not last and head.isalpha() and _own_word(head))):
        return False
    own = [not t and not w.isdigit() and _own_word(w) for w, t in read[:-1]]
    if not all(not t & GRADED and (t & MODIFIER or o) for (_, t), o in zip(read[:-1], own, strict=True)):
        return False
    rarity = book.memo.get("rarity") or book.memo.setdefault("rarity", word_rarity(book.lexical))
    verbal = read[0][1] & VERBAL and "JJ" in read[1][1] and not fields_word(read[0][0], rarity)
    if any(COUNT.fullmatch(w) for w, _ in read) or (verbal and "-" not in shown(book, key).split()[0]):
        return False  # a count or measure ("58m parameters"); a verb phrase ("offering critical signals")
    if "-" in shown(book, key) or not {read[-1][0], read[-2][0]} & GENERIC:
        return True  # a hyphenated compound ("high-resolution") is the field's own
    # a generic head or head's modifier needs a noun modifier or the field's word ("original models")
    return any(o or "JJ" not in t or fields_word(w, rarity) for (w, t), o in zip(read[:-1], own, strict=True))


def lone_term(book: PhraseBook, word: str) -> bool:
    """Whether a lone word is a term: a noun or the field's own, 4+ letters, not generic, ``names_a_term``."""
    if ("term", word) not in book.memo:
        plain, found = word not in GENERIC and word.isalpha() and len(shown(book, word)) >= 4, tags(word)
        fit = plain and not found & GRADED and (bool(found & NOUN) or (not found and _own_word(word)))
        book.memo["term", word] = fit and names_a_term(word, word_rarity(book.lexical))
    return bool(book.memo["term", word])


def label_topics(
    book: PhraseBook, labels: np.ndarray, categories: bool = False, only: Iterable[int] = ()
) -> Found:
    """Each topic's name and, with ``categories`` (the final naming: a category may name one), its terms;
    largest first (``only``: those topics, each as if first; see module)."""
    memo = (labels.astype(np.int64).tobytes(), categories, tuple(sorted(only)))
    if memo in book.memo:
        return dict(book.memo[memo])
    n, sizes = len(labels), np.bincount(labels)
    onehot = sp.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(len(sizes), n))
    counts, total = np.asarray((onehot @ book.holds).toarray()), np.asarray(book.holds.sum(axis=0)).ravel()
    average, listing = n / max(int((sizes > 0).sum()), 1), book.listing & categories
    used, found = set[str](), Found()
    chosen = [t for t in range(len(sizes)) if sizes[t] and t in (set(only) or {t})]
    for topic in sorted(chosen, key=lambda t: -sizes[t]):
        size, inside = int(sizes[topic]), counts[topic]
        share, rest = inside / size, (total - inside) / max(n - size, 1)
        held = (inside >= 2) & (share >= MIN_SHARE)  # a name is shared: one paper's phrase names nothing
        fit = np.flatnonzero(held & ~book.listing & (share >= CONTRAST * rest) & (rest < MIN_SHARE))
        common, close = np.array([background(book, book.keys[j]) for j in fit]).reshape(-1, 2).T
        keep = close > 0 if categories else common <= NAME_MAX_DF  # final names: collocations (see module)
        fit, common = fit[keep], common[keep]
        weight = inside[fit] / size * np.log1p(average / (total[fit] + n * common))
        score = {book.keys[j]: float(w) for j, w in zip(fit.tolist(), weight.tolist(), strict=True)}
        ranked = sorted(score, key=lambda k: (-score[k], k))
        cats = np.flatnonzero(listing & held & (share >= CATEGORY_CONTRAST * rest)).tolist()
        cats.sort(key=lambda j: (-share[j] * share[j] / (share[j] + rest[j]), book.keys[j]))
        label = _label(book, ranked, inside, used, [book.keys[j] for j in cats])
        used |= {label} - {""}
        found[topic] = (label, _terms(book, labels == topic, label, ranked, score) if categories else ())
    return dict(book.memo.setdefault(memo, found))


def background(book: PhraseBook, key: str) -> tuple[float, bool]:
    """A phrase in the store: the share of the papers writing its rarest word pair as shown, and whether it
    is a collocation, each pair of its terms in ``COLLOCATION`` of the papers writing the pair's rarer word
    (or it holds a hyphenated compound, the field's own; see module)."""
    written, lexical = shown(book, key), book.lexical or None
    if lexical is not None and ("store", key) not in book.memo:
        df, words = lexical.arrays["df"], written.replace("-", " ").split()
        joint = [p for p in terms(written) if " " in p and "-" not in written]
        close = all(df[term_slot(p)] >= COLLOCATION * min(df[term_slot(w)] for w in p.split()) for p in joint)
        rarest = min(float(df[term_slot(p)]) for p in [" ".join(pair) for pair in pairwise(words)] or words)
        book.memo["store", key] = (rarest / len(lexical), close)
    return cast(tuple[float, bool], book.memo.get(("store", key), (0.0, True)))


def _label(book: PhraseBook, ranked: list[str], inside: np.ndarray, used: set[str], cats: list[str]) -> str:
    """A topic's name from its qualifying keys, best first (see module); ``""`` when none fits."""
    if "longer" not in book.memo:  # each phrase: the columns of the longer keys opening or ending with it
        longer = book.memo["longer"] = {}
        for j, words in enumerate(k.split() for k in book.keys):
            for cut in range(1, len(words) - 1):
                for part in (" ".join(words[:-cut]), " ".join(words[cut:])):
                    longer.setdefault(part, []).append(j)
    fit, last = set(ranked), []

    def taken(k: str) -> bool:  # a name of the day, or one opening with it or it opens with
        return k in used or any(
            (" " in u and f"{k} ".startswith(f"{u} ")) or u.startswith(f"{k} ") for u in used
        )

    for key in (k for k in ranked if " " in k and not taken(k)):
        if _half(book, key):  # a modifier: the best qualifying noun phrase holding it
            wider = [k for k in ranked if f" {key} " in f" {k} " and k != key and not taken(k)]
            if wider := [k for k in wider if noun_phrase(book, k) and not _half(book, k)]:
                return wider[0]
            continue
        most = max(book.memo["longer"].get(key, []), key=lambda j: (inside[j], book.keys[j]), default=None)
        cut = most is not None and inside[most] >= CUT_SHORT * inside[book.column[key]]
        whole = book.keys[most or 0] if cut else key
        if whole in fit and not taken(whole) and noun_phrase(book, whole) and not _half(book, whole):
            if not (whole == key and book.memo["piece", key]) and background(book, whole)[0] <= NAME_MAX_DF:
                return str(whole)
            last.append(whole)  # the field's vocabulary, a piece of compounds ("level preference"): last
    lone = (k for k in ranked if " " not in k and k not in used and lone_term(book, k))
    return next(chain((c for c in cats if c not in used), last, lone), "")


def _terms(
    book: PhraseBook, mask: np.ndarray, label: str, ranked: list[str], score: dict[str, float]
) -> tuple[str, ...]:
    """The name, then up to ``TERMS`` phrases by MMR: score against papers shared (Jaccard), none nested."""
    pool = [k for k in ranked[: 8 * TERMS] if (noun_phrase(book, k) if " " in k else lone_term(book, k))]
    picked, top = [label] if label else [], max(score.values(), default=1.0)
    held = {k: mask & holding(book, k) for k in [*pool, label] if k in book.column and CATEGORY not in k}

    def gain(k: str) -> float:
        overlap = [(held[k] & held[p]).sum() / (held[k] | held[p]).sum() for p in picked if p in held]
        return MMR * score[k] / top - (1 - MMR) * max(overlap, default=0.0)

    for _ in range(TERMS - len(picked)):
        pool = [k for k in pool if not any(f" {k} " in f" {p} " or f" {p} " in f" {k} " for p in picked)]
        picked += [max(pool, key=lambda k: (gain(k), k))] if pool else []
    return tuple(picked)


def _half(book: PhraseBook, key: str) -> bool:
    """Whether a phrase is shown as one hyphenated compound (``multi-agent``): half a phrase."""
    return " " not in shown(book, key) and "-" in shown(book, key)


def named(book: PhraseBook, name: str) -> bool:
    """Whether a name (a key) is a phrase of two to five words, not one hyphenated compound, or a category."""
    return name.startswith(CATEGORY) or (2 <= len(name.split()) <= NAME_WORDS and not _half(book, name))
