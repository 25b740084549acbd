"""A snapshot of what search and related return on a store: the top keys, scores and notes of ~40 varied
queries in each mode (pages, filters, exclusions, 中文, misspellings) and of related for 20 papers and 3
texts, as JSON. Two snapshots of one store before and after a change to ranking must be equal.

    PAPERSIFT_HOME=/tmp/home PYTHONPATH=src .venv/bin/python bench/ranking_snapshot.py > after.json

Not a benchmark: it measures nothing; it pins behaviour (``diff before.json after.json``).
"""

from __future__ import annotations

import json
import sys
from datetime import date
from typing import Any

from papersift.index.indexes import open_indexes
from papersift.ranking.related import paper_query, related, text_query
from papersift.ranking.search import MODES, search
from papersift.settings import Settings
from papersift.store import Filters, open_store

QUERIES = [
    "graphene",
    "quantum Hall effect",
    "Bose-Einstein condensate in optical lattices",
    "knot invariants",
    "Banach spaces",
    "representation theory of Lie algebras",
    "dark matter halo",
    "neural network",
    "black hole entropy",
    "random matrix theory eigenvalue statistics",
    "we prove that every finitely generated group acting on a tree has a fixed point",
    "superconductivity -graphene",
    'spin chains -"magnetic field"',
    "qunatum entanglment",  # misspelled
    "BEC",
    "CMB anisotropy",
    "量子纠缠",
    "黑洞",
    "zxqv",
    "(",
    "🙂",
    "algebraic geometry moduli space of curves",
    "Monte Carlo simulation of the Ising model",
    "Epstein-Barr virus",
    "topological insulators",
    "elliptic curves over finite fields",
    "gravitational waves from binary neutron stars",
    "protein folding",
    "stochastic differential equations",
    "galaxy clusters X-ray",
    "the",
    "author:Barra",
]
FILTERED = [
    ("graphene", Filters(category="cond-mat")),
    ("group", Filters(category="math.GR")),
    ("quantum", Filters(since=date(2011, 6, 1))),
    ("model", Filters(category="cond-mat.quant-gas", since=date(2010, 1, 1))),
    ("network", Filters(author="Barra")),
    ("spectral", Filters(until=date(2009, 1, 1))),
]


def hits(result: Any) -> dict[str, Any]:
    return {
        "mode": result.mode,
        "notes": result.notes,
        "hits": [[h.paper.id, h.score, h.terms] for h in result.hits],
        "total": getattr(result, "total", None),
    }


def main() -> None:
    settings = Settings()
    store = open_store(settings)
    indexes = open_indexes(store, settings)
    out: dict[str, Any] = {"search": {}, "related": {}}
    for q in QUERIES:
        for mode in MODES:
            out["search"][f"{mode}|{q}"] = hits(search(indexes, q, mode=mode, k=10))
            out["search"][f"{mode}|{q}|page2"] = hits(search(indexes, q, mode=mode, k=10, offset=10))
            out["search"][f"{mode}|{q}|exact"] = hits(search(indexes, q, mode=mode, k=10, exact=True))
            out["search"][f"{mode}|{q}|k101"] = len(search(indexes, q, mode=mode, k=101).hits)
    for q, f in FILTERED:
        for mode in MODES:
            out["search"][f"{mode}|{q}|{f}"] = hits(search(indexes, q, mode=mode, k=10, filters=f))
            out["search"][f"{mode}|{q}|{f}|k101"] = len(search(indexes, q, mode=mode, k=101, filters=f).hits)
    rowids = sorted(store.by_rowids(list(range(1, 1501))))[::75][:20]
    papers = store.by_rowids(rowids)
    for i, rowid in enumerate(rowids):
        paper = papers[rowid]
        facet = ("background", "method", "result", None)[i % 4]
        query = paper_query(indexes, paper, facet=facet)
        category = paper.primary_category.split(".")[0] if i % 5 == 0 else None
        since = date(2010, 1, 1) if i % 7 == 0 else None
        found = related(indexes, query, k=10, filters=Filters(category=category, since=since))
        out["related"][f"{paper.id}|{facet}|{category}|{since}"] = {
            "notes": query.notes,
            "hits": [[h.paper.id, h.score, h.dense, h.lexical, h.terms, h.reasons()] for h in found],
        }
    for text in ("spin glasses and replica symmetry breaking", "黑洞熵", papers[rowids[0]].abstract):
        query = text_query(indexes, text)
        found = related(indexes, query, k=10)
        out["related"][f"text|{text[:40]}"] = {
            "notes": query.notes,
            "hits": [[h.paper.id, h.score, h.dense, h.lexical, h.terms, h.reasons()] for h in found],
        }
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
    indexes.close()
    store.close()


if __name__ == "__main__":
    main()
