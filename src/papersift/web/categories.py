"""The category picker of the listing pages and the ``/categories`` taxonomy, as their models
(``web/models.py``: ``PickerSection``, ``Categories``).

Both take the store's listed categories (``Store.listed_categories``) and lay them out in arXiv's
taxonomy order: groups, then archives, then categories. Ids the store has that arXiv no longer lists
(``chao-dyn``, bare ``astro-ph``) go under their successor; ids unknown to the taxonomy go last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from papersift.records.taxonomy import archive_of, categories, category, category_name, groups
from papersift.services.listing import listing_counts
from papersift.store import Store
from papersift.web.models import (
    ArchiveShape,
    Categories,
    CategoryShape,
    GroupShape,
    OldCategory,
    PickerItem,
    PickerSection,
)

_ARCHIVES = {a.id: a for g in groups() for a in g.archives}
_GROUP_OF = {a.id: g.id for g in groups() for a in g.archives}
_ARCHIVE_ORDER = {aid: i for i, aid in enumerate(_ARCHIVES)}
_CATEGORY_ORDER = {c.id: i for i, c in enumerate(categories())}

_Sortable = tuple[tuple[int, int, str], PickerItem]


def picker(listed: Mapping[str, int], current: str, day: str) -> list[PickerSection]:
    """Sections (one per group) of links to every listed category, with its number of papers on ``day``.

    ``listed`` maps each category with listings to its count that day (``listed_categories(day)``).
    An archive with subject classes gets a link of its own (the whole archive's listing) before them.
    """
    sections: dict[str, list[_Sortable]] = {}
    archive_counts: dict[str, int] = {}
    for cat, count in listed.items():
        archive = archive_of(cat)
        if archive is None:  # unknown to the taxonomy: last, by id
            sections.setdefault("", []).append(((0, 0, cat), _item(cat, count, current, day)))
            continue
        if not _ARCHIVES[archive].flat:
            archive_counts[archive] = archive_counts.get(archive, 0) + count
            if cat == archive:  # a bare archive id (old astro-ph papers): the archive's own link
                continue
        found = category(cat)
        order = _CATEGORY_ORDER[found.id] if found else 0
        key = (_ARCHIVE_ORDER[archive], 1 + order, cat)
        sections.setdefault(_GROUP_OF[archive], []).append((key, _item(cat, count, current, day)))
    for archive, count in archive_counts.items():
        item = _item(archive, count, current, day, archive=True)
        sections.setdefault(_GROUP_OF[archive], []).append(((_ARCHIVE_ORDER[archive], 0, archive), item))
    named = [(g.id, g.name, g.name_zh) for g in groups()] + [("", None, None)]
    return [
        PickerSection.make(
            id=gid,
            name=name,
            name_zh=zh,
            categories=[i for _, i in sorted(sections[gid], key=lambda s: s[0])],
        )
        for gid, name, zh in named
        if gid in sections
    ]


def _item(cat: str, count: int, current: str, day: str, archive: bool = False) -> PickerItem:
    """A category's link (``archive``: the whole archive's, with no count: an archive's listing shows each
    paper once, not the sum of its classes)."""
    return PickerItem.make(
        id=cat,
        name=category_name(cat),
        count=None if archive else count,
        href=f"/list/{cat}/{day}" if count else f"/list/{cat}",
        current=cat == current,
        archive=archive,
    )


def taxonomy(listed: Mapping[str, int]) -> Categories:
    """arXiv's whole taxonomy with each category's number of stored announcement rows (0 for none).

    ``other`` holds the listed ids that are not current categories, with the id they are filed under now.
    """
    known = _CATEGORY_ORDER.keys()
    listed_archives = {archive_of(c) for c, n in listed.items() if n}
    return Categories.make(
        groups=[
            GroupShape.make(
                id=g.id,
                name=g.name,
                name_zh=g.name_zh,
                archives=[
                    ArchiveShape.make(
                        id=a.id,
                        name=a.name,
                        flat=a.flat,
                        listed=a.id in listed_archives,
                        categories=[
                            CategoryShape.make(
                                id=c.id, name=c.name, alias_of=c.alias_of, listings=listed.get(c.id, 0)
                            )
                            for c in a.categories
                        ],
                    )
                    for a in g.archives
                ],
            )
            for g in groups()
        ],
        other=[
            OldCategory.make(id=c, name=category_name(c), now=_now(c), listings=n)
            for c, n in sorted(listed.items())
            if c not in known
        ],
    )


def _now(cat: str) -> str | None:
    """The current category an old id is filed under (``chao-dyn`` → ``nlin.CD``); None if none."""
    found = category(cat)
    return found.id if found and found.id != cat else None


def opening_category(store: Store, followed: Sequence[str], fallback: str) -> str:
    """Where ``/`` opens: the first followed category with listings, else the category with the most new
    papers on the latest announcement day in the store, else ``fallback``."""
    for candidate in followed:
        if store.announcement_days(candidate):
            return candidate
    listed = [c for c, _ in store.listed_categories()]
    days = [d for c in listed if (d := store.announcement_days(c))]
    if not days:
        return fallback
    latest = max(d[-1] for d in days)
    busiest = sorted(store.listed_categories(latest), key=lambda cn: -cn[1])[:8]  # by all entries first
    new = {c: listing_counts(store.listing(c, latest))["new"] for c, n in busiest if n}
    return max(new, key=lambda c: new[c]) if new else fallback
