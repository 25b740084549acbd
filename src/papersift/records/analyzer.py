"""The one text analyzer: every way papersift folds, splits, singularizes and stems words, and its stop words.

No other module keeps a word pattern or a stemmer (``tests/test_analyzer.py`` fails on one): a module that
needs words of a text takes them from one of the pipelines below, so that what counts as a word is decided
here, once.

**Folding.** ``fold``: accents folded to ASCII, lower-cased ("Schrödinger" → "schrodinger"); letters with no
ASCII form are dropped. ``ascii_letters``: the same, the case kept. ``fold_letters``: accents dropped, case
folded, other scripts kept ("Jérôme" → "jerome", "张伟" → "张伟"); ``fold_title`` a title's letters and digits
so folded (how an imported title meets a stored one).

**Pipelines**, by who reads them:

- ``index_words`` (the *index text* pipeline): folded ASCII tokens (``INDEX_TOKEN``: a letter or ``_`` then
  letters, digits or ``_``; one-letter tokens never). The lexical index's terms and its vocabulary
  (``index/lexical``, ``index/vocabulary``), spelling's protected names, ``to_english``, ``understand``;
  ``INDEX_TOKEN`` is also the ``token_pattern`` of ``ranking/evaluate``'s TF-IDF baseline (arxiv-sanity-lite's
  own). Changing it changes every index's terms.
- ``content_stems`` (*index text, stemmed*): ``index_words`` without stop words, Snowball-stemmed: the
  extractive TL;DR's similarities (``reading/extractive``) and a query's English against its source
  (``reading/checks``).
- ``words`` (the *query* pipeline): the runs of word characters as written (``\\w+``, any script): a query's
  words (``records/query``, ``ranking/search``, ``store/fts_query``, the search page's highlighting), a
  title's words (``store/paper_rows``); ``one_word`` whether a text is one such run (``sources/latex``).
- ``plain_words``: lower-cased runs of letters and digits, any script, ``_`` splitting: a section's words for
  its BM25 (``reading/sections``), a reference's title key (``ranking/evidence``), a venue title's key
  (``sources/venue_match``).
- ``letter_words`` / ``LETTERS``: runs of letters only, as written ("Kähler" whole): spelling's correctable
  words (``ranking/spelling``), related papers' key words (``ranking/related``), a bibliography title's
  words (``sources/texbib``), a citation key's word (``sources/references``).
- ``phrase_pieces`` and ``unhyphenated`` (the *display phrase* pipeline): folded words, hyphenated compounds
  whole, and punctuation marks, in order (``ranking/phrases``); hyphens read as spaces unless the compound
  holds a stop word (``ranking/topics``). ``phrase_key`` is a phrase as phrases are matched: each word
  ``singular``. A key is never shown: a topic's name is shown as its papers write it (the commonest surface
  form, ``ranking/topics/book.written``), so "studie" (the key of "studies") is never a word on a page.
- ``keyword_tokens`` / ``keyword_text`` (the *keyword index* pipeline): accents dropped and case folded
  (``fold_letters``), runs of letters and digits (any script, ``_`` splitting), each Porter-stemmed, stop
  words kept; a prefix query's last word folded, not stemmed. What both stores' keyword index holds and
  what a keyword query is written in (``store/fts_query``), so SQLite and PostgreSQL find the same papers:
  changing it means rebuilding the keyword index (a migration of both backends).
- ``name_words`` (the *name matching* pipeline): the folded words of an author's name, an inner hyphen or
  apostrophe kept (the lexical index's author keys, the vocabulary's surnames); ``name_pieces`` a name's
  letter runs as written, an inner apostrophe kept, hyphens splitting (``records/names``: surnames and
  initials compared); ``named_compound`` capitalised names joined by hyphens ("Navier-Stokes", spelling).
- ``latin_words``, ``latin_tokens``, ``latin_runs``, ``mixed_words`` (*language judgement*,
  ``reading/checks``, ``ranking/spelling``'s near words): Latin-letter words, Latin words or numbers, runs
  of Latin words, and a mixed text's words (a CJK character each, other words whole).

**Word forms.** ``singular``: one plural rule for every English word folded (see its docstring);
``singular_acronym`` the one for short forms ("GNNs" → "GNN"). ``stem``/``stem_words``: the Snowball English
stemmer (PyStemmer). ``STOP_WORDS``: English function words, no evidence of topic.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

STOP_WORDS = frozenset(  # English function words: no evidence of topic
    """a about above after again against all almost along already also although always am among an and
    another any are around as at be became because become been before being below between both but by
    can cannot could de did do does done down due during each eg either else et etc even ever every for
    from further get give had has have he hence her here hers him his how however i ie if in into is it
    its itself just least less may me might more most much must my neither no nor not now of off often
    on once one only onto or other others otherwise our ours out over own per perhaps rather same see
    seem seems several she should since so some still such than that the their them then there thereby
    therefore these they this those though through thus to together too under until up upon us very via
    was we well were what when where whereas whether which while who whom whose why will with within
    without would yet you your""".split()
)
WORD = re.compile(r"\w+")
NAME_PART = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")  # a name's word: letters, an inner ' or - kept
_NOT_LETTER = re.compile(r"[\W_]+")
INDEX_TOKEN = re.compile(r"\b[a-z_][a-z0-9_]+\b")  # on folded text: the lexical index's tokens
LETTERS = re.compile(r"[^\W\d_]+")  # a run of letters, any script: "Kähler" whole, never "hler"
_LETTERS_AND_DIGITS = re.compile(r"[^\W_]+")
_PHRASE_PIECE = re.compile(r"[^\W_]+(?:-[^\W_]+)*|[^\w\s-]")  # a word (hyphenated compounds whole) or a mark
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")  # words of letters joined by hyphens
_NAME_PIECE = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")  # letters, an inner apostrophe kept
_NAMED_COMPOUND = re.compile(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+")  # Navier-Stokes, Boros-Moll
# language judgement: Latin letters and CJK characters
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # a CJK ideograph
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")
_LATIN_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'’.][A-Za-z0-9]+)*")
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*(?:[ ,;:()/-]+[A-Za-z0-9][A-Za-z0-9'’-]*)*")
_MIXED_WORD = re.compile(
    r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[$\\^{}]+"
)
KEYWORD_CHARS = 100_000  # the keyword index reads this much of a field (a huge abstract is cut)
KEYWORD_TOKEN_MAX = 100  # characters: a longer run (a sequence, a hash) is no keyword
_ASCII_LETTERS_AND_DIGITS = re.compile(r"[a-z0-9]+")  # ``_LETTERS_AND_DIGITS`` on lower-cased ASCII
KEYWORD_STEMS_KEPT = 500_000  # distinct words whose stems ``keyword_stem`` keeps (least recent go first)
# the keyword pipeline's stemmer: the original Porter algorithm (PyStemmer's), the one FTS5's porter
# tokenizer applied before both stores shared this pipeline; Snowball English here cost hybrid search
# 0.003 nDCG@10 on `eval search`
KEYWORD_STEMMER = "porter"
KEYWORD_STEMMED = (3, 64)  # token lengths stemmed, as FTS5's porter: "s" stays "s", never ""
# ``singular`` leaves a word of at most this many letters as it is ("gas", "bus", "has")
SINGULAR_MIN = 3
_NOT_PLURAL = ("ss", "us", "is")  # "loss", "corpus", "analysis": a final s that is no plural

_stemmers = threading.local()  # a PyStemmer stemmer is not to be shared between threads


def fold(text: str) -> str:
    """Accents folded to ASCII, lower-cased; letters with no ASCII form dropped ("Ångström" → "angstrom")."""
    return ascii_letters(text).lower()


def ascii_letters(text: str) -> str:
    """Accents folded to ASCII, the case kept (``fold`` without lower-casing: "Ångström" → "Angstrom")."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def fold_letters(text: str) -> str:
    """Accents dropped, case folded; letters of other scripts kept as they are ("Müller" → "muller",
    "Ωmega" → "ωmega", "张伟" → "张伟")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def fold_title(title: str) -> str:
    """A title reduced to its letters and digits, accents dropped and case folded (``fold_letters``): how an
    imported title is matched to a stored paper's ("Schrödinger's cat" = "Schrodingers Cat")."""
    return _NOT_LETTER.sub("", fold_letters(title))


def words(text: str) -> list[str]:
    """The word-character runs of ``text`` as written, in order ("β-decay's" → β, decay, s)."""
    return WORD.findall(text)


def index_words(text: str) -> list[str]:
    """The lexical index's tokens of ``text``: folded (``fold``), then ``INDEX_TOKEN``'s matches, in order."""
    return INDEX_TOKEN.findall(fold(text))


def name_words(name: str) -> list[str]:
    """The folded words of an author's name (``NAME_PART``): ``"Jean-Luc O'Néil, Jr."`` → jean-luc, o'neil,
    jr: what the lexical index's author keys and the vocabulary's surnames read."""
    return NAME_PART.findall(fold(name))


def keyword_tokens(text: str, *, prefix: bool = False) -> list[str]:
    """The keyword index's tokens of ``text``, in order: its first ``KEYWORD_CHARS`` characters folded
    (``fold_letters``), cut into runs of letters and digits (``_`` splitting), those over
    ``KEYWORD_TOKEN_MAX`` characters left out, each Porter-stemmed (``KEYWORD_STEMMER``: "Graph Neural
    Networks" → graph, neural, network; "Schrödinger's" → schroding, s). With ``prefix`` (a query's
    ``graph*``) the last token is not stemmed: it starts the words it finds."""
    head = text[:KEYWORD_CHARS]
    if head.isascii():  # the common case, made cheap: the same tokens
        found = _ASCII_LETTERS_AND_DIGITS.findall(head.lower())
    else:
        found = _LETTERS_AND_DIGITS.findall(fold_letters(head))
    if found and max(map(len, found)) > KEYWORD_TOKEN_MAX:
        found = [t for t in found if len(t) <= KEYWORD_TOKEN_MAX]
    if prefix and found:
        return [*_keyword_stems(found[:-1]), found[-1]]
    return _keyword_stems(found)


def _keyword_stems(tokens: list[str]) -> list[str]:
    """The ``keyword_stem`` of each token."""
    return [keyword_stem(t) for t in tokens]


@lru_cache(maxsize=KEYWORD_STEMS_KEPT)
def keyword_stem(token: str) -> str:
    """The ``KEYWORD_STEMMER`` stem of a token of ``KEYWORD_STEMMED`` length, any other token as it is. Kept
    (``lru_cache``, thread-safe): the words of papers repeat, and ingest stems every one."""
    if not KEYWORD_STEMMED[0] <= len(token) <= KEYWORD_STEMMED[1]:
        return token
    return str(_stemmer(KEYWORD_STEMMER).stemWord(token))


def keyword_text(text: str) -> str:
    """``keyword_tokens`` of ``text`` joined by spaces: the text a store's keyword index reads."""
    return " ".join(keyword_tokens(text))


def one_word(text: str) -> bool:
    """Whether ``text`` is one run of word characters (a word or a number: "x", "2n", "αβ")."""
    return WORD.fullmatch(text) is not None


def plain_words(text: str) -> list[str]:
    """The lower-cased runs of letters and digits of ``text``, any script, ``_`` splitting, in order
    ("Kähler-type GNNs_2" → kähler, type, gnns, 2)."""
    return _LETTERS_AND_DIGITS.findall(text.lower())


def letter_words(text: str) -> list[str]:
    """The runs of letters of ``text`` as written, any script, digits and ``_`` splitting, in order
    ("Kähler word2vec" → Kähler, word, vec)."""
    return LETTERS.findall(text)


def content_stems(text: str) -> list[str]:
    """The Snowball stems of ``text``'s ``index_words`` that are not stop words, in order ("The networks
    learned" → network, learn)."""
    return stem_words(w for w in index_words(text) if w not in STOP_WORDS)


def phrase_pieces(text: str) -> list[str]:
    """``text`` folded (``fold``), as its words (a hyphenated compound whole) and punctuation marks, in
    order ("Multi-agent RL, in 3D." → multi-agent, rl, ",", in, 3d, ".")."""
    return _PHRASE_PIECE.findall(fold(text))


def unhyphenated(text: str) -> str:
    """Hyphens between words of letters as spaces, except in a compound holding a stop word
    ("multi-agent" → "multi agent"; "chain-of-thought" kept)."""

    def spaced(match: re.Match[str]) -> str:
        compound = match[0]
        if STOP_WORDS & set(compound.lower().split("-")):
            return compound
        return compound.replace("-", " ")

    return _COMPOUND.sub(spaced, text)


def phrase_key(phrase: str) -> str:
    """A phrase as phrases are matched: each of its space-separated words ``singular`` ("graph neural
    networks" → "graph neural network"). A key, never a shown word ("case studies" → "case studie")."""
    return " ".join(singular(word) for word in phrase.split())


def name_pieces(name: str) -> list[str]:
    """A name's runs of letters as written, an inner apostrophe kept, hyphens and other marks splitting
    ("Jean-François O’Néil" → Jean, François, O’Néil): what ``records/names`` compares."""
    return _NAME_PIECE.findall(name)


def named_compound(token: str) -> bool:
    """Whether ``token`` is capitalised names joined by hyphens ("Navier-Stokes", "Boros-Moll")."""
    return _NAMED_COMPOUND.fullmatch(token) is not None


def latin_words(text: str) -> list[str]:
    """The words of two or more Latin letters in ``text`` (an inner apostrophe or hyphen kept: "don't",
    "state-of-the-art"), in order; numbers, other scripts and single letters are not words here."""
    return _LATIN_WORD.findall(text)


def latin_tokens(text: str) -> list[str]:
    """The Latin words and numbers of ``text`` (inner ``-``, ``'``, ``.`` kept: "GPT-4", "3.5"), in order."""
    return _LATIN_TOKEN.findall(text)


def latin_runs(text: str) -> list[str]:
    """The runs of Latin words and numbers in ``text``, with the spaces and light punctuation between
    them ("用 the Transformer of Vaswani et al. 模型" → "the Transformer of Vaswani et al"): an English
    clause inside a 中文 text."""
    return [m.group(0) for m in _LATIN_RUN.finditer(text)]


def mixed_words(text: str) -> list[str]:
    """The case-folded words of a text in either language: each CJK character alone, other words whole,
    a run of math marks (``$``, ``\\``, ``^``, braces) as one."""
    return [w.casefold() for w in _MIXED_WORD.findall(text)]


def singular(word: str) -> str:
    """A lower-case English word without its plural ``s``: one rule everywhere.

    A word longer than ``SINGULAR_MIN`` letters ending in ``s`` but not in ``ss``, ``us`` or ``is`` loses
    it ("networks" → "network", "gans" → "gan"); "loss", "corpus", "analysis", "gas" stay. "-ies"/"-es"
    forms lose the ``s`` only ("studies" → "studie"): both spellings of one word meet, never a new word.
    """
    if len(word) > SINGULAR_MIN and word.endswith("s") and not word.endswith(_NOT_PLURAL):
        return word[:-1]
    return word


def singular_acronym(short_form: str) -> str:
    """A short form without its plural ``s`` after a capital ("GNNs" → "GNN"; "IoT", "Ts", "gnns" stay)."""
    if len(short_form) > 2 and short_form.endswith("s") and any(c.isupper() for c in short_form[:-1]):
        return short_form[:-1]
    return short_form


def _stemmer(algorithm: str = "english") -> Any:
    stemmer = getattr(_stemmers, algorithm, None)
    if stemmer is None:
        import Stemmer  # PyStemmer: loaded by the first stem, not by every import of the records layer

        stemmer = Stemmer.Stemmer(algorithm)
        setattr(_stemmers, algorithm, stemmer)
    return stemmer


def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word ("networks" → "network", "learning" → "learn")."""
    return str(_stemmer().stemWord(word))


def stem_words(words: Iterable[str]) -> list[str]:
    """``stem`` of each word, in one call to the stemmer."""
    return [str(w) for w in _stemmer().stemWords(list(words))]
