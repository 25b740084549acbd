"""Zotero as a reader's library: ``papersift library sync zotero`` (and the sync before ``daily`` / ``digest``
when ``PAPERSIFT_ZOTERO_USER`` or ``_GROUPS`` is set) keeps the reader's library in step with their Zotero
libraries through the Zotero Web API v3 at ``PAPERSIFT_ZOTERO_URL``.

Incremental: each library's ``Last-Modified-Version`` is kept in the store's state
(``zotero:<reader>:<library>``, with the collections chosen); the next sync asks ``/items?since=V`` (a ``304``
when nothing changed) and ``/deleted?since=V``. Paged (``limit=100``, the ``Link: rel="next"`` the API sends,
followed only on the same host so the key never leaves it); a ``Backoff`` header delays the next request, a
``429`` / ``503`` waits its ``Retry-After``. The key (``PAPERSIFT_ZOTERO_KEY``) travels only in the
``Zotero-API-Key`` header: never in a URL, a message, the state or the home.

The chosen collections (and those below them) count as interests: their items become library entries (all
items when none is chosen); items in a "not for me" collection are entries rated -1 (negatives). An item is
linked to an arXiv paper by arXiv id (``archiveID``, ``extra``, URL, ``10.48550/arXiv.*`` DOI), then DOI, then
title; an arXiv id not in the store is fetched from arXiv's API (``harvest.fetch_ids``) when online, else the
item is kept with its own title and abstract (and linked by a later sync). An entry's ``source`` is
``zotero:<library>/<item key>``: it names the item that owns it, so a deleted, trashed or no longer chosen
item takes its entry out of the library, and a changed one replaces it (keeping the reader's note, read mark,
+1 and the day it was added). Entries the reader saved themselves are never removed by a sync.

Why httpx and not pyzotero: pyzotero 1.16.0 can be pointed at another base URL (its ``Zotero.endpoint``, read
on every request), but it requires ``bibtexparser<2`` while papersift pins bibtexparser 2.1.0 (BibTeX import
and export): pip cannot install both. The API's protocol (versions, paging, back-off) is small; httpx speaks
it in ``zotero_api.py``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from papersift.library.saved import entry_from_paper, entry_from_reference, link
from papersift.library.zotero_api import ZoteroClient, ZoteroError
from papersift.records.messages import Arg, Message, say
from papersift.records.paper import Paper, is_arxiv_id
from papersift.services.harvest import ArxivClient, HarvestError, fetch_ids
from papersift.settings import Settings
from papersift.sources.zotero import (
    ZoteroCollection,
    ZoteroFormatError,
    ZoteroItem,
    header_int,
    parse_collections,
    parse_deleted,
    parse_items,
    within,
)
from papersift.store import Store
from papersift.store.records import Account, LibraryEntry

MAX_RESTARTS = 3  # a library that changes while it is paged is read again from the start, this often
SOURCE = "zotero:"


@dataclass(frozen=True, slots=True)
class ZoteroLibrary:
    """A Zotero library: ``users/<id>`` or ``groups/<id>``."""

    kind: str
    id: int

    @property
    def prefix(self) -> str:
        return f"{self.kind}/{self.id}"


def libraries(user: int | None, groups: Sequence[int] = ()) -> list[ZoteroLibrary]:
    """The user's library (when given) and each group's."""
    found = [ZoteroLibrary("users", user)] if user else []
    return found + [ZoteroLibrary("groups", g) for g in dict.fromkeys(groups)]


def configured(settings: Settings) -> bool:
    """Is a Zotero library set (``PAPERSIFT_ZOTERO_USER`` or ``_GROUPS``): sync before daily / digest?"""
    return bool(settings.zotero_user or settings.zotero_groups)


@dataclass(slots=True)
class LibraryReport:
    """What one library's sync did: the versions, items read (changed since), linked to arXiv papers (of them
    fetched from arXiv now), kept with their own text, not for me, removed, outside the chosen collections;
    and the reader's entries from this library afterwards (``entries``, ``linked``)."""

    library: str
    since: int = 0
    version: int = 0
    items: int = 0
    matched: int = 0
    fetched: int = 0
    kept: int = 0
    not_for_me: int = 0
    removed: int = 0
    outside: int = 0
    untitled: int = 0
    entries: int = 0
    linked: int = 0


@dataclass(slots=True)
class SyncReport:
    """One ``library sync zotero`` run: when, how long, the requests made, whether arXiv answered, and each
    library's ``LibraryReport``."""

    at: str
    seconds: float = 0.0
    requests: int = 0
    collections: list[str] = field(default_factory=list)
    not_for_me: list[str] = field(default_factory=list)
    arxiv: str = "not needed"  # not needed | asked | offline: … | off
    libraries: list[LibraryReport] = field(default_factory=list)

    def total(self, name: str) -> int:
        return sum(int(getattr(r, name)) for r in self.libraries)

    def as_json(self) -> dict[str, Any]:
        """The sync's one JSON shape (CLI ``--format json``, ``library status``, ``/api/library``)."""
        out = asdict(self)
        names = (
            "items",
            "matched",
            "fetched",
            "kept",
            "not_for_me",
            "removed",
            "outside",
            "entries",
            "linked",
        )
        out["totals"] = {n: self.total(n) for n in names}
        return out

    def line(self) -> Message:
        """The sync in one line, a message (the CLI says it in the reader's language)."""
        names = ("items", "matched", "fetched", "kept", "removed", "entries", "linked")
        totals: dict[str, Arg] = {n: self.total(n) for n in names}
        return say("zotero_synced", **totals, requests=self.requests, seconds=f"{self.seconds:.2f}")


def report_key(reader: Account) -> str:
    return f"zotero:{reader.id}"


def last_sync(store: Store, reader: Account) -> dict[str, Any] | None:
    """The reader's last sync report as JSON (``SyncReport.as_json``), None before the first."""
    raw = store.get_state(report_key(reader))
    return json.loads(raw) if raw else None


def previous_choice(store: Store, reader: Account) -> tuple[list[ZoteroLibrary], list[str], list[str]] | None:
    """The libraries, collections and "not for me" collections of the reader's last sync, None before one."""
    last = last_sync(store, reader)
    if not last:
        return None
    libs = []
    for r in last["libraries"]:
        kind, _, number = str(r["library"]).partition("/")
        libs.append(ZoteroLibrary(kind, int(number)))
    return libs, list(last["collections"]), list(last["not_for_me"])


def _state_key(reader: Account, lib: ZoteroLibrary) -> str:
    return f"zotero:{reader.id}:{lib.prefix}"


def owner(entry: LibraryEntry) -> tuple[str, str] | None:
    """(library, item key) of the Zotero item that owns an entry, None for any other entry."""
    if not entry.source.startswith(SOURCE):
        return None
    library, _, item = entry.source.removeprefix(SOURCE).rpartition("/")
    return (library, item) if library and item else None


class _Arxiv:
    """arXiv's API for ids not in the store, asked once per sync (offline: never again in it)."""

    def __init__(self, settings: Settings, enabled: bool, report: SyncReport) -> None:
        self.settings, self.enabled, self.report = settings, enabled, report
        if not enabled:
            report.arxiv = "off"

    def fetch(self, store: Store, ids: Sequence[str]) -> set[str]:
        """Store the papers of ``ids`` arXiv knows; returns the ids stored."""
        if not ids or not self.enabled or self.report.arxiv.startswith(("offline", "failed")):
            return set()
        try:
            with ArxivClient(self.settings) as client:
                found = [p for p in fetch_ids(client, list(ids)) if isinstance(p, Paper)]
        except HarvestError as e:
            self.report.arxiv = str(e) if str(e).startswith("offline") else f"failed: {e}"
            return set()
        self.report.arxiv = "asked"
        if found:
            store.upsert(found)
        return {p.id for p in found}


def _collections(client: ZoteroClient, lib: ZoteroLibrary) -> list[ZoteroCollection]:
    found: list[ZoteroCollection] = []
    for page in client.pages(f"/{lib.prefix}/collections", {"format": "json"}):
        found += parse_collections(page.content)
    return found


def _keys(names: Sequence[str], collections: Sequence[ZoteroCollection]) -> set[str]:
    wanted = {n.casefold() for n in names}
    return within([c.key for c in collections if c.name.casefold() in wanted], collections)


def _changed(client: ZoteroClient, lib: ZoteroLibrary, since: int) -> tuple[list[ZoteroItem], int]:
    """The top-level items changed since ``since`` (trashed ones too) and the library's version."""
    params: dict[str, str | int] = {"format": "json", "includeTrashed": 1, "since": since}
    headers = {"If-Modified-Since-Version": str(since)} if since else None
    for _ in range(MAX_RESTARTS):
        items: list[ZoteroItem] = []
        version: int | None = None
        moved = False
        for page in client.pages(f"/{lib.prefix}/items/top", params, headers):
            if page.status_code == 304:
                return [], since
            now = header_int(page.headers, "Last-Modified-Version")
            if version is not None and now != version:
                moved = True  # the library changed while it was paged: read it again
                break
            version = now
            items += parse_items(page.content)
        if not moved:
            return items, version if version is not None else since
    raise ZoteroError(say("zotero_changing", library=lib.prefix))


def _entry(
    item: ZoteroItem,
    paper: Paper | None,
    source: str,
    rating: int,
    tags: tuple[str, ...],
    old: LibraryEntry | None,
) -> LibraryEntry:
    ref = item.reference
    carried: dict[str, Any] = {"note": old.note, "read": old.read, "added": old.added} if old else {}
    if old and old.rating == 1 and rating == 0:
        rating = 1  # the reader's +1 outlives a change in Zotero
    if paper is not None:
        return entry_from_paper(paper, tags=tags, source=source, rating=rating, **carried)
    url = ref.url or (f"https://arxiv.org/abs/{ref.arxiv_id}" if ref.arxiv_id else None)
    return entry_from_reference(ref, url=url, tags=tags, rating=rating, source=source, **carried)


def sync_library(
    client: ZoteroClient,
    store: Store,
    reader: Account,
    lib: ZoteroLibrary,
    collections: Sequence[ZoteroCollection],
    *,
    chosen: Sequence[str],
    not_for_me: Sequence[str],
    arxiv: _Arxiv,
    full: bool = False,
) -> LibraryReport:
    """Bring one Zotero library's items into the reader's library (see the module's docstring)."""
    key = _state_key(reader, lib)
    saved: dict[str, Any] = json.loads(store.get_state(key) or "{}")
    choice = {
        "collections": sorted(n.casefold() for n in chosen),
        "not_for_me": sorted(n.casefold() for n in not_for_me),
    }
    since = int(saved.get("version", 0)) if not full and saved.get("choice") == choice else 0
    report = LibraryReport(lib.prefix, since=since)
    wanted = _keys(chosen, collections) if chosen else None
    negative = _keys(not_for_me, collections)
    names = {c.key: c.name for c in collections}

    items, version = _changed(client, lib, since)
    changed = since and version != since  # a 304 (nothing changed) asks nothing more
    deleted = parse_deleted(client.get(f"/{lib.prefix}/deleted", {"since": since}).content) if changed else ()
    report.items, report.version = len(items), version

    owned = {o[1]: e for e in store.library(reader.id) if (o := owner(e)) and o[0] == lib.prefix}
    gone: set[str] = set(deleted)
    keep: list[tuple[ZoteroItem, int, tuple[str, ...]]] = []
    for item in items:
        inside = set(item.collections)
        if item.trashed:
            gone.add(item.key)
        elif inside & negative:
            keep.append((item, -1, tuple(names[c] for c in item.collections if c in negative)))
        elif wanted is None or inside & wanted:
            shown = [names[c] for c in item.collections if c in names and (wanted is None or c in wanted)]
            keep.append((item, 0, tuple(shown)))
        else:
            report.outside += 1
            gone.add(item.key)
    if since == 0:  # a full read: an owned entry whose item was not listed was deleted in Zotero
        gone |= set(owned) - {i.key for i in items}

    # link: the store first, then arXiv for the ids it lacks (and for earlier items kept while offline)
    papers = {i.key: link(store, i.reference) for i, _, _ in keep}
    missing = [i.reference.arxiv_id for i, _, _ in keep if papers[i.key] is None and i.reference.arxiv_id]
    pending = [e for e in owned.values() if e.paper_id is None and is_arxiv_id(e.key) and owner(e)]
    fetched = arxiv.fetch(store, list(dict.fromkeys([*missing, *(e.key for e in pending)])))
    for i, _, _ in keep:
        if papers[i.key] is None and i.reference.arxiv_id in fetched:
            papers[i.key] = store.get(i.reference.arxiv_id or "")
            report.fetched += 1

    entries: list[LibraryEntry] = []
    for item, rating, names_in in keep:
        paper = papers[item.key]
        if paper is None and not item.reference.title:
            report.untitled += 1
            continue
        tags = tuple(dict.fromkeys([*item.reference.tags, *names_in]))
        old = owned.get(item.key)
        new = _entry(item, paper, f"{SOURCE}{lib.prefix}/{item.key}", rating, tags, old)
        if old is not None:
            store.remove_entry(reader.id, old.key)  # replaced: the item changed in Zotero
        entries.append(new)
        report.matched += paper is not None
        report.kept += paper is None
        report.not_for_me += rating < 0
    listed = {i.key for i, _, _ in keep}
    for e in pending:  # kept while arXiv was out of reach, unchanged since: linked now
        if e.key in fetched and (o := owner(e)) and o[1] not in gone and o[1] not in listed:
            entries.append(replace(e, paper_id=e.key))  # the upsert sets paper_id, keeps the rest
            report.fetched += 1
    for start in range(0, len(entries), 500):
        store.save_entries(reader.id, entries[start : start + 500])
    for item_key in gone:
        if item_key in owned and store.remove_entry(reader.id, owned[item_key].key):
            report.removed += 1

    mine = [e for e in store.library(reader.id) if (o := owner(e)) and o[0] == lib.prefix]
    report.entries, report.linked = len(mine), sum(e.paper_id is not None for e in mine)
    store.set_state(key, json.dumps({"version": version, "choice": choice}))
    return report


def sync_zotero(
    store: Store,
    settings: Settings,
    reader: Account,
    libs: Sequence[ZoteroLibrary],
    *,
    collections: Sequence[str] = (),
    not_for_me: Sequence[str] = (),
    full: bool = False,
    arxiv: bool = True,
    sleep: Callable[[float], None] = time.sleep,
    on_wait: Callable[[str], None] | None = None,
) -> SyncReport:
    """Sync the reader's library with each Zotero library in ``libs``; the report is kept in the store's state
    (``last_sync``). A collection name found in none of the libraries is an error before anything changes."""
    if not libs:
        raise ZoteroError(say("zotero_no_library"))
    started = time.monotonic()
    report = SyncReport(
        at=datetime.now(UTC).isoformat(timespec="seconds"),
        collections=list(collections),
        not_for_me=list(not_for_me),
    )
    fetcher = _Arxiv(settings, arxiv, report)
    with ZoteroClient(settings, sleep=sleep, on_wait=on_wait) as client:
        try:
            found = {lib: _collections(client, lib) for lib in libs}
            known = {c.name.casefold() for cs in found.values() for c in cs}
            unknown = [n for n in [*collections, *not_for_me] if n.casefold() not in known]
            if unknown:
                names = ", ".join(sorted({c.name for cs in found.values() for c in cs})) or say("none")
                raise ZoteroError(
                    say("zotero_no_collection", names=", ".join(map(repr, unknown)), known=names)
                )
            for lib in libs:
                report.libraries.append(
                    sync_library(
                        client,
                        store,
                        reader,
                        lib,
                        found[lib],
                        chosen=collections,
                        not_for_me=not_for_me,
                        arxiv=fetcher,
                        full=full,
                    )
                )
        except ZoteroFormatError as e:
            raise ZoteroError(say("zotero_not_json", problem=str(e))) from e
        report.requests = client.requests
    report.seconds = round(time.monotonic() - started, 3)
    store.set_state(report_key(reader), json.dumps(report.as_json()))
    return report


def sync_configured(store: Store, settings: Settings, reader: Account) -> SyncReport | None:
    """The sync the settings ask for (``PAPERSIFT_ZOTERO_*``), before ``daily`` / ``digest``; None: none."""
    if not configured(settings):
        return None
    return sync_zotero(
        store,
        settings,
        reader,
        libraries(settings.zotero_user, settings.zotero_groups),
        collections=settings.zotero_collections,
        not_for_me=settings.zotero_not_for_me,
    )
