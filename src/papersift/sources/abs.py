"""Reader for arXiv's ``.abs`` metadata files, and for arXiv's internal listing files.

An ``.abs`` file (``ftp/<archive>/papers/<yymm>/<id>.abs``) holds one paper: ``arXiv:0704.0001``
(or ``Paper: hep-th/9901001``), ``From:``, ``Date:`` (v1) and ``Date (revised vN):`` lines, the
fields, then the abstract between ``\\\\`` lines. The record grammar is the daily mailing's, so this
module reuses ``sources.mailing``'s record parser; ``orig/`` holds older versions that the current
file supersedes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import IO

from papersift.records.paper import Parsed, RecordError
from papersift.sources.mailing import (
    RawRecord,
    decode,
    iter_mailing,
    paper_from_record,
    split_records,
)


def iter_abs(stream: IO[bytes], source: str) -> Iterator[Parsed]:
    """The one paper of an ``.abs`` file (a RecordError for an empty, truncated or id-less file)."""
    try:
        text = decode(stream.read())
    except OSError as e:
        yield RecordError(source, "-", f"cannot read: {e}")
        return
    records = [r for r in split_records(text) if isinstance(r, RawRecord)]
    if not records:
        message = "empty file" if not text.strip() else "no '\\\\'-delimited record found"
        yield RecordError(source, "-", message)
        return
    record = records[0]
    if record.header_done and not record.closed:
        yield RecordError(source, record.locator, "abstract cut off: no closing '\\\\' line")
        return
    yield paper_from_record(record, source)
    for extra in records[1:]:
        yield RecordError(source, extra.locator, "unexpected second record in an .abs file")


def iter_abs_tree(root: Path) -> Iterator[Parsed]:
    """Every ``*.abs`` file below ``root`` in path order, skipping ``orig/`` (older versions)."""
    for path in sorted(root.rglob("*.abs")):
        if "orig" in path.relative_to(root).parts[:-1] or not path.is_file():
            continue
        try:
            with path.open("rb") as stream:
                yield from iter_abs(stream, str(path))
        except OSError as e:
            yield RecordError(str(path), "-", f"cannot open: {e.strerror or e}")


def iter_listing_file(stream: IO[bytes], source: str, categories: Collection[str] = ()) -> Iterator[Parsed]:
    """arXiv's internal listing files (``q-fin_new``, ``math_new.AG``, ``math_pastweek.AG``,
    monthly ``astro-ph_0001``): the daily ones are mailings; ``pastweek`` ones carry
    ``/* Fri, 3 Mar 2023 */`` day headings; monthly ones give no announcement date, so their papers
    carry no ``listings``."""
    return iter_mailing(stream, source, categories)
