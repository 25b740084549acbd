"""The verification crawl of issue 48 (``python bench/crawl.py``; ``make bench-crawl``): every page a reader
opens on three whole listing days, in Chromium, in both languages, at 1280 and 390 px wide, checked for what
the issue says must never be seen.

The home (built once under ``--root``, default ``/tmp/crawl-home``, then reused) holds three whole days and
their vectors: cs.LG 2026-06-12 from ``listings-extra`` (its new submissions in the listing's order), cs.CV
2026-07-01 and cs.AI 2026-08-21 from ``arxiv-300k.jsonl.gz`` (every paper listing the category that day, new
and cross-lists). Only those days are copied, into ``ROOT/shared`` as the demo reads a shared folder, loaded
by ``papersift demo --shared ROOT/shared --offline --no-background --no-embed`` and embedded by
``papersift embed`` (about 350 abstracts). Each crawl serves a fresh copy of it (``ROOT/crawled``): opening a
paper marks it seen, and Daily Papers leaves out what the reader has seen; each page is opened in the four
windows (two languages, two widths) before the next, so all four see the same Daily Papers.

``papersift serve`` then runs on a free 127.0.0.1 port and Debian's chromium (Playwright, as the browser tests
launch it) opens, each with ``?lang=en`` and ``?lang=zh``, at 1280 × 900 and 390 × 844:
- each day's listing, every part of it (the "more" link of ``web/parts.py`` followed, each part a page);
- each day's topic map (``/map/CAT/DAY``) and ``/daily`` (every part);
- ``--papers`` paper pages (``/abs/ID``): every paper of the days whose title or abstract holds a backslash
  macro, the rest a fixed random sample of the days' other papers;
- ``--searches`` searches (their first page): two words of sampled titles, a few 中文 queries, a few with
  LaTeX.

Each page is checked for:
- ``katex``: no ``.katex-error`` element, no visible element whose computed colour is KaTeX's error red;
- ``labels``: no two of the drawn topic map's label boxes intersect (``tests/support/browser.label_boxes``);
  pages with no drawn map at that width are counted apart;
- ``english`` (中文 face): no English word left once the paper strings of the page's JSON twin under
  ``/api`` are taken out (``tests/test_zh_pages_have_no_english.english_left``; a few names beside its own,
  ``EXAMPLES``, are counted apart), and no topic label or chip that is an arXiv category's English name;
- ``punctuation`` (中文 face): no half-width punctuation beside 中文 in the interface text
  (``half_width_left``);
- ``side_by_side``: the paper page's 对照 view never shows a half without the paper's text.

``--src DIR`` builds and serves with another checkout's code (``PYTHONPATH``; give it its own ``--root``):
the same crawl of the code before a change, to show what the checks catch.

Printed: per check, the pages checked and the failing ones (URL, width, language, what failed, an excerpt),
as a table; written: the same as JSON in ``--out`` (default ``bench/out/crawl.json``). Timings are not the
point; the whole crawl (1,088 page loads) took about 9 minutes on two busy cores.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote_plus, unquote_plus, urlencode, urlsplit

import httpx
import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the real server, the browser's helpers and the zh check, as in the tests
from papersift.records.taxonomy import category_named  # noqa: E402
from tests.support.browser import CHROMIUM, FLAGS, label_boxes  # noqa: E402
from tests.support.data import SHARED_DATA, write_jsonl  # noqa: E402
from tests.support.processes import run_cli, serving  # noqa: E402
from tests.test_zh_pages_have_no_english import (  # noqa: E402
    english_left,
    half_width_left,
    interface_text,
    paper_strings,
)

EXTRA_DAY = ("cs.LG", "2026-06-12")  # from listings-extra: the day's new submissions
SNAPSHOT_DAYS = (("cs.CV", "2026-07-01"), ("cs.AI", "2026-08-21"))  # from the 300k file: new and cross-lists
DAYS = (EXTRA_DAY, *SNAPSHOT_DAYS)
WIDTHS = ((1280, 900), (390, 844))
LANGS = ("en", "zh")
CHECKS = ("katex", "labels", "english", "punctuation", "side_by_side")
ZH_QUERIES = ("扩散模型", "大语言模型的对齐", "图神经网络", "强化学习", "目标检测", "多模态大模型")
TEX_QUERIES = (
    r"$\ell_1$ regularization",
    r"\mathcal{O}(n \log n) complexity",
    r"$\epsilon$-greedy exploration",
    r"\textsc{NoThink} reasoning",
    r"$k$-means clustering",
)
# names the 中文 face writes as they are, beside the test's NAMES: file formats (the keys' "p 打开 PDF", the
# paper page's "html" link beside its "pdf") and the venue field's example ("COLM 2025")
EXAMPLES = frozenset({"PDF", "HTML", "html", "COLM", "CoRL"})
MACRO = re.compile(r"\\[A-Za-z]+")
MAX_PARTS = 40  # a chain of "more" links longer than this is itself a failure
KATEX_RED = "rgb(204, 0, 0)"  # KaTeX's errorColor (#cc0000)

# in the page: KaTeX's error elements, and the visible elements drawn in its error red that hold text
KATEX_ERRORS = """(red) => {
  const excerpt = (el) => (el.outerHTML || "").slice(0, 240);
  const errors = Array.from(document.querySelectorAll(".katex-error")).map(excerpt);
  const found = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest(".katex-mathml")) continue;  // MathML for screen readers, not drawn
    if (getComputedStyle(el).color !== red || el.getClientRects().length === 0) continue;
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (own) found.push(excerpt(el));
  }
  return {errors, red: found, typeset: document.querySelectorAll(".katex").length};
}"""

# in the page: the 对照 view, where both halves are shown, and what each half holds besides its headings and
# notes (a title, authors, an abstract: the paper's text in that language)
SIDE_BY_SIDE = """() => {
  const panes = document.querySelector(".zh-panes");
  const both = document.getElementById("zh-both");
  if (!panes || panes.getClientRects().length === 0) return {shown: false};
  const halves = Array.from(panes.querySelectorAll(":scope > .pane"));
  const visible = halves.filter((p) => p.getClientRects().length > 0);
  const text = (pane) => Array.from(pane.querySelectorAll(".title, .authors, .abstract"))
    .filter((el) => el.getClientRects().length > 0)
    .map((el) => el.innerText.trim()).join(" ").trim();
  return {shown: true, checked: both ? both.checked : null, visible: visible.length,
          halves: visible.map((p) => ({name: p.className, text: text(p).slice(0, 120),
                                       all: p.innerText.trim().slice(0, 240)}))};
}"""

# in the page: the visible topic names (the drawn map's labels and the chips), for the 中文 face's check
TOPIC_NAMES = """() => Array.from(document.querySelectorAll("svg.map text.lbl, .chips .chip"))
  .filter((el) => el.getClientRects().length > 0).map((el) => el.textContent.trim())"""


@dataclass(frozen=True, slots=True)
class Target:
    """A page to crawl: its path (no ``lang``), its JSON twin's path, what kind it is, what the reader typed
    there (a query, a date: not interface words), whether its "more" links are followed."""

    path: str
    api: str | None
    kind: str
    typed: tuple[str, ...] = ()
    parts: bool = False


@dataclass(slots=True)
class Tally:
    """One check's count: the pages it looked at, those with nothing to look at, and its failures."""

    checked: int = 0
    absent: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)


def _day_records() -> list[dict[str, Any]]:
    """The 300k file's records of ``SNAPSHOT_DAYS``: every paper listing the category that day."""
    marks = tuple(f'"announced": "{day}"'.encode() for _, day in SNAPSHOT_DAYS)
    with gzip.open(SHARED_DATA / "arxiv-300k.jsonl.gz", "rb") as f:
        records = [orjson.loads(line) for line in f if any(m in line for m in marks)]
    return [r for r in records if any(r["announced"] == d and c in r["categories"] for c, d in SNAPSHOT_DAYS)]


def _extra_day(shared: Path) -> list[dict[str, Any]]:
    """``listings-extra`` cut to ``EXTRA_DAY`` (its listing and its papers) into ``shared``; the papers."""
    source = SHARED_DATA / "listings-extra"
    category, day = EXTRA_DAY
    with gzip.open(source / "daily-listings.jsonl.gz", "rb") as f:
        listings = [x for x in map(orjson.loads, f) if x["category"] == category and x["date"] == day]
    ids = {pid for x in listings for pid in x["ids"]}
    with gzip.open(source / "papers.jsonl.gz", "rb") as f:
        papers = [p for p in map(orjson.loads, f) if p["id"] in ids]
    folder = shared / "listings-extra"
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder / "daily-listings.jsonl.gz", listings, gz=True)
    write_jsonl(folder / "papers.jsonl.gz", papers, gz=True)
    return papers


def build(root: Path, env: dict[str, str], again: bool = False) -> tuple[Path, list[dict[str, Any]]]:
    """The crawl's home under ``root`` (built once, by the code ``env`` names; ``again``: anew) and the
    records of its three days."""
    home, kept = root / "home", root / "records.jsonl"
    if again:
        for built in (home, root / "shared", kept):
            shutil.rmtree(built, ignore_errors=True) if built.is_dir() else built.unlink(missing_ok=True)
    if kept.exists():
        with kept.open("rb") as f:
            return home, list(map(orjson.loads, f))
    shared = root / "shared"
    shared.mkdir(parents=True, exist_ok=True)
    snapshot = _day_records()
    write_jsonl(shared / "arxiv-300k.jsonl.gz", snapshot, gz=True)
    extra = _extra_day(shared)
    # two announcement days in the cut snapshot: --days 2 loads all of it, and the one whole cs.LG day
    demo = ("demo", "--shared", str(shared), "--days", "2", "--offline", "--no-background", "--no-embed")
    run_cli(*demo, home=home, env=env)
    run_cli("embed", home=home, env=env)
    records = [*extra, *snapshot]
    write_jsonl(kept, records)
    return home, records


def targets(records: list[dict[str, Any]], papers: int, searches: int, seed: int) -> list[Target]:
    """The pages of the crawl: listings, maps, Daily Papers, paper pages and searches."""
    pages = [Target(f"/list/{c}/{d}", f"/api/list/{c}/{d}", "listing", (d,), parts=True) for c, d in DAYS]
    pages += [Target(f"/map/{c}/{d}", f"/api/map/{c}/{d}", "map", (d,)) for c, d in DAYS]
    pages.append(Target("/daily", "/api/daily", "daily", parts=True))
    rng = random.Random(seed)
    by_id = {str(r["id"]): r for r in records}
    macro = sorted(i for i, r in by_id.items() if MACRO.search(f"{r['title']} {r['abstract']}"))
    rest = sorted(set(by_id) - set(macro))
    sample = [*macro, *rng.sample(rest, max(0, min(len(rest), papers - len(macro))))]
    pages += [Target(f"/abs/{pid}", f"/api/abs/{pid}", "paper") for pid in sample]
    queries = [*ZH_QUERIES, *TEX_QUERIES]
    titled = rng.sample(sorted(by_id), len(by_id))
    for pid in titled:
        if len(queries) >= searches:
            break
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z-]{3,}", by_id[pid]["title"]) if "-" not in w[-1:]]
        query = " ".join(sorted(words, key=len, reverse=True)[:2]).lower()
        if query and query not in queries:
            queries.append(query)
    for q in queries[:searches]:
        pages.append(Target(f"/search?q={quote_plus(q)}", f"/api/search?q={quote_plus(q)}", "search", (q,)))
    return pages


def with_lang(path: str, lang: str) -> str:
    """``path`` with ``lang=…`` in its query (any ``lang`` it had replaced)."""
    parts = urlsplit(path)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "lang"]
    return parts.path + "?" + urlencode([*query, ("lang", lang)])


class Twins:
    """The paper strings of each JSON twin (fetched once): the texts the 中文 check takes out of a page."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.seen: dict[str, set[str]] = {}

    def strings(self, api: str | None) -> set[str]:
        if not api:
            return set()
        if api not in self.seen:
            answer = self.client.get(api)
            self.seen[api] = paper_strings(answer.json()) if answer.status_code == 200 else set()
        return self.seen[api]


def crawl(base_url: str, pages: list[Target], twins: Twins) -> tuple[dict[str, Tally], list[dict[str, Any]]]:
    """Every page of ``pages`` in both languages at both widths; each check's tally, and the pages seen."""
    from playwright.sync_api import sync_playwright

    tallies = {name: Tally() for name in CHECKS}
    visited: list[dict[str, Any]] = []
    started = time.monotonic()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        views = []  # one window per language and width, each page opened in all four in turn
        for lang in LANGS:
            for width, height in WIDTHS:
                context = browser.new_context(base_url=base_url, viewport={"width": width, "height": height})
                views.append((lang, width, context.new_page()))
        for n, target in enumerate(pages, 1):
            for lang, width, page in views:
                for url, answer in _chain(page, target, lang):
                    seen = {"url": url, "width": width, "lang": lang, "kind": target.kind}
                    seen["status"] = answer.status if answer else 0
                    _check(page, answer, target, seen, tallies, twins)
                    visited.append(seen)
            if n % 25 == 0:
                print(f"  {n}/{len(pages)} pages, {time.monotonic() - started:.0f} s", flush=True)
        browser.close()
    return tallies, visited


def _chain(page: Any, target: Target, lang: str) -> Iterator[tuple[str, Any]]:
    """Open ``target`` in ``lang``, then each part its "more" link leads to (``target.parts``); yields the
    URL of each page and its response once it is open on ``page``."""
    url = with_lang(target.path, lang)
    for _ in range(MAX_PARTS):
        answer = page.goto(url, wait_until="load")
        yield url, answer
        more = page.locator("nav.more a.more-link")
        if not target.parts or not more.count():
            return
        url = with_lang(str(more.first.get_attribute("href")), lang)
    print(f"  {target.path}: more than {MAX_PARTS} parts; the rest not crawled", flush=True)


def _fail(tally: Tally, seen: dict[str, Any], what: str, excerpts: list[str]) -> None:
    tally.failures.append(
        {"url": seen["url"], "width": seen["width"], "lang": seen["lang"], "what": what, "excerpts": excerpts}
    )


def _check(
    page: Any, answer: Any, target: Target, seen: dict[str, Any], tallies: dict[str, Tally], twins: Twins
) -> None:
    """The checks of one open page; each failure added to its check's tally."""
    found = page.evaluate(KATEX_ERRORS, KATEX_RED)
    tallies["katex"].checked += 1
    seen["typeset"] = found["typeset"]
    if found["errors"]:
        _fail(tallies["katex"], seen, f"{len(found['errors'])} .katex-error", found["errors"][:5])
    if found["red"]:
        _fail(tallies["katex"], seen, f"{len(found['red'])} elements in KaTeX's error red", found["red"][:5])

    if page.locator("svg.map:visible").count():
        labels = label_boxes(page)
        tallies["labels"].checked += 1
        seen["labels"] = {"drawing": labels.name, "outside": len(labels.outside), "texts": labels.texts}
        if labels.overlapping:
            pairs = [f"{a['text']!s} × {b['text']!s}" for a, b in labels.overlapping]
            _fail(
                tallies["labels"],
                seen,
                f"{len(pairs)} of {len(labels.texts)} labels' boxes intersect ({labels.name} drawing)",
                pairs[:8],
            )
    elif target.kind in ("listing", "map", "daily"):
        tallies["labels"].absent += 1

    if seen["lang"] == "zh":
        html = answer.text() if answer else ""  # the page as served, before its scripts
        papers = twins.strings(target.api) | {unquote_plus(t) for t in target.typed}
        tallies["english"].checked += 1
        left = set(english_left(html, papers))
        words = sorted(left - EXAMPLES)
        seen["taken_as_names"] = sorted(left & EXAMPLES)
        english = [n for n in page.evaluate(TOPIC_NAMES) if category_named(n)]
        if words:
            _fail(
                tallies["english"],
                seen,
                "English words: " + ", ".join(words[:30]),
                _around(html, papers, words),
            )
        if english:
            _fail(tallies["english"], seen, "a topic named by its category in English", sorted(set(english)))
        tallies["punctuation"].checked += 1
        if marks := sorted(set(half_width_left(html, papers))):
            where = _around(html, papers, marks, whole=False)
            _fail(
                tallies["punctuation"],
                seen,
                "half-width punctuation beside 中文: " + " | ".join(marks),
                where,
            )

    if target.kind == "paper":
        view = page.evaluate(SIDE_BY_SIDE)
        if not view["shown"]:
            tallies["side_by_side"].absent += 1
            return
        tallies["side_by_side"].checked += 1
        empty = [h for h in view["halves"] if not h["text"]]
        if view["visible"] == 2 and empty:
            what = f"对照 shows an empty half ({', '.join(h['name'] for h in empty)})"
            _fail(tallies["side_by_side"], seen, what, [h["all"] for h in empty])


def _around(html: str, papers: set[str], words: list[str], whole: bool = True) -> list[str]:
    """Where each of ``words`` (the first five; ``whole``: as whole words) stands in the page's interface
    text, a few words around."""
    text = " ".join(interface_text(html, papers).split())
    places = []
    for word in words[:5]:
        pattern = rf"\b{re.escape(word)}\b" if whole else re.escape(" ".join(word.split()))
        if found := re.search(pattern, text):
            places.append(f"{word}: …{text[max(0, found.start() - 50) : found.end() + 50]}…")
    return places


def report(tallies: dict[str, Tally], pages: list[Target], visited: list[dict[str, Any]], out: Path) -> None:
    """The table of each check (pages checked, failing pages, failures), each failure, and the JSON."""
    kinds: dict[str, int] = {}
    for v in visited:
        kinds[v["kind"]] = kinds.get(v["kind"], 0) + 1
    bad = [v for v in visited if v["status"] != 200]
    typeset = [v for v in visited if v.get("typeset")]
    formulas = sum(v["typeset"] for v in typeset)
    print(f"pages with math typeset by KaTeX: {len(typeset)} ({formulas} formulas)")
    loads = ", ".join(f"{k} {n}" for k, n in kinds.items())
    print(f"\n{len(visited)} page loads ({loads}); non-200: {len(bad)}")
    for v in bad[:20]:
        print(f"  {v['status']} {v['url']} ({v['width']} px, {v['lang']})")
    named = [v for v in visited if v.get("taken_as_names")]
    taken = sorted({w for v in named for w in v["taken_as_names"]})
    print(
        f"words the 中文 check took as names (EXAMPLES): {', '.join(taken) or 'none'}, on {len(named)} pages"
    )
    for v in visited:  # the names the maps draw, for the reader of the report
        if v["kind"] == "map" and v["width"] == WIDTHS[0][0] and "labels" in v:
            print(f"  {v['url']}: {' | '.join(v['labels']['texts'])}")
    print(f"\n{'check':14s} {'checked':>8s} {'n/a':>6s} {'failing pages':>14s}")
    for name, tally in tallies.items():
        failing = len({(f["url"], f["width"], f["lang"]) for f in tally.failures})
        print(f"{name:14s} {tally.checked:8d} {tally.absent:6d} {failing:14d}")
    for name, tally in tallies.items():
        groups: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
        for f in tally.failures:  # the same failure on many pages: said once, with its pages
            groups.setdefault((f["what"], tuple(f["excerpts"])), []).append(f)
        if tally.failures:
            print(f"\n{name}: {len(tally.failures)} failures, {len(groups)} distinct")
        for (what, excerpts), found in groups.items():
            print(f"  {what} — on {len(found)} pages:")
            for f in found[:12]:
                print(f"    {f['url']} ({f['width']} px, {f['lang']})")
            if len(found) > 12:
                print(f"    … and {len(found) - 12} more (see the JSON)")
            for excerpt in excerpts[:5]:
                print(f"      | {excerpt}")
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "targets": {
            k: sum(t.kind == k for t in pages) for k in ("listing", "map", "daily", "paper", "search")
        },
        "loads": len(visited),
        "non_200": bad,
        "checks": {
            name: {
                "checked": t.checked,
                "not_applicable": t.absent,
                "failing_pages": len({(f["url"], f["width"], f["lang"]) for f in t.failures}),
                "failures": t.failures,
            }
            for name, t in tallies.items()
        },
        "pages": visited,
    }
    out.write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2))
    print(f"\nwritten: {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, default=Path("/tmp/crawl-home"), help="the home and its data")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "crawl.json")
    parser.add_argument("--papers", type=int, default=200, help="paper pages (every one with a macro first)")
    parser.add_argument("--searches", type=int, default=50)
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--only", help="crawl only the targets whose path holds this text")
    parser.add_argument("--rebuild", action="store_true", help="build the home anew (the code changed)")
    parser.add_argument("--src", type=Path, help="crawl another checkout's src (a `git archive HEAD` copy)")
    args = parser.parse_args()
    env = {"PYTHONPATH": str(args.src.resolve())} if args.src else {}
    built, records = build(args.root, env, args.rebuild)
    # each crawl serves a fresh copy of the built home: opening a paper marks it seen, and Daily Papers
    # leaves out what the reader has seen
    home = args.root / "crawled"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(built, home)
    pages = targets(records, args.papers, args.searches, args.seed)
    if args.only:
        pages = [t for t in pages if args.only in t.path]
    print(
        f"{len(records)} papers of {', '.join(f'{c} {d}' for c, d in DAYS)} in {home}; {len(pages)} targets"
    )
    started = time.monotonic()
    with serving(home, env, timeout=120) as client:
        tallies, visited = crawl(str(client.base_url), pages, Twins(client))
    print(f"crawled in {time.monotonic() - started:.0f} s")
    report(tallies, pages, visited, args.out)


if __name__ == "__main__":
    main()
