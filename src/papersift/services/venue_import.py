"""Importing venues' accept lists: each file read as a stream (``sources/paperlists.py``), its records
linked and stored (``Store.import_venue``), and what it did counted: records read, linked to an arXiv
paper, kept as venue papers, skipped with their reasons.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from papersift.records.venues import VenueRecord
from papersift.sources.paperlists import Skipped, read_paperlist, source_of
from papersift.store import Store
from papersift.store.venue_rows import VenueCounts


@dataclass(slots=True)
class VenueImport:
    """What importing one file did."""

    file: str
    venue: str
    year: int
    counts: VenueCounts
    skipped: list[Skipped] = field(default_factory=list)
    seconds: float = 0.0


def import_file(store: Store, path: Path, venue: str | None = None, year: int | None = None) -> VenueImport:
    """Import one accept list (``PaperlistError`` when the file or its venue cannot be read at all: then
    nothing of it is stored)."""
    started = time.perf_counter()
    source = source_of(path, venue, year)
    records: list[VenueRecord] = []
    skipped: list[Skipped] = []
    for item in read_paperlist(path, source):
        if isinstance(item, Skipped):
            skipped.append(item)
        else:
            records.append(item)
    counts = store.import_venue(source.venue, source.year, records, path.name)
    return VenueImport(path.name, source.venue, source.year, counts, skipped, time.perf_counter() - started)
