"""Query understanding: what a search query meant, before any ranker sees it.

``understand`` rewrites a query in three steps, each against the store's own vocabulary
(``index.vocabulary``), and says which it applied (``Understood.applied``):

1. **Another script** (中文 and other Han text): translated to English (``ranking.to_english``: by a
   configured model when its answer passes the query's checks, else offline by CC-CEDICT over the
   segmenter's words, read as the phrases the store's papers write). Latin words of a mixed query are kept
   as they are. ``Understood.translated_by`` and the note say which reading was searched for, and a model
   answer set aside has a note of its own saying why.
2. **Misspellings** (``ranking.spelling``): a word the corpus does not know is corrected to the commonest
   near word the corpus does, never a known word, a name, an id or a quoted phrase; a gibberish query is
   left alone.
3. **Acronyms** (``ranking.acronyms``): a short form the papers define (``GNN``) brings its long form
   ("graph neural network"), and a long form its short form, into the keyword query (as ``a OR b``) and
   the tf-idf side.

``Understood.text_used`` is what every ranker (the dense vector too) searches for; the faces show it as
"searched for: …" with a way to search the original verbatim.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from papersift.index.indexes import Indexes
from papersift.ranking.acronyms import expand
from papersift.ranking.query_form import HAN, TOKEN, mostly_other, script_of
from papersift.ranking.spelling import corrected, near_words
from papersift.ranking.to_english import Translate, to_english
from papersift.records.analyzer import index_words, words
from papersift.records.messages import Message, say
from papersift.records.paper import is_arxiv_id

SENTENCE_WORDS = 8  # a query of more words is a sentence, not a topic (see ``understand``)
PASSAGE_WORDS = 60  # …and of more than this a passage (an abstract): never spell-corrected


@dataclass(frozen=True)
class Understood:
    """A query as understood: the text searched for and what was done to the original to get it."""

    text_used: str
    original: str
    applied: list[Message] = field(default_factory=list)  # one note per rewrite, e.g. "corrected: a → b"
    corrections: list[tuple[str, str]] = field(default_factory=list)
    translation: str | None = None  # the English of a query in another script
    translated_by: str | None = None  # which reading it is: "model" or "dictionary" (None: not translated)
    suggestions: list[str] = field(default_factory=list)  # near terms, for a query matching nothing
    acronyms: list[tuple[str, str]] = field(default_factory=list)  # (form in the query, the other form)
    keyword_text: str = ""  # the FTS side: ``text_used`` with each acronym as ``form OR other``
    lexical_text: str = ""  # the tf-idf side: the text used (none when no word is known), the other forms
    verbatim: bool = False
    # a dictionary's word-by-word translation: a bag of likely words, not a phrase any paper holds whole,
    # so keyword search ranks the papers having any of them (BM25) instead of requiring all
    loose: bool = False

    @property
    def rewritten(self) -> bool:
        return self.text_used != self.original or bool(self.acronyms)

    @property
    def highlight(self) -> list[str]:
        """Words to mark in results: the query's and each acronym's other form."""
        found = words(self.text_used)
        for _, other in self.acronyms:
            found += words(other)
        return list(dict.fromkeys(found))


def verbatim(query: str) -> Understood:
    """The query as typed, nothing rewritten (``--exact``, ``verbatim=1``, or no vocabulary yet)."""
    return Understood(query, query, keyword_text=query, lexical_text=query, verbatim=True)


def understand(
    indexes: Indexes,
    query: str,
    *,
    author: str | None = None,
    translate: Translate | None = None,
    correct: bool = True,
) -> Understood:
    """What ``query`` meant (see the module's docstring); the query itself when nothing applies
    (``correct``: whether misspellings may be corrected; a pasted text's are not)."""
    vocabulary = indexes.vocabulary
    if vocabulary is None or not query.strip() or is_arxiv_id(query.strip()):
        return replace(verbatim(query), verbatim=False)
    applied: list[Message] = []
    text, translation, loose, translated_by = query, None, False, None
    script = script_of(query)
    if HAN.search(query) or (script != "LATIN" and translate is not None):
        english = to_english(indexes, vocabulary, query, translate)
        translation, loose = english.text, english.loose
        if english.refused is not None:
            applied.append(english.refused)
        if translation and translation != query:
            key = "translated_model" if english.by == "model" else "translated"
            applied.append(say(key, query=query, translation=translation))
            text, translated_by = translation, english.by
    elif script != "LATIN" and mostly_other(query):  # not the β of "β-decay"
        applied.append(say("not_translated", script=script.lower()))
    # the dictionary's words are its own spelling; the Latin words of a mixed query may be misspelled
    dictionary_words = set(index_words(translation)) - set(index_words(query)) if translation else set()
    # a passage (a pasted abstract) is its authors' own spelling: correcting it would move its vector off
    # the stored vector of the same text
    corrections: list[tuple[str, str]] = []
    if correct and len(text.split()) <= PASSAGE_WORDS:
        text, corrections = corrected(vocabulary, text, author, skip=dictionary_words)
    applied += [say("corrected", wrong=a, right=b) for a, b in corrections]
    # a sentence (a pasted citation, an abstract) already says what it means: its acronyms are left as
    # they are (on the dev citation sentences expanding them lowered MRR@10)
    sentence = len(text.split()) > SENTENCE_WORDS
    keyword_text, acronyms = (text, []) if sentence else expand(vocabulary, text)
    applied += [say("acronym", form=a, other=b) for a, b in acronyms]
    wanted = " ".join(  # the text but its -exclusions, as search's tf-idf side saw it before
        m.group(0) for m in TOKEN.finditer(text) if not (m.group(1) or (m.group(3) or "").startswith("-"))
    )
    # the tf-idf side hashes terms into slots that real terms share, so a query of none but unknown words
    # would find "shared terms" by chance: it gets none (a query with a known word is kept whole)
    known = wanted if any(vocabulary.df(w) > 0 for w in index_words(wanted)) else ""
    lexical_text = " ".join([known, *(other for _, other in acronyms)]).strip()
    return Understood(
        text_used=text,
        original=query,
        applied=applied,
        corrections=corrections,
        translation=translation,
        translated_by=translated_by,
        acronyms=acronyms,
        keyword_text=keyword_text,
        lexical_text=lexical_text,
        loose=loose,
    )


def suggest(indexes: Indexes, understood: Understood, n: int = 5) -> list[str]:
    """Near terms the corpus knows for a query that matched nothing: words within two edits of its unknown
    words, commonest first. Never category codes: a face offers the categories as a link of its own."""
    vocabulary = indexes.vocabulary
    return near_words(vocabulary, understood.text_used, n) if vocabulary is not None else []
