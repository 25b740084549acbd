"""The checks of a model's query translation (``reading/checks.py``, the query rules) on the understand sets:
what a careful model answers (a set's own English query for its 中文 one) should pass; what a broken one
answers should fail: another paper's English query (a translation about something else), the 中文 echoed,
the prompt echoed, a sentence, 10 kB. Each answer is checked as ``reading/query_translation.checked`` checks
it, against the dictionary's reading of the query (``ranking/to_english.offline_reading``).

    PYTHONPATH=src python bench/query_checks.py --home HOME [--corpus ../shared/data/arxiv-20k.jsonl.gz]

``--corpus``: ingest it into an empty ``--home`` and publish its lexical index and vocabulary first (no
vectors: the checks read the dictionary's reading only).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from papersift.index.pipeline import refresh
from papersift.index.runtime import open_papersift
from papersift.ranking.to_english import offline_reading
from papersift.reading.query_translation import SYSTEM, checked
from papersift.settings import Settings
from papersift.store import open_store

SETS = [Path(__file__).with_name(n) for n in ("understand_sets.json", "understand_heldout.json")]
SETS.append(Path(__file__).with_name("understand_heldout2.json"))
SENTENCE = "The authors show that a simple learned routing rule cuts latency."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True)
    ap.add_argument("--corpus", type=Path)
    args = ap.parse_args()
    settings = Settings(home=args.home)
    if args.corpus is not None and not (args.home / "papersift.db").exists():
        cli = [sys.executable, "-m", "papersift.cli", "--home", str(args.home)]
        subprocess.run([*cli, "ingest", str(args.corpus)], check=True)
        store = open_store(settings)
        try:
            refresh(store, settings)
        finally:
            store.close()
    pairs = [(p["zh"], p["en"]) for path in SETS for p in json.loads(path.read_text())["papers"]]
    kinds = ("careful", "another topic", "中文 echoed", "prompt echoed", "a sentence", "10 kB")
    outcomes: dict[str, Counter[str]] = {kind: Counter() for kind in kinds}
    with open_papersift(settings) as opened:
        indexes = opened.indexes()
        vocabulary = indexes.vocabulary
        assert vocabulary is not None, "no vocabulary: publish an index generation first"
        for n, (zh, en) in enumerate(pairs):
            offline = offline_reading(indexes, vocabulary, zh)
            answers = (
                en,
                pairs[(n + len(pairs) // 2) % len(pairs)][1],
                zh,
                SYSTEM[:80],
                SENTENCE,
                "x " * 5000,
            )
            for kind, answer in zip(kinds, answers, strict=True):
                result = checked(answer, zh, offline)
                if result.text:
                    reason = "passed"
                elif result.refused is None:
                    reason = "empty"
                else:  # the check's message: check_<reason>
                    reason = str(getattr(result.refused.args["reason"], "key", "?")).removeprefix("check_")
                outcomes[kind][reason] += 1
    print(f"{len(pairs)} 中文 queries of {', '.join(p.name for p in SETS)}")
    for kind, counts in outcomes.items():
        passed = counts["passed"]
        detail = ", ".join(f"{k} {v}" for k, v in counts.most_common() if k != "passed")
        print(
            f"{kind:>14}: passed {passed}/{len(pairs)} ({passed / len(pairs):.1%}); failed: {detail or '-'}"
        )


if __name__ == "__main__":
    main()
