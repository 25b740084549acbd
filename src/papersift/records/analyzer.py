"""The one text analyzer: how papersift tokenizes, folds, singularizes and stems words, and its stop words.

- ``fold``: accents folded to ASCII, lower-cased ("Schrödinger" → "schrodinger"); letters with no ASCII
  form are dropped. What the lexical index, its vocabulary, phrases and citation keys read.
- ``fold_letters``: accents dropped, case folded, letters of other scripts kept ("Jérôme" → "jerome",
  "张伟" → "张伟"): what author names are compared as; ``fold_title`` a title's letters and digits so folded.
- ``words``: the runs of word characters of a text as written (``\\w+``, any script): a query's words, a
  title's words.
- ``name_words``: the folded words of an author's name (the lexical index's author keys, the surnames).
- ``index_words``: the folded ASCII tokens the lexical index and its vocabulary read (``INDEX_TOKEN``: a
  letter or ``_`` then letters, digits or ``_``; one-letter tokens never): changing it changes every
  index's terms.
- ``singular``: one plural rule for every English word folded (see its docstring); ``singular_acronym``
  the one for short forms ("GNNs" → "GNN").
- ``stem``/``stem_words``: the Snowball English stemmer (PyStemmer).
- ``STOP_WORDS``: English function words, no evidence of topic.

Who uses it: records (``names``, ``query``'s words), sources (``references``' citation keys), store
(``fts_query``'s stop words and words, ``paper_rows``' titles), services (``eprints``' titles), index
(``lexical``'s terms and author keys, ``vocabulary``), ranking (``phrases``, ``spelling``, ``acronyms``,
``to_english``, ``understand``, ``related``, ``search``), reading (``extractive``'s stems, ``sections``,
``checks``) and web (``display_text``'s and the search page's highlighting).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
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


def _stemmer() -> Any:
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        import Stemmer  # PyStemmer: loaded by the first stem, not by every import of the records layer

        stemmer = _stemmers.english = Stemmer.Stemmer("english")
    return stemmer


def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word ("networks" → "network", "learning" → "learn")."""
    return str(_stemmer().stemWord(word))


def stem_words(words: Iterable[str]) -> list[str]:
    """``stem`` of each word, in one call to the stemmer."""
    return [str(w) for w in _stemmer().stemWords(list(words))]
