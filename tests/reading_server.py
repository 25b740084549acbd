"""A real local HTTP server answering OpenAI chat completions (``POST …/v1/chat/completions``), plain and
streamed as server-sent events, for the tests of the reading layer; on 127.0.0.1, a free port.

The base URL's first path segment picks the behaviour: ``/ok/v1`` answers by the kind of prompt (a TL;DR,
a translation keeping the source's math and about as long, a FAQ, an answer with a mark per paper given,
recognised by the system message), each passing the checks of ``reading/checks.py``; ``/bad/v1`` answers
each kind as a newcomer's local model did (issue 37: English with the prompt's tags for a 中文 title, an
English TL;DR for a 中文 one, a four-sentence TL;DR cut mid-word, 中文 mixing English, a FAQ leaking a tag
and HTML, an answer with no marks), every time; ``/fail/v1`` answers 429
with ``Retry-After: 0`` every time (the client's retries give up), ``/slow/v1`` waits ``delay`` seconds
before answering. Every completion request is counted per paper (``calls``: the last line of the user
message, the paper block's abstract) so a test can tell a text was made once.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType

from tests.support.data import spread_records, write_jsonl
from tests.support.inproc import invoke
from tests.support.processes import free_port

EVIL_ANSWER = "<script>alert('model')</script>"


def _math(user: str) -> str:
    return " ".join(re.findall(r"\$[^$]+\$", user))


def answer(system: str, user: str) -> str:
    """What the fake model writes for a prompt: texts that pass their checks (the faces escape them all
    the same)."""
    zh = "Simplified Chinese" in system
    if "TL;DR" in system:
        return "TL;DR: " + (
            "本文提出一种方法并显著提升结果。" if zh else "The paper proposes a method and improves results."
        )
    if "translate the title" in system:
        return f"一个关于 $x<y$ 的 Transformer 标题 {_math(user)}".strip()
    if "translate the abstract" in system:
        words = len(re.findall(r"[A-Za-z0-9]+", re.sub(r"\$[^$]+\$|</?paper>", " ", user)))
        sentence = "这是译文中的一句话。"  # 9 characters: about two a source word in all
        return "摘要的译文，保留 $\\alpha$ 与 LoRA。" + sentence * max(1, 2 * words // 9) + _math(user)
    if "as a FAQ" in system:
        if zh:
            return (
                "## 这篇论文试图解决什么问题？\n- 一个**困难**的问题，复杂度为 $O(n^2)$。\n\n"
                "## 总结\n方法有效。\n"
            )
        return (
            "## What problem does the paper address?\n- A hard **problem** in $O(n^2)$ time.\n\n"
            "## Summary\nIt works.\n"
        )
    if "name the topics" in system:
        return json.dumps([f"model topic {n}" for n in range(1, user.count("<topic n=") + 1)])
    if "English search query" in system:
        return '"diffusion models for protein design"'
    if "question" in system:
        given = max(1, user.count("<paper id="))
        if zh:
            return "".join(f"第 {n} 篇论文提出了一种方法 [{n}]。" for n in range(1, given + 1))
        ordinal = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
        return " ".join(f"The {ordinal[n - 1]} paper proposes a method [{n}]." for n in range(1, given + 1))
    return "?"


def bad_answer(system: str, user: str) -> str:
    """What a newcomer's local model wrote for a prompt (issue 37): each fails its check."""
    zh = "Simplified Chinese" in system
    if "TL;DR" in system:
        if zh:
            return "The paper frames context acquisition for AI agents as active inference."
        return (
            "The method is a fine-tuning algorithm that uses multi-step gradient information. It adds a "
            "probe that needs no extra GPU memory. It allocates ranks by importance. Experiments show "
            "that it outperforms existing variants while p…"
        )
    if "translate the title" in system:
        return "<paper>AI Agent Context Acquisition: Active Inference</paper>"
    if "translate the abstract" in system:
        return (
            "交互式 AI 智能体必须尽可能高效地获取正确的上下文。When a user omits a constraint, preference, "
            "file, or task variable, 智能体可以沿用默认假设。"
        )
    if "as a FAQ" in system:
        return f"## What problem does the paper address?\n- A problem {EVIL_ANSWER}\n</abstract>\n"
    if "question" in system:
        return "The first paper proposes a method and the second reports results."
    return "?"


class LlmServer:
    """``with LlmServer() as llm:`` → ``llm.url("ok")`` is the base URL of a working endpoint."""

    def __init__(self, delay: float = 0.5) -> None:
        self.delay = delay
        self.calls: Counter[str] = Counter()
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                mode = self.path.strip("/").split("/")[0]
                messages = body["messages"]
                system, user = messages[0]["content"], messages[-1]["content"]
                with server.lock:
                    server.calls[mode] += 1
                    server.calls[system.split(".")[0][:60] + "|" + user[-80:]] += 1
                if mode == "fail":
                    self._send(429, b'{"error": {"message": "Rate limit reached"}}', {"Retry-After": "0"})
                    return
                if mode == "slow":
                    time.sleep(server.delay)
                text = (bad_answer if mode == "bad" else answer)(system, user)
                if body.get("stream"):
                    self._stream(text, body["model"])
                    return
                reply = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": len(user) // 4, "completion_tokens": len(text) // 4},
                }
                self._send(200, json.dumps(reply).encode())

            def _send(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, text: str, model: str) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for n in range(0, len(text), 12):
                    chunk = {
                        "model": model,
                        "choices": [{"index": 0, "delta": {"content": text[n : n + 12]}}],
                    }
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(0.01)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self.port = free_port()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def url(self, mode: str = "ok") -> str:
        return f"http://127.0.0.1:{self.port}/{mode}/v1"

    def __enter__(self) -> LlmServer:
        self.thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def one_day_home(home: Path, shared_data: Path, day: str, n: int, *more: dict[str, object]) -> Path:
    """``home`` with ``n`` real papers (and ``more``) announced in cs.LG on ``day``, ingested by the CLI."""
    records = [
        {**r, "announced": day, "categories": ["cs.LG"], "primary_category": "cs.LG"}
        for r in spread_records(shared_data, 1000)[:n]
    ]
    invoke("ingest", str(write_jsonl(home / "day.jsonl", [*records, *more])), home=home)
    return home


def llm_env(server: LlmServer, mode: str = "ok", model: str = "fake-7b") -> dict[str, str]:
    """The environment that points papersift at ``server`` answering as ``mode`` (two retries)."""
    return {"PAPERSIFT_LLM_URL": server.url(mode), "PAPERSIFT_LLM_RETRIES": "2", "PAPERSIFT_LLM_MODEL": model}
