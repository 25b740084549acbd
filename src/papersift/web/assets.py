"""Serving hygiene for the pages: fingerprinted static URLs, their cache headers, and compression.

``static_url`` names a file under ``/static`` with a hash of its content (``/static/app.js?v=3f2a…``), so
a fingerprinted response may be cached for a year and a changed file is fetched under its new URL. Pages
are never cached by a browser without asking again (they carry the reader's token and account links).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from papersift.web.security import HttpMiddleware

STATIC = Path(__file__).parent / "static"
YEAR = 365 * 86400


@lru_cache(maxsize=64)
def _fingerprint(path: Path, mtime: float) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=6).hexdigest()


def static_url(name: str, base: Path = STATIC, prefix: str = "/static") -> str:
    """``/static/NAME?v=HASH`` (the plain URL when the file is missing)."""
    path = base / name
    if not path.is_file():
        return f"{prefix}/{name}"
    return f"{prefix}/{name}?v={_fingerprint(path, path.stat().st_mtime)}"


class CacheHeaders(HttpMiddleware):
    """``Cache-Control`` on every response that has none: a year for fingerprinted static files, a day for
    other static files, ``no-cache`` (revalidate) for pages and JSON."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        fingerprinted = path.startswith("/static/") and b"v=" in scope.get("query_string", b"")
        if fingerprinted:
            policy = f"public, max-age={YEAR}, immutable"
        elif path.startswith("/static/"):
            policy = "public, max-age=86400"
        else:
            policy = "no-cache"

        async def send_with_cache(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if "cache-control" not in headers:
                    headers["Cache-Control"] = policy
            await send(message)

        await self.app(scope, receive, send_with_cache)
