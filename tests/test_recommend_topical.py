"""Topical closeness outranks a single shared rare word: a reader with three liked LoRA papers (each one
about LoRA with the SVD) gets unseen LoRA papers above a tensor-network paper of physics whose only link to
them is the singular values of a low-rank correction (the report of issue 39: "why: svd"). Real papers of
the 300k file, ranked as candidates of the embedded test store."""

from __future__ import annotations

import gzip
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import pytest

from papersift.index.indexes import Indexes
from papersift.ranking.recommend import LibraryItem, Profile, recommend
from papersift.records.paper import Paper
from papersift.sources.snapshot import paper_from_record

LIKED = ("2505.14350", "2509.02830", "2510.13003")  # OSoRA, SSVD, OPLoRA: LoRA with the SVD
LORA = ("2503.18089", "2503.18985", "2503.16843")  # D²LoRA, LoRA Subtraction, LoRASculpt: no SVD in them
TENSOR_NETWORK = "1908.10880"  # zero-site DMRG: matrix product states, singular values, low-rank correction
NOW = datetime(2026, 8, 21, tzinfo=UTC)


@pytest.fixture(scope="module")
def papers(shared_data: Path) -> dict[str, Paper]:
    wanted = (*LIKED, *LORA, TENSOR_NETWORK)
    start = re.compile(rb'^\{"id": ?"(' + b"|".join(re.escape(w.encode()) for w in wanted) + rb')"')
    with gzip.open(shared_data / "arxiv-300k.jsonl.gz", "rb") as f:
        found = [paper_from_record(orjson.loads(line), "test") for line in f if start.match(line)]
    assert len(found) == len(wanted)
    return {p.id: p for p in found}


def test_a_liked_topic_outranks_a_paper_sharing_only_a_rare_word(
    indexes: Indexes, papers: dict[str, Paper]
) -> None:
    liked = tuple(
        LibraryItem(None, f"{p.title}. {p.abstract}", tuple(p.authors), 1, NOW - timedelta(days=d), p.title)
        for d, p in enumerate(papers[i] for i in LIKED)
    )
    assert all(re.search(r"\bSVD\b", i.text) for i in liked)
    unknown = 10**9  # rowids of no stored paper: the candidates are embedded and vectorised here
    candidates = {unknown: papers[TENSOR_NETWORK]} | {unknown + 1 + i: papers[p] for i, p in enumerate(LORA)}
    stored = list(indexes.store.by_rowids(range(1, 41)))  # the day's other papers: the store's first 40
    hits = recommend(
        indexes,
        Profile(items=liked),
        [*candidates, *stored],
        k=10,
        now=NOW,
        papers={**indexes.store.by_rowids(stored), **candidates},
    )
    order = [h.rowid for h in hits]
    assert sorted(order[:3]) == [unknown + 1, unknown + 2, unknown + 3], [h.reasons() for h in hits[:4]]
    best = hits[0]
    assert any(line.startswith("close to “") for line in best.reasons())  # the why still names a paper
    assert best.closest[0][0] is None and best.closest[0][1][:60] in {papers[i].title[:60] for i in LIKED}
