"""Bibliography import/export benchmark (``python bench/bibliography.py``): medians of several runs.

1. ``read_bibliography`` on 10,000 generated BibTeX entries in three shapes: plain text; Zotero's usual
   export ({Capital} protection, one title in ten with a LaTeX accent); and the worst case, where every
   title and every author name needs pylatexenc (accents everywhere, no name repeated).
2. One entry with a 1 MB abstract, in BibTeX, RIS and CSL-JSON.
3. ``to_bibtex`` / ``to_csl_json`` of 10,000 references and reading them back.
4. With ``--snapshot`` (papersift or Kaggle JSON lines, e.g. ../shared/data/arxiv-20k.jsonl.gz): its papers
   written with ``to_bibtex`` and read back, counting the arXiv ids, years and DOIs that survive.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import statistics
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import orjson

from papersift.sources.bibliography import Reference, read_bibliography, to_bibtex, to_csl_json
from papersift.sources.snapshot import paper_from_record

ENTRY = """@article{{{key},
	title = {{{title}}},
	url = {{http://arxiv.org/abs/23{month:02d}.{i:05d}}},
	abstract = {{We study $x_i$ in setting {i}; it costs 50\\% less \\& scales to long documents.}},
	journal = {{Journal of Examples}},
	author = {{{authors}}},
	year = {{{year}}},
	doi = {{10.1234/ex.{i}}},
	keywords = {{sparsity, models}},
}}
"""
NAMES = ["Müller, Jörg", "Nakamura, Kenji", "Okafor, Chidi", "Lindqvist, Maja", "García, Ana", "Weber, Anna"]
LATEX_NAMES = [
    r"M{\"u}ller, J{\"o}rg",
    "Nakamura, Kenji",
    "Okafor, Chidi",
    r"Garc{\'\i}a, Ana",
    "Weber, Anna",
]


def entries(n: int, shape: str) -> str:
    out = []
    for i in range(n):
        if shape == "plain":
            title, authors = f"A study of sparse models, part {i}", " and ".join(NAMES[i % 6 :][:3])
        elif shape == "zotero":
            accent = r"M{\"o}dels" if i % 10 == 0 else "{Models}"
            title = f"A {{Study}} of {{Sparse}} {accent}, {{Part}} {i}"
            authors = " and ".join(LATEX_NAMES[(i + k) % 5] for k in range(3))
        else:
            title = rf"A {{Study}} of M{{\"o}}dels -- {{\'E}}tude {i}"
            authors = rf"M{{\"u}}ller{i}, J{{\"o}}rg and Garc{{\'\i}}a{i}, Ana and Doe{i}, Jane"
        out.append(
            ENTRY.format(key=f"e{i}", title=title, authors=authors, i=i, month=i % 12 + 1, year=2000 + i % 25)
        )
    return "\n".join(out)


def median_seconds(runs: int, fn: Callable[..., object], *args: Any) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--snapshot", type=Path, help="JSON lines of papers to round-trip through BibTeX")
    ap.add_argument("--limit", type=int, default=20_000)
    args = ap.parse_args()

    for shape in ("plain", "zotero", "worst"):
        text = entries(10_000, shape)
        result = read_bibliography(text)
        assert len(result.references) == 10_000 and not result.errors, result.errors[:3]
        seconds = median_seconds(args.runs, read_bibliography, text)
        print(f"read 10,000 BibTeX entries ({shape:6s}, {len(text) / 1e6:.1f} MB): {seconds:.2f} s")

    abstract = ("Sparse $x_i$ attention \\& 50\\% cost. " * 30_000)[:1_000_000]
    big = {
        "bibtex": f"@article{{k, title = {{Big}}, abstract = {{{abstract}}}}}",
        "ris": f"TY  - JOUR\nTI  - Big\nAB  - {abstract}\nER  - \n",
        "csl-json": json.dumps([{"title": "Big", "abstract": abstract}]),
    }
    for fmt, text in big.items():
        seconds = median_seconds(args.runs, read_bibliography, text)
        print(f"read one entry with a 1 MB abstract ({fmt}): {seconds:.3f} s")

    refs = read_bibliography(entries(10_000, "zotero")).references
    for name, write in (("bibtex", to_bibtex), ("csl-json", to_csl_json)):
        written = write(refs)
        seconds = median_seconds(args.runs, write, refs)
        back = read_bibliography(written).references
        same = sum(_core(a) == _core(b) for a, b in zip(refs, back, strict=True))
        read_s = median_seconds(args.runs, read_bibliography, written)
        print(f"{name}: write 10,000 {seconds:.2f} s, read back {read_s:.2f} s, {same:,} identical")

    if args.snapshot:
        with (
            gzip.open(args.snapshot, "rb") if args.snapshot.suffix == ".gz" else args.snapshot.open("rb") as f
        ):
            papers = [
                paper_from_record(orjson.loads(line), "bench") for line in itertools.islice(f, args.limit)
            ]
        start = time.perf_counter()
        back = read_bibliography(to_bibtex(papers)).references
        seconds = time.perf_counter() - start
        pairs = list(zip(back, papers, strict=True))
        ids = sum(r.arxiv_id == p.id for r, p in pairs)
        years = sum(r.year == (p.published or p.announced or p.updated or date.min).year for r, p in pairs)
        dois = sum(r.doi == (p.doi.lower() if p.doi else None) for r, p in pairs)
        print(
            f"{len(papers):,} papers to BibTeX and back: {seconds:.2f} s; "
            f"arXiv ids {ids:,}, years {years:,}, DOIs {dois:,} survive"
        )


def _core(r: Reference) -> tuple[object, ...]:
    return (r.title, r.authors, r.year, r.doi, r.arxiv_id, r.tags, r.abstract)


if __name__ == "__main__":
    main()
