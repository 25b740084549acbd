"""The library signals of papersift's Daily Papers (``_Library.features``) for every simulated reader of
``papersift eval recommend`` at each library size, once, saved to ``bench/out/recommend-features-HALF.pkl``
for ``bench/tune_recommend.py``'s weight search (the signals do not depend on the weights).

    python bench/recommend_features.py --half tune|heldout [--sizes 1,3,10,30]
"""

from __future__ import annotations

import argparse
import pickle
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from papersift.ranking import evaluate as ev
from papersift.ranking import recommend as rec
from papersift.ranking import simulated_readers as sr
from papersift.ranking.harness import fresh_indexes
from papersift.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("bench/out/recommend-corpus.jsonl.gz"))
    parser.add_argument("--relevance", type=Path, default=Path("../shared/data/relevance-dev.jsonl.gz"))
    parser.add_argument("--home", type=Path, default=Path("bench/out/rhome"))
    parser.add_argument("--half", default="tune")
    parser.add_argument("--sizes", default="1,3,10,30")
    parser.add_argument("--most", type=int, default=0, help="at most this many readers (0: all)")
    args = parser.parse_args()
    sizes = tuple(int(n) for n in args.sizes.split(","))
    gold = ev.read_relevance(args.relevance)
    work = Path("bench/out/recommend-store")
    out: dict[int, list[tuple[dict[str, np.ndarray], np.ndarray, list[float]]]] = {}
    started = time.monotonic()
    with fresh_indexes(Settings(home=args.home), args.corpus, work) as ix:
        c = ev.corpus_of(ix)
        tfidf = ev._tfidf_asl(c).tocsr()
        readers = sr.simulate_readers(c, gold, 0, args.half, sizes)
        for n, at in readers.items():
            out[n] = []
            for reader in at[: args.most or None]:
                now = ev._at(sr.appeared(c.papers[reader.query]), datetime.now(UTC))
                items = tuple(
                    rec.LibraryItem(
                        c.rowids[i],
                        c.texts[i],
                        tuple(c.papers[i].authors),
                        1,
                        ev._at(sr.appeared(c.papers[i]), now),
                        c.papers[i].title,
                    )
                    for i in reader.library
                )
                order = [c.rowids[i] for i in reader.candidates]
                cands = [c.papers[i] for i in reader.candidates]
                lib = rec._Library(ix, rec.Profile(items=items), now, order)
                feats = lib.features(order, cands)
                labels = np.array([i in reader.hidden for i in reader.candidates])
                base = []
                for ranked in (ev._svm_ranking(tfidf, reader), ev._zotero_ranking(c, reader)):
                    base.append(ev.metrics([c.ids[i] for i in ranked], {c.ids[i] for i in reader.hidden})[0])
                out[n].append((feats, labels, base))
            print(f"size {n}: {len(out[n])} readers, {time.monotonic() - started:.0f} s", flush=True)
    with open(f"bench/out/recommend-features-{args.half}.pkl", "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main()
