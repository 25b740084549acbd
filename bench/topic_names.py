"""Topic names of real busy days (``python bench/topic_names.py``; ``make bench-topic-names``).

For each category asked (default cs.LG, cs.CV, cs.CL; an archive such as astro-ph counts its subject classes)
its ``--days`` busiest announcement days of the 300k file by their numbers (the most papers listing the
category that day, new and cross-lists; ``--days 2 cs.LG cs.CV cs.CL cs.AI astro-ph``: 10 days), every such
paper ingested and embedded (MiniLM) into one store in ``--home`` (built once, reused), then the day's topic
map (``topic_map``, as ``papersift topics CAT --date DAY`` draws it). Printed per day: each topic's size and
name, then the share of names that are phrases of two to five words as shown (``multi-agent`` is one word) and
of those that are an arXiv category's name, the share meeting the one-third rule (the name's phrase, or its
category, in at least a third of its topic's papers and in a smaller share of the day's others), the share
meeting the measure (also in at most a quarter of the day's papers, not the name of a category over a
quarter of the day lists, its topic at most 40 % of the day), the number of
lone generic words (``GENERIC``) among the names and of unnamed topics, the papers the last resort moved out
of topics no phrase names (``topics.claimed``), and the time ``topic_map`` takes (median of 5, indexes warm).
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import orjson

from papersift.index.indexes import open_indexes
from papersift.ranking.phrases import GENERIC
from papersift.ranking.topics import listing_entries, maps, topic_map
from papersift.ranking.topics.book import name_key, name_keys
from papersift.records.taxonomy import canonical, category_name, category_named
from papersift.settings import Settings
from papersift.store import open_store

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "arxiv-300k.jsonl.gz"


def busiest_days(categories: list[str], n: int = 1) -> list[tuple[str, str]]:
    """Each category's ``n`` busiest announcement days of the 300k file (ties: the later day); an archive
    (``astro-ph``) counts the papers of its subject classes."""
    counts: dict[str, Counter[str]] = {c: Counter() for c in categories}
    with gzip.open(DATA, "rb") as f:
        for line in f:
            if b'"announced": null' in line:
                continue
            record = orjson.loads(line)
            day = record.get("announced")
            for c in categories:
                if day and any(_in(c, listed) for listed in record["categories"]):
                    counts[c][day] += 1
    return [(c, d) for c in categories for d in sorted(counts[c], key=lambda d: (-counts[c][d], d))[:n]]


def _in(category: str, listed: str) -> bool:
    return listed == category or ("." not in category and listed.startswith(category + "."))


def build(home: Path, days: list[tuple[str, str]]) -> None:
    if (home / "papersift.db").exists():
        return
    home.mkdir(parents=True, exist_ok=True)
    out = home / "days.jsonl"
    with gzip.open(DATA, "rb") as f, out.open("wb") as w:
        for line in f:
            if b'"announced": null' in line:
                continue
            record = orjson.loads(line)
            listed = record["categories"]
            if any(record.get("announced") == d and any(_in(c, x) for x in listed) for c, d in days):
                w.write(orjson.dumps(record) + b"\n")
    env = {**os.environ, "PAPERSIFT_HOME": str(home)}
    cli = [sys.executable, "-m", "papersift.cli"]
    subprocess.run([*cli, "ingest", str(out)], env=env, check=True)
    subprocess.run([*cli, "embed"], env=env, check=True)


MOVED: list[int] = []  # the papers each map's ``claimed`` moved


def _counted(*args: Any) -> tuple[Any, int]:
    labels, moved = CLAIMED(*args)
    MOVED.append(moved)
    return labels, moved


CLAIMED, maps.claimed = maps.claimed, _counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, default=Path("/tmp/papersift-bench-topic-names"))
    parser.add_argument("--days", type=int, default=1, help="the busiest days of each category")
    parser.add_argument("categories", nargs="*", default=["cs.LG", "cs.CV", "cs.CL"])
    args = parser.parse_args()
    days = busiest_days(args.categories, args.days)
    build(args.home, days)
    settings = Settings(home=args.home)
    store = open_store(settings)
    indexes = open_indexes(store, settings)
    for category, day in days:
        papers = [e.paper for e in listing_entries(store, category, date.fromisoformat(day))]
        times = []
        for _ in range(5):  # clustering and naming (the indexes warm): median of 5
            started = time.perf_counter()
            tmap = topic_map(indexes, papers)
            times.append(time.perf_counter() - started)
        bags = {p.id: name_keys(f"{p.title} {p.abstract}") for p in papers}
        phrased = held = generic = named_by_category = 0
        print(
            f"{category} {day}: {len(papers)} papers, {len(tmap.clusters)} topics; topic_map median "
            f"{statistics.median(times) * 1000:.0f} ms (min {min(times) * 1000:.0f})"
        )
        named = [t for t in tmap.clusters if t.label]
        others = sum(len(t.papers) for t in tmap.clusters if not t.label)
        listed = Counter(c for p in papers for c in {canonical(c) for c in p.categories})
        wide = {name_key(category_name(c) or "") for c, n in listed.items() if 4 * n > len(papers)}
        measured = 0
        for topic in tmap.clusters:
            if not topic.label:
                print(f"  {len(topic.papers):4d}  {'(other papers)':40s} [{'; '.join(topic.terms)}]")
                continue
            key = name_key(topic.label)
            words = key.split()
            category = category_named(topic.label)
            phrased += 2 <= len(topic.label.split()) <= 5 and not category
            named_by_category += bool(category)
            generic += len(words) == 1 and words[0] in GENERIC
            mine = set(topic.papers)
            holding = {
                p.id
                for p in papers
                if (category in {canonical(c) for c in p.categories} if category else key in bags[p.id])
            }
            having, other = len(holding & mine), len(holding - mine)
            share, rest = having / len(mine), other / max(len(papers) - len(mine), 1)
            day_share, size_share = len(holding) / len(papers), len(mine) / len(papers)
            held += share >= 1 / 3 and rest < share
            # the measure: a third of its topic writes it, at most a quarter of the day, not the name of
            # a category over a quarter of the day lists, the topic at most 40 % of the day
            meets = share >= 1 / 3 and day_share <= 1 / 4 and key not in wide and size_share <= 0.4
            measured += meets
            print(
                f"  {len(mine):4d}  {topic.label:40s} in {share:.0%} of its papers, {rest:.0%} of the rest, "
                f"{day_share:.0%} of the day; topic {size_share:.0%} of the day"
                + ("" if meets else "  ** fails the measure")
            )
        k = max(len(named), 1)
        largest = max((len(t.papers) for t in named), default=0) / len(papers)
        print(
            f"  names of 2-5 words as shown: {phrased}/{k}; arXiv category names: {named_by_category}/{k}; "
            f"meeting the one-third rule: {held}/{k}; lone generic words: {generic}; "
            f"other papers (no phrase names their group): {others} ({others / len(papers):.0%}); "
            f"papers moved out of topics no phrase names: {MOVED[-1]}"
        )
        print(
            f"  the measure (>= 1/3 of its topic, <= 1/4 of the day, not the listing's category, topic <= "
            f"40 %): {measured}/{k} named topics; largest named topic {largest:.0%} of the day; "
            f"unnamed share {others / len(papers):.1%}"
        )
    store.close()


if __name__ == "__main__":
    main()
