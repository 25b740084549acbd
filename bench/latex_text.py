"""LaTeX to text on real arXiv metadata (``python bench/latex_text.py``; ../shared/data/arxiv-20k.jsonl.gz).

Times ``sources/latex.py``'s conversions over the titles and abstracts of the first ``--papers`` papers
(each call on a fresh cache): ``plain_text`` (the plain faces), ``tex_text`` (the pages) and
``latex_to_unicode`` (a BibTeX field), in µs a character; and counts the outputs of ``plain_text`` in which
a ``\\command`` survives (it should be none). Full-text extraction, where the scanner matters most (a
thesis), is timed by ``bench/fulltext.py``.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import re
import time
from pathlib import Path

import orjson

from papersift.sources.latex import latex_to_unicode, plain_text, tex_text

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "arxiv-20k.jsonl.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    with gzip.open(args.data, "rb") as f:
        rows = [orjson.loads(line) for line in itertools.islice(f, args.papers)]
    texts = [r["title"] for r in rows] + [r["abstract"] for r in rows]
    chars = sum(map(len, texts))
    print(f"{len(texts)} titles and abstracts, {chars} characters")
    for name, convert in (
        ("plain_text", plain_text),
        ("tex_text", tex_text),
        ("latex_to_unicode", latex_to_unicode),
    ):
        convert.cache_clear()
        start = time.perf_counter()
        for text in texts:
            convert(text)
        seconds = time.perf_counter() - start
        print(f"{name}: {seconds:.2f} s, {seconds / chars * 1e6:.2f} µs a character")
    left = sum(1 for t in texts if re.search(r"\\[A-Za-z]+", plain_text(t)))
    print(f"plain_text outputs with a \\command left: {left}")


if __name__ == "__main__":
    main()
