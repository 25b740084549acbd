"""Fit the extractive TL;DR's weights (``python bench/tldr_fit.py [--data FILE]``) and measure them held out.

On SciTLDR-A dev (``../shared/data/scitldr-a-dev.jsonl.gz``) split in two by a hash of the paper id
(``reading.tldr_eval.halves``): weights fitted on one half are scored on the other, both ways, beside
Lead-1, the role-rule choice and the oracle on the same papers; then the weights fitted on all of it (the
ones ``reading/extractive.py`` ships) are printed as code, with their score on all of dev. Takes a minute
or two (every sentence is scored against the gold TL;DRs).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from papersift.reading import extractive
from papersift.reading.tldr_eval import (
    LEAD,
    ORACLE,
    ROLES,
    Case,
    Rouge,
    TldrScore,
    fit_weights,
    halves,
    lead_sentence,
    mean_score,
    oracle_sentence,
    read_cases,
    roles_sentence,
    rouge,
    score_table,
)


def scores(cases: Sequence[Case], weights: np.ndarray, score: Rouge) -> list[TldrScore]:
    chosen = [extractive.key_sentence(c.abstract, c.title, weights) for c in cases]
    return [
        mean_score("extractive (fitted)", cases, chosen, score),
        mean_score(LEAD, cases, [lead_sentence(c) for c in cases], score),
        mean_score(ROLES, cases, [roles_sentence(c) for c in cases], score),
        mean_score(ORACLE, cases, [oracle_sentence(c, score) for c in cases], score),
    ]


def pooled(a: list[TldrScore], b: list[TldrScore]) -> list[TldrScore]:
    """Two halves' scores as one (weighted by papers)."""
    out = []
    for x, y in zip(a, b, strict=True):
        n = x.papers + y.papers
        mix = [
            (getattr(x, k) * x.papers + getattr(y, k) * y.papers) / n for k in ("rouge1", "rouge2", "rougeL")
        ]
        out.append(TldrScore(x.method, *mix, n))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/scitldr-a-dev.jsonl.gz"))
    parser.add_argument("--c", type=float, default=1.0, help="the logistic regression's C")
    args = parser.parse_args()
    cases = read_cases(args.data)
    score = rouge()
    a, b = halves(cases)
    held = []
    for name, train, test in (("A→B", a, b), ("B→A", b, a)):
        result = scores(test, fit_weights(train, score, args.c), score)
        held.append(result)
        print(f"fitted on half {name[0]} ({len(train)} papers), scored on half {name[2]} ({len(test)}):")
        print("\n".join(score_table(result)))
    print("both held-out halves pooled:")
    print("\n".join(score_table(pooled(*held))))
    weights = fit_weights(cases, score, args.c)
    print(f"fitted on all {len(cases)} papers, scored on them:")
    print("\n".join(score_table(scores(cases, np.round(weights, 3), score))))
    print("WEIGHTS = np.array(\n    [" + ", ".join(f"{w:.3f}" for w in weights) + "]\n)")
    for name, w in zip(extractive.FEATURES, weights, strict=True):
        print(f"  {name:<12} {w:+.3f}")


if __name__ == "__main__":
    main()
