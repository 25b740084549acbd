"""Paper Copilot's accept lists read as a stream (``sources/paperlists.py``): the seven real 2025 files read
record for record as their README counts them, and bad input refused or skipped with its reason: a file
that is not a JSON array, a record without a title, an author field that is a list, the same record twice,
a venue name with a slash, and a 50 MB file read without holding it."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from collections import Counter
from pathlib import Path

import pytest

from papersift.records.paper import is_arxiv_id, split_authors
from papersift.records.venues import VenueRecord, is_venue_id
from papersift.sources.paperlists import PaperlistError, Skipped, read_paperlist, source_of, split_names

# records read and rows skipped of each file (its README: SIGGRAPH lists 76 posters five times)
COUNTS = {
    "colm": (418, 0),
    "corl": (263, 0),
    "siggraph": (406, 304),
    "aistats": (583, 0),
    "wacv": (929, 0),
    "coling": (848, 0),
    "www": (409, 0),
}


def read(path: Path, venue: str | None = None, year: int | None = None) -> list[VenueRecord | Skipped]:
    return list(read_paperlist(path, source_of(path, venue, year)))


def write(path: Path, items: object) -> Path:
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_each_real_list_is_read_record_for_record(shared_data: Path, name: str) -> None:
    items = read(shared_data / "venues" / f"{name}2025.json.gz")
    records = [i for i in items if isinstance(i, VenueRecord)]
    skipped = [i for i in items if isinstance(i, Skipped)]
    assert (len(records), len(skipped)) == COUNTS[name]
    assert all(r.year == 2025 and r.title and is_venue_id(r.id) and not is_arxiv_id(r.id) for r in records)
    assert len({r.id for r in records}) == len(records)  # one venue paper id per record, stable: its own id
    assert {str(s.reason) for s in skipped} <= {"the same record again (same id)"}


def test_a_records_fields_are_read_as_its_list_gives_them(shared_data: Path) -> None:
    wacv = {r.key: r for r in read(shared_data / "venues" / "wacv2025.json.gz") if isinstance(r, VenueRecord)}
    first = wacv["ca6d1b4547"]
    assert (first.venue, first.status, first.track) == ("WACV", "Poster", "main")
    assert first.authors == ("Hai Wang", "Jing-Hao Xue")  # "; "-separated
    assert first.arxiv == "2409.08397" and first.link("github") == "https://github.com/littlewhitesea/360PanT"
    assert (first.link("pdf") or "").startswith("https://openaccess.thecvf.com/")
    assert sum(1 for r in wacv.values() if r.arxiv) == 511
    corl = [r for r in read(shared_data / "venues" / "corl2025.json.gz") if isinstance(r, VenueRecord)]
    assert Counter(r.status for r in corl) == {"Poster": 221, "Oral": 42}
    assert corl[0].venue == "CoRL" and corl[0].id == "corl2025-06YyNxzwae"
    assert corl[0].authors[:2] == ("Yixuan Huang", "Novella Alvina")  # ";"-separated
    siggraph = [
        r for r in read(shared_data / "venues" / "siggraph2025.json.gz") if isinstance(r, VenueRecord)
    ]
    assert siggraph[0].authors == ("Ipek Oztas", "Duygu Ceylan", "Aysegul Dundar")  # ", "-separated
    assert (siggraph[0].link("site") or "").startswith("https://s2025.conference-schedule.org/")


def test_a_lists_author_names_are_kept_as_written_and_whole_between_semicolons() -> None:
    assert split_names("Lovelace, Ada; Turing, Alan;") == ("Lovelace, Ada", "Turing, Alan")
    assert split_names("Yuhan (Anjelica) Bian, Ada Lovelace") == ("Yuhan (Anjelica) Bian", "Ada Lovelace")
    # arXiv's one-line field is another format: "and", every comma, affiliations in parentheses
    assert split_authors("Lovelace, Ada; Turing, Alan") == ["Lovelace", "Ada", "Turing", "Alan"]


def test_the_venue_and_year_come_from_the_name_or_are_given(tmp_path: Path) -> None:
    plain = write(tmp_path / "iclr2024.json", [{"id": "a1", "title": "A Title", "author": "Ada Lovelace"}])
    assert source_of(plain) == source_of(plain, "ICLR", 2024)
    (record,) = read(plain, "ICLR-W", 2023)
    assert isinstance(record, VenueRecord) and record.id == "iclr-w2023-a1"
    nameless = write(tmp_path / "accepted.json", [])
    with pytest.raises(PaperlistError, match="--venue and --year"):
        source_of(nameless)
    assert read(nameless, "COLM", 2025) == []


def test_a_venue_name_with_a_slash_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "list.json", [{"id": "a", "title": "A", "author": "B C"}])
    for bad in ("COLM/2025", "../etc", "a b", ""):
        with pytest.raises(PaperlistError, match="not a venue name"):
            source_of(path, bad, 2025)


def test_a_file_that_is_not_a_json_array_is_refused(tmp_path: Path) -> None:
    cases = {
        "object.json": json.dumps({"title": "An object, not a list"}),
        "text.json": "not JSON at all",
        "empty.json": "",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(PaperlistError, match="not a JSON array"):
            read(tmp_path / name, "COLM", 2025)
    (tmp_path / "cut.json").write_text('[{"id": "a", "title": "A"}, {"id": "b", "ti', encoding="utf-8")
    with pytest.raises(PaperlistError, match="not valid JSON"):
        read(tmp_path / "cut.json", "COLM", 2025)


def test_bad_records_are_skipped_with_their_reason(tmp_path: Path) -> None:
    items = [
        {"id": "ok1", "title": "Kept", "author": "Ada Lovelace;Alan Turing", "status": "Oral"},
        {"id": "nt", "title": "", "author": "No Title"},
        {"id": "nt2", "author": "No Title Either"},
        {"id": "al", "title": "Authors As A List", "author": ["Ada Lovelace", "Alan Turing"]},
        {"id": "ok1", "title": "Kept", "author": "Ada Lovelace;Alan Turing", "status": "Oral"},
        ["not", "an", "object"],
        {"id": -1, "title": "No Id Of Its Own", "author": "", "status": -1},
    ]
    got = read(write(tmp_path / "colm2025.json", items))
    reasons = [(s.number, str(s.reason)) for s in got if isinstance(s, Skipped)]
    assert reasons == [
        (2, "no title"),
        (3, "no title"),
        (4, "its author field is a list, not text"),
        (5, "the same record again (same id)"),
        (6, "not a JSON object"),
    ]
    kept = [r for r in got if isinstance(r, VenueRecord)]
    assert kept[0].key == "ok1" and kept[0].authors == ("Ada Lovelace", "Alan Turing")
    own = kept[1]  # no id of its own: a key from its title, the same on every import
    assert own.key.startswith("t") and own.status == "" and own.authors == ()
    assert own.key == [r for r in read(tmp_path / "colm2025.json") if isinstance(r, VenueRecord)][1].key


@pytest.mark.slow
def test_a_50_mb_file_is_read_as_a_stream(tmp_path: Path) -> None:
    path = tmp_path / "big2025.json.gz"
    abstract = "word " * 400
    with gzip.open(path, "wt", encoding="utf-8") as f:  # written a record at a time too
        f.write("[")
        for n in range(25_000):
            record = {"id": f"r{n}", "title": f"Paper {n}", "author": "A B", "abstract": abstract}
            f.write(("," if n else "") + json.dumps(record))
        f.write("]")
    with gzip.open(path) as f:
        assert f.seek(0, 2) > 50_000_000  # 50 MB of JSON
    tracemalloc.start()
    count = sum(1 for item in read_paperlist(path, source_of(path)) if isinstance(item, VenueRecord))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 25_000
    assert peak < 10_000_000  # never the whole file: a record at a time
