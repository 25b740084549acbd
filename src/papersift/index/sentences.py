"""Sentences of a paper and their vectors: the splitter, the role of each sentence, the stored arrays
(matching a query's sentences against them is ``ranking/sentence_match.py``).

``split_sentences`` cuts an abstract into sentences without cutting inside LaTeX (``$…$``, ``\\(…\\)``,
braces), after an abbreviation ("e.g.", "et al.", "Fig. 2", "Eq. (3)") or an initial ("J. Smith");
``paper_sentences`` puts the title first, as its own sentence. ``roles`` tags each sentence background,
method or result by rules (its position in the abstract and cue words such as "recently", "we propose",
"we show"): a facet of a paper is the sentences of one role.

The vectors live in the index generation (``sentences/main`` and a small ``sentences/delta``, like the
lexical arrays): int8 rows with one float32 scale each (a quarter of float32's bytes, cosine within about
0.005), the role of each row, and per paper (sorted rowids) where its rows start. ``sync_sentences`` keeps
them in step with the store's paper vectors: the main segment is kept (hard links), papers added since go
to the delta, merged into the main segment once it passes ``DELTA_MAX_SHARE``. Vectors come from the
install's vector cache (keyed by model and sentence text, as paper vectors are) or are encoded, shortest
batches sorted by length, and cached as they are made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from papersift.index.generations import link_from
from papersift.index.lexical import segment_meta

if TYPE_CHECKING:
    from papersift.store import Store
    from papersift.store.cache import VectorCache

FACETS = ("background", "method", "result")
TITLE = 3  # the role code of a title (not a facet of its own)
MAX_SENTENCES = 24  # per paper: longer abstracts keep their first 23 sentences and the rest as one
MIN_WORDS = 4  # a shorter fragment joins the sentence before it
DELTA_MAX_SHARE = 0.1  # the delta is merged into the main arrays past this share of them
ENCODE_BATCH = 2048  # sentences encoded (and cached) at a time
_PARTS = ("keys", "offsets", "vectors", "scales", "roles")

# -- splitting --------------------------------------------------------------------------------------------
_ABBREVIATIONS = frozenset(
    """e.g i.e et al etc fig figs eq eqs eqn eqns ref refs sec secs sect vs cf approx resp no nos nr dr prof
    viz ca tab tabs ch chap vol vols pp st mr ms mrs jr dept univ thm lem prop cor def defn app appx ex est
    incl max min avg std var obs expt theor phys rev lett astrophys j proc conf inst natl int ann sci
    """.split()
)
_MASKED = re.compile(
    r"\$\$.+?\$\$|\$[^$]+\$|\\\(.+?\\\)|\\\[.+?\\\]|\{[^{}]*\}|\b(?:[A-Za-z]\.){2,}",
    re.DOTALL,
)
_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s+")
_NEXT_START = re.compile(r"[A-Z0-9\"'(\[$\\]")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (whitespace collapsed); LaTeX, abbreviations and initials never end one."""
    text = " ".join(text.split())
    if not text:
        return []
    masks: list[str] = []

    def hide(m: re.Match[str]) -> str:
        masks.append(m.group(0))
        return f"\x00{len(masks) - 1}\x01"

    hidden = _MASKED.sub(hide, text)
    pieces: list[str] = []
    start = 0
    for m in _BOUNDARY.finditer(hidden):
        rest = hidden[m.end() :]
        if not rest or not _NEXT_START.match(rest.replace("\x00", "$", 1)):
            continue  # a lower-case word next: not the end of a sentence
        if hidden[m.start()] == "." and _abbreviation(hidden[start : m.start()]):
            continue
        pieces.append(hidden[start : m.end()].strip())
        start = m.end()
    pieces.append(hidden[start:].strip())
    out: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        if out and len(piece.split()) < MIN_WORDS:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    if len(out) > 1 and len(out[0].split()) < MIN_WORDS:
        out[:2] = [f"{out[0]} {out[1]}"]
    restore = re.compile("\x00(\\d+)\x01")
    return [restore.sub(lambda m: masks[int(m.group(1))], s) for s in out]


def _abbreviation(before: str) -> bool:
    """Whether the text before a period ends in an abbreviation or an initial."""
    word = re.search(r"([A-Za-z][A-Za-z.]*)$", before)
    if word is None:
        return False
    token = word.group(1)
    if len(token) == 1:
        return token.isupper()  # an initial ("J. Smith"); a lone lower-case letter ends "(a)"-less lists
    return token.lower().rstrip(".") in _ABBREVIATIONS or ("." in token and len(token) <= 6)


def paper_sentences(title: str, abstract: str) -> list[str]:
    """The title, then the abstract's sentences (at most ``MAX_SENTENCES`` in all)."""
    head = " ".join(title.split())
    body = split_sentences(abstract)
    if len(body) >= MAX_SENTENCES:
        body = [*body[: MAX_SENTENCES - 2], " ".join(body[MAX_SENTENCES - 2 :])]
    return ([head] if head else []) + body


# -- roles ------------------------------------------------------------------------------------------------
_CUES: dict[int, re.Pattern[str]] = {
    0: re.compile(
        r"\b(?:recent(?:ly)?|has been|have been|is (?:a|an|one)|are (?:a|an)|remains?|challeng\w*|problem|"
        r"widely|important|existing|previous(?:ly)?|traditional(?:ly)?|typically|often|however|although|"
        r"despite|limited|little is known|motivat\w*|crucial|key role|long-standing|open question|"
        r"attracted|interest|promising|known)\b",
        re.IGNORECASE,
    ),
    1: re.compile(
        r"\b(?:we (?:propose|present|introduce|develop|design|use|employ|apply|derive|construct|consider|"
        r"study|investigate|formulate|model|train|build|describe|analy[sz]e|compute|perform|adopt|extend|"
        r"combine|leverage)|our (?:approach|method|model|framework|algorithm|technique)|in this (?:paper|"
        r"work|letter|article)|here,? we|based on|framework|algorithm|architecture|method|approach|"
        r"procedure|formalism|technique|scheme|simulations?|we)\b",
        re.IGNORECASE,
    ),
    2: re.compile(
        r"\b(?:we (?:show|find|found|observe|demonstrate|obtain|report|confirm|establish|prove|achieve)|"
        r"results?|show(?:s|n)? that|demonstrat\w*|outperform\w*|achiev\w*|improv\w*|significant(?:ly)?|"
        r"state-of-the-art|experiments?|find that|accuracy|indicat\w*|reveal\w*|suggest\w*|consistent|"
        r"agreement|leads? to|yields?|reduc\w*|faster|better|superior|finally|thus|therefore|"
        r"conclude|implications?)\b",
        re.IGNORECASE,
    ),
}
# the same cues for a sentence of ASCII alone, lower-cased first: the same matches, twice as fast as
# IGNORECASE (the cues are written in lower case; no ASCII letter folds to another character)
_ASCII_CUES = {role: re.compile(cue.pattern) for role, cue in _CUES.items()}
# the position prior (first third, middle, last third) per role, and each cue's weight
_PRIOR = np.array([[1.0, 0.2, 0.0], [0.3, 0.8, 0.4], [0.0, 0.3, 1.0]], dtype=np.float32)
_CUE_WEIGHT = 0.6


def roles(sentences: list[str], has_title: bool = True) -> list[int]:
    """The role code of each sentence: 0 background, 1 method, 2 result (``TITLE`` for the title)."""
    out: list[int] = []
    body = sentences[1:] if has_title else sentences
    if has_title and sentences:
        out.append(TITLE)
    n = len(body)
    for i, sentence in enumerate(body):
        third = min(2, int(3 * i / n)) if n > 1 else 0
        score = _PRIOR[:, third].copy()
        cues, text = (_ASCII_CUES, sentence.lower()) if sentence.isascii() else (_CUES, sentence)
        for role, cue in cues.items():
            score[role] += _CUE_WEIGHT * min(2, len(cue.findall(text)))
        out.append(int(np.argmax(score)))
    return out


def facet_code(facet: str) -> int:
    """The role code of a facet name (``ValueError`` for another name)."""
    if facet not in FACETS:
        raise ValueError(f"a facet is one of {', '.join(FACETS)}, not {facet!r}")
    return FACETS.index(facet)


# -- int8 rows --------------------------------------------------------------------------------------------
def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and their float32 scales (row ≈ int8 · scale)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    top = np.maximum(np.abs(vectors).max(axis=1, keepdims=True), 1e-12) if len(vectors) else vectors[:, :1]
    q = np.round(vectors / top * 127).astype(np.int8)
    return q, (top[:, 0] / 127).astype(np.float32)


# -- the stored arrays ------------------------------------------------------------------------------------
@dataclass
class Segment:
    """One directory of arrays: paper ``keys`` (sorted rowids), row ``offsets`` (len keys + 1), int8
    ``vectors`` with ``scales``, and ``roles``."""

    keys: np.ndarray
    offsets: np.ndarray
    vectors: np.ndarray
    scales: np.ndarray
    roles: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)


def _open_segment(directory: Path) -> Segment | None:
    if not (directory / "meta.json").exists():
        return None
    try:
        arrays = [np.load(directory / f"{part}.npy", mmap_mode="r") for part in _PARTS]
    except (OSError, ValueError):
        return None
    return Segment(*arrays)


def _write_segment(directory: Path, segment: Segment, meta: dict[str, object]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for part in _PARTS:
        np.save(directory / f"{part}.npy", np.ascontiguousarray(getattr(segment, part)))
    (directory / "meta.json").write_text(json.dumps(meta))


def _concat(segments: Iterable[Segment]) -> Segment:
    parts = [s for s in segments if len(s)]
    if not parts:
        return _empty(0)
    offsets = [np.zeros(1, np.int64)]
    base = 0
    for s in parts:
        offsets.append(np.asarray(s.offsets[1:], np.int64) - int(s.offsets[0]) + base)
        base += int(s.offsets[-1] - s.offsets[0])
    merged = Segment(
        np.concatenate([np.asarray(s.keys) for s in parts]),
        np.concatenate(offsets),
        np.concatenate([np.asarray(s.vectors) for s in parts]),
        np.concatenate([np.asarray(s.scales) for s in parts]),
        np.concatenate([np.asarray(s.roles) for s in parts]),
    )
    order = np.argsort(merged.keys, kind="stable")
    if np.all(order == np.arange(len(order))):
        return merged
    return _select(merged, order)


def _select(s: Segment, order: np.ndarray) -> Segment:
    starts, ends = s.offsets[:-1][order], s.offsets[1:][order]
    ranges = [np.arange(a, b, dtype=np.int64) for a, b in zip(starts, ends, strict=True)]
    rows = np.concatenate(ranges) if ranges else np.zeros(0, np.int64)
    return Segment(
        np.asarray(s.keys)[order],
        np.concatenate([[0], np.cumsum(ends - starts)]).astype(np.int64),
        np.asarray(s.vectors)[rows],
        np.asarray(s.scales)[rows],
        np.asarray(s.roles)[rows],
    )


def _empty(dims: int) -> Segment:
    return Segment(
        np.zeros(0, np.int64),
        np.zeros(1, np.int64),
        np.zeros((0, dims), np.int8),
        np.zeros(0, np.float32),
        np.zeros(0, np.int8),
    )


@dataclass
class Sentences:
    """The sentence vectors of one generation (main + delta segments), read-only."""

    segments: list[Segment]

    def __len__(self) -> int:
        return sum(len(s) for s in self.segments)

    def rows(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each key its (segment, start, end) rows; end == start (no rows) for a paper not covered."""
        seg = np.full(len(keys), -1, np.int64)
        start = np.zeros(len(keys), np.int64)
        end = np.zeros(len(keys), np.int64)
        for i, s in enumerate(self.segments):
            if not len(s):
                continue
            at = np.minimum(np.searchsorted(s.keys, keys), len(s) - 1)
            found = (s.keys[at] == keys) & (seg < 0)
            seg[found] = i
            start[found] = s.offsets[at[found]]
            end[found] = s.offsets[at[found] + 1]
        return seg, start, end

    def of(self, key: int) -> tuple[np.ndarray, np.ndarray] | None:
        """One paper's sentence vectors (float32 rows) and roles; None when it has none."""
        seg, start, end = self.rows(np.array([key], np.int64))
        if seg[0] < 0 or end[0] == start[0]:
            return None
        s = self.segments[int(seg[0])]
        a, b = int(start[0]), int(end[0])
        vectors = np.asarray(s.vectors[a:b], np.float32) * np.asarray(s.scales[a:b], np.float32)[:, None]
        return vectors, np.asarray(s.roles[a:b], np.int8)

    def gather(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """All sentence rows of ``keys`` (float32), each row's key index and role, and which keys have any."""
        seg, start, end = self.rows(keys)
        blocks: list[np.ndarray] = []
        owners: list[np.ndarray] = []
        codes: list[np.ndarray] = []
        for i, s in enumerate(self.segments):
            mine = np.flatnonzero((seg == i) & (end > start))
            if not len(mine):
                continue
            lengths = end[mine] - start[mine]
            rows = np.repeat(start[mine] - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
            vectors = (
                np.asarray(s.vectors[rows], np.float32) * np.asarray(s.scales[rows], np.float32)[:, None]
            )
            blocks.append(vectors)
            owners.append(np.repeat(mine, lengths))
            codes.append(np.asarray(s.roles[rows], np.int8))
        if not blocks:
            empty = np.zeros(0, np.int64)
            return np.zeros((0, 1), np.float32), empty, empty.astype(np.int8), np.zeros(len(keys), bool)
        return np.concatenate(blocks), np.concatenate(owners), np.concatenate(codes), end > start


def open_sentences(directory: Path) -> Sentences | None:
    """The sentence segments under ``directory`` (None when there are none)."""
    segments = [s for part in ("main", "delta") if (s := _open_segment(directory / part)) is not None]
    return Sentences(segments) if segments else None


# -- building ---------------------------------------------------------------------------------------------
@dataclass
class SentenceSource:
    """Where ``sync_sentences`` gets vectors: the cache first, then ``encode`` (whose results it caches)."""

    model: str
    encode: Callable[[list[str]], np.ndarray]
    cache: VectorCache | None = None
    progress: Callable[[int], None] | None = None

    def vectors(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of ``texts``: cached ones looked up, the rest encoded in batches by length."""
        unique = list(dict.fromkeys(texts))
        found = self.cache.get(self.model, unique) if self.cache else {}
        todo = sorted((i for i in range(len(unique)) if i not in found), key=lambda i: len(unique[i]))
        for begin in range(0, len(todo), ENCODE_BATCH):
            part = todo[begin : begin + ENCODE_BATCH]
            fresh = self.encode([unique[i] for i in part])
            if self.cache:
                self.cache.put(self.model, [unique[i] for i in part], fresh)
            found.update(zip(part, fresh, strict=True))
            if self.progress:
                self.progress(len(part))
        at = {text: i for i, text in enumerate(unique)}
        dims = len(next(iter(found.values()))) if found else 1
        return np.stack([found[at[t]] for t in texts]) if texts else np.zeros((0, dims), np.float32)


def embed_segment(source: SentenceSource, papers: list[tuple[int, str, str]]) -> Segment | None:
    """The sentence arrays of ``papers`` (rowid, title, abstract), sorted by rowid."""
    papers = sorted(papers)
    texts: list[str] = []
    codes: list[int] = []
    offsets = [0]
    for _, title, abstract in papers:
        sentences = paper_sentences(title, abstract)
        texts.extend(sentences)
        codes.extend(roles(sentences, has_title=bool(title.strip())))
        offsets.append(len(texts))
    if not texts:
        return None
    vectors, scales = quantize(source.vectors(texts))
    return Segment(
        np.array([p[0] for p in papers], np.int64),
        np.array(offsets, np.int64),
        vectors,
        scales,
        np.array(codes, np.int8),
    )


def sync_sentences(
    store: Store, directory: Path, previous: Path | None, source: SentenceSource | None, signature: str
) -> int:
    """Write the sentence arrays of a generation in ``directory`` (``previous``: the last generation's);
    returns how many papers they cover.

    Without ``source`` the previous arrays are kept as they are (papers added since have none until the
    next ``embed``). The arrays of another model (``signature``) are dropped.
    """
    old = [
        s
        for part in ("main", "delta")
        if previous is not None
        and segment_meta(previous / part).get("model") == signature
        and (s := _open_segment(previous / part)) is not None
    ]
    if source is None:
        for part in ("main", "delta"):
            if previous is not None and segment_meta(previous / part).get("model") == signature:
                link_from(previous / part, directory / part)
        return sum(len(s) for s in old)
    covered = np.unique(np.concatenate([np.asarray(s.keys) for s in old])) if old else np.zeros(0, np.int64)
    wanted = np.concatenate([b.keys for b in store.iter_vectors()] or [np.zeros(0, np.int64)])
    new = np.setdiff1d(wanted, covered)
    gone = len(np.setdiff1d(covered, wanted)) > 0  # papers deleted or vectors reset: keep only what is there
    papers = store.by_rowids(new.tolist()) if len(new) else {}
    fresh = embed_segment(source, [(k, p.title, p.abstract) for k, p in papers.items()]) if papers else None
    main = old[0] if old and (previous is not None and (previous / "main" / "meta.json").exists()) else None
    rest = old[1:] if main is not None else old
    meta: dict[str, object] = {"model": signature}
    if main is not None and not gone:
        delta = _concat([*rest, *([fresh] if fresh is not None else [])])
        if len(delta) <= DELTA_MAX_SHARE * len(main):
            assert previous is not None
            link_from(previous / "main", directory / "main")
            if len(delta):
                _write_segment(directory / "delta", delta, meta)
            return len(main) + len(delta)
    merged = _concat([*old, *([fresh] if fresh is not None else [])])
    if gone and len(merged):
        merged = _select(merged, np.flatnonzero(np.isin(merged.keys, wanted)))
    if len(merged):
        _write_segment(directory / "main", merged, meta)
    return len(merged)
