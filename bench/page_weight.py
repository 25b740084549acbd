"""Page weight of the first view of a big day (issue 51, "light pages"): HTML bytes and the time until the
first paper is visible in Chromium, for the code before the change and this checkout, in one run.

Pages: the cs.CV listing of 2026-07-01 (149 papers, from ``arxiv-300k.jsonl.gz``), the whole cs.LG day of
2026-06-09 from ``listings-extra`` (267 new submissions), ``/daily`` (everyone's Daily Papers of the
latest day: the default categories) and a search of 200 results ("language models": its pages reach 400).

The home is built once under ``--home`` (default ``/tmp/pageweight/home``) as the offline demo loads it
(``papersift demo --offline --days 4 --no-background``: each category's latest four days of the snapshot
and the four whole cs.LG days of ``listings-extra``, about 2,600 papers), then ``papersift embed`` (about
a minute: the topic maps need vectors), both by the code before (the newer code migrates its copy of the
store forward; the older could not open a newer store); later runs reuse it. "Before" is ``git archive
HEAD`` (or ``--before-src``) run the same way: each code serves its own copy of the home (``papersift
serve``, the same venv, ``PYTHONPATH`` choosing the code) on 127.0.0.1.

For each page and code, in Debian's chromium through Playwright (a fresh context per load, 1280 × 900):
- ``html``: the first view's HTML as decoded (what the issue's 596 KB counts) and ``gz``: as sent (gzip);
- ``visible``: ms from the navigation's start until the first ``article.paper`` is laid out on screen
  (a MutationObserver and the next animation frame, in the page), and ``dcl``: DOMContentLoaded;
- ``cold``: the first load after the server started (the page and the day's topic map computed), ``warm``:
  the median of ``--runs`` loads after it (the page cached, as for every reader after the first);
- ``map``: ms until the page's topic map is drawn on screen (cold / warm): with the page, or after it where
  the page holds a placeholder until its map is drawn (``web/topic_pages.py``); ``-`` for a page with none;
- ``--mbps``: the browser's line throttled (Chromium's network emulation, 40 ms round trips), as a reader
  on a real network sees it; by default loopback, where bytes cost almost nothing;
- ``reachable``: papers reachable from the first view by its "next" links (the pager's or the parts'),
  followed over HTTP, against the JSON twin's count (search: up to 200).

Target: under 150 KB of HTML and the first paper visible in under 1 s. Timings depend on the machine:
say whether it was shared.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the real-server and browser helpers shared with the tests
from tests.support.browser import CHROMIUM, FLAGS  # noqa: E402
from tests.support.processes import serving  # noqa: E402

QUERY = "language models"
PAGES = {
    "cs.CV 2026-07-01": ("/list/cs.CV/2026-07-01", "/api/list/cs.CV/2026-07-01"),
    "cs.LG 2026-06-09 (267)": ("/list/cs.LG/2026-06-09", "/api/list/cs.LG/2026-06-09"),
    "/daily": ("/daily", "/api/daily"),
    "search (200 results)": ("/search?q=" + QUERY.replace(" ", "+"), ""),
}
SEARCH_REACH = 200
# in the page, before its own scripts: when the first paper is laid out on screen, and when the topic map
# is (its points drawn, not a placeholder), in ms since navigation
FIRST_PAPER = """
(() => {
  const when = (selector, name) => {
    const seen = () => {
      const found = document.querySelector(selector);
      if (!found || found.getBoundingClientRect().height === 0) return false;
      requestAnimationFrame(() => { window[name] = performance.now(); });
      return true;
    };
    const watch = new MutationObserver(() => { if (seen()) watch.disconnect(); });
    watch.observe(document, { childList: true, subtree: true });
  };
  when("article.paper", "__firstPaper");
  when(".topic-map:not(.pending) .map-box", "__mapShown");
})();
"""
TIMING = """() => {
  const n = performance.getEntriesByType("navigation")[0];
  return {visible: window.__firstPaper ?? null, dcl: n.domContentLoadedEventEnd, gz: n.encodedBodySize,
          html: n.decodedBodySize, map: window.__mapShown ?? null,
          mapped: document.querySelector(".topic-map") !== null};
}"""
MAP_SECONDS = 60.0  # how long a load waits for its page's map
NEXT = re.compile(r'<nav class="(?:more|pager)"[^>]*>(?:(?!</nav>).)*?rel="next" href="([^"]+)"', re.S)
ROW = re.compile(r'<article class="paper[^"]*" id="p-([^"]+)"')


@dataclass
class Load:
    html: int
    gz: int
    visible: float
    dcl: float
    map: float | None  # None: no map on the page


def build_home(home: Path, shared: Path, src: Path) -> None:
    """The demo's offline load of four days and their vectors, by the code in ``src`` (the code before: the
    other code migrates its copy of the store forward); once, reused while ``home`` is there."""
    if (home / "pageweight-ready").exists():
        return
    shutil.rmtree(home, ignore_errors=True)
    papersift = [sys.executable, "-m", "papersift.cli"]
    demo = ["demo", "--shared", str(shared), "--days", "4", "--offline", "--no-embed", "--no-background"]
    env = {**os.environ, "PYTHONPATH": str(src)}
    subprocess.run([*papersift, *demo, "--home", str(home)], check=True, cwd=ROOT, env=env)
    subprocess.run([*papersift, "embed", "--home", str(home)], check=True, cwd=ROOT, env=env)
    (home / "pageweight-ready").touch()


def before_code(target: Path) -> Path:
    """``git archive HEAD`` unpacked at ``target`` (its ``src`` is the code before the change)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target / "src"


def load(browser: Any, base: str, path: str, mbps: float = 0.0) -> Load:
    context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.add_init_script(FIRST_PAPER)
        if mbps:  # a reader's line, not loopback: that many Mbit/s down, 40 ms round trips
            link = {"offline": False, "latency": 40, "uploadThroughput": mbps * 125_000 / 4}
            context.new_cdp_session(page).send(
                "Network.emulateNetworkConditions", link | {"downloadThroughput": mbps * 125_000}
            )
        page.goto(path, wait_until="load")
        for _ in range(300):  # the frame after the first paper was laid out (the CSP allows no eval)
            t = page.evaluate(TIMING)
            if t["visible"] is not None:
                break
            time.sleep(0.1)
        waited = time.monotonic()
        while t["mapped"] and t["map"] is None and time.monotonic() - waited < MAP_SECONDS:
            time.sleep(0.05)  # the map drawn after the page: it comes into its placeholder
            t = page.evaluate(TIMING)
        drawn = None if t["map"] is None else float(t["map"])
        return Load(int(t["html"]), int(t["gz"]), float(t["visible"]), float(t["dcl"]), drawn)
    finally:
        context.close()


def reachable(client: httpx.Client, path: str) -> int:
    """Papers reachable from ``path`` by the "next" links of its pager or parts (over HTTP, no script)."""
    seen: list[str] = []
    for _ in range(100):
        text = client.get(path).text
        seen += [pid for pid in ROW.findall(text) if pid not in seen]
        found = NEXT.search(text)
        if not found or ("search" in path and len(seen) >= SEARCH_REACH):
            break
        path = found.group(1).replace("&amp;", "&")
    return len(seen)


def measure(
    name: str, src: Path, home: Path, browser: Any, runs: int, mbps: float
) -> dict[str, dict[str, Any]]:
    copy = home.parent / f"run-{name}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(home, copy)
    env = {"PYTHONPATH": str(src), "PAPERSIFT_WEB_ASSETS": str(ROOT / "node_modules")}
    results: dict[str, dict[str, Any]] = {}
    with serving(copy, env, ready=True, timeout=300) as client:
        base = str(client.base_url)
        for label, (path, api) in PAGES.items():
            cold = load(browser, base, path, mbps)
            warm = [load(browser, base, path, mbps) for _ in range(runs)]
            whole = len(client.get(api).json()["entries"]) if api else SEARCH_REACH
            maps = [w.map for w in warm if w.map is not None]
            results[label] = {
                "html": cold.html,
                "gz": cold.gz,
                "cold": cold.visible,
                "warm": statistics.median(w.visible for w in warm),
                "dcl": statistics.median(w.dcl for w in warm),
                "map": f"{_ms(cold.map)}/{_ms(statistics.median(maps) if maps else None)}",
                "reachable": f"{min(reachable(client, path), whole)}/{whole}",
            }
    shutil.rmtree(copy, ignore_errors=True)
    return results


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--home", type=Path, default=Path("/tmp/pageweight/home"))
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--before-src", type=Path, help="the code before (default: git archive HEAD)")
    parser.add_argument("--runs", type=int, default=3, help="warm loads per page and code")
    parser.add_argument("--mbps", type=float, default=0.0, help="throttle the browser's line (0: loopback)")
    args = parser.parse_args()
    codes = {"before": args.before_src or before_code(args.home.parent / "before"), "after": ROOT / "src"}
    build_home(args.home, args.shared, codes["before"])
    from playwright.sync_api import sync_playwright

    started = time.time()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        found = {
            name: measure(name, src, args.home, browser, args.runs, args.mbps) for name, src in codes.items()
        }
        browser.close()
    columns = ("html KB", 8), ("gz KB", 6), ("cold ms", 8), ("warm ms", 8), ("dcl ms", 7), ("map ms", 11)
    print(f"{'page':<24} {'code':<7} " + " ".join(f"{c:>{w}}" for c, w in columns) + "  reachable")
    for label in PAGES:
        for name in codes:
            r = found[name][label]
            print(
                f"{label:<24} {name:<7} {r['html'] / 1000:>8.1f} {r['gz'] / 1000:>6.1f} {r['cold']:>8.0f} "
                f"{r['warm']:>8.0f} {r['dcl']:>7.0f} {r['map']:>11}  {r['reachable']}"
            )
    line = f"{args.mbps:g} Mbit/s, 40 ms" if args.mbps else "loopback"
    print(f"({args.runs} warm loads each; {line}; {time.time() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
