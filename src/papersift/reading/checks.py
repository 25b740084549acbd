"""The checks every model text passes before it is stored or shown: one set of rules per kind of text, each
rule a reason with its arguments (``Verdict``), said to a reader as a message (``check_<reason>`` in
``records/messages.py``; its 中文 is the catalog's).

The rules, by reason (``check(kind, text, …)`` runs the ones that fit the kind):

- ``empty()``: no text at all (every kind).
- ``markup(tag)``: a prompt tag (``<paper>``, ``</title>``) or an HTML tag outside ``$…$`` math (every
  kind); Markdown (``**``, ``##``, backticks) in the one-line kinds (TL;DR, title, topic name).
- ``too_long(size, limit, unit)``: over the kind's bound (``MAX_WORDS``: a TL;DR is one sentence of at
  most 50 English words or 120 中文 characters; ``MAX_CHARS`` for the rest).
- ``cut_off(end)``: stopped mid-word or mid-sentence: an ellipsis after a letter ("…while p…"), or no
  closing punctuation after a word no sentence ends on ("… while p", "… of the").
- ``wrong_language(asked, got)``: a 中文 text is in CJK script (at least 30% of its CJK characters and Latin
  words are CJK: the terms kept in English can be many; math, marks and Markdown left out); an English one
  is not (at most 30%).
- ``mixed_language(words)``: a 中文 text carries an English clause (six or more Latin words in a row, two
  or more of them English function words), not only the terms researchers keep in English.
- TL;DR: ``several_sentences(count)`` (one sentence), ``copies_title()`` (it adds fewer than two words to
  the title's, function words aside, or fewer than three to the whole title written as one run: "This
  paper presents T." fails, "We devise adaptive loss scaling to improve mixed precision training"
  passes; 16 of SciTLDR-A dev's 619 authors' TL;DRs fail it), ``copies_abstract()`` (80% of its words or
  more are one stretch of the abstract's).
- Translation (title, abstract): ``cut_off(end)`` (an abstract's translation ends a sentence where its
  source does), ``math_lost(span)`` (every ``$…$`` of the source kept, spaces aside),
  ``length_off(ratio)`` (an abstract's translation is 0.8 to 4 text units per source word, a title's at
  most 4: a CJK character, a Latin word or a number is a unit).
- Ask: ``no_marks()`` (every answer cites its sources as ``[n]``), ``unknown_mark(mark, given)`` (a mark
  naming no paper or section given).
- Query (a search query's English, ``query_rules``): ``wrong_language(asked="en", got="zh")`` (no 中文
  left), ``echoes_prompt(words)`` (a lead-in such as "Translation:", or four words in a row of the prompt
  it was given), ``not_a_query(words)`` (a sentence, by its full stop or two words of a clause such as
  "we", "that", "is", over 0.75 words per unit of the query; with both, over four words),
  ``length_off(ratio)`` (0.15 to 2.5 English words per unit of the query: a 中文 character, a Latin word;
  the low bound from six units, the high one past six words), ``off_topic(reading)`` (where the offline
  dictionary read at least half of the query, a fifth of the translation's content words, and one at
  least, are stems of senses the dictionary weighed for it, the query's own Latin words aside). On the 101
  中文 queries of ``bench/understand_*.json`` (``bench/query_checks.py``) their own English passes 99
  times; another query's English fails 89 times.

A failed text is stored as a failure whose error is the verdict's sentence (``Verdict.sentence``: the
message ``check_<reason>`` with its arguments), kept as data like every failure (``records/messages.stored``):
a page says it in the page's language, and ``papersift llm status`` counts the failures per reason from the
stored message's key (``llm/status.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypedDict, Unpack

from papersift.index.sentences import split_sentences
from papersift.records.analyzer import (
    CJK,
    STOP_WORDS,
    content_stems,
    latin_runs,
    latin_tokens,
    latin_words,
    mixed_words,
)
from papersift.records.messages import ENGLISH, Arg, say

MAX_WORDS = {"en": 50, "zh": 120}  # a TL;DR's bound: English words, or 中文 characters
MAX_CHARS = {"tldr": 600, "title": 400, "abstract": 8000, "faq": 8000, "ask": 5000, "topic": 80, "query": 200}
TOPIC_WORDS = 8
ZH_SHARE = 0.3  # a 中文 text: at least this share of CJK (kept English terms can be many)
EN_SHARE = 0.3  # an English text: at most this share of CJK
ABSTRACT_RATIO = (0.8, 4.0)  # a translated abstract's units per source word
TITLE_RATIO = 4.0
QUERY_RATIO = (0.15, 2.5)  # a query's English words per unit of the query (a 中文 character, a Latin word)
QUERY_SENTENCE_RATIO = 0.75  # …and of an answer written as a sentence
QUERY_READ = 0.5  # the share of a query the dictionary read from which a translation must share its senses…
QUERY_SHARED = 0.2  # …in this share of its content words at least
QUERY_PROMPT_RUN = 4  # words in a row of the prompt that make an answer an echo of it

_PLACES = re.compile(r"%\((\w+)\)s")  # a message template's placeholders


@dataclass(frozen=True, slots=True)
class Verdict:
    """A check's result: passed (``reason`` None), or failed for ``reason`` with its ``args``."""

    reason: str | None = None
    args: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        return self.reason is None

    def arg(self, name: str) -> str:
        return dict(self.args).get(name, "")

    def sentence(self) -> str:
        """The failure said to a reader (``""`` when it passed), as it is stored: the message
        ``check_<reason>``, its language (``asked``, ``got``) and unit arguments messages too, so a face
        says it in the reader's language."""
        if self.reason is None:
            return ""
        key = f"check_{self.reason}"
        values: dict[str, Arg] = {name: "" for name in _PLACES.findall(str(ENGLISH[key]))}  # any it lacks: ""
        values.update(self.args)
        for name, kind in (("asked", "language"), ("got", "language"), ("unit", "unit")):
            if f"{kind}_{values.get(name)}" in ENGLISH:
                values[name] = say(f"{kind}_{values[name]}")
        return say(key, **values)


PASS = Verdict()


def fail(reason: str, **args: object) -> Verdict:
    return Verdict(reason, tuple((k, str(v)) for k, v in args.items()))


def reason_name(reason: str) -> str:
    """A failed check's reason named for a reader (``llm status``): the message ``failed_check_<reason>``,
    whose English is the code itself (as the JSON keys it); an unknown reason as it is."""
    key = f"failed_check_{reason}"
    return say(key) if key in ENGLISH else reason


# --- what a text is made of ---------------------------------------------------------------------------

MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+\$", re.DOTALL)
_MARKS = re.compile(r"\[(\d{1,3})(?:\s*§[\d.]+)?\]")  # [1], and [1 §3] naming a section of it
_TAG = re.compile(
    r"</?[A-Za-z][\w-]*\s*/?>"  # <paper>, </title>, <br/>
    r"|<[A-Za-z][\w-]*(?:\s+[\w-]+\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))+\s*/?>"  # <a href=…>, <paper id=[1]>
)
_MARKDOWN = re.compile(r"\*\*|__|^#{1,6}\s|`", re.MULTILINE)
_ELLIPSIS_CUT = re.compile(r"\w\s?(?:…|\.\.\.)$")
_CLOSED = re.compile(r"[.!?。！？)\]】）$\"'”’]$")
# words no English sentence ends on: an answer that stops on one was cut off
_NEVER_LAST = frozenset(
    "a an the of and or to with for while whereas by from that which whose than as at into onto via "
    "between among such our their its".split()
)


def plain(text: str) -> str:
    """``text`` without its math, marks and Markdown: what the language is judged on."""
    return _MARKDOWN.sub(" ", _MARKS.sub(" ", MATH.sub(" ", text)))


def cjk_share(text: str) -> tuple[float, int, int]:
    """The share of CJK in ``text`` (CJK characters against Latin words), the CJK characters and the Latin
    words."""
    rest = plain(text)
    cjk = len(CJK.findall(rest))
    latin = len(latin_words(rest))
    total = cjk + latin
    return (cjk / total if total else 0.0), cjk, latin


def _units(text: str) -> int:
    """How much text there is, in either language: CJK characters and Latin words or numbers (math out)."""
    rest = plain(text)
    return len(CJK.findall(rest)) + len(latin_tokens(rest))


def _math_spans(text: str) -> list[str]:
    return ["".join(m.group(0).split()) for m in MATH.finditer(text)]


# --- the rules ------------------------------------------------------------------------------------------


def markup(text: str, one_line: bool = False) -> Verdict:
    outside = MATH.sub(" ", text)
    tag = _TAG.search(outside)
    if tag is not None:
        return fail("markup", tag=tag.group(0)[:40])
    if one_line and (md := _MARKDOWN.search(outside)) is not None:
        return fail("markup", tag=md.group(0).strip())
    return PASS


def language(text: str, lang: str) -> Verdict:
    share, cjk, latin = cjk_share(text)
    if lang == "zh" and share < ZH_SHARE and latin >= 3:
        return fail("wrong_language", asked="zh", got="en")
    if lang == "en" and share > EN_SHARE and cjk >= 3:
        return fail("wrong_language", asked="en", got="zh")
    return PASS


def mixed(text: str) -> Verdict:
    """A 中文 text's English clause (``mixed_language``), if it has one."""
    for run in latin_runs(MATH.sub(" ", text)):
        words = latin_words(run)
        if len(words) >= 6 and sum(w.casefold() in STOP_WORDS for w in words) >= 2:
            return fail("mixed_language", words=" ".join(run.split()[:8]))
    return PASS


def cut_off(text: str) -> Verdict:
    end = text.rstrip()
    if _ELLIPSIS_CUT.search(end):
        return fail("cut_off", end="…" + end[-24:].lstrip())
    if not _CLOSED.search(end):
        last = end.split()[-1] if end.split() else ""
        if last in _NEVER_LAST or (len(last) == 1 and last.islower()):
            return fail("cut_off", end="…" + end[-24:].lstrip())
    return PASS


def sentences(text: str) -> list[str]:
    """The sentences of a TL;DR (English, or 中文 ended by 。！？)."""
    out: list[str] = []
    for piece in re.split(r"(?<=[。！？])\s*", " ".join(text.split())):
        out += split_sentences(piece) if piece else []
    return out


def tldr_rules(text: str, lang: str, title: str = "", abstract: str = "") -> Verdict:
    """The TL;DR's own rules: one sentence, within its bound, not a copy of the title or the abstract."""
    if lang == "zh":
        size, unit = len(re.sub(r"\s", "", MATH.sub("$", text))), "characters"
    else:
        size, unit = len(text.split()), "words"
    count = len(sentences(text))
    if count > 1:
        return fail("several_sentences", count=count)
    if size > MAX_WORDS.get(lang, MAX_WORDS["en"]):
        return fail("too_long", size=size, limit=MAX_WORDS.get(lang, MAX_WORDS["en"]), unit=unit)
    words, title_words = mixed_words(text), set(mixed_words(title))
    added = len([w for w in words if w not in title_words and w not in STOP_WORDS])
    # the title as one run, as "This paper presents T."
    whole = " ".join(mixed_words(title)) in " ".join(words)
    if title_words and (added < 2 or (whole and added < 3)):
        return fail("copies_title")
    if abstract and _copies(words, abstract):
        return fail("copies_abstract")
    return PASS


def _copies(words: list[str], abstract: str) -> bool:
    """Whether ``words`` are mostly one stretch of the abstract's words (80% or more of them, in a row)."""
    source = mixed_words(abstract)
    if len(words) < 6:
        return False
    longest = 0
    previous = [0] * (len(source) + 1)
    for w in words:
        row = [0] * (len(source) + 1)
        for j, s in enumerate(source, 1):
            if w == s:
                row[j] = previous[j - 1] + 1
                longest = max(longest, row[j])
        previous = row
    return longest >= 0.8 * len(words)


def translation_rules(text: str, source: str, kind: str) -> Verdict:
    """A translation keeps every ``$…$`` of its source, is about as long as it, and ends as it does (an
    abstract that ends a sentence is not translated into one stopped mid-sentence)."""
    if kind == "abstract" and _CLOSED.search(source.rstrip()) and not _CLOSED.search(text.rstrip()):
        return fail("cut_off", end="…" + text.rstrip()[-24:])
    kept = set(_math_spans(text))
    for span in _math_spans(source):
        if span not in kept:
            return fail("math_lost", span=span[:40])
    source_words = _units(source)
    ratio = _units(text) / max(1, source_words)
    low, high = ABSTRACT_RATIO if kind == "abstract" else (0.0, TITLE_RATIO)
    if source_words >= 5 and not low <= ratio <= high:
        return fail("length_off", ratio=f"{ratio:.2f}")
    return PASS


def marks(text: str, given: int) -> Verdict:
    """An answer's ``[n]`` marks: at least one, each naming one of the ``given`` papers (or sections)."""
    found = [int(m) for m in _MARKS.findall(text)]
    if not found:
        return fail("no_marks")
    for n in found:
        if not 1 <= n <= given:
            return fail("unknown_mark", mark=n, given=given)
    return PASS


_LEAD_IN = re.compile(
    r"^(?:here(?:'s| is)\b[^:]{0,40}|(?:the\s+)?(?:english\s+)?(?:search\s+)?(?:query|translation|answer)"
    r"(?:\s+in\s+english)?)\s*:",
    re.IGNORECASE,
)


# the words of a clause, not of a topic: a query's English holds none or one ("how do LLMs …")
_CLAUSE_WORDS = frozenset(
    "we our us i you they them it this these those that which who is are was were be been has have had do "
    "does did can could will would should may might must show shows showed propose proposes present".split()
)


def _stems(text: str) -> set[str]:
    return set(content_stems(text))


def query_rules(text: str, query: str, prompt: str = "", reading: str = "", covered: float = 0.0) -> Verdict:
    """A search query's English (``text``) against the ``query`` it translates, the ``prompt`` it was asked
    with and the offline dictionary's ``reading`` (its senses), which read the ``covered`` share of it."""
    if CJK.search(plain(text)):
        return fail("wrong_language", asked="en", got="zh")
    lead = _LEAD_IN.match(text)
    if lead is not None:
        return fail("echoes_prompt", words=lead.group(0))
    asked = mixed_words(prompt)
    runs = {tuple(asked[i : i + QUERY_PROMPT_RUN]) for i in range(len(asked) - QUERY_PROMPT_RUN + 1)}
    mine = mixed_words(text)
    for i in range(len(mine) - QUERY_PROMPT_RUN + 1):
        if tuple(mine[i : i + QUERY_PROMPT_RUN]) in runs:
            return fail("echoes_prompt", words=" ".join(mine[i : i + QUERY_PROMPT_RUN]))
    source, size = _units(query), _units(text)
    latin = latin_tokens(plain(text))
    clause = sum(w.casefold() in _CLAUSE_WORDS for w in latin)
    stop = text.rstrip().endswith((".", "!", "?", "…"))
    sentence = (stop and len(latin) >= 5) or clause >= 2
    most = 4 if stop and clause >= 2 else max(4, QUERY_SENTENCE_RATIO * source)  # a sentence whole: never
    if sentence and len(latin) > most:
        return fail("not_a_query", words=" ".join(text.split()[:8]))
    ratio = size / max(1, source)
    low, high = QUERY_RATIO
    if (size > 6 and ratio > high) or (source >= 6 and ratio < low):
        return fail("length_off", ratio=f"{ratio:.2f}")
    own = _stems(text) - _stems(query)  # the query's own Latin words aside
    if covered >= QUERY_READ and len(own & _stems(reading)) < max(1, QUERY_SHARED * len(own)):
        return fail("off_topic", reading=" ".join(reading.split()[:12]))
    return PASS


class Given(TypedDict, total=False):
    """What a text is checked against besides itself: the paper's ``title`` and ``abstract`` (what a TL;DR may
    not copy, what a translation is of; "" when unknown), how many papers (or sections) an answer was
    ``given`` to cite (0); for a query's English the ``query``, the ``prompt`` it was asked with, the offline
    dictionary's ``reading`` and the share of the query it ``covered``."""

    title: str
    abstract: str
    given: int
    query: str
    prompt: str
    reading: str
    covered: float


def rules(kind: str, text: str | None, lang: str, **against: Unpack[Given]) -> dict[str, Verdict]:
    """Every rule that fits the ``kind`` text in ``lang``, by name, with its verdict (see ``check``)."""
    title, abstract, given = against.get("title", ""), against.get("abstract", ""), against.get("given", 0)
    text = (text or "").strip()
    if not text:
        return {"empty": fail("empty")}
    limit = MAX_CHARS.get(kind)
    over = limit is not None and len(text) > limit
    out = {
        "markup": markup(text, kind in ("tldr", "title", "topic", "query")),
        "length": fail("too_long", size=len(text), limit=limit, unit="characters") if over else PASS,
        "language": language(text, lang),
    }
    if kind == "query":
        source, prompt = against.get("query", ""), against.get("prompt", "")
        out["query"] = query_rules(
            text, source, prompt, against.get("reading", ""), against.get("covered", 0.0)
        )
    if kind != "topic":
        out["cut_off"] = cut_off(text)
    if lang == "zh" and kind != "topic":
        out["mixed_language"] = mixed(text)
    if kind == "tldr":
        out["tldr"] = tldr_rules(text, lang, title, abstract if lang == "en" else "")
    if kind in ("title", "abstract") and lang != "en":
        out["translation"] = translation_rules(text, title if kind == "title" else abstract, kind)
    if kind == "ask":
        out["marks"] = marks(text, given)
    if kind == "topic" and len(text.split()) > TOPIC_WORDS:
        out["length"] = fail("too_long", size=len(text.split()), limit=TOPIC_WORDS, unit="words")
    return out


def check(kind: str, text: str | None, lang: str, **against: Unpack[Given]) -> Verdict:
    """Whether the ``kind`` text (``tldr``, ``title``, ``abstract``, ``faq``, ``ask``, ``topic``, ``query``)
    in ``lang`` may be stored and shown (or searched for): the first rule it breaks, else ``PASS``; checked
    against what ``Given`` names (the paper's ``title`` and ``abstract``, the papers an answer was
    ``given``, a query's source and its offline reading)."""
    found = rules(kind, text, lang, **against)
    return next((v for v in found.values() if not v.ok), PASS)


def first_sentence(text: str, lang: str, title: str = "", abstract: str = "") -> str | None:
    """A too long TL;DR's first sentence, when it stands alone (closed, and passing every TL;DR rule)."""
    found = sentences(text)
    if not found:
        return None
    first = found[0].strip()
    if not _CLOSED.search(first) or first == text.strip():
        return None
    return first if check("tldr", first, lang, title=title, abstract=abstract).ok else None
