"""TL;DRs measured against gold ones (``papersift eval tldr``), and the fit of the extractive chooser's
weights.

The data are JSON lines, ``{id, title, abstract, targets: [str]}``, or SciTLDR's own lines (``{paper_id,
title, source: [sentences], target: [str], …}``, so its files work as they are). Each method writes one
TL;DR a paper and is scored by ROUGE-1, ROUGE-2 and ROUGE-L F1 (×100) against the paper's gold TL;DRs, the
best over them for each measure, averaged over the papers; a paper a method wrote nothing for counts 0.
ROUGE is Google's rouge-score (the reimplementation of ROUGE-1.5.5 that SciTLDR's authors score with),
with its Porter stemmer, and ``score_multi`` for the best over the targets.

The methods: what writes the TL;DR a paper's JSON carries now (``reading/shown.py``'s ``TldrShape``: the
configured model's through ``reading/texts.py``'s ``make``, stored in the home's store like any other, or
without a model the extractive key sentence, ``reading/extractive.py``); the extractive one beside a
model's; ``lead-1`` (the first sentence); ``extractive-roles``, the role-rule choice the extractive TL;DR
made before (kept as a baseline); and ``oracle``, the best single sentence of each abstract (by the mean
of the three measures). All sentences are ``index/sentences.py``'s.

``fit_weights`` is how ``extractive.WEIGHTS`` were fitted (``bench/tldr_fit.py`` runs it): a pairwise
logistic regression over each paper's choosable sentences, on which of two has the higher mean ROUGE.
``halves`` splits papers in two by a hash of their id, for held-out figures.
"""

from __future__ import annotations

import gzip
import hashlib
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import orjson
from pydantic import AfterValidator, Field

from papersift.index.sentences import FACETS, roles, split_sentences
from papersift.reading import extractive
from papersift.reading.shown import TldrShape, missing_line
from papersift.records.catalogs import fit, said
from papersift.records.json_model import Shape
from papersift.records.messages import reason, say
from papersift.records.paper import Paper
from papersift.store.records import Reading

MEASURES = ("rouge1", "rouge2", "rougeL")
LEAD = "lead-1"
ORACLE = "oracle"
ROLES = "extractive-roles"  # the choice before the learned one


@dataclass(frozen=True)
class Case:
    """One paper of the data: its title, abstract and gold TL;DRs."""

    id: str
    title: str
    abstract: str
    targets: tuple[str, ...]

    def paper(self) -> Paper:
        return Paper(self.id, self.title, [], self.abstract, [])


@dataclass(frozen=True)
class TldrScore:
    """One method's mean ROUGE-1/2/L F1 (×100) over ``papers`` papers."""

    method: str
    rouge1: float
    rouge2: float
    rougeL: float
    papers: int


Rouged = Annotated[float, AfterValidator(partial(round, ndigits=2))]  # a ROUGE F1 (×100) in a JSON line


class TldrLine(Shape):
    """``eval tldr``'s JSON line of a ``TldrScore``: the method, its ROUGE-1/2/L F1 (×100) and how many
    papers."""

    method: str
    rouge1: Rouged = Field(alias="ROUGE-1")
    rouge2: Rouged = Field(alias="ROUGE-2")
    rougeL: Rouged = Field(alias="ROUGE-L")
    papers: int


def _case(record: Any) -> Case:
    if not isinstance(record, dict):
        raise ValueError(say("not_json_object"))
    abstract: Any = record.get("abstract")
    pid: Any = record.get("id")
    targets: Any = record.get("targets")
    if abstract is None and "source" in record:  # SciTLDR's shape
        source = record["source"]
        abstract = " ".join(map(str, source)) if isinstance(source, list) else source
        pid, targets = record.get("paper_id") or pid, record.get("target")
    if not pid or not isinstance(abstract, str) or not abstract.strip():
        raise ValueError(say("eval_needs_id"))
    if isinstance(targets, str):
        targets = [targets]
    gold = tuple(t for t in targets if isinstance(t, str) and t.strip()) if isinstance(targets, list) else ()
    if not gold:
        raise ValueError(say("eval_no_gold"))
    return Case(str(pid), str(record.get("title") or ""), abstract, gold)


def read_cases(path: Path) -> list[Case]:
    """The papers of a JSON-lines file (gzipped when it ends in .gz); ``ValueError`` naming the line for a
    bad one, and for a file with none."""
    opener = gzip.open if path.suffix == ".gz" else open
    cases = []
    with opener(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                cases.append(_case(orjson.loads(raw)))
            except (orjson.JSONDecodeError, ValueError, TypeError) as e:
                raise ValueError(say("eval_bad_line", path=str(path), n=n, problem=reason(e))) from None
    if not cases:
        raise ValueError(say("eval_no_papers", path=str(path)))
    return cases


# -- ROUGE ----------------------------------------------------------------------------------------------
Rouge = Callable[[str | None, Sequence[str]], tuple[float, float, float]]


def rouge() -> Rouge:
    """ROUGE-1/2/L F1 of a text against gold TL;DRs, the best over them for each (0 for no text);
    rouge-score's own tokeniser and stemmer, each text tokenised once."""
    from rouge_score import rouge_scorer, tokenizers

    stemming = tokenizers.DefaultTokenizer(use_stemmer=True)
    seen: dict[str, list[str]] = {}  # each text is tokenised (and stemmed, the slow part) once

    class Tokens(tokenizers.Tokenizer):  # type: ignore[misc]
        def tokenize(self, text: str) -> list[str]:
            if text not in seen:
                seen[text] = stemming.tokenize(text)
            return seen[text]

    scorer = rouge_scorer.RougeScorer(list(MEASURES), tokenizer=Tokens())

    def score(text: str | None, targets: Sequence[str]) -> tuple[float, float, float]:
        if not text:
            return 0.0, 0.0, 0.0
        best = scorer.score_multi(list(targets), text)
        return best["rouge1"].fmeasure, best["rouge2"].fmeasure, best["rougeL"].fmeasure

    return score


def mean_score(method: str, cases: Sequence[Case], texts: Iterable[str | None], score: Rouge) -> TldrScore:
    """``method``'s scores over ``cases`` given its TL;DR of each."""
    rows = [score(text, case.targets) for case, text in zip(cases, texts, strict=True)]
    means = np.mean(rows, axis=0) * 100 if rows else np.zeros(3)
    return TldrScore(method, float(means[0]), float(means[1]), float(means[2]), len(rows))


# -- the methods ----------------------------------------------------------------------------------------
def lead_sentence(case: Case) -> str | None:
    sentences = split_sentences(case.abstract)
    return sentences[0] if sentences else None


def oracle_sentence(case: Case, score: Rouge) -> str | None:
    """The abstract sentence with the best mean ROUGE against the case's gold TL;DRs."""
    sentences = split_sentences(case.abstract)
    return max(sentences, key=lambda s: sum(score(s, case.targets)), default=None)


_RESULT, _METHOD = FACETS.index("result"), FACETS.index("method")
_STRONG = re.compile(
    r"\b(?:we (?:show|find|found|demonstrate|prove|achieve|obtain|report)|outperform\w*|achiev\w*|"
    r"improv\w*|state-of-the-art|show(?:s|n)? that)\b",
    re.IGNORECASE,
)


def roles_sentence(case: Case) -> str | None:
    """The extractive choice before the learned one: the first result sentence by ``roles``, preferring
    one that says what was shown or achieved, else the first method sentence, else the first; none that
    only says where the code is; cut at ``MAX_CHARS``."""
    sentences = split_sentences(case.abstract)
    if not sentences:
        return None
    tags = roles(sentences, has_title=False)
    kept = [(s, r) for s, r in zip(sentences, tags, strict=True) if not extractive.HOUSEKEEPING.search(s)]
    if kept:
        sentences, tags = [s for s, _ in kept], [r for _, r in kept]
    results = [s for s, r in zip(sentences, tags, strict=True) if r == _RESULT]
    strong = [s for s in results if _STRONG.search(s)]
    methods = [s for s, r in zip(sentences, tags, strict=True) if r == _METHOD]
    chosen = (strong or results or methods or sentences)[0]
    return chosen if len(chosen) <= extractive.MAX_CHARS else chosen[: extractive.MAX_CHARS - 1] + "…"


def shown_tldr(case: Case, reading: Reading | None) -> TldrShape:
    """The ``tldr`` a paper's JSON carries, given its stored model text (None without a model)."""
    return TldrShape.of(case.paper(), reading)


def evaluate_tldr(
    cases: Sequence[Case],
    model: tuple[str, Callable[[Case], Reading]] | None = None,
    *,
    step: Callable[[], None] | None = None,
    note: Callable[[str], None] = lambda _: None,
    lang: str = "en",
) -> list[TldrScore]:
    """Each method's scores on ``cases``: the TL;DR a paper's JSON carries first (``model``: its name and
    how a case's text is made, when one is configured), then the extractive one when a model wrote the
    first, Lead-1, the role-rule choice and the oracle. ``step`` is called after each paper; ``note`` with
    how many of the first method's TL;DRs are missing and why (in ``lang``), when some are (they score 0)."""
    score = rouge()
    shown = []
    for case in cases:
        shown.append(shown_tldr(case, model[1](case) if model else None))
        if step is not None:
            step()
    missing = missing_line(shown, lang)
    if missing:
        note(missing)
    texts = [t.text for t in shown]
    out = [mean_score(model[0] if model else extractive.EXTRACTIVE, cases, texts, score)]
    if model:
        extracted = [extractive.key_sentence(c.abstract, c.title) for c in cases]
        out.append(mean_score(extractive.EXTRACTIVE, cases, extracted, score))
    out.append(mean_score(LEAD, cases, [lead_sentence(c) for c in cases], score))
    out.append(mean_score(ROLES, cases, [roles_sentence(c) for c in cases], score))
    out.append(mean_score(ORACLE, cases, [oracle_sentence(c, score) for c in cases], score))
    return out


def score_table(scores: Sequence[TldrScore], lang: str = "en") -> list[str]:
    """A table of each method's ROUGE-1/2/L, and its ROUGE-1 against Lead-1; its words in ``lang``."""
    lead = next((s for s in scores if s.method == LEAD), None)
    method, papers, vs = (said(say(f"eval_{w}"), lang) for w in ("method", "papers", "vs"))
    head = f"{fit(method, 24)} {'ROUGE-1':>8} {'ROUGE-2':>8} {'ROUGE-L':>8} {fit(papers, 7, right=True)}"
    lines = [f"{head}  {vs} {LEAD}"]
    for s in scores:
        vs = f"{s.rouge1 - lead.rouge1:+.1f}" if lead else "-"
        lines.append(f"{s.method:<24} {s.rouge1:>8.1f} {s.rouge2:>8.1f} {s.rougeL:>8.1f} {s.papers:>7}  {vs}")
    return lines


# -- fitting the extractive chooser ---------------------------------------------------------------------
def halves(cases: Sequence[Case]) -> tuple[list[Case], list[Case]]:
    """The cases split in two by a hash of their id (the same split on every machine)."""
    parts: tuple[list[Case], list[Case]] = ([], [])
    for case in cases:
        parts[int(hashlib.sha1(case.id.encode()).hexdigest(), 16) % 2].append(case)
    return parts


def fit_weights(cases: Sequence[Case], score: Rouge | None = None, c: float = 1.0) -> np.ndarray:
    """Weights for ``extractive.FEATURES`` fitted on ``cases``: a logistic regression without intercept on
    the feature differences of every pair of a paper's choosable sentences whose mean ROUGE against the
    gold TL;DRs differs, labelled by which is higher (both orders)."""
    from sklearn.linear_model import LogisticRegression

    score = score or rouge()
    xs: list[np.ndarray] = []
    for case in cases:
        sentences = split_sentences(case.abstract)
        allowed = np.flatnonzero(extractive.choosable(sentences))
        if len(allowed) < 2:
            continue
        features = extractive.sentence_features(case.title, sentences)
        target = [sum(score(sentences[i], case.targets)) for i in allowed]
        for (a, ta), (b, tb) in itertools.combinations(zip(allowed, target, strict=True), 2):
            if ta != tb:
                xs.append((features[a] - features[b]) * (1 if ta > tb else -1))
    x = np.array(xs)
    model = LogisticRegression(C=c, fit_intercept=False, max_iter=5000)
    model.fit(np.vstack([x, -x]), np.r_[np.ones(len(x)), np.zeros(len(x))])
    return np.asarray(model.coef_[0], dtype=np.float64)
