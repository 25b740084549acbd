"""The background reading pass for one real day of cs.LG (``python bench/reading_pass.py``,
``make bench-reading``).

1. A temporary home (``--home``, default a fresh folder under /tmp; never the real one) holding every paper
   of the busiest cs.LG announcement day of arxiv-300k.jsonl.gz (by ``announced``, cross-lists included,
   as the day's cs.LG listing shows them), ingested with ``papersift ingest``, and one reader who follows
   cs.LG (``papersift follow -c cs.LG``).
2. The pass ``papersift daily`` / ``sync`` run after embedding: ``digest.read_ahead`` over the store's
   readers with the local default model (``PAPERSIFT_LLM_LOCAL=true``), at most ``reading_pass_papers``
   papers per reader (``--papers``, default 20). The reader has no library, so the picks are the day's
   papers in arXiv order whether or not they are embedded (this bench does not embed). Timed from a
   started server (its start is timed apart); tokens are the store's own usage counting (``llm_usage``).
   The same-run baseline: the extractive TL;DR (``reading.extractive.key_sentence``) of the same papers.
3. With ``--faq N`` (default 2): the FAQ of the first N papers of the pass in English, and of the first
   also in 中文, through ``reading.texts.faq_stream`` (what the paper page streams), printed and written
   to ``bench/out/reading_faq.md``. The figures go to ``bench/out/reading_pass.md``.
The home (with its copy of the weights, ~470 MB) is removed at the end unless ``--home`` named it.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "arxiv-300k.jsonl.gz"
OUT = ROOT / "bench" / "out"
CATEGORY = "cs.LG"


def day_records(path: Path, category: str) -> tuple[str, list[dict[str, object]]]:
    """The busiest announcement day of ``category`` (cross-lists included) and its records."""
    mark = f'"{category}"'.encode()
    by_day: dict[str, list[dict[str, object]]] = {}
    with gzip.open(path, "rb") as f:
        for line in f:
            if mark not in line:
                continue
            record = orjson.loads(line)
            if category in record.get("categories", ()) and record.get("announced"):
                by_day.setdefault(str(record["announced"]), []).append(record)
    counts = Counter({day: len(rs) for day, rs in by_day.items()})
    day = max(counts, key=lambda d: (counts[d], d))
    return day, by_day[day]


def build(home: Path, records: list[dict[str, object]]) -> None:
    """``home`` with ``records`` ingested and one reader following ``CATEGORY``, by the CLI."""
    home.mkdir(parents=True, exist_ok=True)
    day_file = home / "day.jsonl"
    day_file.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    cli = [sys.executable, "-m", "papersift.cli"]
    for args in (["ingest", str(day_file)], ["follow", "-c", CATEGORY]):
        subprocess.run([*cli, *args], env=os.environ, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument(
        "--home", type=Path, help="a new folder, kept (default: a fresh one under /tmp, removed at the end)"
    )
    parser.add_argument("--papers", type=int, default=20, help="reading_pass_papers")
    parser.add_argument("--faq", type=int, default=2, help="FAQs of the pass's first papers (0: none)")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="papersift-bench-reading-"))
    if (home / "papersift.db").exists():
        sys.exit(f"{home} already holds a store: give a new folder")
    os.environ.update(
        PAPERSIFT_HOME=str(home),
        PAPERSIFT_MODEL_CACHE=str(home / "cache"),
        PAPERSIFT_LLM_LOCAL="true",
        PAPERSIFT_READING_PASS_PAPERS=str(args.papers),
        PAPERSIFT_LLM_IDLE_MINUTES="30",
    )
    for name in ("PAPERSIFT_LLM_URL", "PAPERSIFT_LLM_MODEL", "PAPERSIFT_LLM_KEY"):
        os.environ.pop(name, None)

    from papersift.cli.common import load_settings, opened
    from papersift.library.digest import read_ahead
    from papersift.llm import local
    from papersift.ranking.daily import daily_picks
    from papersift.reading.extractive import key_sentence
    from papersift.reading.texts import faq_stream, reading_key

    if not local.installed():
        sys.exit("the local model's runtime is not installed: pip install 'papersift[llm]'")
    day, records = day_records(args.data, CATEGORY)
    build(home, records)
    settings = load_settings(None)
    assert settings.home == home and settings.llm_local and not settings.llm_url
    local.weights(settings)  # verified once (PAPERSIFT_LLM_GGUF, …_SHA256), before any clock starts
    started = time.perf_counter()
    local.ensure(settings)
    start_s = time.perf_counter() - started
    print(f"{CATEGORY} {day}: {len(records)} papers in {home}; local default started in {start_s:.1f} s")

    with opened(settings) as o:
        store = o.store
        (reader,) = store.accounts()
        view = daily_picks(
            store, o.indexes, reader, settings.default_categories, k=settings.reading_pass_papers
        )
        papers = [p.paper for p in view.picks]  # what read_ahead picks, the same call
        assert view.day.isoformat() == day
        listed = len(daily_picks(store, o.indexes, reader, settings.default_categories).picks)
        today = datetime.now(UTC).date()
        before = store.llm_usage(today)
        t0 = time.perf_counter()
        made = read_ahead(store, o.indexes, settings, store.accounts())
        pass_s = time.perf_counter() - t0
        after = store.llm_usage(today)
        prompt = sum(u.prompt_tokens for u in after) - sum(u.prompt_tokens for u in before)
        completion = sum(u.completion_tokens for u in after) - sum(u.completion_tokens for u in before)
        calls = sum(u.calls for u in after) - sum(u.calls for u in before)

        t0 = time.perf_counter()
        extractive = [key_sentence(p.abstract, p.title) for p in papers]
        extractive_s = time.perf_counter() - t0

        lines = [
            f"# The reading pass on {CATEGORY} {day} (local model {local.model_name(settings)})",
            "",
            f"- the day: {len(records)} papers in {CATEGORY} (cross-lists included), {listed} in the "
            "reader's Daily Papers; "
            f"reading_pass_papers = {args.papers}",
            f"- {made.line('reading')}",
            f"- local default start: {start_s:.1f} s (not in the pass's seconds)",
            f"- pass: {len(papers)} papers, {calls} model calls, tokens {prompt} prompt + {completion} "
            f"completion = {prompt + completion}, {pass_s:.1f} s wall, "
            f"{len(papers) / (pass_s / 60):.2f} papers per minute",
            f"- baseline (same run): extractive TL;DRs of the same {len(papers)} papers in "
            f"{extractive_s:.3f} s ({len(papers) / (extractive_s / 60):.0f} papers per minute)",
            "",
        ]
        for p, key in zip(papers, extractive, strict=True):
            tldr = store.reading(reading_key(settings, p, "tldr", "en"))
            text = tldr.text if tldr and tldr.text else f"(failed: {tldr.error if tldr else 'none'})"
            lines += [
                f"## {p.id}  {p.title}",
                f"- TL;DR ({local.MODEL}): {text}",
                f"- key sentence: {key}",
                "",
            ]
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "reading_pass.md").write_text("\n".join(lines), encoding="utf-8")
        print("\n".join(lines), flush=True)

        faqs = [f"# FAQs by the local default ({local.MODEL}), {CATEGORY} {day}", ""]
        for n, paper in enumerate(papers[: args.faq]):
            for lang in ("en", "zh") if n == 0 else ("en",):
                print(f"\n== FAQ ({lang}) of {paper.id}  {paper.title}", flush=True)
                t0 = time.perf_counter()
                parts = []
                for delta in faq_stream(settings, store, paper, lang):
                    parts.append(delta)
                    print(delta, end="", flush=True)
                faq_s = time.perf_counter() - t0
                print(f"\n({faq_s:.1f} s)", flush=True)
                faqs += [f"## {paper.id}  {paper.title} ({lang}, {faq_s:.1f} s)", "", "".join(parts), ""]
                (OUT / "reading_faq.md").write_text("\n".join(faqs), encoding="utf-8")
    local.stop(settings)
    if args.home is None:
        shutil.rmtree(home)
    print(f"\nwritten: {OUT / 'reading_pass.md'}" + (f", {OUT / 'reading_faq.md'}" if args.faq else ""))


if __name__ == "__main__":
    main()
