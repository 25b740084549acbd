"""The store's table groups in one base, the logic of each concern written once and shared by both
backends (``sqlite.py`` and ``postgres.py`` add only their connection, migrations and dialect)."""

from __future__ import annotations

from papersift.store.account_rows import AccountTables
from papersift.store.fulltext_rows import FullTextTables
from papersift.store.library_rows import LibraryTables
from papersift.store.listing_days import ListingDayTables
from papersift.store.llm_usage import ModelTables
from papersift.store.paper_rows import PaperTables
from papersift.store.readings import ReadingTables
from papersift.store.seen import SeenTables
from papersift.store.signals import LabSignals
from papersift.store.vectors import VectorTables
from papersift.store.venue_rows import VenueTables


class StoreTables(
    VenueTables,  # first: it links the papers PaperTables writes (``_link_arrivals``)
    PaperTables,
    VectorTables,
    AccountTables,
    LibraryTables,
    LabSignals,
    ModelTables,
    ReadingTables,
    FullTextTables,
    SeenTables,
    ListingDayTables,
):
    """Papers, vectors, accounts, library, signals, model usage, readings, full texts, seen papers, venues'
    accept lists, the listing days fetched and keyword search."""
