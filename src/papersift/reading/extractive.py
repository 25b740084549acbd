"""The TL;DR shown without a model: the abstract sentence a small learned ranker scores highest, labelled
``extractive`` where it is shown.

**How a sentence is chosen.** The abstract is cut by ``index/sentences.py``'s splitter and each sentence
gets the ``FEATURES`` below (position, length, role, similarity to the title and to the rest of the
abstract, whether the authors speak in it, whether it has figures); its score is ``WEIGHTS`` · features
and the best one is shown. Two kinds of sentence are never chosen: one that opens with a connective
(``connective_opener``: "However, …", "To this end, …"; it leans on the sentence before it, and read alone
it says less than it seems to), and one that only says where the code is. An abstract with no other
sentence has no extractive TL;DR (the paper's JSON says so in ``error``).

The similarities read words, not vectors: the words outside math as the analyzer gives them
(``records.analyzer.content_stems``: folded, without stop words, stemmed by the Snowball English
stemmer). ``title`` is the share of the title's words the sentence has; ``centroid`` the cosine of its
tf-idf vector with the rest of the abstract's (idf over the abstract's own sentences). The MiniLM encoder
was not used: a listing page scores every abstract it shows, and lexical similarity already beats Lead-1
by a wide margin. A key sentence costs about 1.3 ms (2,000 abstracts of ``arxiv-20k``, a shared machine):
the cue words of ``index.sentences.roles`` and the ``HOUSEKEEPING`` test read an ASCII sentence
lower-cased, the same matches as ``IGNORECASE`` in half the time or less; a page makes the key sentences of
the rows it shows only, each once per process (``reading/shown.py``).

**How the weights were fitted** (``python bench/tldr_fit.py``, which prints the figures below): on
SciTLDR-A's dev split (619 papers of OpenReview with 1,453 gold TL;DRs, ``../shared/data``), each
sentence's target is its mean ROUGE-1/2/L F1 against the paper's gold TL;DRs (the best over them, Google's
rouge-score with stemming, as ``reading/tldr_eval.py`` scores); a pairwise logistic regression
(scikit-learn, C=1, no intercept) learns which of two sentences of a paper scores higher, over every pair
of its sentences that may be chosen. The weights are that fit on all of dev, rounded to three places.

**Measured** (ROUGE-1 / 2 / L F1 ×100, best over each paper's gold TL;DRs, ``papersift eval tldr``): fitted
on one half of dev (split by a hash of the paper id, ``tldr_eval.halves``) and scored on the other, both
ways, the chooser scores 38.8 / 17.5 / 30.9 against Lead-1's 29.2 / 10.3 / 22.8 (A→B) and 41.3 / 20.2 /
33.2 against 31.1 / 12.7 / 24.6 (B→A); pooled 40.1 / 18.9 / 32.1 against Lead-1 30.2 / 11.5 / 23.7, the
role-rule chooser it replaced 27.7 / 8.1 / 20.8 (which opened with a connective in 76 of the 619 papers)
and the best single sentence (the oracle) 47.1 / 26.9 / 39.8. The shipped weights score 40.3 / 19.1 / 32.3
on all of dev. The connective rule costs a little: 84 of the 619 oracle sentences open with a connective,
and fitted and scored without the rule the held-out halves score 40.7 / 19.6 / 32.6; it is kept because such
a sentence, read alone, leans on one the reader does not see.

**Math** is kept as written (titles and abstracts keep LaTeX and the faces typeset ``$…$``); a sentence
longer than ``MAX_CHARS`` is cut at a space outside math, never inside a word or a formula.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from papersift.index.sentences import roles, split_sentences
from papersift.records.analyzer import content_stems

EXTRACTIVE = "extractive"  # the ``by`` of an extractive TL;DR
MAX_CHARS = 400

FEATURES = (
    "first",  # the abstract's first sentence
    "second",  # its second
    "last",  # its last (of two or more)
    "position",  # index / (sentences - 1)
    "length",  # words / 40 (at most 80 words)
    "length²",
    "background",  # the role ``index.sentences.roles`` gives it (one of three)
    "method",
    "result",
    "title",  # the share of the title's words it has
    "centroid",  # tf-idf cosine with the rest of the abstract
    "we",  # the authors speak: "we" or "our"
    "digits",  # it has a figure
)
# fitted by bench/tldr_fit.py on all of SciTLDR-A dev (see above); one per FEATURES entry
WEIGHTS = np.array(
    [-0.167, -0.195, -0.020, -1.040, 1.347, -1.060, -0.411, 0.189, 0.222, 2.470, 5.330, 0.412, -0.244]
)

# -- connectives ----------------------------------------------------------------------------------------
# The explicit connectives of the Penn Discourse Treebank 2.0 (Prasad et al., LREC 2008) that are discourse
# adverbials or coordinating conjunctions: when one opens a sentence its first argument is the sentence
# before, so the sentence does not stand alone. (Its subordinating conjunctions, "Although …, …", "While
# …, …", take both arguments inside the sentence and are not connectives in this sense.) Words that also
# open plain sentences ("Further experiments …", "Overall performance …", "Rather than …") count only when a
# comma follows them; the multi-word ones always need it ("In addition to X, we …" is a preposition).
_ALWAYS = frozenset(
    """accordingly additionally afterward afterwards also alternatively and besides but consequently
    conversely finally furthermore hence however indeed instead likewise meantime meanwhile moreover
    nevertheless nonetheless nor or otherwise similarly specifically thereafter thereby therefore
    thus""".split()
)
_WITH_COMMA = frozenset(
    """earlier further later next overall plus previously rather regardless separately simultaneously
    so still then ultimately yet""".split()
)
_PHRASES = (
    "as a result",
    "as an alternative",
    "as well",
    "at the same time",
    "by comparison",
    "by contrast",
    "by then",
    "for example",
    "for instance",
    "in addition",
    "in contrast",
    "in fact",
    "in other words",
    "in particular",
    "in short",
    "in sum",
    "in the end",
    "in the meantime",
    "in turn",
    "on the contrary",
    "on the one hand",
    "on one hand",
    "on the other hand",
    "that is",
)
# part of speech without a tagger: an adverb by its -ly ending, or an ordinal, set off by a comma at the
# start is a sentence adverbial ("Interestingly, …", "Second, …"); an opening prepositional or to-phrase
# with a demonstrative ("To this end, …", "Based on these results, …") points back at the sentence before
_ORDINALS = frozenset("first second third fourth fifth firstly secondly thirdly lastly".split())
_PREPOSITIONS = frozenset(
    """to in by for from with at on as under using based given despite unlike after before through
    following building motivated inspired beyond towards toward""".split()
)
_DEMONSTRATIVES = frozenset("this these that those such".split())
_DOCUMENT = frozenset("paper work study article letter note thesis report manuscript chapter".split())
_OPENING = re.compile(r"^[\"'(\[]*([^,;:.]{1,80}?),")
_FIRST = re.compile(r"^[\"'(\[]*([A-Za-z]+)(,?)")


def connective_opener(sentence: str) -> str | None:
    """The connective a sentence opens with ("However", "To this end"), or None when it opens with none."""
    first = _FIRST.match(sentence)
    if first is None:
        return None
    word, comma = first.group(1), bool(first.group(2))
    low = word.lower()
    if low in _ALWAYS or (comma and low in _WITH_COMMA):
        return word
    opening = _OPENING.match(sentence)
    if opening is None:
        return None
    phrase = opening.group(1).strip()
    words = phrase.lower().split()
    if " ".join(words) in _PHRASES:
        return phrase
    if len(words) == 1 and (words[0] in _ORDINALS or (words[0].endswith("ly") and words[0].isalpha())):
        return phrase
    if (
        len(words) <= 6
        and words[0] in _PREPOSITIONS
        and _DEMONSTRATIVES & set(words)
        and not _DOCUMENT & set(words)
        and not {"we", "our"} & set(words)
    ):
        return phrase
    return None


# housekeeping, not a finding: where the code or data are, what was accepted where
HOUSEKEEPING = re.compile(
    r"https?://|www\.|github|gitlab|\b(?:code|data(?:set)?s?|models?|implementation|weights)\b.{0,40}"
    r"\b(?:available|released|public(?:ly)?|open-sourced?)\b|\baccepted (?:at|to|by)\b",
    re.IGNORECASE,
)
_ASCII_HOUSEKEEPING = re.compile(HOUSEKEEPING.pattern)  # for ASCII lower-cased: the same, faster


def housekeeping(sentence: str) -> bool:
    """Whether ``sentence`` says where the code or data are, or where the paper was accepted."""
    if sentence.isascii():  # no ASCII letter folds to another character: lower-cased, the same matches
        return _ASCII_HOUSEKEEPING.search(sentence.lower()) is not None
    return HOUSEKEEPING.search(sentence) is not None


# -- features -------------------------------------------------------------------------------------------
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$]*\$|\\\(.+?\\\)|\\\[.+?\\\]|\\[A-Za-z]+", re.DOTALL)
_AUTHORS = re.compile(r"\b(?:we|our)\b", re.IGNORECASE)
_DIGIT = re.compile(r"\d")


def _terms(text: str) -> list[str]:
    """The stemmed content words of ``text`` outside math."""
    return content_stems(_MATH.sub(" ", text))


def sentence_features(title: str, sentences: Sequence[str]) -> np.ndarray:
    """The ``FEATURES`` of each of an abstract's ``sentences`` (a row each), given the paper's title."""
    n = len(sentences)
    out = np.zeros((n, len(FEATURES)))
    if not n:
        return out
    terms = [_terms(s) for s in sentences]
    title_terms = set(_terms(title))
    vocabulary = {t: i for i, t in enumerate(sorted({t for ts in terms for t in ts}))}
    counts = np.zeros((n, max(1, len(vocabulary))))
    for row, ts in enumerate(terms):
        for t in ts:
            counts[row, vocabulary[t]] += 1
    df = (counts > 0).sum(axis=0)
    tfidf = counts * (np.log((n + 1) / (df + 1)) + 1)
    rest = tfidf.sum(axis=0) - tfidf
    norms = np.linalg.norm(tfidf, axis=1) * np.linalg.norm(rest, axis=1)
    centroid = np.divide((tfidf * rest).sum(axis=1), norms, out=np.zeros(n), where=norms > 0)
    tags = roles(list(sentences), has_title=False)
    for i, sentence in enumerate(sentences):
        length = min(len(sentence.split()), 80) / 40
        out[i] = (
            i == 0,
            i == 1,
            i == n - 1 and n > 1,
            i / (n - 1) if n > 1 else 0.0,
            length,
            length * length,
            tags[i] == 0,
            tags[i] == 1,
            tags[i] == 2,
            len(set(terms[i]) & title_terms) / len(title_terms) if title_terms else 0.0,
            centroid[i],
            bool(_AUTHORS.search(sentence)),
            bool(_DIGIT.search(sentence)),
        )
    return out


def choosable(sentences: Sequence[str]) -> np.ndarray:
    """Which sentences may be chosen: none that opens with a connective; of the rest, none that only says
    where the code is (unless nothing else is left)."""
    plain = np.array([connective_opener(s) is None for s in sentences], dtype=bool)
    finding = plain & np.array([not housekeeping(s) for s in sentences], dtype=bool)
    return finding if finding.any() else plain


def choose(title: str, sentences: Sequence[str], weights: np.ndarray = WEIGHTS) -> int | None:
    """The index of the sentence to show (None when none may be chosen)."""
    allowed = choosable(sentences)
    if not allowed.any():
        return None
    scores = sentence_features(title, sentences) @ weights
    return int(np.argmax(np.where(allowed, scores, -math.inf)))


def shorten(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` in at most ``limit`` characters: cut at a space outside math, with "…" (as it is when it
    fits)."""
    if len(text) <= limit:
        return text
    inside = np.zeros(len(text) + 1, dtype=bool)
    for m in _MATH.finditer(text):
        inside[m.start() : m.end()] = True
    cut = next((i for i in range(limit - 1, 0, -1) if text[i] == " " and not inside[i]), 0)
    return (text[:cut].rstrip(" ,;:") if cut else text[: limit - 1].rstrip()) + "…"


def key_sentence(abstract: str, title: str = "", weights: np.ndarray = WEIGHTS) -> str | None:
    """The abstract's key sentence as a TL;DR (None when there is none to show), at most ``MAX_CHARS``."""
    sentences = split_sentences(abstract)
    chosen = choose(title, sentences, weights)
    return None if chosen is None else shorten(sentences[chosen])
