"""Citation counts from Semantic Scholar's Graph API (``papersift enrich``): ``POST /graph/v1/paper/batch``
with up to 500 ``ARXIV:`` ids a request (fields ``externalIds,citationCount,references``), stored with the
day they were asked.

Requests go through harvest's ``ArxivClient`` (one interval per host, ``PAPERSIFT_REQUEST_INTERVAL``: 3 s by
default, within Semantic Scholar's published one request a second with a key; retries on 429/5xx honouring
``Retry-After``). The key (``PAPERSIFT_S2_KEY``, optional) is sent as ``x-api-key`` and nowhere else:
never printed, logged or stored.
A paper Semantic Scholar does not know comes back as ``null`` and is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from papersift.records.messages import say
from papersift.records.paper import InvalidIdError, normalize_id
from papersift.services.harvest import ArxivClient, HarvestError
from papersift.store import Store
from papersift.store.fulltext_rows import CitationCount

BATCH = 500  # ids per request: the API's limit
FIELDS = "externalIds,citationCount,references"


def parse_batch(answer: Any, asked: Sequence[str], day: datetime | None = None) -> list[CitationCount]:
    """The counts in a ``/paper/batch`` answer (a list in the order of ``asked``, ``null`` for a paper it
    does not know); the arXiv id from ``externalIds.ArXiv``, else the id asked in that place."""
    if not isinstance(answer, list):
        raise HarvestError(say("s2_not_batch", answer=str(answer)[:200]))
    when = (day or datetime.now(UTC)).date()
    out = []
    for wanted, item in zip(asked, answer, strict=False):
        if not isinstance(item, dict) or item.get("citationCount") is None:
            continue
        raw = (item.get("externalIds") or {}).get("ArXiv") or wanted
        try:
            pid = normalize_id(str(raw))
        except InvalidIdError:
            pid = wanted
        refs = item.get("references")
        out.append(
            CitationCount(
                pid,
                int(item["citationCount"]),
                len(refs) if isinstance(refs, list) else None,
                item.get("paperId"),
                when,
            )
        )
    return out


def enrich(
    client: ArxivClient,
    store: Store,
    paper_ids: Sequence[str],
    *,
    on_batch: Callable[[int, int], None] | None = None,
) -> list[CitationCount]:
    """Ask Semantic Scholar for the citation counts of ``paper_ids`` (≤ ``BATCH`` a request) and store
    them as each answer comes; ``on_batch(done, total)`` hears progress in ids."""
    settings = client.settings
    url = f"{settings.s2_url.rstrip('/')}/graph/v1/paper/batch"
    headers = {"x-api-key": settings.s2_key.get_secret_value()} if settings.s2_key else {}
    ids = list(dict.fromkeys(paper_ids))
    found: list[CitationCount] = []
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        response = client.request(
            "POST", url, {"fields": FIELDS}, json={"ids": [f"ARXIV:{i}" for i in batch]}, headers=headers
        )
        try:
            answer = response.json()
        except ValueError as e:
            raise HarvestError(say("s2_not_json", problem=str(e))) from e
        counts = parse_batch(answer, batch)
        store.put_citation_counts(counts)
        found += counts
        if on_batch:
            on_batch(start + len(batch), len(ids))
    return found
