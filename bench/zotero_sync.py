"""Zotero sync benchmark (``make bench-zotero``): ``papersift library sync zotero`` as a process, against the
tests' local Zotero Web API (``tests/zotero_server.py``) serving the real recorded library of
``../shared/data/zotero/`` (20 items), then that library plus ``--preprints`` real papers of the 20k file
saved as Zotero's arXiv translator saves them (in the store: linked by arXiv id), then the same again
unchanged (the incremental sync: a 304). Prints, per run: the command's wall seconds, the sync's own
seconds, requests, items read, matched, kept.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from papersift.settings import Settings
from papersift.sources.snapshot import paper_from_record
from papersift.store import open_store

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the local Zotero API the tests serve
from tests.zotero_server import RECORDED_USER, ZoteroServer  # noqa: E402


def _sync(home: Path, server: ZoteroServer, key: str) -> tuple[float, dict[str, object]]:
    env = {**os.environ, "PAPERSIFT_HOME": str(home), "PAPERSIFT_ZOTERO_URL": server.url}
    env["PAPERSIFT_ZOTERO_KEY"] = key
    env["PAPERSIFT_API_URL"] = "http://127.0.0.1:9/api/query"  # never the real arXiv
    started = time.perf_counter()
    ran = subprocess.run(
        [sys.executable, "-m", "papersift.cli", "library", "sync", "zotero", "--user", str(RECORDED_USER),
         "--format", "json"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if ran.returncode:
        sys.exit(f"papersift library sync zotero failed:\n{ran.stderr}")
    return time.perf_counter() - started, json.loads(ran.stdout)


def _line(name: str, wall: float, report: dict[str, object]) -> str:
    t = report["totals"]
    assert isinstance(t, dict)
    return (
        f"{name:<34} wall {wall:6.2f} s  sync {report['seconds']:6.3f} s  requests {report['requests']:>3}  "
        f"items {t['items']:>5}  matched {t['matched']:>5}  kept {t['kept']:>3}  entries {t['entries']:>5}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=Path("../shared/data/arxiv-20k.jsonl.gz"))
    parser.add_argument("--preprints", type=int, default=1000)
    args = parser.parse_args()
    with gzip.open(args.corpus, "rb") as f:
        records = [json.loads(line) for line in itertools.islice(f, args.preprints)]
    key = secrets.token_hex(12)
    with tempfile.TemporaryDirectory() as tmp, ZoteroServer(key=key) as server:
        home = Path(tmp) / "home"
        store = open_store(Settings(home=home))
        store.upsert([paper_from_record(r, "bench") for r in records])
        store.close()
        wall, report = _sync(home, server, key)
        print(_line("recorded library (first sync)", wall, report))
        wall, report = _sync(home, server, key)
        print(_line("recorded library (unchanged)", wall, report))
        for n, r in enumerate(records):
            server.user.put_item(
                {"key": f"B{n:07d}", "itemType": "preprint", "title": r["title"],
                 "abstractNote": r["abstract"], "creators": [], "archiveID": f"arXiv:{r['id']}", "url": f"http://arxiv.org/abs/{r['id']}",
                 "collections": [], "tags": [], "extra": ""}
            )  # fmt: skip
        wall, report = _sync(home, server, key)
        print(_line(f"+{len(records)} arXiv preprints (since=)", wall, report))
        wall, report = _sync(home, server, key)
        print(_line("unchanged again (304)", wall, report))
        assert not any(key.encode() in p.read_bytes() for p in home.rglob("*") if p.is_file())


if __name__ == "__main__":
    main()
