"""Reader for arXiv's daily feeds: today's rss.arxiv.org RSS 2.0 and Atom, and the old RSS 1.0.

Current feeds (``rss.arxiv.org/rss/cs.AI``, ``/atom/cs``) carry one item per announcement with
``<arxiv:announce_type>`` (new, cross, replace, replace-cross), a description ``arXiv:ID Announce
Type: new \\nAbstract: ...``, ``<dc:creator>`` (one-line author list), ``<category>``,
``<dc:rights>``, ``<arxiv:DOI>``, ``<arxiv:journal_reference>``; the date is the item/channel
``pubDate`` (Atom: ``<published>``, else the feed's ``<updated>``), in the feed's own offset. The
legacy RSS 1.0/RDF feed (``export.arxiv.org/rss/hep-ex``, until 2023) marks kinds in the title
(``(arXiv:ID [cat] CROSS LISTED)``, ``UPDATED``) and carries HTML in ``dc:creator`` and the
description. Each paper gets one ``Announcement`` with its 1-based place in the feed. Elements are
matched by local name.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from functools import partial
from typing import IO

from lxml import etree

from papersift.records.paper import (
    ANNOUNCE_KINDS,
    AnnounceKind,
    Announcement,
    ArxivId,
    InvalidIdError,
    Paper,
    Parsed,
    RecordError,
    clean_text,
    parse_id,
    split_authors,
)
from papersift.records.schedule import next_listing_day
from papersift.sources import xml

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_FEED_TITLE = re.compile(r"^\s*(\S+)\s+updates on arXiv\.org", re.I)
_FEED_LINK = re.compile(r"/(?:rss|atom)/([^/?#\s]+)")
_DESCRIPTION = re.compile(
    r"^\s*arXiv:(?P<id>\S+)\s+Announce Type:\s*(?P<kind>[\w-]+)\s*(?:Abstract:)?(?P<abstract>.*)$",
    re.S,
)
_OAI = re.compile(r"^oai:arXiv\.org:", re.I)
_LEGACY_TITLE = re.compile(
    r"^(?P<title>.*?)\.?\s*\(arXiv:(?P<id>\S+?)\s+\[(?P<cat>[^\]]+)\]\s*"
    r"(?P<flag>CROSS LISTED|UPDATED)?\)\s*$",
    re.S,
)
_TAG = re.compile(r"<[^>]*>")
_KINDS: dict[str, AnnounceKind] = {kind: kind for kind in ANNOUNCE_KINDS}


@dataclass(frozen=True, slots=True)
class _Where:
    """Where an item stands: the feed document (``source``), the item's 1-based place in it, and what the feed
    says of all its items: the listing day and the feed categories."""

    source: str
    position: int
    day: date | None
    feed: list[str]

    @property
    def locator(self) -> str:
        return f"item {self.position}"


ItemReader = Callable[[etree._Element, _Where], Parsed]


def _strip_html(text: str | None) -> str:
    """HTML fragment → text: tags dropped, then entities unescaped (``&lt;`` becomes ``<``)."""
    return clean_text(html.unescape(_TAG.sub(" ", text or "")))


def _rfc822_date(text: str | None) -> date | None:
    """``Thu, 18 Sep 2025 00:00:00 -0400`` → 2025-09-18 (the date in the feed's own offset)."""
    if not text:
        return None
    try:
        return parsedate_to_datetime(text.strip()).date()
    except (TypeError, ValueError, IndexError):
        return None


def _iso(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def _iso_date(text: str | None) -> date | None:
    when = _iso(text)
    return when.date() if when else None


def feed_categories(title: str | None, link: str | None) -> list[str]:
    """A feed's categories, from ``cs.AI updates on arXiv.org`` or ``.../rss/cs.LG+stat.ML``."""
    m = _FEED_TITLE.match(title or "")
    name = m[1] if m else None
    if not name:
        lm = _FEED_LINK.search(link or "")
        name = lm[1] if lm else None
    return [c for c in re.split(r"[+\s]", name) if c] if name else []


def _listing_category(feed: list[str], categories: list[str]) -> str:
    """The feed category an item appeared under (combined feeds ``cs.LG+stat.ML`` list several)."""
    if len(feed) == 1:
        return feed[0]
    for category in categories:
        for name in feed:
            if category == name or category.startswith(name + "."):
                return name
    return feed[0] if feed else (categories[0] if categories else "")


def _paper(
    arxiv_id: ArxivId,
    title: str,
    abstract: str,
    authors: list[str],
    categories: list[str],
    source: str,
) -> Paper:
    return Paper(
        id=arxiv_id.id,
        title=title,
        authors=authors,
        abstract=abstract,
        categories=categories,
        version=arxiv_id.version,
        source=source,
    )


def _announce(paper: Paper, day: date | None, where: _Where, kind: AnnounceKind) -> Paper:
    if day is not None:
        category = _listing_category(where.feed, paper.categories)
        paper.listings = [Announcement(day, category, kind, where.position)]
        if kind in ("new", "cross"):
            paper.announced = day
    return paper


def _id_of(*candidates: str | None) -> ArxivId | None:
    for raw in candidates:
        if raw:
            try:
                return parse_id(_OAI.sub("", raw.strip()))
            except InvalidIdError:
                continue
    return None


def _current_item(item: etree._Element, where: _Where, atom: bool) -> Parsed:
    """One RSS 2.0 ``<item>`` or Atom ``<entry>`` of today's feeds."""
    description = xml.text(item, "summary" if atom else "description") or ""
    m = _DESCRIPTION.match(description)
    if atom:
        links = [c.get("href") for c in xml.children(item, "link")]
        link = next((h for h in links if h and "/abs/" in h), links[0] if links else None)
        guid = xml.text(item, "id")
    else:
        link, guid = xml.text(item, "link"), xml.text(item, "guid")
    arxiv_id = _id_of(m["id"] if m else None, guid, link)
    if arxiv_id is None:
        return RecordError(where.source, where.locator, "item has no arXiv id")
    named = f"{arxiv_id.id} ({where.locator})"
    title = clean_text(xml.text(item, "title"))
    if not title:
        return RecordError(where.source, named, "item has no title")
    raw_kind = (xml.text(item, "announce_type") or (m["kind"] if m else "new")).strip().lower()
    kind = _KINDS.get(raw_kind)
    if kind is None:
        return RecordError(where.source, named, f"unknown announce type {raw_kind!r}")
    if atom:
        categories = [c.get("term", "") for c in xml.children(item, "category") if c.get("term")]
        names = [clean_text(xml.text(a, "name")) for a in xml.children(item, "author")]
        creator = xml.text(item, "creator")
        authors = split_authors(creator) if creator else [n for n in names if n]
        day = _iso_date(xml.text(item, "published")) or where.day
    else:
        categories = [clean_text(c.text) for c in xml.children(item, "category") if c.text]
        authors = split_authors(xml.text(item, "creator") or "")
        day = _rfc822_date(xml.text(item, "pubDate")) or where.day
    abstract = clean_text(m["abstract"]) if m else clean_text(description)
    paper = _paper(arxiv_id, title, abstract, authors, categories, where.source)
    paper.license = xml.optional(item, "rights")
    paper.doi = xml.optional(item, "DOI")
    paper.journal_ref = xml.optional(item, "journal_reference")
    return _announce(paper, day, where, kind)


_rss_item: ItemReader = partial(_current_item, atom=False)
_atom_item: ItemReader = partial(_current_item, atom=True)


def _legacy_item(item: etree._Element, where: _Where) -> Parsed:
    """One RSS 1.0 ``<item>``: ``Title. (arXiv:1805.06430v2 [nucl-th] UPDATED)``."""
    raw_title = xml.text(item, "title") or ""
    m = _LEGACY_TITLE.match(raw_title)
    arxiv_id = _id_of(m["id"] if m else None, item.get(f"{{{_RDF}}}about"), xml.text(item, "link"))
    if arxiv_id is None:
        return RecordError(where.source, where.locator, "item has no arXiv id")
    title = clean_text(m["title"] if m else raw_title)
    if not title:
        return RecordError(where.source, f"{arxiv_id.id} ({where.locator})", "item has no title")
    flag = m["flag"] if m else None
    bracket = m["cat"].strip() if m else ""
    # The bracket names the primary category, except on a CROSS LISTED item (there: this feed).
    categories = [bracket] if bracket and flag != "CROSS LISTED" else []
    home = not where.feed or any(bracket == f or bracket.startswith(f + ".") for f in where.feed)
    kind: AnnounceKind
    if flag == "CROSS LISTED":
        kind = "cross"
    elif flag == "UPDATED":
        kind = "replace" if home else "replace-cross"
    else:
        kind = "new" if home else "cross"
    authors = split_authors(_strip_html(xml.text(item, "creator")))
    abstract = _strip_html(xml.text(item, "description"))
    paper = _paper(arxiv_id, title, abstract, authors, categories, where.source)
    return _announce(paper, where.day, where, kind)


def _legacy_day(text: str | None) -> date | None:
    """The listing a legacy feed carries: its ``dc:date`` is the evening the listing went out
    (``2018-05-23T20:30:00-05:00``), and arXiv dates that listing the next weekday."""
    when = _iso(text)
    if when is None:
        return None
    return next_listing_day(when.date()) if when.hour >= 20 else when.date()


@dataclass(frozen=True, slots=True)
class _FeedHead:
    """What a feed says of all its items: which reader, the listing date, the feed categories."""

    reader: ItemReader
    day: date | None
    feed: list[str]


def _head(root: etree._Element, container: etree._Element) -> _FeedHead | None:
    """The feed-level facts, read from the elements parsed before the first item."""
    kind = xml.local(root)
    if kind == "rss":
        feed = feed_categories(xml.text(container, "title"), xml.text(container, "link"))
        pub = xml.text(container, "pubDate") or xml.text(container, "lastBuildDate")
        return _FeedHead(_rss_item, _rfc822_date(pub), feed)
    if kind == "feed":
        links = [c.get("href") for c in xml.children(root, "link")]
        feed = feed_categories(xml.text(root, "title"), next((h for h in links if h), None))
        return _FeedHead(_atom_item, _iso_date(xml.text(root, "updated")), feed)
    if kind == "RDF":
        channel = next(iter(xml.children(root, "channel")), root)
        feed = feed_categories(xml.text(channel, "title"), None)
        return _FeedHead(_legacy_item, _legacy_day(xml.text(channel, "date")), feed)
    return None


def iter_feed(stream: IO[bytes], source: str) -> Iterator[Parsed]:
    """Every paper of an arXiv RSS 2.0 / Atom / RSS 1.0 feed read from ``stream``, in feed order.

    Items are read as they end, so a truncated or broken feed still gives every item before the
    break, then one RecordError saying where it broke. An empty feed (weekends, holidays) yields
    nothing; a document that is not a feed yields one RecordError. Never raises on bad input.
    """
    events = xml.iterparse(stream)
    root: etree._Element | None = None
    head: _FeedHead | None = None
    position = 0
    try:
        for event, el in events:
            if root is None:
                root = el
                if xml.local(root) not in ("rss", "feed", "RDF"):
                    message = f"not an RSS/Atom feed (root element <{xml.local(root)}>)"
                    yield RecordError(source, "feed", message)
                    return
                continue
            if event != "end" or xml.local(el) not in ("item", "entry"):
                continue
            parent = el.getparent()
            if parent is None or xml.local(parent) not in ("channel", "feed", "RDF"):
                continue
            if head is None:
                head = _head(root, parent)
                if head is None:
                    return
            position += 1
            yield _read_item(el, head, source, position)
            el.clear()
    except etree.XMLSyntaxError as e:
        where = f"line {e.lineno}" if e.lineno else "feed"
        after = f" after {position} items" if position else ""
        yield RecordError(source, where, f"malformed or truncated XML{after}: {e.msg}")
    except OSError as e:
        yield RecordError(source, "feed", f"cannot read: {e}")


def _read_item(item: etree._Element, head: _FeedHead, source: str, position: int) -> Parsed:
    """Read one item; anything unexpected in it becomes a RecordError naming the item."""
    where = _Where(source, position, head.day, head.feed)
    try:
        return head.reader(item, where)
    except (ValueError, TypeError, AttributeError) as e:
        return RecordError(source, where.locator, f"unreadable item: {e}")


def feed_day(data: bytes) -> date | None:
    """The listing day a whole feed document is for, read from its head as ``iter_feed`` reads it (RSS 2.0:
    the channel's ``pubDate``; Atom: ``updated``; RSS 1.0: ``dc:date``): the day an empty feed says arXiv
    announced nothing. None when the document is not a feed or names no day."""
    root, _ = xml.parse_document(data)
    if root is None or xml.local(root) not in ("rss", "feed", "RDF"):
        return None
    container = xml.child(root, "channel") if xml.local(root) != "feed" else root
    head = _head(root, container if container is not None else root)
    return None if head is None else head.day


def parse_feed(data: bytes, source: str) -> list[Parsed]:
    """Every paper of one feed document held in memory; see ``iter_feed``."""
    return list(iter_feed(io.BytesIO(data), source))
