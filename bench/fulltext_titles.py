"""The title-match threshold of reference resolution (``eprints.TITLE_MATCH``), measured on the fixtures, and
per fixture: references found, naming an arXiv id, resolved to store papers.

The store: the 20k file (real papers, distractors) plus every paper of the 300k file that a fixture's
references name by arXiv id. Each reference that names an arXiv id and has a title is a case with a known
answer: its title alone (the id hidden) is matched against the store (``eprints.title_match`` at threshold
0, the best candidate and its similarity kept). A case whose paper is in the store is a positive (right when
the match is that paper); a case whose paper is not is a negative (any match is a false one). For each
threshold: precision (right / matched) and recall (right / positives) of title matching.

    PYTHONPATH=src python bench/fulltext_titles.py
"""

from __future__ import annotations

import gzip
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fulltext_server import EPRINTS, FULLTEXT  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
THRESHOLDS = (0.50, 0.60, 0.70, 0.75, 0.80, 0.85, 0.88, 0.90, 0.93, 0.95, 0.97, 1.0)


def main() -> None:
    from papersift.records.paper import normalize_id
    from papersift.services.eprints import resolve, title_match
    from papersift.services.ingest import ingest_paths
    from papersift.sources.eprint import extract
    from papersift.store.sqlite import SqliteStore

    texts = {}
    for pid, name in EPRINTS.items():
        kind = "application/pdf" if name.endswith(".pdf") else "application/x-eprint-tar"
        started = time.perf_counter()
        texts[pid] = (extract((FULLTEXT / name).read_bytes(), arxiv_id=pid, content_type=kind), started)
    named = {normalize_id(r.arxiv_id) for t, _ in texts.values() for r in t.references if r.arxiv_id}
    with tempfile.TemporaryDirectory() as tmp:
        extra = []
        with gzip.open(SHARED / "arxiv-300k.jsonl.gz") as f:
            for line in f:
                head = line[:40]
                if any(n.encode() in head for n in named):
                    record = orjson.loads(line)
                    if record["id"] in named:
                        extra.append(record)
        path = Path(tmp) / "extra.jsonl"
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in extra))
        store = SqliteStore(Path(tmp) / "papersift.db")
        ingest_paths(store, [SHARED / "arxiv-20k.jsonl.gz", path])
        print(
            f"store: {store.count():,} papers ({len(extra)} of the {len(named)} arXiv ids the fixtures name)"
        )
        print(
            "\nper fixture: references | naming an arXiv id | resolved to a store paper (all ways) | seconds"
        )
        for pid, (text, _) in texts.items():
            started = time.perf_counter()
            resolved = resolve(store, text.references, pid)
            took = time.perf_counter() - started
            with_id = sum(r.arxiv_id is not None for r in text.references)
            here = sum(r.resolved is not None for r in resolved)
            print(f"  {pid:18} {len(text.references):4} | {with_id:3} | {here:3} | resolve {took:.2f} s")
        cases = []
        for text, _ in texts.values():
            for r in text.references:
                if r.arxiv_id and r.title:
                    want = normalize_id(r.arxiv_id)
                    hit = title_match(store, r.title, threshold=0.0)
                    cases.append((want, store.get(want) is not None, hit))
        positives = sum(p for _, p, _ in cases)
        print(
            f"\ntitle cases: {len(cases)} references with an arXiv id and a title; {positives} in the store"
        )
        print("threshold | matched | right | wrong | precision | recall")
        for t in THRESHOLDS:
            matched = [(w, h) for w, _, h in cases if h is not None and h[1] >= t]
            right = sum(h[0] == w for w, h in matched)
            wrong = len(matched) - right
            precision = right / len(matched) if matched else 1.0
            recall = right / positives if positives else 0.0
            print(
                f"  {t:.2f}    | {len(matched):5} | {right:5} | {wrong:5} | {precision:.3f}"
                f"     | {recall:.3f}"
            )
        wrongs = sorted(
            ((h[1], w, h[0]) for w, _, h in cases if h is not None and h[0] != w and h[1] >= 0.5),
            reverse=True,
        )
        for ratio, want, got in wrongs[:8]:
            print(f"  wrong at {ratio:.3f}: {want} matched {got}: {store.get(got).title[:70]!r}")  # type: ignore[union-attr]
        store.close()


if __name__ == "__main__":
    main()
