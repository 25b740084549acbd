"""What sentence vectors cost: embedding throughput with and without them, and disk per paper.

1. ``--papers`` real papers of the 300k file (none of the 20k eval corpus, so no cache helps), encoded with
   the configured model in this process, no cache: the paper texts alone (what ``embed`` did before), then
   their sentences (``paper_sentences``: title + abstract sentences). Papers/s for each and for both.
2. Disk per paper: the int8 sentence arrays of those papers (vectors, scales, roles, keys, offsets) against
   the paper vector as the store keeps it (float16 blob) and as the ANN file holds it; and, with ``--home``,
   the sizes of a built generation's ``sentences/`` and ``dense.usearch`` divided by its papers.

One JSON line of figures. On a shared machine the throughput varies with the load: the ratio of the two
timings, measured back to back, is the figure to read.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import time
from pathlib import Path

import orjson

from papersift.index.encoder import load_encoder, paper_text
from papersift.index.generations import current_name
from papersift.index.sentences import SentenceSource, embed_segment, paper_sentences
from papersift.settings import Settings

DATA = Path("../shared/data")


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=200)
    parser.add_argument("--home", type=Path, help="a home with a built index generation (disk per paper)")
    args = parser.parse_args()
    with gzip.open(DATA / "arxiv-20k.jsonl.gz", "rb") as f:
        seen = {orjson.loads(line)["id"] for line in f}
    with gzip.open(DATA / "arxiv-300k.jsonl.gz", "rb") as f:
        rows = (orjson.loads(line) for line in f)
        records = list(itertools.islice((r for r in rows if r["id"] not in seen), args.papers))
    settings = Settings()
    encoder = load_encoder(settings)
    encoder.encode(["warm up the model"])
    texts = [paper_text(r["title"], r["abstract"]) for r in records]
    sentences = [s for r in records for s in paper_sentences(r["title"], r["abstract"])]
    started = time.perf_counter()
    encoder.encode(texts)
    papers_s = time.perf_counter() - started
    started = time.perf_counter()
    segment = embed_segment(
        SentenceSource("bench", encoder.encode),
        [(i, r["title"], r["abstract"]) for i, r in enumerate(records)],
    )
    sentences_s = time.perf_counter() - started
    assert segment is not None
    sentence_bytes = sum(a.nbytes for a in (segment.keys, segment.offsets, segment.vectors))
    sentence_bytes += segment.scales.nbytes + segment.roles.nbytes
    n = len(records)
    out: dict[str, object] = {
        "papers": n,
        "sentences_per_paper": round(len(sentences) / n, 2),
        "papers_per_s_without_sentences": round(n / papers_s, 1),
        "papers_per_s_sentences_only": round(n / sentences_s, 1),
        "papers_per_s_with_sentences": round(n / (papers_s + sentences_s), 1),
        "slowdown": round((papers_s + sentences_s) / papers_s, 2),
        "sentence_bytes_per_paper": round(sentence_bytes / n),
        "paper_vector_bytes_float16": encoder.dims * 2,
        "paper_vector_bytes_float32": encoder.dims * 4,
    }
    if args.home:
        home_settings = Settings(home=args.home)
        name = current_name(home_settings.index_dir)
        if name:
            generation = home_settings.index_dir / name
            manifest = json.loads((generation / "MANIFEST.json").read_text())
            papers = int(manifest["vectors"]) or 1
            out["generation_sentence_bytes_per_paper"] = round(_size(generation / "sentences") / papers)
            dense = generation / "dense.usearch"
            out["generation_dense_bytes_per_paper"] = (
                round(dense.stat().st_size / papers) if dense.exists() else None
            )
            out["generation_papers"] = papers
    print(json.dumps(out))


if __name__ == "__main__":
    main()
