"""An author's own macros in a real headless Chromium: without the paper's TeX a formula KaTeX cannot read
(2606.07598's ``\\sphere``, ``\\Wo``, ``\\cutdist``) shows as its source text in the text's own colour, never
a red ``.katex-error``; with the paper's e-print stored (math/0106220, whose preamble defines ``\\zz`` as
``\\mathbb{Z}``), KaTeX typesets the macro from the paper's own definition. A recursive macro stops at
KaTeX's expansion limit instead of hanging the page.

math/0106220 is in no metadata file here, so its record is made from its e-print: the TeX's title and a
sentence of its own text written with its macros (as arXiv abstracts often are)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from papersift.sources.eprint import extract
from papersift.sources.fulltext import FullText
from papersift.store.sqlite import SqliteStore
from tests.support.browser import CHROMIUM, SHOTS, browsing
from tests.support.data import write_jsonl
from tests.support.homes import home_copy
from tests.support.processes import run_cli, serving

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")

EPRINT = "math/0106220"
OWN_SENTENCE = (
    r"Here $\alpha, \kappa \in H_2 (X; \zz)$ and $\kappa$ is Poincar\'e dual to the canonical class."
)
RECURSIVE = "2612.99991"  # a record written here: a macro defined in terms of itself
RED = "rgb(204, 0, 0)"  # KaTeX's errorColor
RED_TEXT = f"""(selector) => Array.from(document.querySelectorAll(selector + ', ' + selector + ' *'))
    .filter((e) => getComputedStyle(e).color === '{RED}').length"""


@pytest.fixture(scope="module")
def macro_home(embedded_home: Path, shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = home_copy(embedded_home, tmp_path_factory, "macros")
    with gzip.open(shared_data / "listings-extra" / "papers.jsonl.gz", "rb") as f:
        own = next(r for r in map(orjson.loads, f) if r["id"] == "2606.07598")
    text = extract((shared_data / "fulltext" / "math0106220.tar.gz").read_bytes(), arxiv_id=EPRINT)
    smith: dict[str, object] = {
        "id": EPRINT,
        "title": text.title,
        "abstract": OWN_SENTENCE,
        "authors": ["I. Smith"],
        "categories": ["math.SG"],
        "primary_category": "math.SG",
        "published": None,
    }
    looping: dict[str, object] = {
        **smith,
        "id": RECURSIVE,
        "title": r"A loop $\loop$",
        "abstract": r"Defined as $\loop x$.",
    }
    run_cli("ingest", str(write_jsonl(home / "macros.jsonl", [own, smith, looping])), home=home)
    store = SqliteStore(home / "papersift.db")
    try:
        store.put_fulltext(EPRINT, 1, text)
        store.put_fulltext(RECURSIVE, 1, FullText("tex", (), macros=(("\\loop", "\\loop\\loop"),)))
    finally:
        store.close()
    return home


@pytest.fixture(scope="module")
def macro_server(macro_home: Path) -> Iterator[httpx.Client]:
    with serving(macro_home) as client:
        yield client


@pytest.fixture(scope="module")
def page(browser: object, macro_server: httpx.Client) -> Iterator[object]:
    with browsing(browser, str(macro_server.base_url), SHOTS / "katex_macros.png") as opened:
        yield opened


def _typeset(page: object, path: str) -> None:
    """Open ``path`` (its deferred scripts, KaTeX's and the page's, have run when it has loaded)."""
    page.goto(path)  # type: ignore[attr-defined]
    if not page.locator("link[href='/static/katex/katex.min.css']").count():  # type: ignore[attr-defined]
        pytest.skip("KaTeX is not installed (npm install)")


def test_an_unknown_macro_shows_as_its_source_in_the_texts_colour_never_a_red_error(page: object) -> None:
    _typeset(page, "/abs/2606.07598")
    abstract = page.locator("p.abstract").first  # type: ignore[attr-defined]
    assert page.locator(".katex-error").count() == 0  # type: ignore[attr-defined]
    assert page.evaluate(RED_TEXT, "main") == 0  # type: ignore[attr-defined]
    shown = abstract.inner_text()
    assert r"$\sphere^{n-1}\subset\R^n$" in shown and r"$(\Wo,\cutdist)$" in shown  # the source, as text
    assert abstract.locator(".katex").count() >= 3  # $n$, $\varepsilon>0$… typeset as before
    assert "compactness" in shown and "\\emph" not in shown


def test_with_the_papers_eprint_stored_its_own_macro_is_typeset(page: object) -> None:
    _typeset(page, f"/abs/{EPRINT}")
    assert page.locator("script#tex-macros").count() == 1  # type: ignore[attr-defined]
    formulas = page.locator("p.abstract").first.locator(".katex")  # type: ignore[attr-defined]
    assert formulas.count() == 2 and page.locator(".katex-error").count() == 0  # type: ignore[attr-defined]
    first = formulas.first
    assert "\\zz" in first.locator("annotation").text_content()  # the source KaTeX read…
    assert first.locator(".mathbb").inner_text() == "Z"  # …typeset as the paper defines it: ℤ
    assert page.evaluate(RED_TEXT, "main") == 0  # type: ignore[attr-defined]


def test_a_recursive_macro_stops_at_katexs_limit_and_leaves_its_source(page: object) -> None:
    _typeset(page, f"/abs/{RECURSIVE}")
    assert r"$\loop x$" in page.locator("p.abstract").first.inner_text()  # type: ignore[attr-defined]
    assert page.locator(".katex-error").count() == 0  # type: ignore[attr-defined]
    assert page.evaluate(RED_TEXT, "main") == 0  # type: ignore[attr-defined]
