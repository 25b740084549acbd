"""Library import benchmark (``make bench-library``): a 10,000-entry Zotero-style BibTeX file into a store.

The entries are real papers of the 20k file written the ways Zotero exports them: a quarter with an arXiv
``eprint``, a quarter with only an arXiv URL, a quarter with only the title (linked by exact title), and a
quarter of books that are not on arXiv (kept with their own text). Times parsing and importing (linking
included) into the given store as a fresh reader, three times, and prints the median and the counts.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import time
from pathlib import Path

from papersift.library.saved import import_references
from papersift.services.accounts import create_account
from papersift.settings import Settings
from papersift.sources.bibliography import read_bibliography
from papersift.store import open_store


def _entry(n: int, record: dict[str, object]) -> str:
    title = str(record["title"]).replace("{", "").replace("}", "")
    authors = " and ".join(str(a) for a in record["authors"])  # type: ignore[attr-defined]
    kind = n % 4
    if kind == 0:
        extra = f"  eprint = {{{record['id']}}},\n  archivePrefix = {{arXiv}},\n"
    elif kind == 1:
        extra = f"  url = {{http://arxiv.org/abs/{record['id']}v1}},\n"
    elif kind == 2:
        extra = ""
    else:
        return (
            f"@book{{book{n},\n  title = {{A book on {title[:60]} ({n})}},\n"
            f"  author = {{{authors}}},\n  year = {{1999}}\n}}\n"
        )
    head = f"@article{{key{n},\n  title = {{{title}}},\n  author = {{{authors}}},\n"
    return f"{head}{extra}  year = {{2020}}\n}}\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True, help="a papersift home with the 20k papers")
    parser.add_argument("--corpus", type=Path, default=Path("../shared/data/arxiv-20k.jsonl.gz"))
    parser.add_argument("--entries", type=int, default=10_000)
    args = parser.parse_args()
    with gzip.open(args.corpus, "rt") as f:
        records = [json.loads(line) for _, line in zip(range(args.entries), f, strict=False)]
    text = "".join(_entry(n, r) for n, r in enumerate(records))
    store = open_store(Settings(home=args.home))
    parse_s, import_s = [], []
    for run in range(3):
        start = time.perf_counter()
        parsed = read_bibliography(text)
        parse_s.append(time.perf_counter() - start)
        reader = create_account(store, f"bench-{time.time_ns()}-{run}", None)
        start = time.perf_counter()
        report = import_references(store, reader, parsed.references)
        import_s.append(time.perf_counter() - start)
    store.close()
    print(f"{len(records):,} entries, {len(text) / 1e6:.1f} MB of BibTeX, {len(parsed.errors)} errors")
    for what, times in (("parse", parse_s), ("import + link", import_s)):
        runs = ", ".join(f"{s:.2f}" for s in times)
        print(f"{what}: median {statistics.median(times):.2f} s  (runs {runs})")
    print(f"linked {report.linked}, kept {report.kept}, new {report.new}, skipped {len(report.errors)}")


if __name__ == "__main__":
    main()
