"""A real local HTTP server that plays scripted arXiv responses, for tests of the harvester.

``ArxivServer`` is a ``ThreadingHTTPServer`` on 127.0.0.1 (a free port) in a background thread.
Each request is answered by ``handler(request)`` when one is set, else by the next queued
``Reply``; a reply can carry any status and headers (``Retry-After``) or drop the connection
mid-body. Every request is recorded (path, query, arrival time on ``time.monotonic``) so tests can
check pacing and resumption.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    """One scripted response. ``drop_after``: send the headers (full Content-Length) and only that
    many body bytes, then close the socket."""

    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/xml; charset=utf-8"
    drop_after: int | None = None


@dataclass(frozen=True)
class Request:
    """A request the server received."""

    path: str
    query: dict[str, list[str]]
    time: float  # time.monotonic() at arrival
    headers: dict[str, str]

    def param(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None


Handler = Callable[[Request], Reply]

UNSCRIPTED = Reply(b"no scripted reply left for this request", status=410, content_type="text/plain")


class ArxivServer:
    """Scripted HTTP server; use as a context manager. ``url`` is its base, e.g. ``http://127.0.0.1:PORT``."""

    def __init__(self, handler: Handler | None = None) -> None:
        self.handler = handler
        self.replies: deque[Reply] = deque()
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._make_handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def queue(self, *replies: Reply) -> None:
        """Answer the next requests with these replies, in order."""
        with self._lock:
            self.replies.extend(replies)

    def _answer(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.handler is not None:
                handler = self.handler
            elif self.replies:
                return self.replies.popleft()
            else:
                return UNSCRIPTED
        return handler(request)

    def _make_handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                request = Request(
                    path=parts.path,
                    query=parse_qs(parts.query, keep_blank_values=True),
                    time=time.monotonic(),
                    headers={k.lower(): v for k, v in self.headers.items()},
                )
                reply = server._answer(request)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(reply.body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if reply.drop_after is None:
                    self.wfile.write(reply.body)
                    return
                self.wfile.write(reply.body[: reply.drop_after])
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:  # quiet
                pass

        return _Handler

    def __enter__(self) -> ArxivServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
