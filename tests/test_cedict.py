"""The 中文 dictionary's compact file (ranking/cedict.py): made once per machine, atomically, read again by
later processes, in memory where the folder cannot be written; its segmenter cuts as jieba does."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from papersift.ranking import cedict
from papersift.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SETS = ("understand_sets.json", "understand_heldout.json", "understand_heldout2.json")
HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dictionary of three words and a segmenter of four, for the file's life rather than its words."""
    senses = {"神经网络": ["neural network"], "神经": ["nerve"], "网络": ["network", "net"]}
    implied = {"神经": ["neural"]}
    monkeypatch.setattr(cedict, "_parse", lambda path: (senses, implied, {"network": ["网络"]}))
    frequencies = {"图": 3, "神": 0, "神经": 5, "网": 0, "网络": 9}  # each word and its prefixes
    monkeypatch.setattr(cedict, "_frequencies", lambda path: (frequencies, 17))
    cedict.dictionary.cache_clear()


def test_the_compact_file_is_made_once_and_read_by_every_later_process(small: None, tmp_path: Path) -> None:
    stale = tmp_path / "zh" / "cedict-0000000000000000.sqlite"  # of other data files or FORMAT
    stale.parent.mkdir()
    stale.write_bytes(b"")
    zh = cedict.dictionary(tmp_path)
    assert zh.senses("神经网络") == ["neural network"] and zh.implied("神经") == ["neural"]
    assert zh.words_with("network") == ["网络"] and zh.has("网络") and not zh.has("图")
    assert zh.longest == 4 and zh.senses("图") == [] and zh.implied("网络") == []
    made = sorted((tmp_path / "zh").iterdir(), key=lambda p: p.suffix != ".sqlite")
    assert len(made) == 2 and made[0].name.startswith("cedict-")  # the stale one gone, no partial left
    assert made[1] == made[0].with_suffix(".lock")  # the lock its maker held
    cedict.dictionary.cache_clear()  # a later process: it reads the file, never makes it again
    stamp = made[0].stat().st_mtime_ns
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cedict, "write_keyed", lambda *args: pytest.fail("made again"))
        assert cedict.dictionary(tmp_path).senses("网络") == ["network", "net"]
    assert made[0].stat().st_mtime_ns == stamp


def test_a_folder_that_cannot_be_written_gets_the_tables_in_memory(small: None, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")  # a file where the folder should be: no folder can be made under it
    zh = cedict.dictionary(blocked)
    assert zh.senses("神经网络") == ["neural network"] and zh.segment("图神经网络") == ["图", "神经", "网络"]


def test_the_segmenter_cuts_han_text_as_jieba_does() -> None:
    import jieba

    zh = cedict.dictionary(Settings().model_cache)
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = str(Settings().home)  # jieba's own cache, in the test's home
    Path(tokenizer.tmp_dir).mkdir(parents=True, exist_ok=True)
    texts = [t for name in SETS for t in HAN.findall((ROOT / "bench" / name).read_text(encoding="utf-8"))]
    words = [p["zh"] for name in SETS for p in json.loads((ROOT / "bench" / name).read_text())["papers"]]
    rng = random.Random(7)  # runs of the sets' own words and characters, a rare character among them
    pool = [w for t in words for w in tokenizer.lcut(t, HMM=False) if HAN.fullmatch(w)] + ["\u3401", "\uf901"]
    texts += ["".join(rng.choices(pool, k=rng.randint(1, 8))) for _ in range(500)]
    assert [zh.segment(t) for t in texts] == [tokenizer.lcut(t, HMM=False) for t in texts]
