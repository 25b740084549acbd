"""How well the checks of ``reading/checks.py`` sort model texts: for each rule, how many of the bad outputs
(issue 37's newcomer's, and more of their kinds: ``tests/model_outputs.py``) it catches and how many good
ones it wrongly rejects; the verdict (the first rule broken) against the reason each bad output should
get; and, as a larger set of good English TL;DRs written by people, SciTLDR-A dev's gold TL;DRs
(``../shared/data/scitldr-a-dev.jsonl.gz``), the authors' and the reviewers' apart, with why any is refused.

    PYTHONPATH=src:. python bench/checks.py [--data ../shared/data] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from pathlib import Path

from papersift.reading import checks
from tests.model_outputs import BAD, GOOD, Output, outputs, papers


def _rules(o: Output, records: dict[str, dict[str, str]]) -> dict[str, checks.Verdict]:
    r = records[o.paper]
    return checks.rules(o.kind, o.text, o.lang, title=r["title"], abstract=r["abstract"], given=o.given)


def measure(data: Path) -> dict[str, object]:
    records = papers(data)
    bad, good = outputs(data, BAD), outputs(data, GOOD)
    caught: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    applies: Counter[str] = Counter()
    missed, wrong_reason, good_refused = [], [], []
    for o in bad:
        found = _rules(o, records)
        for name, v in found.items():
            applies[name] += 1
            caught[name] += not v.ok
        first = next((v for v in found.values() if not v.ok), checks.PASS)
        if first.ok:
            missed.append(o.name)
        elif first.reason != o.reason:
            wrong_reason.append(f"{o.name}: {first.reason} (expected {o.reason})")
    for o in good:
        for name, v in _rules(o, records).items():
            rejected[name] += not v.ok
            if not v.ok:
                good_refused.append(f"{o.name}: {v.call()}")
    gold: dict[str, Counter[str]] = {"authors": Counter(), "reviewers": Counter()}
    with gzip.open(data / "scitldr-a-dev.jsonl.gz", "rt") as f:
        for line in f:
            paper = json.loads(line)
            abstract = " ".join(paper["source"])
            for n, target in enumerate(paper["target"]):
                v = checks.check("tldr", target, "en", title=paper["title"], abstract=abstract)
                gold["authors" if n == 0 else "reviewers"][v.reason or "pass"] += 1
    return {
        "bad": len(bad),
        "bad_caught": len(bad) - len(missed),
        "bad_missed": missed,
        "bad_other_reason": wrong_reason,
        "good": len(good),
        "good_rejected": len({r.split(":")[0] for r in good_refused}),
        "good_refused": good_refused,
        "per_rule": {
            name: {"bad_caught": caught[name], "bad_checked": applies[name], "good_rejected": rejected[name]}
            for name in applies
        },
        "scitldr_gold": {who: dict(c.most_common()) for who, c in gold.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    found = measure(args.data)
    if args.json:
        print(json.dumps(found, ensure_ascii=False, indent=1))
        return
    print(f"bad outputs caught: {found['bad_caught']} of {found['bad']} (missed: {found['bad_missed']})")
    print(f"  caught for another reason than expected: {found['bad_other_reason'] or 'none'}")
    print(
        f"good outputs wrongly rejected: {found['good_rejected']} of {found['good']} {found['good_refused']}"
    )
    print(f"{'rule':16} {'bad caught':>14} {'good rejected':>14}")
    for name, row in found["per_rule"].items():  # type: ignore[attr-defined]
        print(f"{name:16} {row['bad_caught']:>6} of {row['bad_checked']:<5} {row['good_rejected']:>14}")
    for who, counts in found["scitldr_gold"].items():  # type: ignore[attr-defined]
        total = sum(counts.values())
        print(
            f"SciTLDR-A dev gold TL;DRs by {who}: {counts.get('pass', 0)} of {total} pass; refused: "
            + ", ".join(f"{k} {v}" for k, v in counts.items() if k != "pass")
        )


if __name__ == "__main__":
    main()
