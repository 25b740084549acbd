"""Venues' accept lists against the 300k store: import time, link precision and recall (as given and on
altered copies), and related papers of a venue paper against an arXiv paper's.

1. The store: ``arxiv-300k.jsonl.gz`` ingested once into ``--home`` (kept, reused by later runs); each
   measured import runs on a fresh copy of it (``--scratch``).
2. Import of the seven files (``papersift venues import``'s service), timed.
3. Links against exact matches: a record's exact match is a stored arXiv paper with the same title (case,
   accents, spacing and punctuation folded: ``fold_title``) and at least one author in common (surname and
   initial, ``records/names``); precision = links that are exact matches / links, recall = exact matches
   linked / exact matches. Links that are not exact matches are listed (``--show``) to be judged by eye.
4. Altered copies (seeded): each record's title and authors changed as a conference's list may differ from
   arXiv's: case, punctuation (hyphens, colons, quotes), LaTeX forms (``$Q$``, ``\\mathcal{…}``,
   ``\\textbf{…}``), accents, initials for first names, the subtitle dropped, an author dropped or added;
   imported into a fresh copy; precision and recall against the exact matches of the unaltered records
   (recall: exact matches still linked; wrong: links to another paper than the unaltered record's exact
   match or link).
5. Related papers (``--related HOME``: COLM's arXiv papers and the first 3,000 of the 20k file, COLM's list
   imported, embedded; built once there): the median of ``--repeat`` calls for venue papers and for arXiv
   papers (``--no-links`` skips 2–4).

    python bench/venues.py --home /tmp/venues-300k [--show] [--seed N] [--related /tmp/venues-related]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from papersift.records.analyzer import fold_title
from papersift.records.names import same_author
from papersift.records.paper import is_arxiv_id
from papersift.records.venues import VenueRecord
from papersift.services.ingest import ingest_paths
from papersift.services.venue_import import import_file
from papersift.settings import Settings
from papersift.sources.paperlists import Skipped, read_paperlist, source_of
from papersift.store import Store, open_store

FILES = ("colm", "corl", "siggraph", "aistats", "wacv", "coling", "www")


def store_at(home: Path) -> Store:
    return open_store(Settings(home=home))


def loaded_home(home: Path, data: Path) -> Path:
    """``home`` holding the 300k store: ingested the first time, reused after."""
    db = home / "papersift.db"
    if not db.exists():
        store = store_at(home)
        t0 = time.perf_counter()
        counts = ingest_paths(store, [data / "arxiv-300k.jsonl.gz"])
        store.close()
        print(f"300k store: {counts.new:,} papers ingested in {time.perf_counter() - t0:.0f} s", flush=True)
    return db


def fresh(base: Path, scratch: Path) -> Store:
    """A copy of the loaded store with no venue imported."""
    scratch.mkdir(parents=True, exist_ok=True)
    for old in scratch.glob("papersift.db*"):
        old.unlink()
    shutil.copyfile(base, scratch / "papersift.db")
    return store_at(scratch)


def records_of(path: Path) -> list[VenueRecord]:
    return [r for r in read_paperlist(path, source_of(path)) if not isinstance(r, Skipped)]


def exact_matches(store: Store, records: list[VenueRecord]) -> dict[tuple[str, str], str]:
    """(venue, key) → the arXiv paper with the same folded title and an author in common."""
    truth: dict[tuple[str, str], str] = {}
    for r in records:
        for pid in store.paper_ids_by_title(r.title):
            paper = store.get(pid)
            if paper is None or not is_arxiv_id(pid) or fold_title(paper.title) != fold_title(r.title):
                continue
            if any(same_author(a, b) for a in r.authors for b in paper.authors):
                truth[(r.venue, r.key)] = pid
                break
    return truth


def links_of(store: Store, records: list[VenueRecord]) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    for venue, year in sorted({(r.venue, r.year) for r in records}):
        for e in store.venue_entries(venue, year):
            if e.arxiv:
                found[(venue, e.record.key)] = e.arxiv
    return found


def scores(links: dict[tuple[str, str], str], truth: dict[tuple[str, str], str]) -> tuple[float, float, int]:
    right = sum(1 for k, pid in links.items() if truth.get(k) == pid)
    precision = right / len(links) if links else 1.0
    recall = sum(1 for k, pid in truth.items() if links.get(k) == pid) / len(truth) if truth else 1.0
    return precision, recall, len(links) - right


# -- altered copies -------------------------------------------------------------------------------
_ACCENTED = str.maketrans("aeiouncAEIOUNC", "áéíóúñçÁÉÍÓÚÑÇ")
_GREEK = {"alpha": r"$\alpha$", "beta": r"$\beta$", "gamma": r"$\gamma$", "delta": r"$\delta$"}


def _case(title: str, rng: random.Random) -> str:
    return rng.choice([title.lower(), title.upper(), title.title()])


def _punctuation(title: str, rng: random.Random) -> str:
    choice = rng.randrange(4)
    if choice == 0:
        return title.replace("-", " ")
    if choice == 1:
        return title.replace(":", " -").replace(",", "")
    if choice == 2:
        return title.replace("'", "’").replace('"', "“").replace(" - ", " – ")
    return re.sub(r"[^\w\s]", "", title)


def _latex(title: str, rng: random.Random) -> str:
    words = title.split()
    if not words:
        return title
    i = rng.randrange(len(words))
    word = words[i]
    lowered = word.lower().strip(":,")
    if lowered in _GREEK:
        words[i] = _GREEK[lowered]
    elif len(word) == 1 or (word[:1].isupper() and "-" in word and len(word.split("-")[0]) == 1):
        head, _, rest = word.partition("-")
        words[i] = f"${head}$" + (f"-{rest}" if rest else "")
    else:
        words[i] = rng.choice([r"\textbf{%s}", r"$\mathcal{%s}$", r"\emph{%s}", "{%s}"]) % word
    return " ".join(words)


def _accents(text: str, rng: random.Random) -> str:
    return "".join(c.translate(_ACCENTED) if rng.random() < 0.3 else c for c in text)


def _initials(authors: list[str]) -> list[str]:
    out = []
    for name in authors:
        parts = name.split()
        if len(parts) > 1:
            out.append(" ".join([f"{p[0]}." for p in parts[:-1] if p] + [parts[-1]]))
        else:
            out.append(name)
    return out


def altered(record: dict, rng: random.Random) -> dict:
    """One record with two to three of the alterations (title and authors)."""
    title = str(record.get("title", ""))
    authors = [a.strip() for a in re.split(r"[;,]", str(record.get("author", ""))) if a.strip()]
    order = ["punct", "case", "accents", "initials", "subtitle", "latex", "drop", "add"]
    kinds = sorted(rng.sample(order, 3), key=order.index)  # LaTeX added last: nothing changes its macros
    for kind in kinds:
        if kind == "case":
            title = _case(title, rng)
        elif kind == "punct":
            title = _punctuation(title, rng)
        elif kind == "latex":
            title = _latex(title, rng)
        elif kind == "accents":
            title = _accents(title, rng)
            authors = [_accents(a, rng) for a in authors]
        elif kind == "initials":
            authors = _initials(authors)
        elif kind == "subtitle" and ":" in title:
            title = title.split(":", 1)[0]
        elif kind == "drop" and len(authors) > 1:
            authors.pop(rng.randrange(len(authors)))
        elif kind == "add":
            authors.insert(rng.randrange(len(authors) + 1), rng.choice(["Alex Newman", "Maria K. Ortega"]))
    return {**record, "title": title, "author": "; ".join(authors)}


def write_altered(path: Path, out: Path, seed: int) -> Path:
    rng = random.Random(f"{seed}:{path.name}")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        items = json.load(f)  # the benchmark's own copy (the import streams)
    target = out / path.name
    with gzip.open(target, "wt", encoding="utf-8") as f:
        json.dump([altered(r, rng) if isinstance(r, dict) else r for r in items], f)
    return target


def import_all(store: Store, paths: list[Path]) -> float:
    t0, cpu = time.perf_counter(), time.process_time()
    for path in paths:
        import_file(store, path)
    print(f"  (CPU time of this process: {time.process_time() - cpu:.1f} s)")
    return time.perf_counter() - t0


def related_home(home: Path, data: Path, papers: int) -> Path:
    """A home for related papers' latency: COLM 2025's arXiv papers (the same folded title, from the 300k
    file) and the first ``papers`` of the 20k file, COLM's list imported, everything embedded (built once)."""
    if (home / "papersift.db").exists():
        return home
    home.mkdir(parents=True, exist_ok=True)
    colm = data / "venues" / "colm2025.json.gz"
    titles = {fold_title(r.title) for r in records_of(colm)}
    with gzip.open(data / "arxiv-300k.jsonl.gz", "rb") as f:
        chosen = [line for line in f if fold_title(json.loads(line)["title"]) in titles]
    with gzip.open(data / "arxiv-20k.jsonl.gz", "rb") as f:
        chosen += [line for _, line in zip(range(papers), f, strict=False)]
    (home / "papers.jsonl").write_bytes(b"".join(chosen))
    store = store_at(home)
    ingest_paths(store, [home / "papers.jsonl"])
    import_file(store, colm)
    store.close()
    subprocess.run([sys.executable, "-m", "papersift.cli", "embed", "--home", str(home)], check=True)
    return home


def related_times(home: Path, repeat: int) -> None:
    """The median time of ``related`` (k=10) for COLM's venue papers and for its arXiv papers."""
    from papersift.index.runtime import open_papersift
    from papersift.ranking.related import paper_query, related

    with open_papersift(Settings(home=home)) as ps:
        indexes, store = ps.indexes(), ps.store
        entries = store.venue_entries("COLM", 2025)
        groups = {
            "venue papers": [e.paper_id for e in entries if not e.arxiv][:repeat],
            "arXiv papers": [e.paper_id for e in entries if e.arxiv][:repeat],
        }
        for pid in groups["arXiv papers"][:3]:  # warm: the indexes' pages, the first query's set-up
            related(indexes, paper_query(indexes, store.get(pid)), k=10)  # type: ignore[arg-type]
        for label, ids in groups.items():
            times = []
            for pid in ids:
                paper = store.get(pid)
                assert paper is not None
                t0 = time.perf_counter()
                hits = related(indexes, paper_query(indexes, paper), k=10)
                times.append(time.perf_counter() - t0)
                assert hits, pid
            median = statistics.median(times) * 1000
            print(f"related papers (k=10), {label}: median {median:.1f} ms of {len(times)}")


def link_figures(args: argparse.Namespace) -> None:
    """Import time, and links against exact matches as given and on altered copies (2–4)."""
    base = loaded_home(args.home, args.data)
    paths = [args.data / "venues" / f"{name}2025.json.gz" for name in FILES]
    records = [r for p in paths for r in records_of(p)]

    store = fresh(base, args.scratch)
    took = import_all(store, paths)
    print(f"import of {len(paths)} files ({len(records):,} records) into the 300k store: {took:.1f} s")
    t0 = time.perf_counter()
    import_all(store, paths)
    print(f"the same files again (nothing changes): {time.perf_counter() - t0:.1f} s")
    truth = exact_matches(store, records)
    links = links_of(store, records)
    precision, recall, other = scores(links, truth)
    print(
        f"as given: {len(links)} links, {len(truth)} exact title-and-author matches: precision "
        f"{precision:.3f}, recall {recall:.3f} ({other} links beyond the exact matches)"
    )
    if args.show:
        titles = {(r.venue, r.key): r.title for r in records}
        for key, pid in sorted(links.items()):
            if truth.get(key) != pid:
                paper = store.get(pid)
                print(f"  {key[0]} {titles[key]!r}\n    -> {pid} {paper.title if paper else '?'!r}")
        for key, pid in sorted(truth.items()):
            if links.get(key) != pid:
                print(f"  missed: {key[0]} {titles[key]!r} -> {pid}")
    store.close()

    out = args.scratch / "altered"
    out.mkdir(parents=True, exist_ok=True)
    altered_paths = [write_altered(p, out, args.seed) for p in paths]
    store = fresh(base, args.scratch)
    took = import_all(store, altered_paths)
    moved = links_of(store, records_of_all(altered_paths))
    reference = {**links, **truth}
    right = sum(1 for k, pid in moved.items() if reference.get(k) == pid)
    recall = sum(1 for k, pid in truth.items() if moved.get(k) == pid) / len(truth)
    wrong = len(moved) - right
    print(
        f"altered copies (seed {args.seed}): {len(moved)} links in {took:.1f} s: recall of the exact matches "
        f"{recall:.3f}, wrong links {wrong} ({wrong / max(len(moved), 1):.1%}), precision "
        f"{right / max(len(moved), 1):.3f}"
    )
    if args.show:
        for key, pid in sorted(truth.items()):
            if moved.get(key) != pid:
                print(f"  altered, missed: {key}")
        for key, pid in sorted(moved.items()):
            if reference.get(key) != pid:
                print(f"  altered, wrong: {key} -> {pid}")
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--home", type=Path, default=Path("/tmp/venues-300k"))
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/venues-scratch"))
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--show", action="store_true", help="print the links that are not exact matches")
    parser.add_argument("--related", type=Path, help="a home for related papers' latency (built if missing)")
    parser.add_argument("--related-papers", type=int, default=3000, help="papers of the 20k file in it")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--links", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()

    if args.links:
        link_figures(args)
    if args.related:
        related_times(related_home(args.related, args.data, args.related_papers), args.repeat)


def records_of_all(paths: list[Path]) -> list[VenueRecord]:
    return [r for p in paths for r in records_of(p)]


if __name__ == "__main__":
    main()
