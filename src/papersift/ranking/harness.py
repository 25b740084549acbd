"""The evaluation harness: a fresh store of a corpus in a scratch home, embedded (through the install's
vector cache) and indexed, the rankers of ``ranking/evaluate.py`` run on it, and the scores laid out as the
table ``papersift eval`` prints.

The CLI only parses arguments and prints; progress reaches it through the ``note`` and ``embedding`` hooks.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import numpy as np

from papersift.index.indexes import Indexes
from papersift.index.pipeline import embed_missing, refresh, sentence_source
from papersift.index.runtime import open_papersift
from papersift.ranking.evaluate import Score
from papersift.records.catalogs import fit, said
from papersift.records.messages import say
from papersift.services.ingest import ingest_paths
from papersift.settings import Settings
from papersift.store.cache import VectorCache

# given the number of papers to embed, a context whose value is called with each batch embedded
EmbeddingProgress = Callable[[int], AbstractContextManager[Callable[[int], None]]]


def _no_progress(_: int) -> AbstractContextManager[Callable[[int], None]]:
    return nullcontext(lambda _: None)


@contextmanager
def fresh_indexes(
    settings: Settings,
    corpus: Path,
    workdir: Path,
    *,
    note: Callable[[str], None] = lambda _: None,
    embedding: EmbeddingProgress = _no_progress,
) -> Iterator[Indexes]:
    """A fresh store of ``corpus`` in ``workdir``, embedded (via the install's vector cache), indexed, and
    opened (``index/runtime.py``: its generation and store closed when the block ends)."""
    local = settings.model_copy(update={"home": workdir})
    with open_papersift(local) as opened:
        store = opened.store
        counts = ingest_paths(store, [corpus], chunk=settings.ingest_chunk)
        note(say("eval_corpus", n=counts.new, path=str(corpus)))
        cache = VectorCache(settings.cache_path)
        try:
            with embedding(store.count()) as advance:
                embed_missing(store, local, cache=cache, progress=advance)
            sentences = sentence_source(local, cache) if settings.sentences else None
            refresh(store, local, sentences=sentences)
        finally:
            cache.close()
        yield opened.indexes()


def evaluate_fresh(
    settings: Settings,
    corpus: Path,
    run: Callable[[Indexes], list[Score]],
    *,
    note: Callable[[str], None] = lambda _: None,
    embedding: EmbeddingProgress = _no_progress,
) -> list[Score]:
    """``run`` on a fresh store of ``corpus`` built in a temporary home (removed afterwards)."""
    with (
        tempfile.TemporaryDirectory(prefix="papersift-eval-") as tmp,
        fresh_indexes(settings, corpus, Path(tmp), note=note, embedding=embedding) as indexes,
    ):
        return run(indexes)


def score_table(
    scores: list[Score], reference: str | tuple[str, ...], unit: str = "queries", lang: str = "en"
) -> list[str]:
    """A table of each method's nDCG@10, Recall@10 and MRR, and its nDCG@10 against ``reference`` (the
    best of them, when several are named); its words in ``lang``."""
    names = (reference,) if isinstance(reference, str) else reference
    base = max((s for s in scores if s.method in names), key=lambda s: s.ndcg, default=None)
    vs = base.method if base else " / ".join(names)
    method, units, against = (said(say(f"eval_{w}"), lang) for w in ("method", unit, "vs"))
    head = f"{fit(method, 22)} {'nDCG@10':>8} {'Recall@10':>10} {'MRR':>7} {fit(units, 8, right=True)}"
    lines = [f"{head}  {against} {vs}"]
    for s in scores:
        ratio = f"{s.ndcg / base.ndcg:.2f}x" if base and base.ndcg else "-"
        lines.append(f"{s.method:<22} {s.ndcg:>8.4f} {s.recall:>10.4f} {s.mrr:>7.4f} {s.queries:>8}  {ratio}")
    return lines


def recommend_table(scores: list[Score], lang: str = "en") -> list[str]:
    """``eval recommend``'s table: nDCG@10 (and Recall@10) of each method at each library size, their mean
    over the sizes, and each method's mean against the better baseline's (``RECOMMEND_BASELINES``); its
    words in ``lang``."""
    from papersift.ranking.evaluate import RECOMMEND_BASELINES

    sizes = sorted({s.library_size for s in scores})
    methods = list(dict.fromkeys(s.method for s in scores))
    at = {(s.method, s.library_size): s for s in scores}
    mean = {m: float(np.mean([at[m, n].ndcg for n in sizes if (m, n) in at])) for m in methods}
    best = max((m for m in methods if m in RECOMMEND_BASELINES), key=lambda m: mean[m], default=None)
    readers = ", ".join(f"{n}: {at[methods[0], n].queries}" for n in sizes if (methods[0], n) in at)
    head = "".join(fit(said(say("eval_size", n=n), lang), 16, right=True) for n in sizes)
    mean_word, vs = said(say("eval_mean"), lang), said(say("eval_vs"), lang)
    lines = [
        said(say("eval_by_size", readers=readers), lang),
        f"{fit(said(say('eval_method'), lang), 20)}{head}{fit(mean_word, 9, right=True)}  {vs} {best or '-'}",
    ]
    for m in methods:
        cells = "".join(
            f"{at[m, n].ndcg:>8.4f} ({at[m, n].recall:.3f})" if (m, n) in at else f"{'-':>16}" for n in sizes
        )
        ratio = f"{mean[m] / mean[best]:.2f}x" if best and mean[best] else "-"
        lines.append(f"{m:<20}{cells}{mean[m]:>9.4f}  {ratio}")
    return lines
