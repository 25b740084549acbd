"""The first page of the paper as a thumbnail (``services/thumbnails.py``): rendered once with pypdfium2 from
a real arXiv PDF that ``papersift fulltext`` fetched anyway (tests/fulltext_server.py plays arXiv), kept in
the home as a WebP of a few KB, served at ``/thumb/ID.webp`` with cache headers and shown on the paper page
(English and 中文), in listings only when ``thumbnails_in_listings`` is on. Nothing is downloaded for a
thumbnail alone unless ``thumbnails_fetch`` is on, and then once; a PDF that will not render (truncated
bytes) gets no thumbnail, no error page and one line in the log. In Chromium, the rows a listing's "more"
appends get their thumbnails too, one that cannot be shown removed."""

from __future__ import annotations

import io
import logging
import shutil
from pathlib import Path

import pytest
from PIL import Image

from papersift.services import thumbnails
from papersift.web.parts import PART
from tests.fulltext_server import FULLTEXT, PDF, FulltextServer
from tests.support.browser import CHROMIUM, browsing, screenshot_path
from tests.support.data import DAILY_DAYS, write_jsonl
from tests.support.homes import home_copy
from tests.support.inproc import app_client, invoke
from tests.support.processes import serving
from tests.test_fulltext import ATTENTION, _record

PDFS = ["2501.10120v1.pdf", "0908.0054v1.pdf", "0807.3577.pdf", "2305.03393v1-pg9.pdf"]
TRUNCATED = (FULLTEXT / "2501.10120v1.pdf").read_bytes()[:3000]  # a PDF cut short: pdfium cannot open it


@pytest.mark.parametrize("name", PDFS)
def test_the_first_page_of_a_real_pdf_is_a_webp_of_a_few_kb(name: str) -> None:
    picture = thumbnails.render((FULLTEXT / name).read_bytes())
    assert picture[:4] == b"RIFF" and picture[8:12] == b"WEBP"
    assert 1_000 < len(picture) < 8_000, len(picture)
    image = Image.open(io.BytesIO(picture))
    assert image.width == thumbnails.WIDTH and 1.2 < image.height / image.width < 1.5  # a page, upright


def test_a_pdf_that_will_not_render_gets_no_thumbnail_and_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="papersift.services.thumbnails"):
        assert thumbnails.keep(tmp_path, "2501.10120", TRUNCATED) is None
        assert thumbnails.keep(tmp_path, "2501.10120", b"%PDF-1.5 not really") is None
    assert [r.getMessage()[:33] for r in caplog.records] == ["no thumbnail of arXiv:2501.10120:"]
    assert not thumbnails.shown(tmp_path, "2501.10120")
    # the paper's next PDF that renders replaces the marker
    assert thumbnails.keep(tmp_path, "2501.10120", (FULLTEXT / PDFS[0]).read_bytes()) is not None
    assert thumbnails.shown(tmp_path, "2501.10120")
    assert sorted(p.name for p in thumbnails.folder(tmp_path).iterdir()) == ["2501.10120.webp"]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1706.03762 (a TeX e-print), 2501.10120 (PDF only: its e-print is the PDF), 0908.0054 and 2401.00009
    (PDFs on arXiv, none fetched): the first two read in full."""
    home = tmp_path_factory.mktemp("thumbs")
    records = [
        ATTENTION,
        _record("2501.10120", "PaSa: An LLM Agent for Comprehensive Academic Paper Search", "2025-01-20"),
        _record("0908.0054", "A paper whose PDF is fetched for its thumbnail", "2025-01-20"),
        _record("2401.00009", "A paper whose PDF will not render", "2025-01-20"),
    ]
    invoke("ingest", str(write_jsonl(home / "papers.jsonl", records)), home=home)
    with FulltextServer() as server:
        invoke("fulltext", "1706.03762", "2501.10120", home=home, env=server.env())
        assert [s.path for s in server.seen] == ["/e-print/1706.03762v1", "/e-print/2501.10120v1"]
    return home


@pytest.fixture
def home(stored: Path, tmp_path: Path) -> Path:
    shutil.copytree(stored, tmp_path / "home")
    return tmp_path / "home"


def _img(page: str, paper_id: str) -> bool:
    return f'src="/thumb/{paper_id}.webp"' in page


@pytest.mark.parametrize(("lang", "alt"), [("en", "The first page of the paper"), ("zh", "论文首页")])
def test_a_pdf_fetched_for_full_text_gives_the_paper_page_its_first_page(
    home: Path, lang: str, alt: str
) -> None:
    assert thumbnails.shown(home, "2501.10120") and not thumbnails.shown(home, "1706.03762")
    with FulltextServer() as server, app_client(home, env=server.env()) as client:
        page = client.get(f"/abs/2501.10120?lang={lang}").text
        assert _img(page, "2501.10120") and f'alt="{alt}"' in page
        assert 'href="https://arxiv.org/html/2501.10120"' in page  # arXiv's HTML version, beside its PDF
        thumb = client.get("/thumb/2501.10120.webp")
        assert thumb.status_code == 200 and thumb.headers["content-type"] == "image/webp"
        assert thumb.headers["cache-control"] == "public, max-age=604800"
        assert "nosniff" in thumb.headers["x-content-type-options"]  # through the security middleware
        assert thumb.content == thumbnails.path(home, "2501.10120").read_bytes()
        again = client.get("/thumb/2501.10120.webp", headers={"If-None-Match": thumb.headers["etag"]})
        assert again.status_code == 304
        # a TeX e-print gave no PDF: no picture, and nothing downloaded for one
        tex_page = client.get(f"/abs/1706.03762?lang={lang}").text
        assert "/thumb/" not in tex_page
        missing = client.get("/thumb/1706.03762.webp")
        assert missing.status_code == 404 and missing.content == b""
        assert client.get("/thumb/not-an-id.webp").status_code == 404
        assert server.seen == []
        listing = client.get(f"/list/cs.CL/2025-01-20?lang={lang}").text
        assert "2501.10120" in listing and "/thumb/" not in listing  # off by default in listings


def test_listings_show_first_pages_when_the_reader_turns_them_on(home: Path) -> None:
    with app_client(home, thumbnails_in_listings=True) as client:
        listing = client.get("/list/cs.CL/2025-01-20").text
    assert _img(listing, "2501.10120") and not _img(listing, "0908.0054")


def test_with_fetching_on_a_thumbnail_downloads_the_pdf_once_and_a_bad_pdf_gives_none(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with FulltextServer() as server:
        server.pdfs["2401.00009"] = (TRUNCATED, PDF)  # type: ignore[assignment]
        with app_client(home, env=server.env(), thumbnails_fetch=True) as client:
            page = client.get("/abs/0908.0054").text
            assert _img(page, "0908.0054")  # may be fetched: the page asks for it
            first = client.get("/thumb/0908.0054.webp")
            second = client.get("/thumb/0908.0054.webp")
            with caplog.at_level(logging.WARNING, logger="papersift.services.thumbnails"):
                bad = [client.get("/thumb/2401.00009.webp") for _ in range(2)]
            unknown = client.get("/thumb/2401.99999.webp")  # not in the store: never asked of arXiv
    assert first.status_code == second.status_code == 200 and first.content == second.content
    assert [r.status_code for r in bad] == [404, 404] and bad[0].content == b""
    assert unknown.status_code == 404
    assert [s.path for s in server.seen] == ["/pdf/0908.0054", "/pdf/2401.00009"]  # each once
    assert len([r for r in caplog.records if "2401.00009" in r.getMessage()]) == 1


def test_a_read_only_server_fetches_nothing_for_a_thumbnail(home: Path) -> None:
    with FulltextServer() as server:
        env = server.env()
        with app_client(home, env=env, thumbnails_fetch=True, read_only=True) as client:
            assert "/thumb/" not in client.get("/abs/0908.0054").text
            assert client.get("/thumb/0908.0054.webp").status_code == 404
            assert client.get("/thumb/2501.10120.webp").status_code == 200  # kept ones are shown
    assert server.seen == []


def test_with_fetching_off_a_missing_thumbnail_is_never_asked_of_arxiv(home: Path) -> None:
    with FulltextServer() as server, app_client(home, env=server.env(), thumbnails_fetch=False) as client:
        assert client.get("/thumb/0908.0054.webp").status_code == 404  # stored, none kept
        assert client.get("/thumb/2501.10120.webp").status_code == 200
    assert server.seen == []


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
def test_in_chromium_rows_appended_by_more_get_their_thumbnails_and_a_broken_one_is_removed(
    browser: object,
    topics_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> None:
    from playwright.sync_api import expect

    home = home_copy(topics_home, tmp_path_factory, "thumbs-parts")
    listing = f"/list/cs.AI/{DAILY_DAYS[1]}"
    with app_client(home) as client:
        ids = [e["id"] for e in client.get(f"/api{listing}").json()["entries"]]
    first, good, broken = ids[0], ids[PART], ids[PART + 1]  # broken, good: rows of the second part
    picture = thumbnails.render((FULLTEXT / PDFS[0]).read_bytes())
    thumbnails.folder(home).mkdir()
    for pid in (first, good):
        thumbnails.path(home, pid).write_bytes(picture)
    thumbnails.path(home, broken).write_bytes(b"not a picture")  # kept, but no browser can show it

    def row(pid: str) -> str:
        return f"article[id='p-{pid}']"

    env = {"PAPERSIFT_THUMBNAILS_IN_LISTINGS": "1"}
    with (
        serving(home, env) as server,
        browsing(browser, str(server.base_url), screenshot_path(request)) as page,
    ):
        page.goto(listing)  # type: ignore[attr-defined]
        expect(page.locator(f"{row(first)} img.thumb")).to_have_count(1)  # type: ignore[attr-defined]
        page.locator("a.more-link").click()  # type: ignore[attr-defined]
        expect(page.locator("section.listing article.paper")).to_have_count(2 * PART)  # type: ignore[attr-defined]
        page.locator(row(broken)).scroll_into_view_if_needed()  # type: ignore[attr-defined]
        expect(page.locator(f"{row(broken)} .first-page")).to_have_count(0)  # type: ignore[attr-defined]
        shown = page.locator(f"{row(good)} img.thumb")  # type: ignore[attr-defined]
        shown.scroll_into_view_if_needed()
        expect(shown).to_have_js_property("complete", True)
        assert shown.evaluate("img => img.naturalWidth") == thumbnails.WIDTH
