"""Papers' full text end to end: ``papersift fulltext`` fetches real arXiv e-prints and PDFs from a local
server playing arXiv (its content types, 404 for what it lacks), stores them once per version, resolves
references to the store's papers, and ``show``, the paper's JSON, its page (English and 中文) show
references, cited-by and code; a killed run resumes without duplicates; offline fails fast; ``enrich``
stores Semantic Scholar's counts from real recordings."""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from papersift.settings import Settings
from papersift.store import open_store
from tests.fulltext_server import FULLTEXT, SINGLE, FulltextServer
from tests.support.data import write_jsonl
from tests.support.inproc import app_client, invoke

ATTENTION = {
    "id": "1706.03762",
    "title": "Attention Is All You Need",
    "abstract": "The dominant sequence transduction models are based on complex recurrent or convolutional "
    "neural networks. We propose a new simple network architecture, the Transformer.",
    "authors": ["Ashish Vaswani", "Noam Shazeer"],
    "categories": ["cs.CL", "cs.LG"],
    "primary_category": "cs.CL",
    "published": "2017-06-12",
    "updated": "2017-06-12",
    "announced": "2017-06-13",
    "source": "test",
    "version": 1,
}


def _record(pid: str, title: str, day: str = "2017-06-13") -> dict[str, Any]:
    return {**ATTENTION, "id": pid, "title": title, "published": day, "announced": day, "version": 1}


CITED = {"1409.0473", "1601.06733", "1608.05859", "1703.03130"}  # in the 20k file, named by arXiv id


def _cited(shared_data: Path) -> list[dict[str, Any]]:
    """The real records of the 20k file that 1706.03762's bibliography names by arXiv id."""
    wanted = CITED
    out = []
    with gzip.open(shared_data / "arxiv-20k.jsonl.gz") as f:
        for line in f:
            if any(w.encode() in line for w in wanted):
                record = orjson.loads(line)
                if record["id"] in wanted:
                    out.append(record)
    return out


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    tmp_path = tmp_path_factory.mktemp("fulltext")
    others = [
        _record("1911.02782", "S2ORC: The Semantic Scholar Open Research Corpus"),
        _record("2501.10120", "PaSa: An LLM Agent for Comprehensive Academic Paper Search"),
        _record("0807.3577", "Apparent and average accelerations of the Universe"),
        _record("2310.06825", "Mistral 7B"),
    ]
    records = [ATTENTION, *others, *_cited(shared_data)]
    invoke("ingest", str(write_jsonl(tmp_path / "papers.jsonl", records)), home=tmp_path)
    return tmp_path


@pytest.fixture
def home(stored: Path, tmp_path: Path) -> Path:
    """A copy of the module's store for each test."""
    shutil.copytree(stored, tmp_path / "home")
    return tmp_path / "home"


def test_fetch_stores_tex_and_pdf_once_per_version_and_resolves_references(home: Path) -> None:
    with FulltextServer() as server:
        ran = invoke("fulltext", "1706.03762", "2501.10120", "0807.3577", home=home, env=server.env())
        assert "3 stored" in ran.stdout, ran.stdout + ran.stderr
        gets = [s.path for s in server.seen]
        # e-print first; the journal PDF only where arXiv has no source
        assert gets == [
            "/e-print/1706.03762v1",
            "/e-print/2501.10120v1",
            "/e-print/0807.3577v1",
            "/pdf/0807.3577v1",
        ]
        again = invoke("fulltext", "1706.03762", "2501.10120", "0807.3577", home=home, env=server.env())
        assert "0 stored" in again.stdout and "3 already stored" in again.stdout
        assert len(server.seen) == 4  # nothing asked twice for the same version
    store = open_store(Settings(home=home))
    try:
        text = store.fulltext("1706.03762")
        assert text is not None and text.source == "tex" and text.words > 3000
        refs = store.references("1706.03762")
        assert len(refs) == 40
        resolved = {r.resolved for r in refs if r.resolved}
        assert resolved == CITED
        assert {c.paper_id for c in store.cited_by("1409.0473")} == {"1706.03762"}
        assert store.code_links("1706.03762")[0].url == "https://github.com/tensorflow/tensor2tensor"
        assert store.fulltext_info(["2501.10120"])["2501.10120"].source == "pdf"
        assert store.fulltext_info(["0807.3577"])["0807.3577"].source == "pdf"
    finally:
        store.close()


def test_show_json_and_page_carry_references_cited_by_and_code(home: Path) -> None:
    with FulltextServer() as server:
        invoke("fulltext", "1706.03762", home=home, env=server.env())
    shown = orjson.loads(invoke("show", "1706.03762", "--format", "json", home=home).stdout)
    assert shown["fulltext"]["from"] == "tex" and shown["fulltext"]["sections"] > 5
    assert len(shown["references"]) == 40 and shown["code"][0]["own"] is True
    cited = orjson.loads(invoke("show", "1409.0473", "--format", "json", home=home).stdout)
    assert cited["cited_by"] == [{"id": "1706.03762", "title": "Attention Is All You Need"}]
    assert cited["fulltext"] is None and cited["references"] == [] and cited["code"] == []
    text = invoke("show", "1706.03762", home=home).stdout
    assert (
        "References: 40; 4 in this store" in text
        and "Code: https://github.com/tensorflow/tensor2tensor" in text
    )
    refs = invoke("show", "1706.03762", "--references", home=home).stdout
    assert refs.startswith("References (40; ") and "-> 1409.0473" in refs
    assert (
        "1706.03762  Attention Is All You Need" in invoke("show", "1409.0473", "--cited-by", home=home).stdout
    )
    as_json = orjson.loads(invoke("show", "1409.0473", "--cited-by", "--format", "json", home=home).stdout)
    assert as_json["cited_by"][0]["id"] == "1706.03762"
    with app_client(home) as client:
        api = client.get("/api/abs/1706.03762").json()
        assert api["references"] == shown["references"] and api["code"] == shown["code"]
        page = client.get("/abs/1706.03762").text
        assert 'References<span class="count"> (' in page and 'href="/abs/1409.0473"' in page
        assert 'href="https://github.com/tensorflow/tensor2tensor"' in page
        cited_page = client.get("/abs/1409.0473").text
        assert "Cited by" in cited_page and 'href="/abs/1706.03762"' in cited_page
        zh = client.get("/abs/1706.03762?lang=zh", headers={"Accept-Language": "zh-CN"}).text
        assert "参考文献" in zh and "本站收录" in zh and "代码" in zh
        assert '参考文献<span class="count">（共 ' in zh  # full-width parentheses beside 中文


def test_a_single_gzipped_tex_and_an_unknown_paper(home: Path) -> None:
    with tarfile.open(FULLTEXT / "2310.06825.tar.gz") as tar:
        member = tar.extractfile("main.tex")
        assert member is not None
        single = gzip.compress(member.read())
    with FulltextServer() as server:
        server.eprints["2310.06825"] = (single, SINGLE)
        ran = invoke(
            "fulltext", "2310.06825", "1911.02782", "1409.0473", home=home, env=server.env(), check=False
        )
    assert "2 stored" in ran.stdout, ran.stdout + ran.stderr
    assert "1409.0473" in ran.stderr and "neither source nor PDF" in ran.stderr  # 404 twice: failed, said
    assert "1409.0473: 1409.0473" not in ran.stderr  # its id once on its line
    store = open_store(Settings(home=home))
    try:
        assert store.fulltext_states(["1409.0473"]) == {("1409.0473", 0): "failed"}  # version unknown: 0
        assert store.fulltext("2310.06825") is not None
    finally:
        store.close()


def test_a_newer_version_replaces_the_references(home: Path) -> None:
    with FulltextServer() as server:
        invoke("fulltext", "1706.03762", home=home, env=server.env())
        server.eprints["1706.03762"] = "2310.06825.tar.gz"  # "v2": another bibliography
        store = open_store(Settings(home=home))
        try:
            paper = store.get("1706.03762")
            assert paper is not None
            from dataclasses import replace

            store.upsert([replace(paper, version=2)])
        finally:
            store.close()
        invoke("fulltext", "1706.03762", home=home, env=server.env())
        assert server.seen[-1].path == "/e-print/1706.03762v2"
    store = open_store(Settings(home=home))
    try:
        assert len(store.references("1706.03762")) == 29  # Mistral's 29, not the 40 of v1
        assert store.cited_by("1409.0473") == []
    finally:
        store.close()


def test_offline_says_so_within_seconds(home: Path) -> None:
    started = time.monotonic()
    ran = invoke("fulltext", "1706.03762", home=home, check=False)  # the sandbox's closed port
    assert ran.returncode == 1 and "offline" in ran.stderr
    assert time.monotonic() - started < 5


@pytest.mark.process
def test_a_killed_run_resumes_without_duplicates(home: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    from tests.support.data import ROOT

    with FulltextServer() as server:
        ids = ["1706.03762", "2310.06825", "1911.02782", "2501.10120", "0807.3577"]
        env = {**os.environ, **server.env(), "PAPERSIFT_HOME": str(home), "PAPERSIFT_REQUEST_INTERVAL": "1"}
        process = subprocess.Popen(
            [sys.executable, "-m", "papersift.cli", "fulltext", *ids],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while len(server.seen) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        asked_before = [s.path for s in server.seen]
        store = open_store(Settings(home=home))
        try:
            kept = {pid for (pid, _), state in store.fulltext_states(ids).items() if state == "done"}
        finally:
            store.close()
        assert kept and len(kept) < len(ids)  # killed part way: some stored, some not
        ran = invoke("fulltext", *ids, home=home, env=server.env())
        assert f"{len(kept)} already stored" in ran.stdout
        asked_after = [s.path for s in server.seen[len(asked_before) :]]
    assert not any(path.startswith(f"/e-print/{pid}v") for path in asked_after for pid in kept)
    store = open_store(Settings(home=home))
    try:
        states = store.fulltext_states(ids)
        assert sorted(states) == sorted((i, 1) for i in ids) and set(states.values()) == {"done"}
        assert len(store.references("1706.03762")) == 40  # once, not twice
    finally:
        store.close()


def _recorded(name: str) -> bytes:
    """The response body of a VCR cassette's first interaction."""
    cassette = yaml.safe_load((FULLTEXT / "semanticscholar" / name).read_text(encoding="utf-8"))
    response = cassette["interactions"][0]["response"]
    body = response.get("body", {}).get("string") if "body" in response else response["content"]
    return body.encode() if isinstance(body, str) else bytes(body)


def test_enrich_stores_semantic_scholars_counts_with_their_date(home: Path) -> None:
    recorded = _recorded("test_get_papers_return_not_found.yaml")
    answer = orjson.loads(recorded)
    with FulltextServer(batch=recorded) as server:
        env = {**server.env(), "PAPERSIFT_S2_KEY": "s3cr3t-k3y"}
        ran = invoke("enrich", "1706.03762", "1911.02782", "2501.10120", "0807.3577", home=home, env=env)
        posted = server.seen[-1]
    assert "3 of 4 papers counted" in ran.stdout
    assert "s3cr3t" not in ran.stdout + ran.stderr
    assert posted.headers["x-api-key"] == "s3cr3t-k3y" and "fields=externalIds" in posted.path
    assert orjson.loads(posted.body)["ids"][0] == "ARXIV:1706.03762"
    shown = orjson.loads(invoke("show", "1911.02782", "--format", "json", home=home).stdout)
    assert shown["citations"]["count"] == answer[1]["citationCount"]
    assert shown["citations"]["date"] == time.strftime("%Y-%m-%d", time.gmtime())
    assert (
        orjson.loads(invoke("show", "1706.03762", "--format", "json", home=home).stdout)["citations"] is None
    )


def test_enrich_refused_says_why_without_the_key(home: Path) -> None:
    cassette = yaml.safe_load((FULLTEXT / "semanticscholar" / "test_debug.yaml").read_text(encoding="utf-8"))
    status = cassette["interactions"][0]["response"]["status"]["code"]
    with FulltextServer(s2_status=status, s2_error=_recorded("test_debug.yaml")) as server:
        env = {**server.env(), "PAPERSIFT_S2_KEY": "F@k3K3y"}
        ran = invoke("enrich", "1706.03762", home=home, env=env, check=False)
    assert ran.returncode == 1 and "HTTP 403" in ran.stderr and "Forbidden" in ran.stderr
    assert "F@k3K3y" not in ran.stderr + ran.stdout


def test_enrich_asks_at_most_500_ids_a_request(home: Path) -> None:
    from papersift.services.enrich import enrich
    from papersift.services.harvest import ArxivClient

    ids = [f"2401.{n:05d}" for n in range(501)]
    with FulltextServer() as server, pytest.MonkeyPatch.context() as patch:
        for name, value in server.env().items():
            patch.setenv(name, value)
        settings = Settings(home=home)
        store = open_store(settings)
        try:
            with ArxivClient(settings) as client:
                assert enrich(client, store, ids) == []
        finally:
            store.close()
    sizes = [len(orjson.loads(s.body)["ids"]) for s in server.seen]
    assert sizes == [500, 1]


def test_stored_text_is_compressed_and_reads_back(tmp_path: Path) -> None:
    from papersift.sources.eprint import extract
    from papersift.store.fulltext_rows import pack, unpack

    blob = (FULLTEXT / "2412.19437.tar.gz").read_bytes()
    text = extract(blob, arxiv_id="2412.19437", content_type="application/x-eprint-tar")
    packed = pack(text)
    assert unpack(packed) == text
    assert len(packed) < len(orjson.dumps(text)) / 2
    assert io.BytesIO(packed).read(1)  # bytes, as both backends store them


def test_the_pass_after_sync_fetches_saved_and_top_daily_papers(home: Path) -> None:
    from papersift.library.digest import fulltext_ahead, papers_ahead
    from papersift.services.accounts import personal_account
    from papersift.store.records import LibraryEntry

    with FulltextServer() as server, pytest.MonkeyPatch.context() as patch:
        for name, value in {**server.env(), "PAPERSIFT_FULLTEXT_PASS_PAPERS": "2"}.items():
            patch.setenv(name, value)
        settings = Settings(home=home)
        store = open_store(settings)
        try:
            reader = personal_account(store, settings)
            store.save_entries(
                reader.id, [LibraryEntry(key="1706.03762", paper_id="1706.03762", title="Attention")]
            )
            chosen = papers_ahead(store, None, settings, store.accounts(), daily=2, saved=100)
            assert chosen[0].id != "1706.03762" and "1706.03762" in {p.id for p in chosen}
            done = fulltext_ahead(store, None, settings, store.accounts())
            assert {i.paper_id for i in done.stored} | {f for f, _ in done.failed} == {p.id for p in chosen}
            assert store.fulltext("1706.03762") is not None
            assert fulltext_ahead(store, None, settings, store.accounts()).stored == []  # kept, not again
        finally:
            store.close()


def test_hostile_reference_text_and_links_are_escaped_on_the_page(home: Path) -> None:
    from papersift.sources.fulltext import CodeLink, FullText, Reference, Section

    store = open_store(Settings(home=home))
    try:
        evil = Reference(
            "x", "<script>alert('ref')</script> & co", url="javascript:alert(1)", resolved="1409.0473"
        )
        code = (
            CodeLink("javascript:alert(2)", "project"),
            CodeLink("https://github.com/a/b", "github", own=True),
        )
        store.put_fulltext(
            "1706.03762", 1, FullText("tex", (Section("Intro", 1, "words"),), references=(evil,), code=code)
        )
    finally:
        store.close()
    with app_client(home) as client:
        page = client.get("/abs/1706.03762").text
        api = client.get("/api/abs/1706.03762").json()
    assert "<script>alert('ref')" not in page and "&lt;script&gt;alert(" in page
    assert "javascript:" not in page and 'href="https://github.com/a/b"' in page
    assert api["references"][0]["url"] is None and [c["url"] for c in api["code"]] == [
        "https://github.com/a/b"
    ]


def test_a_days_listing_is_fetched_by_date_and_category(home: Path) -> None:
    with FulltextServer() as server:
        ran = invoke("fulltext", "--date", "2017-06-13", "--category", "cs.CL", home=home, env=server.env())
        asked = {s.path.split("/")[2] for s in server.seen if s.path.startswith("/e-print/")}
    assert {"1706.03762v1", "2310.06825v1", "1911.02782v1"} <= asked, ran.stdout
    bad = invoke("fulltext", "--date", "2017-06-13", home=home, check=False)
    assert bad.returncode == 2 and "--date and --category go together" in bad.stderr
