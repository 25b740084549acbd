"""The store's table groups in one base, the logic of each concern written once and shared by both
backends (``sqlite.py`` and ``postgres.py`` add only their connection, migrations and dialect)."""

from __future__ import annotations

from papersift.store.account_rows import AccountTables
from papersift.store.fulltext_rows import FullTextTables
from papersift.store.library_rows import LibraryTables
from papersift.store.llm_usage import ModelTables
from papersift.store.paper_rows import PaperTables
from papersift.store.readings import ReadingTables
from papersift.store.seen import SeenTables
from papersift.store.signals import LabSignals
from papersift.store.vectors import VectorTables


class StoreTables(
    PaperTables,
    VectorTables,
    AccountTables,
    LibraryTables,
    LabSignals,
    ModelTables,
    ReadingTables,
    FullTextTables,
    SeenTables,
):
    """Papers, vectors, accounts, library, signals, model usage, readings, full texts, seen papers and keyword
    search."""
