"""Citations that compile, over a snapshot's LaTeX- or Unicode-heavy slice: the papers' BibTeX export
through pdflatex + bibtex (with and without inputenc), pdflatex + biber, xelatex + bibtex and lualatex +
biber, their CSL-JSON through citeproc-py and their RIS back through rispy; entries, errors and warnings
per tool. ``--src`` checks another checkout's code (its ``src``) the same way, for a before/after.

    python bench/citations.py --data ../shared/data/arxiv-300k.jsonl.gz
    python bench/citations.py --data ../shared/data/arxiv-20k.jsonl.gz --all   # every paper
    python bench/citations.py --only pdflatex+biber --ids failing.txt --keep /tmp/runs   # just those, kept
    python bench/citations.py --from 30000 --keep /tmp/b; python bench/citations.py --recount /tmp/b
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared/data/arxiv-300k.jsonl.gz")
    parser.add_argument("--src", type=Path, help="another checkout's src/ to check instead of this one")
    parser.add_argument("--limit", type=int, help="only the first N heavy papers")
    parser.add_argument("--all", action="store_true", help="every paper, not only the heavy slice")
    parser.add_argument("--timeout", type=int, default=3600, help="seconds per TeX or bibliography run")
    parser.add_argument("--chunk", type=int, default=1000, help="entries per document (0: one document)")
    parser.add_argument("--only", nargs="*", default=(), help="these tools only (pdflatex+biber, rispy…)")
    parser.add_argument("--keep", type=Path, help="keep the TeX runs here")
    parser.add_argument("--ids", type=Path, help="only the papers this file lists (arXiv ids)")
    parser.add_argument("--from", dest="start", type=int, default=0, help="skip the first N heavy papers")
    parser.add_argument("--recount", type=Path, help="no TeX: the counts of the runs kept in this folder")
    args = parser.parse_args()
    sys.path[:0] = [str(args.src or ROOT / "src"), str(ROOT)]
    from tests.citation_tools import heavy_papers, recount, run_all, tex_available

    if args.recount:
        for counts in recount(args.recount, only=args.only):
            print(counts.line())
        return
    if not tex_available():
        sys.exit("needs TeX Live's pdflatex, xelatex, lualatex, bibtex and biber (make texlive)")
    started = time.perf_counter()
    papers = heavy_papers(args.data, args.limit, every=args.all)[args.start :]
    if args.ids:
        wanted = set(args.ids.read_text(encoding="utf-8").split())
        papers = [p for p in papers if p.id in wanted]
    which = "papers" if args.all else "papers with LaTeX or non-ASCII in the title or authors"
    print(f"{args.data.name}: {len(papers)} {which}")
    print(f"code: {args.src or ROOT / 'src'}")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        for counts in run_all(papers, work, args.timeout, chunk=args.chunk, only=args.only):
            print(counts.line(), flush=True)
            for sample in counts.samples[:3]:
                print(f"    {sample[:160]}")
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
