"""Readers of arXiv's formats, and the one entry point that tells them apart: ``read_path``.

Each reader module is pure parsing: a byte stream in, ``Parsed`` items (Paper, Deleted, RecordError) out,
one record at a time. This module sniffs a file's format from its first bytes (gzip included), picks the
reader, and turns a truncated or corrupt file into a RecordError after the good records instead of a crash.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from papersift.records.messages import say
from papersift.records.paper import Parsed, RecordError

Reader = Callable[[IO[bytes], str], Iterator[Parsed]]
FORMATS = ("snapshot", "oai", "atom", "rss", "mailing", "listing", "abs")


class UnknownFormatError(ValueError):
    """A file none of the readers recognises."""


def detect(head: bytes, name: str = "") -> str:
    """The format of a file from its first few KB (already decompressed) and its name."""
    if name.endswith(".abs"):
        return "abs"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"{"):
        return "snapshot"
    lower = text[:4096].lower()
    if text.startswith(b"<"):
        if b"<oai-pmh" in lower:
            return "oai"
        if b"<rss" in lower or b"<rdf:rdf" in lower:
            return "rss"
        if b"<feed" in lower:
            api = b"opensearch" in lower or b"arxiv.org/api" in lower
            return "atom" if api else "rss"
    if b"papers received as of" in lower or b"subj-class mailing" in lower:
        return "listing"
    if b"\\\\\narxiv:" in lower or b"submissions to:" in lower or b"received from" in lower:
        return "mailing"
    if b"\npaper:" in b"\n" + lower:
        return "abs"
    raise UnknownFormatError(say("format_unknown"))


def reader(fmt: str) -> Reader:
    """The reader function for a format name, its module imported when first asked for (by name, so that
    mypy checks each against ``Reader`` and lint-imports sees each import)."""
    match fmt:
        case "snapshot":
            from papersift.sources.snapshot import iter_snapshot as found
        case "oai":
            from papersift.sources.oai import iter_oai as found
        case "atom":
            from papersift.sources.atom import iter_atom as found
        case "rss":
            from papersift.sources.rss import iter_feed as found
        case "mailing":
            from papersift.sources.mailing import iter_mailing as found
        case "abs":
            from papersift.sources.abs import iter_abs as found
        case "listing":
            from papersift.sources.abs import iter_listing_file as found
        case _:
            raise UnknownFormatError(say("format_not_one_of", name=repr(fmt), formats=", ".join(FORMATS)))
    return found


def open_bytes(path: Path) -> IO[bytes]:
    """A file's bytes, gunzipped when it starts with gzip's magic number (whatever its name)."""
    raw = path.open("rb")
    if raw.read(2) == b"\x1f\x8b":
        raw.seek(0)
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    raw.seek(0)
    return raw


def iter_files(path: Path) -> Iterator[Path]:
    """The files of ``path``: itself, or every file below a directory (older .abs versions skipped)."""
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.is_file() and "orig" not in p.relative_to(path).parts[:-1]:
                yield p
    else:
        yield path


def read_file(path: Path, fmt: str | None = None) -> Iterator[Parsed]:
    """Every record of one file, the format detected unless given; never raises on bad content."""
    source = path.name
    try:
        stream = open_bytes(path)
    except OSError as e:
        yield RecordError(str(path), "-", f"cannot open: {e.strerror or e}")
        return
    with stream:
        try:
            if fmt is None:
                fmt = detect(stream.peek(8192) if hasattr(stream, "peek") else b"", path.name)
            yield from reader(fmt)(stream, source)
        except (EOFError, zlib.error, gzip.BadGzipFile) as e:
            yield RecordError(source, "end of file", f"truncated or corrupt gzip ({e})")
        except UnknownFormatError as e:
            yield RecordError(source, "-", str(e))
        except UnicodeDecodeError as e:
            yield RecordError(source, "-", f"not UTF-8 text ({e.reason})")


def read_path(path: Path, fmt: str | None = None) -> Iterator[Parsed]:
    """Every record under ``path`` (a file or a directory of files)."""
    if not path.exists():
        yield RecordError(str(path), "-", "no such file or directory")
        return
    for file in iter_files(path):
        yield from read_file(file, fmt)
