"""The corpus of ``papersift eval recommend``'s figures: every paper the dev citation pairs name, plus a
fixed filler of other papers, ``--size`` papers in all, written as JSON lines (default
``bench/out/recommend-corpus.jsonl.gz``; ``bench/out`` is git-ignored, the data never enters the repository).

The filler is every k-th paper of ``arxiv-20k.jsonl.gz`` not named by the pairs (k chosen to reach the size):
the simulated readers' "days" mix their hidden papers with random corpus papers, so the corpus needs papers
of other fields too. A few thousand papers embed in a few minutes on 2 cores (once: the vector cache keeps
them for later runs).

    python bench/recommend_corpus.py [--size 4000] [--data ../shared/data] [--out FILE]
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

import orjson


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--size", type=int, default=4000)
    parser.add_argument("--out", type=Path, default=Path("bench/out/recommend-corpus.jsonl.gz"))
    args = parser.parse_args()
    named: set[str] = set()
    with gzip.open(args.data / "relevance-dev.jsonl.gz", "rb") as f:
        for line in f:
            row = orjson.loads(line)
            named |= {str(row["query_id"]), str(row["candidate_id"])}
    with gzip.open(args.data / "arxiv-20k.jsonl.gz", "rb") as f:
        records = [orjson.loads(line) for line in f]
    chosen = [r for r in records if r["id"] in named]
    others = [r for r in records if r["id"] not in named]
    step = max(len(others) // max(args.size - len(chosen), 1), 1)
    filler = others[::step][: max(args.size - len(chosen), 0)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.out, "wb") as f:
        for record in chosen + filler:
            f.write(orjson.dumps(record) + b"\n")
    print(
        f"{args.out}: {len(chosen)} papers named by the pairs + {len(filler)} filler"
        f" = {len(chosen) + len(filler)}"
    )


if __name__ == "__main__":
    main()
