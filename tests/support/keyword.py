"""The store's keyword search as the tests read it: the ids of ``Store.match``'s papers, best first."""

from __future__ import annotations

from datetime import date

from papersift.store import Filters, Store


def keyword_ids(
    store: Store,
    query: str,
    *,
    k: int = 10,
    offset: int = 0,
    category: str | None = None,
    since: date | None = None,
    author: str | None = None,
) -> list[str]:
    """The ids of the papers ``store.match`` finds for ``query`` (BM25 order)."""
    found = store.match(query, k=k, offset=offset, filters=Filters(category, since, None, author))
    papers = store.by_rowids([rowid for rowid, _ in found])
    return [papers[rowid].id for rowid, _ in found if rowid in papers]
