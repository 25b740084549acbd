"""The Zotero Web API's answers as records (``sources/zotero.py``), read from the real recorded responses in
``../shared/data/zotero/`` and from items in the shape the API gives a preprint saved from arXiv."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from papersift.sources.zotero import (
    ZoteroFormatError,
    arxiv_id_of,
    header_int,
    item_from_json,
    parse_collections,
    parse_deleted,
    parse_items,
    within,
)


def test_the_recorded_items_are_read_with_their_fields_and_collections(shared_data: Path) -> None:
    items = parse_items((shared_data / "zotero" / "items_doc.json").read_bytes())
    assert len(items) == 20 and all(i.version == 1 and i.reference.title for i in items)
    by_key = {i.key: i for i in items}
    yarn = by_key["33TK9NH9"].reference
    assert yarn.title == "Biscrolling Nanotube Sheets and Functional Guests into Yarns"
    assert yarn.doi == "10.1126/science.1195912" and yarn.year == 2011 and yarn.venue == "Science"
    assert yarn.authors[0] == "Márcio D. Lima" and yarn.pages == "51-55" and yarn.kind == "journalArticle"
    assert by_key["33TK9NH9"].collections == ("BX9965IJ", "9KH9TNSJ")
    assert by_key["X42A7DEE"].reference.tags  # its subject tags
    assert not any(i.trashed or i.reference.arxiv_id for i in items)  # none of them is on arXiv
    one = parse_items((shared_data / "zotero" / "item_doc.json").read_bytes())  # GET …/items/{key}: an object
    assert [i.key for i in one] == ["X42A7DEE"]


def test_attachments_notes_and_child_items_are_not_library_entries(shared_data: Path) -> None:
    assert parse_items((shared_data / "zotero" / "attachments_doc.json").read_bytes()) == []
    note = {"key": "N2222222", "data": {"key": "N2222222", "itemType": "note", "note": "<p>hi</p>"}}
    child = {
        "data": {"key": "C3333333", "itemType": "journalArticle", "title": "x", "parentItem": "P4444444"}
    }
    assert item_from_json(note) is None and item_from_json(child) is None


def test_the_recorded_collections_keep_their_parents(shared_data: Path) -> None:
    collections = parse_collections((shared_data / "zotero" / "collections_doc.json").read_bytes())
    assert len(collections) == 15
    films = next(c for c in collections if c.name == "sherlock films")
    assert films.parent == "QM6T3KHX"
    assert within(["QM6T3KHX"], collections) == {"QM6T3KHX", "TVPC4XK4"}  # a collection and those below it


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"itemType": "preprint", "archiveID": "arXiv:2106.09685"}, "2106.09685"),
        ({"extra": "tex.ids= hu2021\narXiv: 2106.09685v2"}, "2106.09685"),
        ({"extra": "arXiv:hep-th/9901001 [hep-th]"}, "hep-th/9901001"),
        ({"url": "https://arxiv.org/pdf/2106.09685v1.pdf"}, "2106.09685"),
        ({"url": "http://arxiv.org/abs/2106.09685"}, "2106.09685"),
        ({"DOI": "10.48550/arXiv.2106.09685"}, "2106.09685"),
        ({"extra": "DOI: 10.48550/ARXIV.2106.09685"}, "2106.09685"),
        ({"DOI": "10.1126/science.1195912", "url": "https://www.science.org/"}, None),
    ],
)
def test_an_item_names_its_arxiv_paper_where_zotero_keeps_it(
    fields: dict[str, str], expected: str | None
) -> None:
    assert arxiv_id_of(fields) == expected


def test_deleted_answers_and_headers_are_read() -> None:
    body = orjson.dumps({"collections": ["ABCD2345"], "items": ["EFGH6789", 7], "searches": [], "tags": []})
    assert parse_deleted(body) == ("EFGH6789",)
    with pytest.raises(ZoteroFormatError):
        parse_deleted(b"[]")
    with pytest.raises(ZoteroFormatError):
        parse_items(b"<html>")
    assert header_int({"Last-Modified-Version": "4087"}, "Last-Modified-Version") == 4087
    assert header_int({"Backoff": "soon"}, "Backoff") is None
