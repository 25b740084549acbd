"""Related papers' reasons before and after, on the same papers (``python bench/related_reasons.py --other
OLD/src``; ``make bench-related-reasons OTHER=OLD/src``).

The papers: every paper of the 300k file's busiest cs.CL announcement day (by the papers listing cs.CL
that day; ties: the later day) and every cs.CL paper of the 20k file (older work across the years), written
once to ``--out``/papers.jsonl. The queries: the day's first ten papers by id (fixed by that rule). Each
side (this checkout's ``src`` and ``--other``'s) gets its own store under ``--out`` built from that one
file (``papersift ingest``, then ``embed``; built once, reused), since the two may differ in schema or index
generation; the other side's embedding reuses this side's vectors through a copy of its vector cache. Then
``papersift related --ids-from … -k 10 --format json`` runs with each side's code, and a table shows, for
each query's top ``--show`` related papers of this checkout, the reasons ("why") the other checkout gave
for the same pair (if it was in its top 10) and those this checkout gives. Each side's shared terms are
also checked: how many occur, as written (case aside), in both the query's and the related paper's text.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
CATEGORY = "cs.CL"
QUERIES = 10


def papers(out: Path) -> tuple[str, list[str]]:
    """Write the papers once; the busiest day and the ids of its first ten papers."""
    target, marker = out / "papers.jsonl", out / "queries.txt"
    if marker.exists():
        day, *ids = marker.read_text().split()
        return day, ids
    with gzip.open(SHARED / "arxiv-300k.jsonl.gz", "rb") as f:
        listed = [r for r in map(orjson.loads, f) if r.get("announced") and CATEGORY in r["categories"]]
    counts = Counter(str(r["announced"]) for r in listed)
    day = max(counts, key=lambda d: (counts[d], d))
    chosen = sorted((r for r in listed if r["announced"] == day), key=lambda r: str(r["id"]))
    with gzip.open(SHARED / "arxiv-20k.jsonl.gz", "rb") as f:
        older = [r for r in map(orjson.loads, f) if CATEGORY in r["categories"]]
    seen = {r["id"] for r in chosen}
    out.mkdir(parents=True, exist_ok=True)
    target.write_bytes(
        b"".join(orjson.dumps(r) + b"\n" for r in chosen + [r for r in older if r["id"] not in seen])
    )
    ids = [str(r["id"]) for r in chosen[:QUERIES]]
    marker.write_text(" ".join([day, *ids]) + "\n")
    return day, ids


def cli(src: Path, home: Path, *args: str) -> str:
    """``papersift ARGS`` over ``home`` with the code of ``src``; its standard output."""
    env = {
        **os.environ,
        "PYTHONPATH": str(src),
        "PAPERSIFT_HOME": str(home),
        "PAPERSIFT_RESIDENT_MINUTES": "0",
    }
    done = subprocess.run(
        [sys.executable, "-m", "papersift.cli", *args],
        env=env,
        cwd=src.parent,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"papersift {' '.join(args)} with {src} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def build(src: Path, home: Path, corpus: Path, cache_from: Path | None) -> None:
    if (home / "built").exists():
        return
    home.mkdir(parents=True, exist_ok=True)
    if cache_from and (cache_from / "vector-cache.db").exists():  # a consistent copy, WAL included
        src_db, dst = sqlite3.connect(cache_from / "vector-cache.db"), sqlite3.connect(home / "cache.tmp")
        src_db.backup(dst)
        src_db.close()
        dst.close()
        (home / "cache.tmp").replace(home / "vector-cache.db")
    cli(src, home, "ingest", str(corpus))
    cli(src, home, "embed")
    (home / "built").write_text(str(src) + "\n")


def related(src: Path, home: Path, ids: list[str]) -> dict[str, list[dict[str, object]]]:
    listed = home / "queries.txt"
    listed.write_text("\n".join(ids) + "\n")
    lines = cli(src, home, "related", "--ids-from", str(listed), "-k", "10", "--format", "json").splitlines()
    return {pid: orjson.loads(line)["results"] for pid, line in zip(ids, lines, strict=True)}


def words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def as_written(results: dict[str, list[dict[str, object]]], texts: dict[str, str]) -> tuple[int, int]:
    """Shared terms of every result, and how many of them occur in both texts (word for word)."""
    terms = found = 0
    for pid, hits in results.items():
        for hit in hits:
            for term in hit.get("terms") or []:  # type: ignore[union-attr]
                terms += 1
                phrase = words(str(term))
                found += phrase in words(texts[pid]) and phrase in words(texts[str(hit["id"])])
    return terms, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--other", type=Path, required=True, help="the other checkout's src (the before)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "related-reasons")
    parser.add_argument("--show", type=int, default=1, help="related papers shown per query")
    args = parser.parse_args()
    day, ids = papers(args.out)
    corpus = args.out / "papers.jsonl"
    after_home, before_home = args.out / "after", args.out / "before"
    build(ROOT / "src", after_home, corpus, None)
    build(args.other.resolve(), before_home, corpus, after_home)
    with corpus.open("rb") as f:
        texts = {str(r["id"]): f"{r['title']} {r['abstract']}" for r in map(orjson.loads, f)}
    after = related(ROOT / "src", after_home, ids)
    before = related(args.other.resolve(), before_home, ids)
    print(f"{len(texts)} papers: {CATEGORY} of {day} (300k file) and {CATEGORY} of the 20k file")
    print(
        f"queries: the first {QUERIES} papers of {day} by id; before: {args.other}; after: {ROOT / 'src'}\n"
    )
    print("| paper | related | reasons before | reasons after |")
    print("|---|---|---|---|")
    for pid in ids:
        old = {str(h["id"]): h for h in before[pid]}
        for hit in after[pid][: args.show]:
            rid = str(hit["id"])
            was = "; ".join(old[rid]["why"]) if rid in old else "(not in its top 10)"  # type: ignore[arg-type]
            now = "; ".join(hit["why"]) or "(none)"  # type: ignore[arg-type]
            print(f"| {pid} | {rid} | {was or '(none)'} | {now} |")
    for name, results in (("before", before), ("after", after)):
        terms, found = as_written(results, texts)
        empty = sum(not h["why"] for hits in results.values() for h in hits)
        total = sum(len(hits) for hits in results.values())
        print(
            f"\n{name}: {found}/{terms} shared terms occur as written in both texts; "
            f"{empty}/{total} results without a reason"
        )


if __name__ == "__main__":
    main()
