"""Screenshots of the topic map on a real busy day (``python bench/screenshots.py``; ``make screenshots``).

The day: the busiest announcement day of ``--category`` (default cs.CV) in the 300k file, by the papers
listing the category that day (new and cross-lists; ties: the later day). Every such paper, and the first
``--saved`` papers of the category's previous announcement day, are ingested and embedded (MiniLM) into
``--home`` (built once, reused); the reader follows the category and saves those earlier papers, so Daily
Papers of the day is ranked by a small real library. ``papersift serve`` then runs on a free 127.0.0.1 port
and Debian's chromium (Playwright, as the browser tests launch it) saves, at 1280 px and 390 px wide, the
viewport of: the day's listing with its map, the ``/map/…`` page and ``/daily/DAY``, and at 390 px the
listing's drawn map itself (``listing-map-390px.png``: the phone's drawing and its chips, scrolled into
view), as PNGs (a 256-colour palette, optimised) in ``--out``. Printed per shot: the page's HTML bytes, the
map's label boxes (which drawing is shown, how many boxes, how many pairs intersect, how many reach outside
the drawing, the smallest label's on-screen font size, as ``tests/test_browser_topics.py`` checks them) and
the topic names shown (the map's labels, or the chips where no drawn map is shown). ``--docs DIR`` also
copies the PNGs there (``make screenshots`` copies them to ``docs/screenshots/``).
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import orjson
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "arxiv-300k.jsonl.gz"
sys.path.insert(0, str(ROOT))  # the real-server and browser helpers shared with the tests
from tests.support.browser import CHROMIUM, FLAGS, label_boxes  # noqa: E402
from tests.support.processes import serving  # noqa: E402

WIDTHS = {"desktop": (1280, 900), "390px": (390, 844)}
MAP_SHOTS = {("listing", "390px")}  # (page, width) shot once more: its drawn map, the element alone


def records_of(category: str) -> list[dict[str, object]]:
    with gzip.open(DATA, "rb") as f:
        return [
            r
            for r in map(orjson.loads, f)
            if r.get("announced") and category in r["categories"]  # type: ignore[operator]
        ]


def pick(category: str, saved: int) -> tuple[str, list[dict[str, object]], list[str]]:
    """The busiest day of ``category``, its papers and the ids of ``saved`` papers of its previous day."""
    records = records_of(category)
    counts = Counter(str(r["announced"]) for r in records)
    day = max(counts, key=lambda d: (counts[d], d))
    before = max(d for d in counts if d < day)
    earlier = sorted((r for r in records if r["announced"] == before), key=lambda r: str(r["id"]))[:saved]
    return day, [r for r in records if r["announced"] == day] + earlier, [str(r["id"]) for r in earlier]


def build(home: Path, category: str, saved: int) -> str:
    """The home of the shots (once); the day they show."""
    marker = home / "day.txt"
    if marker.exists():
        return marker.read_text().strip()
    day, records, library = pick(category, saved)
    home.mkdir(parents=True, exist_ok=True)
    papers = home / "papers.jsonl"
    papers.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    env = {**os.environ, "PAPERSIFT_HOME": str(home)}
    cli = [sys.executable, "-m", "papersift.cli"]
    for args in (
        ["ingest", str(papers)],
        ["embed"],
        ["follow", "-c", category],
        ["library", "add", *library],
    ):
        subprocess.run([*cli, *args], env=env, check=True, cwd=ROOT)
    marker.write_text(day + "\n")
    return day


def save_png(raw: bytes, path: Path) -> int:
    """``raw`` as a 256-colour optimised PNG at ``path`` (written whole, then renamed); its size in bytes."""
    image = Image.open(io.BytesIO(raw)).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    tmp = path.with_suffix(".tmp")
    image.save(tmp, format="PNG", optimize=True)
    tmp.replace(path)
    return path.stat().st_size


def shoot(base_url: str, shots: dict[str, str], out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    saved = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for width_name, (width, height) in WIDTHS.items():
            context = browser.new_context(base_url=base_url, viewport={"width": width, "height": height})
            page = context.new_page()
            for name, path in shots.items():
                answer = page.goto(path)
                assert answer is not None and answer.ok, f"{path}: {answer and answer.status}"
                png = out / f"{name}-{width_name}.png"
                size = save_png(page.screenshot(full_page=False), png)
                saved.append(png)
                page_bytes = len(answer.body())
                print(f"{png.name} ({path}, {width} px, {size / 1024:.0f} KB; page {page_bytes} bytes)")
                if page.locator("svg.map:visible").count():
                    labels = label_boxes(page)
                    print(
                        f"  map labels ({labels.name} drawing): {len(labels.texts)} boxes, "
                        f"{len(labels.overlapping)} intersecting pairs, {len(labels.outside)} outside the "
                        f"drawing, smallest {min(labels.font_px, default=0):.1f} px"
                    )
                    if (name, width_name) in MAP_SHOTS:
                        png = out / f"{name}-map-{width_name}.png"
                        shown = page.locator("section.topic-map")
                        size = save_png(shown.screenshot(), png)
                        saved.append(png)
                        print(f"{png.name} ({path}, {width} px, its map; {size / 1024:.0f} KB)")
                    names = labels.texts
                else:
                    print("  no drawn map at this width (the topics as chips)")
                    names = [c.inner_text().strip() for c in page.locator(".chips button.chip").all()]
                print("  topics: " + " | ".join(names))
            context.close()
        browser.close()
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, default=ROOT / "bench" / "out" / "screenshots-home")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "screenshots")
    parser.add_argument("--docs", type=Path, help="also copy the PNGs into this folder")
    parser.add_argument("--category", default="cs.CV")
    parser.add_argument("--saved", type=int, default=5, help="papers of the previous day in the library")
    args = parser.parse_args()
    day = build(args.home, args.category, args.saved)
    args.out.mkdir(parents=True, exist_ok=True)
    shots = {
        "listing": f"/list/{args.category}/{day}",
        "map": f"/map/{args.category}/{day}",
        "daily": f"/daily/{day}",
    }
    print(f"{args.category} {day}: serving {args.home}")
    with serving(args.home) as client:
        pngs = shoot(str(client.base_url), shots, args.out)
    if args.docs:
        args.docs.mkdir(parents=True, exist_ok=True)
        for png in pngs:
            shutil.copyfile(png, args.docs / png.name)
        print(f"copied {len(pngs)} PNGs to {args.docs}")


if __name__ == "__main__":
    main()
