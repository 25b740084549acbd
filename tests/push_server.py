"""A local push service for the tests: one HTTP server on 127.0.0.1 that takes what Apprise sends to a JSON
webhook (``json://127.0.0.1:PORT/PATH``: ``{"version", "title", "message", "type"}``) and to a self-hosted
ntfy server (``ntfy://127.0.0.1:PORT/TOPIC``: ``{"topic", "title", "message"}`` posted to the root), and
answers as they do (200 with JSON; ntfy's message object). It keeps every request (path, headers, body
bytes) and can refuse the next ``fail`` ones with a 500, as a service having a bad moment does."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict[str, Any]:
        value: dict[str, Any] = orjson.loads(self.body)
        return value


@dataclass
class PushServer:
    """The server; ``received``: every request (refused ones too), ``taken``: those it took, ``fail``: how
    many of the next requests to refuse."""

    received: list[Received] = field(default_factory=list)
    taken: list[Received] = field(default_factory=list)
    fail: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                got = Received(self.path, dict(self.headers.items()), body)
                with owner.lock:
                    owner.received.append(got)
                    refuse = owner.fail > 0
                    owner.fail -= refuse
                    if not refuse:
                        owner.taken.append(got)
                status, answer = (500, {"code": 50001, "error": "a bad moment"}) if refuse else (200, {})
                if not refuse and self.path == "/":  # ntfy answers with the message it published
                    sent = orjson.loads(body)
                    answer = {"id": f"m{len(owner.received)}", "event": "message", "topic": sent.get("topic")}
                data = orjson.dumps(answer)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.httpd.server_address[1])
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> PushServer:
        self.thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def json_url(self, path: str = "hook") -> str:
        return f"json://127.0.0.1:{self.port}/{path}"

    def ntfy_url(self, topic: str = "papers") -> str:
        return f"ntfy://127.0.0.1:{self.port}/{topic}"

    def messages(self) -> list[dict[str, Any]]:
        """The bodies of the requests taken (not refused), in order."""
        return [r.json for r in self.taken]
