"""A local HTTP server for the model client's tests, answering ``POST /v1/chat/completions`` (and listing its
models at ``GET /v1/models``) in the hosted APIs' documented shapes from a script the test writes: JSON
answers (with status and headers), server-sent event streams (whole, or cut halfway by closing the connection
inside a chunked body), and slow answers. It records every request (path, headers, JSON body) so a test can
check what reached it, and only it."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    """One scripted answer: JSON ``body`` with ``status``; or SSE ``chunks`` (``cut``: stop without an end);
    ``delay`` seconds first."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[Any] | None = None
    cut: bool = False
    delay: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    port: int = 0  # the client's port: the same on a reused connection


@dataclass
class FakeModel:
    """The running server: its base URL, the answers still to give, the requests it saw."""

    url: str
    answers: list[Answer]
    seen: list[Seen]
    models: list[str] = field(default_factory=lambda: ["m"])  # what GET /v1/models lists


def completion(text: str, prompt_tokens: int = 12, completion_tokens: int = 5, model: str = "m") -> Answer:
    """A chat completion in OpenAI's documented shape, with its usage."""
    return Answer(
        body={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1764580000,
            "model": model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def error(status: int, message: str, kind: str = "invalid_request_error", **headers: str) -> Answer:
    """An error in the OpenAI/DeepSeek shape: ``{"error": {"message", "type", "param", "code"}}``."""
    body = {"error": {"message": message, "type": kind, "param": None, "code": kind}}
    return Answer(status=status, body=body, headers=dict(headers))


def stream_of(parts: list[str], usage: bool = True, cut_after: int | None = None) -> Answer:
    """A streamed chat completion: a role chunk, one chunk per part, the finish chunk (and usage); with
    ``cut_after`` only that many parts are sent and the connection is dropped mid-body."""

    def chunk(delta: dict[str, str], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1764580000,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    chunks: list[Any] = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": p}) for p in parts]
    if cut_after is not None:
        return Answer(chunks=chunks[: cut_after + 1], cut=True)
    chunks.append(chunk({}, "stop"))
    if usage:
        chunks.append(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "model": "m",
                "choices": [],
                "usage": {
                    "prompt_tokens": 20,
                    "completion_tokens": len(parts),
                    "total_tokens": 20 + len(parts),
                },
            }
        )
    chunks.append("[DONE]")
    return Answer(chunks=chunks)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    model: FakeModel

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        """``GET /v1/models``: the models, in OpenAI's documented list shape; anything else a 404."""
        model = self.server.model  # type: ignore[attr-defined]
        model.seen.append(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, None))
        if self.path.rstrip("/") == "/v1/models":
            listed = [
                {"id": m, "object": "model", "created": 1764580000, "owned_by": "me"} for m in model.models
            ]
            status, body = 200, {"object": "list", "data": listed}
        else:
            status, body = 404, {"error": {"message": "not found", "type": "not_found"}}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        model = self.server.model  # type: ignore[attr-defined]
        headers = {k.lower(): v for k, v in self.headers.items()}
        model.seen.append(Seen(self.path, headers, json.loads(raw), self.client_address[1]))
        answer = model.answers.pop(0) if model.answers else error(500, "no answer scripted", "server_error")
        if answer.delay:
            time.sleep(answer.delay)
        if answer.chunks is None:
            data = json.dumps(answer.body).encode()
            self.send_response(answer.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in answer.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for c in answer.chunks:
            payload = c if isinstance(c, str) else json.dumps(c, ensure_ascii=False)
            event = f"data: {payload}\n\n".encode()
            self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            self.wfile.flush()
        if answer.cut:
            self.close_connection = True
            return  # no terminating chunk: the body is cut
        self.wfile.write(b"0\r\n\r\n")


@contextmanager
def fake_model(answers: list[Answer], models: list[str] | None = None) -> Iterator[FakeModel]:
    """The server on a free port of 127.0.0.1 for the block, answering ``answers`` in order (and listing
    ``models``, else one named "m", at ``GET /v1/models``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    model = FakeModel(f"http://127.0.0.1:{server.server_address[1]}/v1", list(answers), [], models or ["m"])
    server.model = model  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
