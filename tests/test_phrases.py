"""Phrases as written (``ranking/phrases.py``), the words reasons and topic names may quote: the fragments
of issue 27 (a phrase across a stop word, a verb of every abstract at either end, a user name from a code
URL, an e-mail address) are never phrases, and two texts share only phrases both hold as written."""

from __future__ import annotations

import math

from papersift.ranking.phrases import best_phrases, names_a_term, occurs, phrases, shared_phrases

A = (
    "We propose LoRA adapters for full fine-tuning; rewards find better policies. Based reasoning "
    "traces, we introduce trajectory replay. Code: https://github.com/xrazymee/lora-replay, contact "
    "someone@example.org or see gitlab.com/xrazymee/tools."
)
B = (
    "Full fine-tuning against LoRA adapters: trajectory replay with reward models. Our reasoning "
    "traces find policies; code at github.com/xrazymee/other, mail someone@example.org."
)


def test_no_phrase_crosses_a_stop_word_or_punctuation_or_ends_on_a_filler_verb() -> None:
    found = phrases(A)
    for fragment in ("rewards find", "full fine", "propose lora", "based reasoning", "introduce trajectory"):
        assert fragment not in found, fragment
    assert {"lora adapters", "full fine-tuning", "trajectory replay", "reasoning traces"} <= found


def test_nothing_is_taken_from_urls_e_mail_addresses_or_code_hosting_paths() -> None:
    everything = " ".join(phrases(A) | phrases(B))
    for piece in ("xrazymee", "github", "gitlab", "someone", "example", "https"):
        assert piece not in everything, piece


def test_shared_phrases_are_the_best_few_both_texts_hold_as_written() -> None:
    shared = shared_phrases(A, B, lambda word: 1.0)
    assert 1 <= len(shared) <= 3 and "xrazymee" not in " ".join(shared)
    for phrase in shared:
        assert occurs(phrase, A) and occurs(phrase, B), phrase
    assert not occurs("fine-tuning rewards", A) and not occurs("adapters full", A)  # across ";", "for"


def test_the_best_phrases_are_the_weightiest_and_none_inside_another() -> None:
    rare = {"lora": 5.0, "replay": 4.0}
    picked = best_phrases(
        ["lora adapters", "lora", "trajectory replay", "reasoning traces", "adapters"],
        lambda word: rare.get(word, 1.0),
        2,
    )
    assert picked == ["lora adapters", "trajectory replay"]  # "lora" is inside the first: not a second reason


# shares of papers holding each word, measured on every tenth paper of the 300k file (ranking/phrases.py)
SHARES = {"stop": 0.0018, "normalized": 0.0068, "struggle": 0.0203, "graph": 0.0412, "attention": 0.0408}


def _idf(word: str) -> float:
    return -math.log(SHARES.get(word, 0.001))


def test_a_lone_word_is_a_reason_only_when_it_names_a_term() -> None:
    for word in ("stop", "normalized", "struggle", "dangerous", "systematically", "engage"):
        assert not names_a_term(word, _idf), word
    for word in ("graph", "attention", "svd", "jailbreak", "fine-tuning"):
        assert names_a_term(word, _idf), word
    a = "Models struggle to stop early; normalized graph neural networks and attention help."
    b = "Agents struggle; we stop when the normalized loss of graph neural networks and attention drops."
    shared = shared_phrases(a, b, _idf, n=5)
    assert "graph neural networks" in shared and "attention" in shared
    assert not {"stop", "normalized", "struggle"} & set(shared)
