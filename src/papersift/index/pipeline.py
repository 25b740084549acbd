"""Building the indexes: keeping them in step with the store.

``embed_missing`` embeds the papers that have no vector yet (newest first, in committed chunks, so a killed
run resumes where it stopped) in this process or on a Dask cluster (``engines``). ``refresh`` (under the
build lock) writes the next index generation (``generations``) when the store changed: the main lexical
arrays are kept (hard links) and the papers added since go to a small delta segment with frozen idf, merged
(a full rebuild) once the delta passes ``DELTA_MAX_ROWS`` / ``DELTA_MAX_SHARE`` of the main arrays or is older
than ``DELTA_MAX_AGE``; the ANN index of the previous generation is extended with the new vectors, and
(given a ``SentenceSource``, as ``embed`` gives) the sentence vectors with the new papers' (``sentences``).
Opening a generation for queries is ``indexes``' (``open_indexes``); nothing here opens one for a ranker.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from papersift.index import generations
from papersift.index.dense import sync_dense
from papersift.index.encoder import Encoder, load_encoder, model_id, paper_text
from papersift.index.engines import Engine, LocalEngine
from papersift.index.generations import Generation, build_lock, open_current
from papersift.index.indexes import check_model
from papersift.index.lexical import open_lexical, segment_meta
from papersift.index.lexical_build import build_delta, build_lexical
from papersift.index.sentences import SentenceSource, sync_sentences
from papersift.index.vocabulary import (
    build_vocabulary,
    extend_vocabulary,
    open_vocabulary,
)
from papersift.store import PAPERS_CHANGED, Store, driver_errors
from papersift.store.cache import VectorCache

if TYPE_CHECKING:
    from pathlib import Path

    from papersift.settings import Settings


@dataclass
class _Chunk:
    """Papers handed to the engine: their rowids and texts, the vectors the cache had, the texts it lacked."""

    rowids: list[int]
    texts: list[str]
    cached: dict[int, np.ndarray]
    todo: list[int]


def _chunks(
    store: Store,
    settings: Settings,
    cache: VectorCache | None,
    limit: int | None,
    ahead: int,
    pending: dict[int, _Chunk],
) -> Iterator[list[str]]:
    """The uncached texts of each next chunk of papers without vectors, recording each chunk in ``pending``.

    Papers in ``pending`` (handed out, not yet written) are skipped, so chunks are the consecutive
    ``embed_chunk``-sized runs of the newest-first order, whatever engine runs them; ``ahead`` chunks are read
    in one query.
    """
    size, model, taken, position = settings.embed_chunk, model_id(settings), 0, 0
    while limit is None or taken < limit:
        busy = {rowid for chunk in pending.values() for rowid in chunk.rowids}
        wanted = ahead * size if limit is None else min(ahead * size, limit - taken)
        rows = [row for row in store.missing_vectors(wanted + len(busy)) if row[0] not in busy][:wanted]
        if not rows:
            return
        taken += len(rows)
        for start in range(0, len(rows), size):
            part = rows[start : start + size]
            texts = [paper_text(title, abstract) for _, title, abstract in part]
            cached = cache.get(model, texts) if cache else {}
            todo = [i for i in range(len(texts)) if i not in cached]
            pending[position] = _Chunk([rowid for rowid, _, _ in part], texts, cached, todo)
            position += 1
            yield [texts[i] for i in todo]


def embed_missing(
    store: Store,
    settings: Settings,
    *,
    limit: int | None = None,
    encoder: Encoder | None = None,
    cache: VectorCache | None = None,
    progress: Callable[[int], None] | None = None,
    engine: Engine | None = None,
) -> int:
    """Embed up to ``limit`` papers that have no vector (all when None); returns how many were embedded.

    ``engine`` encodes the chunks (default: ``LocalEngine`` with ``encoder``, loaded when first needed); only
    this function writes the store, one transaction per finished chunk.
    """
    check_model(store, settings)
    model = model_id(settings)
    if store.vector_model() != model:
        store.reset_vectors(model)
    engine = engine or LocalEngine(settings, encoder)
    pending: dict[int, _Chunk] = {}
    done = 0
    chunks = _chunks(store, settings, cache, limit, engine.window, pending)
    for position, fresh in engine.encode_chunks(chunks):
        chunk = pending.pop(position)
        vectors = dict(chunk.cached)
        if chunk.todo:
            if cache:
                cache.put(model, [chunk.texts[i] for i in chunk.todo], fresh)
            vectors.update(zip(chunk.todo, fresh, strict=True))
        store.put_vectors(chunk.rowids, np.stack([vectors[i] for i in range(len(chunk.texts))]))
        done += len(chunk.rowids)
        if progress:
            progress(len(chunk.rowids))
    return done


DELTA_MAX_ROWS = 50_000  # papers in a delta before it is merged (a full rebuild) into the main arrays
DELTA_MAX_SHARE = 0.05  # …or this share of the main arrays, whichever is smaller
DELTA_MAX_AGE = 7 * 86400  # …or once the delta is this many seconds old


def _source(store: Store) -> dict[str, Any]:
    """What a generation is built from: equal for an unchanged store (then ``refresh`` writes nothing)."""
    return {
        "count": store.count(),
        "papers": store.get_state(PAPERS_CHANGED) or "0",
        "vectors": store.get_state("vectors_changed") or "0",
        "model": f"{store.vector_model()}#{store.get_state('vector_epoch') or 0}",
    }


def sentence_source(
    settings: Settings, cache: VectorCache | None, encoder: Encoder | None = None
) -> SentenceSource:
    """Sentence vectors from ``cache`` or the configured model (loaded when first needed), for a store
    whose settings ask for them (``settings.sentences``)."""
    loaded: list[Encoder] = [encoder] if encoder is not None else []

    def encode(texts: list[str]) -> np.ndarray:
        if not loaded:
            loaded.append(load_encoder(settings))
        return loaded[0].encode(texts)

    return SentenceSource(model_id(settings), encode, cache)


def refresh(
    store: Store,
    settings: Settings,
    progress: Callable[[int], None] | None = None,
    sentences: SentenceSource | None = None,
) -> tuple[int, int]:
    """Publish a new index generation if the store changed: (papers, vectors) indexed.

    ``sentences``: embed the sentences of papers that have a vector but no sentence vectors yet; without
    it, they come from the configured model through the vector cache when ``settings.sentences`` asks for
    sentence vectors, and otherwise the previous generation's (if any) are kept as they are.

    Waits for the build lock (another ``embed`` may hold it). A failure (disk full, the store locked…)
    raises ``IndexBuildError`` and leaves the previous generation serving.
    """
    if sentences is None and settings.sentences:
        cache = VectorCache(settings.cache_path)
        try:
            return refresh(store, settings, progress, sentence_source(settings, cache))
        finally:
            cache.close()
    index_dir = settings.index_dir
    failures: tuple[type[BaseException], ...] = (OSError, *driver_errors())  # what discards the build
    with build_lock(index_dir):
        previous = open_current(index_dir)
        try:
            source = _source(store)
            done = previous is not None and previous.manifest.get("source") == source
            # a generation from before the vocabulary (or of an older version of it) is built again
            done = done and previous is not None and open_vocabulary(previous.path / "vocabulary") is not None
            if done and previous is not None and (sentences is None or previous.manifest.get("sentences")):
                return int(previous.manifest["papers"]), int(previous.manifest["vectors"])
            tmp = generations.begin(index_dir)
            try:
                clock = [time.perf_counter()]

                def lap() -> float:  # seconds of each step, kept in the manifest (bench/live_update.py)
                    clock.append(time.perf_counter())
                    return round(clock[-1] - clock[-2], 3)

                papers = _lexical(store, tmp, previous, source, progress)
                seconds = {"lexical": lap()}
                _vocabulary(store, tmp, previous)
                seconds["vocabulary"] = lap()
                vectors = 0
                if store.vector_model():
                    vectors = sync_dense(store, tmp, previous.path if previous else None)
                seconds["dense"] = lap()
                covered = 0
                if store.vector_model():
                    covered = sync_sentences(
                        store,
                        tmp / "sentences",
                        previous.path / "sentences" if previous else None,
                        sentences,
                        str(source["model"]),
                    )
                seconds["sentences"] = lap()
                delta = (tmp / "delta" / "meta.json").exists()
                facts = {"source": source, "papers": papers, "vectors": vectors, "delta": delta}
                facts["sentences"] = covered == vectors  # every paper vector has its sentences
                generations.publish(
                    index_dir, tmp, {**facts, "built": time.time(), "seconds": seconds}, previous
                )
            except failures as e:
                generations.discard(tmp)
                raise generations.build_error(e, index_dir) from e
            except BaseException:
                generations.discard(tmp)
                raise
        finally:
            if previous is not None:
                previous.close()
        generations.remove_unused(index_dir)
    return papers, vectors


def _lexical(
    store: Store,
    tmp: Path,
    previous: Generation | None,
    source: dict[str, Any],
    progress: Callable[[int], None] | None,
) -> int:
    """The lexical part of the generation in ``tmp``: main arrays kept + a delta, or a full rebuild."""
    main = open_lexical(previous.path / "lexical") if previous is not None else None
    total = int(source["count"])
    if previous is not None and main is not None and len(main):
        before = previous.manifest.get("source", {})
        if (before.get("count"), before.get("papers")) == (total, source["papers"]):
            for part in ("lexical", "delta"):  # the papers did not change: share both segments
                if (previous.path / part).exists():
                    generations.link_from(previous.path / part, tmp / part)
            return total
        after = int(main.keys[-1])
        old = segment_meta(previous.path / "delta")
        now = time.time()
        started = float(str(old.get("started"))) if old.get("after") == after else now
        limit = min(DELTA_MAX_ROWS, DELTA_MAX_SHARE * len(main))
        if total - len(main) <= limit and now - started < DELTA_MAX_AGE:
            generations.link_from(previous.path / "lexical", tmp / "lexical")
            added = build_delta(store, tmp / "delta", main, after, started)
            if len(main) + added == total:  # nothing deleted or replaced below the delta
                if added == 0:
                    shutil.rmtree(tmp / "delta")
                return total
            shutil.rmtree(tmp / "lexical")
            shutil.rmtree(tmp / "delta", ignore_errors=True)
    return build_lexical(store, tmp / "lexical", progress)


def _vocabulary(store: Store, tmp: Path, previous: Generation | None) -> None:
    """The vocabulary of the generation in ``tmp``, in step with its lexical arrays: shared when the
    arrays are, extended by the delta's papers when only a delta was added, else counted afresh."""
    target = tmp / "vocabulary"
    old = previous.path / "vocabulary" if previous is not None else None
    if old is not None and open_vocabulary(old) is not None:
        kept = generations.same_file(old.parent / "lexical" / "keys.npy", tmp / "lexical" / "keys.npy")
        same_delta = generations.same_file(old.parent / "delta" / "keys.npy", tmp / "delta" / "keys.npy")
        if kept and (same_delta or not (tmp / "delta").exists()):
            generations.link_from(old, target)
            return
        if kept and extend_vocabulary(store, old, target) is not None:
            return
    build_vocabulary(store, target)
