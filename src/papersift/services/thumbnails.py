"""The first page of a paper as a thumbnail: rendered once with pypdfium2 from a PDF papersift holds anyway
(one fetched for the paper's full text, ``services/eprints.py``) and kept in the home as a small WebP
(``HOME/thumbs/<id>.webp``, 200 px wide, a few KB). Nothing is downloaded for a thumbnail alone unless
``thumbnails_fetch`` is on; then ``fetched`` asks arXiv for the paper's PDF once.

A PDF that will not render gets no thumbnail: a marker (``<id>.none``) keeps it from being tried again (a
later version fetched for its full text tries again) and the failure is logged once. Files are written whole
or not at all (``records/files.py``), so readers never see half a picture.
"""

from __future__ import annotations

import io
import logging
import threading
from contextlib import suppress
from pathlib import Path

from papersift.records.files import write_atomic
from papersift.services.harvest import ArxivClient, HarvestError
from papersift.settings import Settings
from papersift.sources.pdf import is_pdf

log = logging.getLogger(__name__)

WIDTH = 200  # pixels: sharp at the 100 to 200 CSS px the pages show it
QUALITY = 40  # WebP quality: 3 to 6 KB for the fixtures' first pages (typeset text stays legible)
MAX_PDF_BYTES = 50_000_000  # a PDF larger than this is not fetched for a thumbnail
_FETCHING = threading.Lock()  # one download for thumbnails at a time per process


def folder(home: Path) -> Path:
    return home / "thumbs"


def _name(paper_id: str) -> str:
    return paper_id.replace("/", "_")  # old-style ids: hep-th/0005057 -> hep-th_0005057


def path(home: Path, paper_id: str) -> Path:
    """Where the paper's thumbnail is kept (it may not be there)."""
    return folder(home) / f"{_name(paper_id)}.webp"


def _failed(home: Path, paper_id: str) -> Path:
    return folder(home) / f"{_name(paper_id)}.none"


def render(pdf: bytes, width: int = WIDTH) -> bytes:
    """The first page of ``pdf`` as WebP ``width`` pixels wide; ``ValueError`` when it will not render."""
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(pdf)
    except pdfium.PdfiumError as e:
        raise ValueError(str(e)) from e
    try:
        if len(document) == 0:
            raise ValueError("no pages")
        page = document[0]
        page_width = page.get_size()[0]
        if page_width <= 0:
            raise ValueError("a page without width")
        image = page.render(scale=width / page_width).to_pil()
    except pdfium.PdfiumError as e:
        raise ValueError(str(e)) from e
    finally:
        document.close()
    out = io.BytesIO()
    image.save(out, "WEBP", quality=QUALITY, method=6)
    return out.getvalue()


def keep(home: Path, paper_id: str, pdf: bytes) -> Path | None:
    """Render the first page of ``pdf`` (a PDF just fetched for the paper) and keep it as the paper's
    thumbnail, replacing an older one; None, logged once, when it will not render."""
    try:
        picture = render(pdf)
    except ValueError as e:
        _give_up(home, paper_id, f"its PDF will not render ({e})")
        return None
    target = path(home, paper_id)
    write_atomic(target, picture)
    with suppress(FileNotFoundError):
        _failed(home, paper_id).unlink()
    return target


def _give_up(home: Path, paper_id: str, why: str) -> None:
    """Mark the paper as having no thumbnail to make (logged the first time only)."""
    marker = _failed(home, paper_id)
    if not marker.exists():
        log.warning("no thumbnail of arXiv:%s: %s", paper_id, why)
        write_atomic(marker, b"")


def shown(home: Path, paper_id: str) -> bool:
    """Whether the paper has a thumbnail to show now."""
    return path(home, paper_id).is_file()


def fetched(settings: Settings, paper_id: str, client: ArxivClient | None = None) -> Path | None:
    """The thumbnail of a paper that had none ``shown``: its PDF downloaded from arXiv where
    ``thumbnails_fetch`` allows it (never for a PDF that would not render before), or the one another request
    made meanwhile; None when there is none (offline, arXiv has no PDF, the PDF will not render)."""
    home = settings.home
    if not settings.thumbnails_fetch or _failed(home, paper_id).exists():
        return None
    with _FETCHING:
        if shown(home, paper_id):  # another request made it meanwhile
            return path(home, paper_id)
        try:
            if client is None:
                with ArxivClient(settings) as own:
                    pdf = _download(own, paper_id)
            else:
                pdf = _download(client, paper_id)
        except HarvestError as e:
            log.info("no thumbnail of arXiv:%s: %s", paper_id, e)
            return None
        if pdf is None:
            _give_up(home, paper_id, "arXiv answered no PDF")
            return None
        return keep(home, paper_id, pdf)


def _download(client: ArxivClient, paper_id: str) -> bytes | None:
    url = f"{client.settings.pdf_url.rstrip('/')}/{paper_id}"
    response = client.get(url, ok=(200, 403, 404))
    body = response.content
    if response.status_code != 200 or len(body) > MAX_PDF_BYTES or not is_pdf(body):
        return None
    return body
