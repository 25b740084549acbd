"""A real local HTTP server that plays arXiv's e-print and PDF endpoints and Semantic Scholar's paper batch,
serving the real recordings of ``../shared/data/fulltext``.

``GET /e-print/<id>[vN]`` answers the paper's e-print as arXiv does: a gzipped tar as
``application/x-eprint-tar``, a gzipped single ``.tex`` as ``application/x-eprint``, a PDF-only submission as
``application/pdf``; 404 for an id it does not know or has no source for. ``GET /pdf/<id>[vN]`` answers the
PDF. ``POST /graph/v1/paper/batch`` answers ``batch`` (a real recorded body) or, when unset, one ``null`` per
id asked; ``s2_status`` makes it answer an error (``s2_error``) instead. Every request is recorded (method,
path, headers, body). Old-style ids are served under their slash (``hep-th/0005057``).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType

from tests.support.data import SHARED_DATA

FULLTEXT = SHARED_DATA / "fulltext"
TAR = "application/x-eprint-tar"
SINGLE = "application/x-eprint"
PDF = "application/pdf"

# each fixture by its arXiv id (without version), as arXiv would serve it
EPRINTS: dict[str, str] = {
    "1706.03762": "1706.03762.tar.gz",
    "2305.03393": "2305.03393.tar.gz",
    "2310.06825": "2310.06825.tar.gz",
    "2412.19437": "2412.19437.tar.gz",
    "2501.00089": "2501.00089.tar.gz",
    "2501.01300": "2501.01300v2.tar.gz",
    "hep-th/0005057": "hep-th0005057.tar.gz",
    "math/0106220": "math0106220.tar.gz",
    "quant-ph/9802040": "quant-ph9802040.tar.gz",
    "1911.02782": "1911.02782.eprint.gz",
    "2004.14974": "2004.14974.eprint.gz",
    "2501.10120": "2501.10120v1.pdf",  # a PDF-only submission: the e-print is the PDF
}
PDFS: dict[str, str] = {
    "2501.10120": "2501.10120v1.pdf",
    "0908.0054": "0908.0054v1.pdf",
    "0807.3577": "0807.3577.pdf",
}
_VERSION = re.compile(r"v\d+$")


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def content_type(name: str) -> str:
    if name.endswith(".pdf"):
        return PDF
    return TAR  # every fixture archive is a gzipped tar


@dataclass
class FulltextServer:
    """The server; ``eprints`` / ``pdfs`` map ids to fixture files (or bytes with their content type)."""

    eprints: dict[str, str | tuple[bytes, str]] = field(default_factory=lambda: dict(EPRINTS))
    pdfs: dict[str, str] = field(default_factory=lambda: dict(PDFS))
    batch: bytes | None = None
    s2_status: int = 200
    s2_error: bytes = b'{"message":"Forbidden"}'
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def env(self) -> dict[str, str]:
        """The settings that point papersift here."""
        return {
            "PAPERSIFT_EPRINT_URL": f"{self.url}/e-print",
            "PAPERSIFT_PDF_URL": f"{self.url}/pdf",
            "PAPERSIFT_S2_URL": self.url,
            "PAPERSIFT_REQUEST_INTERVAL": "0",
        }

    def answer(self, method: str, path: str, body: bytes) -> tuple[int, str, bytes]:
        if method == "POST" and path == "/graph/v1/paper/batch":
            if self.s2_status != 200:
                return self.s2_status, "application/json", self.s2_error
            if self.batch is not None:
                return 200, "application/json", self.batch
            import orjson

            ids = orjson.loads(body)["ids"]
            return 200, "application/json", orjson.dumps([None] * len(ids))
        for prefix, table in (("/e-print/", self.eprints), ("/pdf/", self.pdfs)):
            if path.startswith(prefix):
                pid = _VERSION.sub("", path[len(prefix) :])
                found = table.get(pid)
                if found is None:
                    return 404, "text/plain", b"not found"
                if isinstance(found, tuple):
                    return 200, found[1], found[0]
                return 200, content_type(found), (FULLTEXT / found).read_bytes()
        return 404, "text/plain", b"not found"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _reply(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                path = self.path.split("?")[0]
                server.seen.append(
                    Seen(method, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                status, kind, data = server.answer(method, path, body)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                if kind in (TAR, SINGLE, PDF):
                    self.send_header("Content-Disposition", f'attachment; filename="{Path(path).name}"')
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._reply("GET")

            def do_POST(self) -> None:
                self._reply("POST")

            def log_message(self, format: str, *args: object) -> None:
                pass

        return _Handler

    def __enter__(self) -> FulltextServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
