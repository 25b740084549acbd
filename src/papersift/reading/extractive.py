"""The TL;DR shown without a model: the abstract's key result sentence, by the sentence splitter and the
roles of ``index/sentences.py`` (the first sentence tagged result, preferring one that says what was
shown or achieved, else the method sentence, else the first; never a sentence that only says where
the code is), labelled ``extractive`` where it is shown."""

from __future__ import annotations

import re

from papersift.index.sentences import FACETS, roles, split_sentences

EXTRACTIVE = "extractive"  # the ``by`` of an extractive TL;DR
MAX_CHARS = 400
_RESULT, _METHOD = FACETS.index("result"), FACETS.index("method")
_STRONG = re.compile(
    r"\b(?:we (?:show|find|found|demonstrate|prove|achieve|obtain|report)|outperform\w*|achiev\w*|"
    r"improv\w*|state-of-the-art|show(?:s|n)? that)\b",
    re.IGNORECASE,
)
# housekeeping, not a finding: where the code or data are, what was accepted where
_NOT_A_FINDING = re.compile(
    r"https?://|www\.|github|gitlab|\b(?:code|data(?:set)?s?|models?|implementation|weights)\b.{0,40}"
    r"\b(?:available|released|public(?:ly)?|open-sourced?)\b|\baccepted (?:at|to|by)\b",
    re.IGNORECASE,
)


def key_sentence(abstract: str) -> str | None:
    """The abstract's key result sentence (None for an empty abstract), at most ``MAX_CHARS`` long."""
    sentences = split_sentences(abstract)
    if not sentences:
        return None
    tags = roles(sentences, has_title=False)
    kept = [(s, r) for s, r in zip(sentences, tags, strict=True) if not _NOT_A_FINDING.search(s)]
    if kept:
        sentences, tags = [s for s, _ in kept], [r for _, r in kept]
    results = [s for s, r in zip(sentences, tags, strict=True) if r == _RESULT]
    strong = [s for s in results if _STRONG.search(s)]
    methods = [s for s, r in zip(sentences, tags, strict=True) if r == _METHOD]
    chosen = (strong or results or methods or sentences)[0]
    return chosen if len(chosen) <= MAX_CHARS else chosen[: MAX_CHARS - 1].rstrip() + "…"
