"""The ``Store`` protocol: what every face and ranker may ask of the store, one protocol per concern
(``PaperStore``, ``VectorStore``, ``AccountStore``, ``LibraryStore``, ``ReadingStore``, ``ModelStore``,
``FullTextStore``, ``SeenStore``, ``VenueStore``, ``ListingDayStore``) and ``Store``, all of them together.

Declarations only: the SQL behind each concern is written once for both backends (``paper_rows``,
``vectors``, ``account_rows``, ``library_rows``, …); ``papersift.store`` is the package's face, and
``open_store`` there gives the configured backend.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Protocol, Unpack

import numpy as np

from papersift.records.paper import Paper, Parsed
from papersift.records.venues import VenueRecord
from papersift.sources.fulltext import CodeLink, FullText, Reference
from papersift.store.fulltext_rows import CitationCount, Citing, FullTextInfo, PaperLinks
from papersift.store.llm_usage import ModelFailure, ModelUsage
from papersift.store.records import (
    Account,
    AccountChanges,
    Digest,
    DigestText,
    EntryChanges,
    FetchedDay,
    Interests,
    LibraryEntry,
    Reading,
    ReadingKey,
    Seen,
)
from papersift.store.signals import Signal

if TYPE_CHECKING:  # the package's face imports this module: its records are imported back for types only
    from papersift.store import Filters, IngestCounts, ListingEntry, VectorBatch
    from papersift.store.venue_rows import VenueCounts, VenueEntry, VenueMark, VenueSummary


class PaperStore(Protocol):
    """Papers and listings: ingest, harvest state, papers by id or rowid, listings, keyword search."""

    def upsert(self, items: Iterable[Parsed], *, state: Mapping[str, str] | None = None) -> IngestCounts:
        """Store papers (newest version wins, earliest announcement kept) in one transaction.

        ``state`` (e.g. a harvest checkpoint) is written in the same transaction, so a killed run
        never records progress for papers it did not store.
        """
        ...

    def get(self, paper_id: str) -> Paper | None: ...

    def get_many(self, paper_ids: list[str]) -> list[Paper]: ...

    def count(self) -> int: ...

    def data_version(self) -> int:
        """A number that changes whenever the stored data does (from any connection or process)."""
        ...

    def get_state(self, key: str) -> str | None: ...

    def set_state(self, key: str, value: str) -> None: ...

    def listing(self, category: str, day: date) -> list[ListingEntry]:
        """The papers announced in ``category`` on ``day``: new, then cross-lists, then replacements."""
        ...

    def announcement_days(self, category: str) -> list[date]:
        """Every day with a listing for ``category``, oldest first."""
        ...

    def latest_new_day(self, category: str) -> date | None:
        """The latest day ``category`` announced new submissions on (not only cross-lists or replacements)."""
        ...

    def listed_categories(self, day: date | None = None) -> list[tuple[str, int]]:
        """Every category with announcements, by id, and its number of announcement rows.

        In all, or on ``day`` only when given: then the rows ``listing`` shows (deleted papers left out),
        0 for a category with none that day.
        """
        ...

    def iter_papers(self, batch: int = 5000) -> Iterator[Paper]: ...

    def iter_rows(self, batch: int = 5000, after: int = 0) -> Iterator[tuple[int, Paper]]:
        """Every paper with its integer rowid (the key of vectors and indexes), in rowid order."""
        ...

    def rowid(self, paper_id: str) -> int | None: ...

    def by_rowids(self, rowids: Sequence[int]) -> dict[int, Paper]: ...

    def match(
        self,
        query: str,
        *,
        k: int = 10,
        offset: int = 0,
        filters: Filters = ...,
        any_terms: bool = False,
        common: Callable[[str], bool] | None = None,
    ) -> list[tuple[int, float]]:
        """Keyword (BM25) search over title, abstract and authors, as (rowid, BM25 score) pairs for rankers
        that fetch the papers later (``by_rowids``); user syntax is never an error.

        Words must all match, unless ``any_terms`` (then any may, and BM25 ranks by how many and how rare;
        words for which ``common`` is true are left out, see ``fts_query``).
        """
        ...

    def paper_ids_by_title(self, title: str) -> list[str]:
        """Stored papers whose title equals ``title`` up to case, spacing and punctuation."""
        ...

    def paper_id_by_doi(self, doi: str) -> str | None: ...

    def close(self) -> None: ...


class VectorStore(Protocol):
    """One dense vector per paper rowid, and the model that made them."""

    def vector_model(self) -> str | None:
        """The model that made the stored vectors (None before the first embedding)."""
        ...

    def reset_vectors(self, model: str) -> None:
        """Forget every vector and record ``model`` as the one the next vectors come from."""
        ...

    def vector_count(self) -> int: ...

    def missing_vectors(self, limit: int) -> list[tuple[int, str, str]]:
        """Up to ``limit`` papers with no vector yet, newest first: (rowid, title, abstract)."""
        ...

    def put_vectors(self, rowids: Sequence[int], vectors: np.ndarray) -> None: ...

    def iter_vectors(self, batch: int = 20_000, after: int = 0) -> Iterator[VectorBatch]: ...


class AccountStore(Protocol):
    """Readers (records in store/readers.py), sessions, login failures, interests; every call names its
    reader."""

    def add_account(
        self, name: str, password_hash: str | None, feed_token: str, email: str | None = None
    ) -> Account: ...

    def account(self, name: str) -> Account | None: ...

    def account_by_id(self, reader_id: int) -> Account | None: ...

    def account_by_token(self, feed_token: str) -> Account | None: ...

    def accounts(self) -> list[Account]: ...

    def update_account(self, reader_id: int, **changes: Unpack[AccountChanges]) -> None: ...

    def add_session(self, reader_id: int, token_hash: str, expires: datetime) -> None: ...

    def session_account(self, token_hash: str) -> Account | None: ...

    def drop_session(self, token_hash: str) -> None: ...

    def add_login_failure(self, name: str, address: str | None = None) -> None: ...

    def login_failures(
        self, since: datetime, *, name: str | None = None, address: str | None = None
    ) -> tuple[int, datetime | None]:
        """Wrong passwords since ``since`` for ``name`` (or from ``address``): how many, and the last one's
        time."""
        ...

    def prune_logins(self, failures_before: datetime) -> int:
        """Forget login failures older than ``failures_before`` and expired sessions; returns rows removed."""
        ...

    def interests(self, reader_id: int) -> Interests: ...

    def set_interests(self, reader_id: int, interests: Interests) -> None: ...

    def counted(self, reader_id: int) -> bool: ...

    def set_counted(self, reader_id: int, counted: bool) -> None: ...


class LibraryStore(Protocol):
    """Library entries and tags, queued digests, and the lab's counts over them."""

    def save_entries(self, reader_id: int, entries: Sequence[LibraryEntry]) -> int:
        """Add or update entries (tags add up; a rating or a note, when given, replaces); returns new ones."""
        ...

    def library_entry(self, reader_id: int, key: str) -> LibraryEntry | None: ...

    def library(self, reader_id: int, tag: str | None = None) -> list[LibraryEntry]:
        """A reader's entries, newest first (only those tagged ``tag`` when given)."""
        ...

    def update_entry(self, reader_id: int, key: str, **changes: Unpack[EntryChanges]) -> bool:
        """Change one entry; False when the reader has no such entry."""
        ...

    def remove_entry(self, reader_id: int, key: str) -> bool: ...

    def tags(self, reader_id: int) -> list[tuple[str, int]]: ...

    def queue_digest(self, reader_id: int, day: date, channel: str, made: DigestText) -> Digest:
        """Keep a digest until sent; one per (reader, day, channel), later calls return the kept one."""
        ...

    def unsent_digests(self, channel: str) -> list[Digest]: ...

    def mark_digest(self, digest_id: int, *, sent: bool, error: str | None = None) -> None: ...

    def digests(self, reader_id: int, limit: int = 30) -> list[Digest]: ...

    # -- lab signals (store/signals.py): counts over readers who did not opt out ----------------
    def lab_signals(self, paper_ids: Sequence[str]) -> dict[str, Signal]:
        """How many counted readers saved / +1'd each of the papers (papers with none left out)."""
        ...

    def trending(self, since: datetime, limit: int = 20) -> list[Signal]:
        """Papers saved or +1'd since ``since``: most signals first, ties by the latest signal."""
        ...


class ReadingStore(Protocol):
    """Generated texts (TL;DRs, translations, FAQs) and their failures, made once per key
    (``store/readings.py``)."""

    def claim_reading(self, key: ReadingKey, *, stale_before: datetime, retry_failed: bool = False) -> bool:
        """Whether the caller is now the one to make ``key``'s text (False: made, failed or being made)."""
        ...

    def finish_reading(self, key: ReadingKey, text: str | None, error: str | None = None) -> None: ...

    def release_reading(self, key: ReadingKey) -> None: ...

    def reading(self, key: ReadingKey) -> Reading | None: ...

    def readings_of(self, paper_ids: Sequence[str], lang: str, kinds: Sequence[str]) -> list[Reading]:
        """The finished texts (made or failed) of these papers in ``lang`` and ``kinds``, newest first."""
        ...

    def failed_readings(self, limit: int = 100) -> list[Reading]: ...

    def readings_version(self) -> str: ...


class ModelStore(Protocol):
    """The language model's token usage per (UTC day, model) and its failed calls (store/llm_usage.py)."""

    def add_llm_usage(self, day: date, model: str, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one answered call of ``model`` on ``day`` and its tokens."""
        ...

    def llm_usage(self, since: date, until: date | None = None) -> list[ModelUsage]:
        """Usage per (day, model) from ``since`` to ``until`` (default: ``since`` alone), by day, model."""
        ...

    def add_llm_failure(self, model: str, reason: str, at: datetime | None = None) -> None:
        """Record a failed call (``at`` defaults to now); failures older than 30 days are forgotten."""
        ...

    def llm_failures(self, limit: int = 20, since: datetime | None = None) -> list[ModelFailure]:
        """The latest failures (since ``since`` when given), newest first."""
        ...


class FullTextStore(Protocol):
    """Papers' full text per version, their references as edges, code links, citation counts
    (``store/fulltext_rows.py``)."""

    def put_fulltext(self, paper_id: str, version: int, text: FullText) -> FullTextInfo:
        """Store what was read from ``version`` (one transaction); its references and code links replace
        an older version's."""
        ...

    def put_fulltext_failure(self, paper_id: str, version: int, error: str) -> None: ...

    def set_resolved(self, edges: Sequence[tuple[str, int, str | None]]) -> int:
        """(citing paper, position, the store paper named or None) for stored references."""
        ...

    def put_citation_counts(self, counts: Sequence[CitationCount]) -> None: ...

    def fulltext_states(self, paper_ids: Sequence[str]) -> dict[tuple[str, int], str]:
        """Every stored (paper, version) and its state: 'done' or 'failed'."""
        ...

    def fulltext_info(self, paper_ids: Sequence[str]) -> dict[str, FullTextInfo]: ...

    def fulltext(self, paper_id: str) -> FullText | None:
        """The newest stored full text, its references resolved; None without one."""
        ...

    def references(self, paper_id: str) -> list[Reference]: ...

    def cited_by(self, paper_id: str) -> list[Citing]: ...

    def code_links(self, paper_id: str) -> list[CodeLink]: ...

    def citation_counts(self, paper_ids: Sequence[str]) -> dict[str, CitationCount]: ...

    def unresolved_references(
        self, limit: int = 10_000, after: tuple[str, int] = ("", 0)
    ) -> list[tuple[str, int, Reference]]: ...

    def paper_links(self, paper_ids: Sequence[str]) -> dict[str, PaperLinks]:
        """Full-text summary, references, citing papers, code and count of each paper with any."""
        ...


class SeenStore(Protocol):
    """What each reader has seen (pushed, mailed, opened, read: never ranked for them again) and their own
    settings by name (store/seen.py)."""

    def mark_seen(self, reader_id: int, paper_ids: Sequence[str], how: str, day: date | None = None) -> int:
        """Record that the reader saw these papers ``how`` (first time kept); returns the new marks."""
        ...

    def unmark_seen(self, reader_id: int, paper_ids: Sequence[str], how: str) -> int: ...

    def seen(self, reader_id: int, paper_ids: Sequence[str] | None = None) -> dict[str, list[Seen]]:
        """paper id → the ways the reader saw it (all their papers, or these)."""
        ...

    def reader_setting(self, reader_id: int, name: str) -> str | None: ...

    def set_reader_setting(self, reader_id: int, name: str, value: str | None) -> None: ...


class VenueStore(Protocol):
    """Venues' accept lists: importing one (records linked to their arXiv papers, the others venue papers),
    a paper's venues, a venue's records and counts (``store/venue_rows.py``)."""

    def import_venue(self, venue: str, year: int, records: Sequence[VenueRecord], file: str) -> VenueCounts:
        """Store one venue's list of one year as it is now (a re-import of the same list changes nothing;
        records no longer listed are removed)."""
        ...

    def venues_of(self, paper_ids: Sequence[str]) -> dict[str, list[VenueMark]]:
        """The venues of these papers (one query), newest year first; papers in none left out."""
        ...

    def venue_entries(self, venue: str, year: int, status: str | None = None) -> list[VenueEntry]:
        """A venue's records of ``year`` in its list's order (``status``: only those, any case)."""
        ...

    def venue_entries_since(self, when: datetime) -> list[VenueEntry]:
        """Records first imported after ``when``."""
        ...

    def venue_statuses(self, venue: str, year: int) -> list[tuple[str, int]]:
        """A venue's counts by status in ``year``, most first."""
        ...

    def venue_list(self) -> list[VenueSummary]:
        """Every venue's list of each year with its counts."""
        ...

    def venue_papers(self, venue: str, year: int | None = None) -> list[str]:
        """The store papers of a venue's records (every year when ``year`` is None)."""
        ...


class ListingDayStore(Protocol):
    """Which listing days were fetched, from which source, and which days arXiv announced nothing (an
    empty feed) (store/listing_days.py)."""

    def record_fetched(self, days: Iterable[FetchedDay]) -> int:
        """Keep each fetched day (the same category, day and source again: its count and time replaced)."""
        ...

    def fetched_days(self, day: date, categories: Sequence[str] | None = None) -> list[FetchedDay]:
        """The fetches of ``day``'s listing of any of ``categories`` (None: of every category)."""
        ...


class Store(
    VenueStore,
    PaperStore,
    VectorStore,
    AccountStore,
    LibraryStore,
    ModelStore,
    ReadingStore,
    FullTextStore,
    SeenStore,
    ListingDayStore,
    Protocol,
):
    """The persistence interface every face and ranker uses: every concern's protocol."""

    def limit_queries(self, seconds: float) -> None:
        """From now on this connection's queries end with ``StoreBusy`` past ``seconds``: SQLite's once
        ``seconds`` have passed since this call (a request's clock, started again by each call),
        PostgreSQL's each statement past ``seconds`` (``statement_timeout``)."""
        ...
