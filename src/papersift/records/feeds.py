"""Writing Atom 1.0 feeds (listings, saved searches, digests), built with lxml so every text is escaped XML,
an entry's TL;DR line in the feed's language (reading them is ``sources/atom.py``'s)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from lxml import etree

from papersift.records.catalogs import said, said_list
from papersift.records.messages import say, venue_badge

ATOM = "http://www.w3.org/2005/Atom"


# characters XML 1.0 cannot hold (C0 controls but tab/newline/return, lone surrogates, U+FFFE/U+FFFF)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("", text)


def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    element = etree.SubElement(parent, f"{{{ATOM}}}{tag}", {k: _xml(v) for k, v in attrs.items()})
    if text is not None:
        element.text = _xml(text)
    return element


def atom_feed(
    title: str, feed_id: str, self_url: str, papers: list[dict[str, Any]], lang: str = "en"
) -> bytes:
    """A feed whose entries are papers as ``library/shapes.py`` makes their JSON, in the given order."""
    feed = etree.Element(f"{{{ATOM}}}feed", nsmap={None: ATOM})  # type: ignore[dict-item]
    _sub(feed, "title", title)
    _sub(feed, "id", feed_id)
    _sub(feed, "link", rel="self", href=self_url)
    newest = max((p.get("announced") or p.get("published") or "" for p in papers), default="")
    updated = f"{newest}T00:00:00Z" if newest else datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    _sub(feed, "updated", updated)
    _sub(feed, "generator", "papersift")
    for p in papers:
        entry = _sub(feed, "entry")
        _sub(entry, "id", p["abs_url"])
        _sub(entry, "title", p["title"])
        _sub(entry, "link", href=p["abs_url"])
        _sub(entry, "link", rel="related", type="application/pdf", href=p["pdf_url"])
        day = p.get("announced") or p.get("published")
        _sub(entry, "updated", f"{day}T00:00:00Z" if day else updated)
        for name in p["authors"]:
            _sub(_sub(entry, "author"), "name", name)
        for category in p["categories"]:
            _sub(entry, "category", term=category)
        tldr = p.get("tldr")  # the paper's TL;DR first (or why it is missing), then its abstract
        head = (
            ""
            if not tldr
            else said(say("tldr_line", text=tldr["text"]), lang)
            if tldr["text"]
            else said(say("digest_tldr_unavailable", error=tldr["error"] or str(tldr["error"])), lang)
        )
        badges = [venue_badge(v["venue"], v["year"], v["status"]) for v in p.get("venues") or ()]
        for badge in badges:  # where it was accepted: "COLM 2025 · Poster"
            _sub(entry, "category", term=said(badge, "en"), label=said(badge, lang), scheme="papersift:venue")
        venues = said_list(badges, lang, series=True)
        by = None  # a paper by authors the reader follows (``FollowedNew``): its category, those authors
        if followed := p.get("followed"):
            label = said(say("digest_followed_new"), lang)
            _sub(entry, "category", term="followed", label=label, scheme="papersift:followed")
            by = said(say("followed_authors", authors=said_list(followed, lang, series=True)), lang)
        head = "\n".join(line for line in (venues, by, head) if line)
        _sub(entry, "summary", f"{head}\n\n{p['abstract']}" if head else p["abstract"])
    return bytes(etree.tostring(feed, xml_declaration=True, encoding="utf-8"))
