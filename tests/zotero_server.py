"""A local Zotero Web API v3 on 127.0.0.1, serving the real recorded responses of ``../shared/data/zotero/``
(a public user library: 20 items, 15 collections) plus the items and collections a test adds, edits, trashes
or deletes, with the API's headers and rules as its documentation gives them:

* ``GET /{users|groups}/{id}/collections`` and ``…/items`` / ``…/items/top`` in ``format=json``, paged by
  ``start`` / ``limit`` (at most ``page_max`` a page), with ``Total-Results``, ``Last-Modified-Version`` (the
  library's version) and ``Link: <…>; rel="next"``;
* ``since=V``: only objects changed after version V; ``If-Modified-Since-Version: V`` answers ``304`` when the
  library has not changed since; trashed items only with ``includeTrashed=1``;
* ``GET …/deleted?since=V``: the keys of objects deleted after V;
* ``Zotero-API-Key``: when ``key`` is set, any other key (or none) is a ``403``;
* ``faults``: replies answered before the next request's own (a ``429`` with ``Retry-After``, a ``Backoff``
  header), as the API sends them under load.

Every request is recorded (path, query, headers, arrival time).
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import orjson

RECORDINGS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "zotero"
RECORDED_USER = 475425


@dataclass(frozen=True)
class Seen:
    """A request the server received."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    time: float


@dataclass
class Fault:
    """A reply sent instead of the real one (``status`` 200 sends the real body with ``headers`` added)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Library:
    """One library's objects and versions: items and collections (key -> JSON object), deleted keys."""

    version: int = 0
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    collections: dict[str, dict[str, Any]] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)  # item key -> version it was deleted at

    def _bump(self) -> int:
        self.version += 1
        return self.version

    def put_item(self, data: dict[str, Any]) -> None:
        """Add or replace an item (its ``data``; the envelope is made here), at a new library version."""
        version = self._bump()
        data = {**data, "version": version}
        self.items[data["key"]] = {"key": data["key"], "version": version, "meta": {}, "data": data}
        self.deleted.pop(data["key"], None)

    def edit_item(self, key: str, **changes: Any) -> None:
        self.put_item({**self.items[key]["data"], **changes})

    def put_collection(self, key: str, name: str, parent: str | None = None) -> None:
        version = self._bump()
        data = {"key": key, "version": version, "name": name, "parentCollection": parent or False}
        self.collections[key] = {"key": key, "version": version, "meta": {}, "data": data}

    def delete_item(self, key: str) -> None:
        del self.items[key]
        self.deleted[key] = self._bump()


def recorded_library() -> Library:
    """The recorded user library: its 20 items and 15 collections, as the API gave them (version 1)."""
    lib = Library()
    for obj in orjson.loads((RECORDINGS / "items_doc.json").read_bytes()):
        lib.items[obj["key"]] = obj
    for obj in orjson.loads((RECORDINGS / "collections_doc.json").read_bytes()):
        lib.collections[obj["key"]] = obj
    lib.version = max(o["version"] for o in [*lib.items.values(), *lib.collections.values()])
    return lib


class ZoteroServer:
    """The API on a free port of 127.0.0.1; use as a context manager. ``libraries``: ``users/ID`` or
    ``groups/ID`` -> ``Library`` (the recorded user library is ``users/475425``)."""

    def __init__(self, key: str | None = None, page_max: int = 100) -> None:
        self.key = key
        self.page_max = page_max
        self.libraries: dict[str, Library] = {f"users/{RECORDED_USER}": recorded_library()}
        self.faults: list[Fault] = []
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def user(self) -> Library:
        return self.libraries[f"users/{RECORDED_USER}"]

    def requests(self, part: str = "") -> list[Seen]:
        return [s for s in self.seen if part in s.path]

    def _answer(
        self, path: str, query: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        with self._lock:
            self.seen.append(Seen(path, query, headers, time.monotonic()))
            fault = self.faults.pop(0) if self.faults else None
            if fault is not None and fault.status != 200:
                return fault.status, fault.headers, b"slow down"
            if self.key is not None and headers.get("zotero-api-key") != self.key:
                return 403, {}, b"Forbidden"
            status, out, body = self._route(path, query, headers)
            return status, {**out, **(fault.headers if fault else {})}, body

    def _route(
        self, path: str, query: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        parts = path.strip("/").split("/")
        lib = self.libraries.get("/".join(parts[:2]))
        if lib is None or len(parts) < 3:
            return 404, {}, b"Not found"
        version = {"Last-Modified-Version": str(lib.version)}
        since = int(query.get("since", "0") or 0)
        asked = headers.get("if-modified-since-version")
        if asked is not None and int(asked) >= lib.version:
            return 304, version, b""
        what = "/".join(parts[2:])
        if what == "deleted":
            body = {"collections": [], "searches": [], "tags": [], "settings": []}
            body["items"] = [k for k, v in lib.deleted.items() if v > since]
            return 200, version, orjson.dumps(body)
        if what == "collections":
            objects = list(lib.collections.values())
        elif what in ("items", "items/top"):
            objects = list(lib.items.values())
            if what == "items/top":
                objects = [o for o in objects if not o["data"].get("parentItem")]
            if query.get("includeTrashed") != "1":
                objects = [o for o in objects if not o["data"].get("deleted")]
        else:
            return 404, {}, b"Not found"
        objects = [o for o in objects if o["version"] > since]
        start = int(query.get("start", "0") or 0)
        limit = min(int(query.get("limit", "25") or 25), self.page_max)
        page = objects[start : start + limit]
        out = {**version, "Total-Results": str(len(objects)), "Content-Type": "application/json"}
        if start + limit < len(objects):
            nxt = urlencode({**query, "start": start + limit, "limit": limit})
            out["Link"] = f'<{self.url}{path}?{nxt}>; rel="next"'
        return 200, out, orjson.dumps(copy.deepcopy(page))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out at once (no delayed-ACK stall a request)

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, out, body = server._answer(parts.path, query, headers)
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                for name, value in out.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return _Handler

    def __enter__(self) -> ZoteroServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
