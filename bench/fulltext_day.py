"""A day of cs.CL's top 20 Daily Papers fetched in full from a local server playing arXiv (the real e-prints
and PDFs of ``../shared/data/fulltext``, each of the 20 store ids served one fixture file in turn): the
seconds spent reading, resolving and storing (downloads excluded) and the bytes stored.

    PYTHONPATH=src python bench/fulltext_day.py [--day 2026-08-20]

The day's cs.CL papers come from the 300k file (real records); the ranking is the Daily Papers of the
reader-less view (no vectors: keyword evidence and arXiv's order), its top 20.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fulltext_server import EPRINTS, FulltextServer  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--day", default="2026-08-20")
    parser.add_argument("--k", type=int, default=20)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        records = []
        with gzip.open(SHARED / "arxiv-300k.jsonl.gz") as f:
            for line in f:
                if args.day.encode() in line:
                    r = orjson.loads(line)
                    if r.get("announced") == args.day and r["primary_category"] == "cs.CL":
                        records.append(r)
        (home / "day.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
        with FulltextServer() as server:
            os.environ.update({**server.env(), "PAPERSIFT_HOME": str(home)})
            from papersift.ranking.daily import daily_picks
            from papersift.services.eprints import fetch_fulltexts
            from papersift.services.harvest import ArxivClient
            from papersift.services.ingest import ingest_paths
            from papersift.settings import Settings
            from papersift.store import open_store

            settings = Settings(home=home)
            store = open_store(settings)
            ingest_paths(store, [home / "day.jsonl"])
            view = daily_picks(store, None, None, ["cs.CL"], k=args.k)
            papers = [p.paper for p in view.picks]
            files = list(EPRINTS.values())
            server.eprints = {p.id: files[i % len(files)] for i, p in enumerate(papers)}
            before = settings.db_path.stat().st_size
            with ArxivClient(settings) as client:
                done = fetch_fulltexts(client, store, papers)
            store.close()
            after = settings.db_path.stat().st_size + sum(
                p.stat().st_size for p in home.glob("papersift.db-wal") if p.exists()
            )
    stored = sum(i.size for i in done.stored)
    words = sum(i.words for i in done.stored)
    print(f"day {view.day} cs.CL: {len(records)} papers in the store, top {len(papers)} fetched")
    print(
        f"stored {len(done.stored)}, failed {len(done.failed)} {[f[0] for f in done.failed]}; "
        f"downloaded {done.downloaded:,} bytes"
    )
    print(f"seconds reading+resolving+storing (downloads excluded): {done.seconds:.2f}")
    print(f"bytes stored (compressed full texts): {stored:,}; words {words:,}")
    print(f"database file growth incl. WAL (pages, edges, indexes): {after - before:,} bytes")


if __name__ == "__main__":
    main()
