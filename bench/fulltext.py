"""Full-text extraction on the real fixtures (``python bench/fulltext.py``; ../shared/data/fulltext).

Per fixture: references found against its count (the README's ``\\bibitem``/``.bbl`` count; for PDFs the
list's own numbering where it has one), how many carry an arXiv id, words of running text, token F1 against
docling's ground truth where there is one (``groundtruth/<id>.md``: lower-cased word tokens of the whole
output, title, headings, text, captions and references, against the whole Markdown; a loose comparison, the
ground truth is one converter's output), seconds to extract (best of ``--runs``), and the bytes of the
``FullText`` as JSON, raw and zlib-compressed (what storing it costs). Writes bench/out/fulltext.json too.

Then resolution (``services.eprints.resolve``, the code ``papersift fulltext`` runs): a store of the papers of
``arxiv-300k.jsonl.gz`` that the fixtures' references name by arXiv id; per fixture, the references naming
an arXiv id, how many of those ids the store holds, and how many resolve to a store paper.
"""

from __future__ import annotations

import argparse
import gzip
import io
import re
import tarfile
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

import orjson

from papersift.sources.eprint import extract
from papersift.sources.fulltext import FullText

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "fulltext"
# file → (arXiv id, expected references (None: unknown), ground-truth file)
FIXTURES: dict[str, tuple[str, int | None, str | None]] = {
    "1706.03762.tar.gz": ("1706.03762", 40, "1706.03762.md"),
    "2305.03393.tar.gz": ("2305.03393", 23, "2305.03393.md"),
    "2310.06825.tar.gz": ("2310.06825", 29, "2310.06825.md"),
    "2412.19437.tar.gz": ("2412.19437", 104, "2412.19437.md"),
    "2501.00089.tar.gz": ("2501.00089", 63, "2501.00089.md"),
    "2501.01300v2.tar.gz": ("2501.01300", 26, "2501.01300v2.md"),
    "hep-th0005057.tar.gz": ("hep-th/0005057", 57, None),
    "math0106220.tar.gz": ("math/0106220", 42, None),
    "quant-ph9802040.tar.gz": ("quant-ph/9802040", 30, None),
    "1911.02782.eprint.gz": ("1911.02782", 55, None),
    "2004.14974.eprint.gz": ("2004.14974", 36, None),
    "2501.10120v1.pdf": ("2501.10120", 37, None),  # 37 "Authors. YEAR." openings in its list
    "0908.0054v1.pdf": ("0908.0054", 19, None),  # [1] … [19]
    "0807.3577.pdf": ("0807.3577", 39, None),  # [1] … [39]
    "2305.03393v1-pg9.pdf": ("2305.03393", 0, "2305.03393v1-pg9.pdf.md"),
}


def tokens(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", text.lower()))


def markdown_text(md: str) -> str:
    md = re.sub(r"<!--.*?-->", " ", md, flags=re.S)
    md = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", md)
    return re.sub(r"[#*_|`>-]+", " ", md)


def output_text(ft: FullText) -> str:
    parts = [ft.title]
    for s in ft.sections:
        parts += [s.heading, s.text]
    parts += list(ft.captions) + [r.text for r in ft.references]
    return "\n".join(parts)


def f1(ours: Counter[str], truth: Counter[str]) -> tuple[float, float, float]:
    overlap = sum((ours & truth).values())
    p = overlap / max(1, sum(ours.values()))
    r = overlap / max(1, sum(truth.values()))
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def without_bbl(path: Path) -> bytes:
    out = io.BytesIO()
    with tarfile.open(path) as src, tarfile.open(fileobj=out, mode="w:gz") as dst:
        for member in src.getmembers():
            if not member.name.endswith(".bbl"):
                dst.addfile(member, src.extractfile(member) if member.isfile() else None)
    return out.getvalue()


def resolution(data: Path, papers: Path) -> list[dict[str, object]]:
    """Each fixture's references resolved against a store of the ``papers`` they name by arXiv id."""
    from papersift.services.eprints import arxiv_id_of, resolve
    from papersift.services.ingest import ingest_paths
    from papersift.settings import Settings
    from papersift.store import open_store

    texts = {
        name: extract((data / name).read_bytes(), arxiv_id=aid) for name, (aid, _, _) in FIXTURES.items()
    }
    named = {i for ft in texts.values() for r in ft.references if (i := arxiv_id_of(r))}
    rows: list[dict[str, object]] = []
    print("\nResolved to store papers (a store of the 300k file's papers the references name by id):\n")
    print("| fixture | naming an arXiv id | of them in the store | resolved |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        with gzip.open(papers) as f, (home / "named.jsonl").open("wb") as out:
            for line in f:
                if orjson.loads(line)["id"] in named:
                    out.write(line)
        store = open_store(Settings(home=home))
        try:
            ingest_paths(store, [home / "named.jsonl"])
            held = {p.id for p in store.get_many(sorted(named))}
            for name, (aid, _, _) in FIXTURES.items():
                ids = [i for r in texts[name].references if (i := arxiv_id_of(r))]
                done = resolve(store, texts[name].references, aid)
                by_id = sum(1 for r in done if r.resolved and r.resolved == arxiv_id_of(r))
                rows.append(
                    {
                        "fixture": name,
                        "with_id": len(ids),
                        "in_store": sum(i in held for i in ids),
                        "resolved": by_id,
                    }
                )
                print(f"| {name} | {len(ids)} | {sum(i in held for i in ids)} | {by_id} |")
        finally:
            store.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    rows = []
    print(
        "| fixture | refs found / count | with arXiv id | sections | words | token P / R / F1 vs docling "
        "| seconds | JSON bytes | zlib bytes | code links (own) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (aid, count, truth_name) in FIXTURES.items():
        blob = (args.data / name).read_bytes()
        best = float("inf")
        ft: FullText | None = None
        for _ in range(args.runs):
            start = time.perf_counter()
            ft = extract(blob, arxiv_id=aid)
            best = min(best, time.perf_counter() - start)
        assert ft is not None
        raw = orjson.dumps(ft)
        packed = zlib.compress(raw, 6)
        score = None
        if truth_name:
            truth = tokens(markdown_text((args.data / "groundtruth" / truth_name).read_text()))
            score = f1(tokens(output_text(ft)), truth)
        with_id = sum(1 for r in ft.references if r.arxiv_id)
        own = sum(1 for c in ft.code if c.own)
        row = {
            "fixture": name,
            "source": ft.source,
            "references": len(ft.references),
            "expected": count,
            "with_arxiv_id": with_id,
            "sections": len(ft.sections),
            "words": ft.words,
            "token_prf": score,
            "seconds": round(best, 4),
            "json_bytes": len(raw),
            "zlib_bytes": len(packed),
            "code": len(ft.code),
            "own_code": own,
        }
        rows.append(row)
        prf = f"{score[0]:.2f} / {score[1]:.2f} / {score[2]:.2f}" if score else "—"
        print(
            f"| {name} | {len(ft.references)} / {count if count is not None else '?'} | {with_id} | "
            f"{len(ft.sections)} | {ft.words} | {prf} | {best:.3f} | {len(raw):,} | {len(packed):,} | "
            f"{len(ft.code)} ({own}) |"
        )
    bib_rows: list[dict[str, object]] = []
    print("\nWith the .bbl removed (the .bib read through the keys the TeX cites):\n")
    print(
        "| fixture | references (.bbl) | (.bib) | same keys | arXiv ids (.bbl / .bib / agreeing) | seconds |"
    )
    print("|---|---|---|---|---|---|")
    for name in ("2305.03393.tar.gz", "2310.06825.tar.gz", "2412.19437.tar.gz", "2501.01300v2.tar.gz"):
        path = args.data / name
        bbl = extract(path.read_bytes(), arxiv_id=name)
        blob = without_bbl(path)
        start = time.perf_counter()
        bib = extract(blob, arxiv_id=name)
        seconds = time.perf_counter() - start
        ids = {r.key: r.arxiv_id for r in bbl.references if r.arxiv_id}
        bib_ids = {r.key: r.arxiv_id for r in bib.references if r.arxiv_id}
        agree = sum(1 for k, v in ids.items() if bib_ids.get(k) == v)
        same = {r.key for r in bbl.references} == {r.key for r in bib.references}
        bib_rows.append({"fixture": name, "references": len(bib.references), "arxiv_ids": len(bib_ids)})
        found = f"{len(ids)} / {len(bib_ids)} / {agree}"
        print(
            f"| {name} | {len(bbl.references)} | {len(bib.references)} | {same} | {found} | {seconds:.3f} |"
        )
    resolved_rows = resolution(args.data, args.data.parent / "arxiv-300k.jsonl.gz")
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    (out / "fulltext.json").write_bytes(
        orjson.dumps(
            {"fixtures": rows, "bib_only": bib_rows, "resolved": resolved_rows}, option=orjson.OPT_INDENT_2
        )
    )
    total = sum(r["seconds"] for r in rows)  # type: ignore[misc]
    print(f"\n{len(rows)} fixtures, {total:.2f} s in all (best of {args.runs} runs each)")


if __name__ == "__main__":
    main()
