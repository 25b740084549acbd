"""The real data beside the checkout and the records the tests make from it: JSON Lines files, real
papers spread over the 20k file, a paper full of HTML (``EVIL``), the two real days of ``daily_home``."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import orjson

from papersift.records.paper import Paper
from papersift.sources.snapshot import paper_from_record

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = ROOT.parent / "shared" / "data"

DAILY_DAYS = ("2026-08-20", "2026-08-21")  # two real announcement days of cs.CL / cs.AI in the 300k file

EVIL = {
    "id": "2608.99999",
    "title": "<script>alert('title')</script> & <b>bold</b> $x<y$",
    "abstract": "An abstract with <img src=x onerror=alert(1)> and <script>alert('abs')</script>.",
    "authors": ["<script>alert('author')</script> Mallory", "Eve O'Hara"],
    "categories": ["cs.CR"],
    "primary_category": "cs.CR",
    "published": None,
    "announced": "2026-08-21",
}


def write_jsonl(path: Path, records: list[dict[str, object]], gz: bool = False) -> Path:
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def spread_records(shared_data: Path, step: int) -> list[dict[str, object]]:
    """Every ``step``-th record of the 20k file: real papers across fields and years."""
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz", "rb") as f:
        return [orjson.loads(line) for line in itertools.islice(f, 0, 20_000, step)]


def announced_on(shared_data: Path, days: tuple[str, ...]) -> list[dict[str, object]]:
    """Every record of the 300k file announced on one of ``days`` (in the file's order)."""
    marks = tuple(f'"announced": "{d}"'.encode() for d in days)
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        return [orjson.loads(line) for line in f if any(m in line for m in marks)]


def as_papers(records: list[dict[str, object]]) -> list[Paper]:
    return [paper_from_record(r, "test") for r in records]


def day_records(home: Path, day: str) -> list[dict[str, object]]:
    """The records ``daily_home`` ingested for ``day``."""
    with (home / "days.jsonl").open("rb") as f:
        return [r for r in map(orjson.loads, f) if r["announced"] == day]
