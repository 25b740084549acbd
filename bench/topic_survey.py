"""Topic names and map balance over many ordinary days (``python bench/topic_survey.py``).

The busy days of ``bench/topic_names.py`` are the hardest; this is what a reader sees most days. A store
of the offline demo (``papersift demo --offline --no-background --no-embed --days N``: the snapshot's
latest N announcement days of every category it holds), embedded by ``papersift embed``, built once in
``--home`` and reused. For each category asked and each of its days with at least 20 papers: the day's
topic map (``topic_map``, as its listing draws it), each topic's name and size (``*``: a lone word), and
its other papers (the groups no phrase names, pooled, with their words). Then, over all those days: how
many names are phrases of two to five words as shown, arXiv category names, lone words; the mean share of
a day its other papers are (and papers in topics named by a lone word); the mean share of its day the
largest named topic holds and the days where one topic holds over half (a map of one blob); the median
time ``topic_map`` takes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from papersift.index.indexes import open_indexes
from papersift.ranking.topics import listing_entries, topic_map
from papersift.records.taxonomy import category_named
from papersift.settings import Settings
from papersift.store import open_store

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def build(home: Path, days: int) -> None:
    if (home / "papersift.db").exists():
        return
    env = {**os.environ, "PAPERSIFT_HOME": str(home)}
    cli = [sys.executable, "-m", "papersift.cli"]
    demo = [
        "demo",
        "--offline",
        "--no-background",
        "--no-embed",
        "--shared",
        str(SHARED),
        "--days",
        str(days),
    ]
    subprocess.run([*cli, *demo], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*cli, "embed"], env=env, check=True)


def name_kind(label: str) -> str:
    """``category`` (an arXiv category's name), ``phrase`` (two to five words as shown), ``word`` or
    ``none``."""
    if category_named(label):
        return "category"
    if 2 <= len(label.split()) <= 5:
        return "phrase"
    return "word" if label else "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/papersift-bench-topic-survey"))
    parser.add_argument("--days", type=int, default=12, help="latest announcement days per category")
    parser.add_argument("categories", nargs="*", default=["cs.AI", "cs.CL", "cs.CV", "cs.LG"])
    args = parser.parse_args()
    build(args.home, args.days)
    settings = Settings(home=args.home)
    store = open_store(settings)
    indexes = open_indexes(store, settings)
    kinds: Counter[str] = Counter()
    largest: list[float] = []
    other: list[float] = []
    lone: list[float] = []
    times: list[float] = []
    for category in args.categories:
        for day in store.announcement_days(category)[-args.days :]:
            papers = [e.paper for e in listing_entries(store, category, day)]
            if len(papers) < 20:
                continue
            started = time.perf_counter()
            tmap = topic_map(indexes, papers)
            times.append(time.perf_counter() - started)
            largest.append(max((len(t.papers) for t in tmap.clusters if t.label), default=0) / len(papers))
            rest = sum(len(t.papers) for t in tmap.clusters if not t.label)
            other.append(rest / len(papers))
            lone.append(
                sum(len(t.papers) for t in tmap.clusters if name_kind(t.label) == "word") / len(papers)
            )
            shown = []
            for topic in tmap.clusters:
                if not topic.label:
                    shown.append(f"(other papers) {rest} [{', '.join(topic.terms)}]")
                    continue
                kind = name_kind(topic.label)
                kinds[kind] += 1
                star = "" if kind in ("phrase", "category") else "*"
                shown.append(f"{topic.label or '(unnamed)'} {len(topic.papers)}{star}")
            print(f"{category} {day} ({len(papers)} papers): " + "; ".join(shown))
    total = max(sum(kinds.values()), 1)
    print(
        f"names: phrases {kinds['phrase']}/{total}, arXiv categories {kinds['category']}/{total}, "
        f"lone words {kinds['word']}/{total}, none {kinds['none']}/{total}; phrases or categories "
        f"{(kinds['phrase'] + kinds['category']) / total:.1%}"
    )
    if largest:
        print(
            f"other papers (in no group a phrase names): mean {statistics.mean(other):.1%} of a day, "
            f"{sum(s > 0 for s in other)} of {len(other)} days have some; papers in topics named by a lone "
            f"word: mean {statistics.mean(lone):.1%}; largest named topic: mean "
            f"{statistics.mean(largest):.1%} of its day; days where one topic holds over half: "
            f"{sum(s > 0.5 for s in largest)} of {len(largest)}; topic_map median "
            f"{statistics.median(times) * 1000:.0f} ms"
        )
    store.close()


if __name__ == "__main__":
    main()
