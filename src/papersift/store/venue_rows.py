"""Venues' accept lists, once for both SQL backends: a list imported (each record linked to its arXiv paper
or kept as a venue paper of its own), a paper linked when it arrives after its venue's list, and the reads
the faces show: a paper's venues, a venue's records, every venue with its counts.

A record is linked to at most one arXiv paper: the one it names (WACV's lists) when the titles agree, else
the best candidate whose title and authors both agree (``sources/venue_match.py``), found by its title's
keys among the store's (``TitleIndex``: the whole title, its main part, how it begins and ends; read once
per import run, about 3 s of CPU for 300k papers). Within one venue and year a paper keeps its best
record; the others, and every record with no arXiv version, are venue papers (``records/venues.py``'s
ids) written through the papers' own path, so search, related papers, topic maps and the library find
them like any paper. A venue paper whose arXiv version arrives later (ingest, harvest, sync: every write
goes through ``upsert``) is linked then and its venue paper retired (``_link_arrivals``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import orjson

from papersift.records.paper import Paper
from papersift.records.venues import VenueRecord, is_venue_id, venue_slug
from papersift.sources.eprint import code_links
from papersift.sources.fulltext import CodeLink
from papersift.sources.venue_match import (
    CLAIMED_TITLE,
    Agreement,
    agreement,
    parsed_names,
    title_agreement,
    title_keys,
)
from papersift.store import PAPERS_CHANGED, IngestCounts
from papersift.store.paper_rows import PaperTables
from papersift.store.sql import NamedRow, Tx

AFFIX = 24  # letters of a title's key that begin or end it: a word changed leaves one end as it was
COMMON_ENDS = 64  # an end this many titles share finds no candidates (too common to tell them apart)
_CLAIMED = 3.0  # the score of a link the record named itself (above any agreement's: at most 2)
VENUE_COLUMNS = (  # venue_records' columns (store/schema.py), in order
    *("slug", "year", "key", "venue", "position", "title", "authors", "status", "track", "abstract"),
    *("keywords", "links", "claimed", "title_key", "main_key", "arxiv", "score", "paper", "first_seen"),
    "updated",
)
_COLUMNS = ", ".join(VENUE_COLUMNS)
_COMPARED = (
    "venue",
    "position",
    "title",
    "authors",
    "status",
    "track",
    "abstract",
    "keywords",
    "links",
    "claimed",
    "arxiv",
    "paper",
)


@dataclass(frozen=True, slots=True)
class VenueMark:
    """What a paper's JSON and badge show of one venue record."""

    venue: str
    year: int
    status: str
    track: str
    url: str | None = None  # the record's page (site, else OpenReview)
    pdf: str | None = None  # its PDF
    code: tuple[str, ...] = ()  # its code and project links


@dataclass(frozen=True, slots=True)
class VenueEntry:
    """A stored record with its link: the store paper it is shown as (its arXiv paper, else its own venue
    paper), the linked arXiv id (None: a venue paper only), and when it was first imported and last
    changed."""

    record: VenueRecord
    paper_id: str
    arxiv: str | None
    first_seen: datetime
    updated: datetime


@dataclass(frozen=True, slots=True)
class VenueSummary:
    """One venue's list of one year: its records, how many are linked to arXiv, its counts by status (most
    first) and when it was last imported."""

    venue: str
    year: int
    records: int
    linked: int
    statuses: tuple[tuple[str, int], ...]
    imported: datetime | None


@dataclass(slots=True)
class VenueCounts:
    """What importing one list did: records kept, linked to an arXiv paper, kept as venue papers; rows
    new, changed and unchanged, and records no longer in the list (removed)."""

    records: int = 0
    linked: int = 0
    venue_papers: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    papers: IngestCounts = field(default_factory=IngestCounts)


@dataclass(frozen=True, slots=True)
class _Link:
    arxiv: str
    score: float


def _points(score: float) -> int:
    """A link's score as stored: in ten-thousandths (an integer, the same on both backends)."""
    return round(score * 10_000)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def venue_paper(record: VenueRecord) -> Paper:
    """The store's paper of a record with no arXiv version: its title, authors and abstract, no category."""
    return Paper(
        id=record.id,
        title=record.title,
        authors=list(record.authors),
        abstract=record.abstract,
        categories=[],
        source=f"venue:{venue_slug(record.venue)}{record.year}",
    )


def _record_row(
    record: VenueRecord, position: int, link: _Link | None, first_seen: str, now: str
) -> tuple[Any, ...]:
    keys = title_keys(record.title)
    return (
        venue_slug(record.venue),
        record.year,
        record.key,
        record.venue,
        position,
        record.title,
        orjson.dumps(list(record.authors)).decode(),
        record.status,
        record.track,
        record.abstract,
        orjson.dumps(list(record.keywords)).decode(),
        orjson.dumps([list(pair) for pair in record.links]).decode(),
        record.arxiv,
        keys[0],
        keys[1],
        link.arxiv if link else None,
        _points(link.score) if link else None,
        link.arxiv if link else record.id,
        first_seen,
        now,
    )


def record_of(row: NamedRow) -> VenueRecord:
    return VenueRecord(
        venue=str(row["venue"]),
        year=int(row["year"]),
        key=str(row["key"]),
        title=str(row["title"]),
        authors=tuple(orjson.loads(row["authors"])),
        status=str(row["status"]),
        track=str(row["track"]),
        abstract=str(row["abstract"]),
        keywords=tuple(orjson.loads(row["keywords"])),
        links=tuple((str(k), str(u)) for k, u in orjson.loads(row["links"])),
        arxiv=row["claimed"],
    )


def _entry(row: NamedRow) -> VenueEntry:
    return VenueEntry(
        record_of(row),
        str(row["paper"]),
        row["arxiv"],
        datetime.fromisoformat(str(row["first_seen"])),
        datetime.fromisoformat(str(row["updated"])),
    )


def mark_of(record: VenueRecord) -> VenueMark:
    code = [record.link("github"), record.link("project")]
    return VenueMark(
        record.venue,
        record.year,
        record.status,
        record.track,
        record.link("site") or record.link("openreview"),
        record.link("pdf"),
        tuple(url for url in code if url),
    )


def code_of(mark: VenueMark) -> list[CodeLink]:
    """A record's code links as the full text's ``CodeLink``s (the paper's own)."""
    return [link for url in mark.code for link in code_links(url, all_own=True)]


class VenueTables(PaperTables):
    """Venue records and their links over a backend's connection and dialect, on the papers' own tables
    (venue papers are written by ``PaperTables``, whose writes link their arrivals here)."""

    _venue_title_index: TitleIndex | None = None
    """The stored arXiv papers' title keys (``_title_index``), kept between imports while no paper is
    written: a run importing many lists reads the titles once."""

    # -- import -----------------------------------------------------------------------------------
    def import_venue(self, venue: str, year: int, records: Sequence[VenueRecord], file: str) -> VenueCounts:
        """Store one venue's list of one year as it is now: its records linked, the others venue papers,
        records no longer listed removed (their venue papers retired); the same list again changes
        nothing."""
        slug, counts = venue_slug(venue), VenueCounts(records=len(records))
        links = self._links(records)  # (its title index stays valid: venue papers are not in it)
        now = _now()
        with self._tx() as tx:
            old = {
                str(r["key"]): r
                for r in tx.execute(
                    f"SELECT {_COLUMNS} FROM venue_records WHERE slug = ? AND year = ?", (slug, year)
                ).fetchall()
            }
            rows: list[tuple[Any, ...]] = []
            for position, record in enumerate(records, 1):
                link = links.get(record.key)
                before = old.pop(record.key, None)
                row = _record_row(record, position, link, before["first_seen"] if before else now, now)
                if before is None:
                    counts.new += 1
                    rows.append(row)
                elif self._differs(before, row):
                    counts.changed += 1
                    rows.append(row)
                else:
                    counts.unchanged += 1
            counts.linked = sum(1 for r in records if r.key in links)
            counts.venue_papers = counts.records - counts.linked
            retired = [r.id for r in records if r.key in links]
            retired += [venue_paper_id_of(r) for r in old.values()]
            counts.removed = len(old)
            if old:
                where, arg = self.dialect.one_of("key", list(old))
                tx.execute(
                    f"DELETE FROM venue_records WHERE slug = ? AND year = ? AND {where}", (slug, year, arg)
                )
            if rows:
                self._write_rows(tx, rows)
            self._retire(tx, retired)
            kept = [venue_paper(r) for r in records if r.key not in links]
            self._write_venue_papers(tx, kept, counts.papers)
            tx.execute(
                "INSERT INTO venue_imports (slug, year, venue, file, imported) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (slug, year) DO UPDATE SET venue = excluded.venue, file = excluded.file, "
                "imported = excluded.imported",
                (slug, year, venue, file, now),
            )
            if rows or old or counts.papers.new or counts.papers.updated:
                self._bump(tx, PAPERS_CHANGED)
        index = self._venue_title_index
        if index is not None:  # what changed here were venue papers and records: the index still holds
            index.version = self.get_state(PAPERS_CHANGED) or "0"
        return counts

    def _differs(self, before: NamedRow, row: tuple[Any, ...]) -> bool:
        now = dict(zip(VENUE_COLUMNS, row, strict=True))
        return any(_same_type(before[c]) != _same_type(now[c]) for c in _COMPARED)

    def _write_rows(self, tx: Tx, rows: list[tuple[Any, ...]]) -> None:
        sets = ", ".join(f"{c} = excluded.{c}" for c in VENUE_COLUMNS[3:] if c != "first_seen")
        tx.executemany(
            f"INSERT INTO venue_records ({_COLUMNS}) VALUES ({', '.join('?' * len(VENUE_COLUMNS))}) "
            f"ON CONFLICT (slug, year, key) DO UPDATE SET {sets}",
            rows,
        )

    def _write_venue_papers(self, tx: Tx, papers: list[Paper], counts: IngestCounts) -> None:
        """Write (or bring back) the venue papers of records with no arXiv version, the papers' own way."""
        if not papers:
            return
        where, arg = self.dialect.one_of("id", [p.id for p in papers])
        tx.execute(f"UPDATE papers SET deleted = FALSE WHERE {where} AND deleted", (arg,))
        stored = self._existing(tx, [p.id for p in papers])
        today = datetime.now(UTC).date()
        papers = [  # a record changed in its list: the stored paper gives way (``rows.merge``: the later)
            replace(p, updated=today) if p.id in stored and _text_of(stored[p.id][1]) != _text_of(p) else p
            for p in papers
        ]
        next_rowid = int(tx.execute("SELECT COALESCE(MAX(rowid), 0) + 1 AS n FROM papers").fetchone()["n"])
        self._write_isolated(tx, papers, next_rowid, counts)

    def _retire(self, tx: Tx, venue_ids: list[str]) -> None:
        """Venue papers no longer shown (their record is linked to arXiv, or gone) are deleted papers."""
        if venue_ids:
            where, arg = self.dialect.one_of("id", venue_ids)
            if tx.execute(f"UPDATE papers SET deleted = TRUE WHERE {where} AND NOT deleted", (arg,)).rowcount:
                self._bump(tx, "vectors_changed")

    # -- linking ----------------------------------------------------------------------------------
    def _links(self, records: Sequence[VenueRecord]) -> dict[str, _Link]:
        """Each record's arXiv paper, where one agrees; a paper keeps its best record of the list."""
        index = self._title_index()
        keyed = {r.key: index.candidates(r.title) for r in records}
        named = {r.arxiv for r in records if r.arxiv}  # the ids records give themselves (WACV's)
        papers = self._titles_and_authors(sorted({pid for ids in keyed.values() for pid in ids} | named))
        found: dict[str, _Link] = {}
        for record in records:
            by_key = [(pid, *papers[pid]) for pid in keyed[record.key] if pid in papers]
            link = _claimed(record, papers) or _best(record, by_key)
            if link is not None:
                found[record.key] = link
        best: dict[str, tuple[float, str]] = {}
        for key, link in found.items():
            if link.arxiv not in best or link.score > best[link.arxiv][0]:
                best[link.arxiv] = (link.score, key)
        return {key: link for key, link in found.items() if best[link.arxiv][1] == key}

    def _title_index(self) -> TitleIndex:
        """The keys of every stored arXiv paper's title (read once, kept while no paper is written)."""
        version = self.get_state(PAPERS_CHANGED) or "0"
        kept = self._venue_title_index
        if kept is not None and kept.version == version:
            return kept
        index = TitleIndex(version)
        for row in self._rows("SELECT id, title FROM papers WHERE NOT deleted AND source NOT LIKE 'venue:%'"):
            index.add(str(row["id"]), str(row["title"]))
        self._venue_title_index = index
        return index

    def _titles_and_authors(self, paper_ids: list[str]) -> dict[str, tuple[str, list[str]]]:
        out: dict[str, tuple[str, list[str]]] = {}
        for start in range(0, len(paper_ids), 2000):
            where, arg = self.dialect.one_of("id", paper_ids[start : start + 2000])
            for r in self._rows(
                f"SELECT id, title, authors FROM papers WHERE {where} AND NOT deleted", (arg,)
            ):
                out[str(r["id"])] = (str(r["title"]), orjson.loads(r["authors"]))
        return out

    def _link_arrivals(self, tx: Tx, papers: Iterable[tuple[int, Paper]]) -> None:
        """Link arXiv papers just written to the venue records they are, when those records have no link
        or a worse one (a paper keeps its best record of each list); the records' venue papers retire."""
        arrived = [p for _, p in papers if not is_venue_id(p.id)]
        if not arrived or tx.execute("SELECT 1 AS one FROM venue_records LIMIT 1").fetchone() is None:
            return
        by_key: dict[str, list[Paper]] = {}
        for p in arrived:
            for key in set(title_keys(p.title)):
                by_key.setdefault(key, []).append(p)
        ids = {p.id: p for p in arrived}
        keys = list(by_key)
        t_where, t_arg = self.dialect.one_of("title_key", keys)
        m_where, m_arg = self.dialect.one_of("main_key", keys)
        c_where, c_arg = self.dialect.one_of("claimed", list(ids))
        rows = tx.execute(
            f"SELECT {_COLUMNS} FROM venue_records WHERE {t_where} OR {m_where} OR {c_where}",
            (t_arg, m_arg, c_arg),
        ).fetchall()
        now, changed, retired = _now(), [], []
        for row in rows:
            record = record_of(row)
            candidates = {p.id: p for k in (row["title_key"], row["main_key"]) for p in by_key.get(k, [])}
            if record.arxiv in ids:
                candidates[record.arxiv] = ids[record.arxiv]
            link = _best_arrival(record, candidates.values())
            if link is None or (row["score"] is not None and _points(link.score) <= int(row["score"])):
                continue
            holder = tx.execute(
                "SELECT key, score FROM venue_records WHERE slug = ? AND year = ? AND arxiv = ? AND key <> ?",
                (row["slug"], row["year"], link.arxiv, row["key"]),
            ).fetchone()
            if holder is not None and int(holder["score"] or 0) >= _points(link.score):
                continue  # the paper keeps its better record of this list
            changed.append(
                (link.arxiv, _points(link.score), link.arxiv, now, row["slug"], row["year"], row["key"])
            )
            retired.append(record.id)
        if changed:
            tx.executemany(
                "UPDATE venue_records SET arxiv = ?, score = ?, paper = ?, updated = ? "
                "WHERE slug = ? AND year = ? AND key = ?",
                changed,
            )
            self._retire(tx, retired)

    # -- reads ------------------------------------------------------------------------------------
    def venues_of(self, paper_ids: Sequence[str]) -> dict[str, list[VenueMark]]:
        """The venues of these papers (one query), newest year first; papers in none left out."""
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return {}
        where, arg = self.dialect.one_of("paper", ids)
        rows = self._rows(
            f"SELECT paper, {_COLUMNS.replace('paper, ', '')} FROM venue_records WHERE {where} "
            "ORDER BY paper, year DESC, slug",
            (arg,),
        )
        out: dict[str, list[VenueMark]] = {}
        for r in rows:
            out.setdefault(str(r["paper"]), []).append(mark_of(record_of(r)))
        return out

    def venue_entries(self, venue: str, year: int, status: str | None = None) -> list[VenueEntry]:
        """A venue's records of ``year`` in its list's order (``status``: only those, any case)."""
        sql = f"SELECT {_COLUMNS} FROM venue_records WHERE slug = ? AND year = ?"
        args: list[Any] = [venue_slug(venue), year]
        if status:
            sql += " AND lower(status) = ?"
            args.append(status.strip().lower())
        return [_entry(r) for r in self._rows(sql + " ORDER BY position", args)]

    def venue_entries_since(self, when: datetime) -> list[VenueEntry]:
        """Records first imported after ``when``, oldest import first, each list in its order."""
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM venue_records WHERE first_seen > ? "
            "ORDER BY first_seen, slug, year, position",
            (when.astimezone(UTC).isoformat(timespec="seconds"),),
        )
        return [_entry(r) for r in rows]

    def venue_statuses(self, venue: str, year: int) -> list[tuple[str, int]]:
        """A venue's counts by status in ``year``, most first."""
        rows = self._rows(
            "SELECT status, COUNT(*) AS n FROM venue_records WHERE slug = ? AND year = ? GROUP BY status",
            (venue_slug(venue), year),
        )
        return sorted(((str(r["status"]), int(r["n"])) for r in rows), key=lambda s: (-s[1], s[0]))

    def venue_list(self) -> list[VenueSummary]:
        """Every venue's list of each year, by name, newest year first."""
        rows = self._rows(
            "SELECT r.slug AS slug, r.year AS year, MIN(r.venue) AS venue, r.status AS status, "
            "COUNT(*) AS n, SUM(CASE WHEN r.arxiv IS NULL THEN 0 ELSE 1 END) AS linked, "
            "MIN(i.imported) AS imported FROM venue_records r "
            "LEFT JOIN venue_imports i ON i.slug = r.slug AND i.year = r.year "
            "GROUP BY r.slug, r.year, r.status"
        )
        grouped: dict[tuple[str, int], list[NamedRow]] = {}
        for r in rows:
            grouped.setdefault((str(r["slug"]), int(r["year"])), []).append(r)
        out = []
        for (_, year), group in sorted(grouped.items(), key=lambda g: (g[0][0], -g[0][1])):
            statuses = sorted(((str(r["status"]), int(r["n"])) for r in group), key=lambda s: (-s[1], s[0]))
            imported = group[0]["imported"]
            out.append(
                VenueSummary(
                    venue=str(group[0]["venue"]),
                    year=year,
                    records=sum(n for _, n in statuses),
                    linked=sum(int(r["linked"]) for r in group),
                    statuses=tuple(statuses),
                    imported=datetime.fromisoformat(str(imported)) if imported else None,
                )
            )
        return out

    def venue_papers(self, venue: str, year: int | None = None) -> list[str]:
        """The store papers of a venue's records (of every year when ``year`` is None), in list order."""
        sql = "SELECT paper FROM venue_records WHERE slug = ?"
        args: list[Any] = [venue_slug(venue)]
        if year is not None:
            sql += " AND year = ?"
            args.append(year)
        rows = self._rows(sql + " ORDER BY year DESC, position", args)
        return list(dict.fromkeys(str(r["paper"]) for r in rows))


def venue_paper_id_of(row: NamedRow) -> str:
    return record_of(row).id


def _text_of(paper: Paper) -> tuple[str, list[str], str]:
    return paper.title, paper.authors, paper.abstract


def _same_type(value: Any) -> Any:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class TitleIndex:
    """Stored arXiv papers by the keys of their titles, whole and without a subtitle
    (``sources/venue_match.title_keys``): a record's candidates, whatever its case, punctuation, LaTeX or
    accents, with a subtitle dropped or added."""

    def __init__(self, version: str) -> None:
        self.version = version
        self.whole: dict[str, list[str]] = {}
        self.main: dict[str, list[str]] = {}
        self.ends: dict[str, list[str]] = {}  # by the first and the last AFFIX letters of the whole key

    def add(self, paper_id: str, title: str) -> None:
        whole, main = title_keys(title)
        self.whole.setdefault(whole, []).append(paper_id)
        if main != whole:
            self.main.setdefault(main, []).append(paper_id)
        for end in _ends(whole):
            self.ends.setdefault(end, []).append(paper_id)

    def candidates(self, title: str) -> list[str]:
        """Papers whose title or main part has this title's key or its main part's, or whose key begins or
        ends as this one's (a word changed at the other end: ``title_agreement`` decides)."""
        whole, main = title_keys(title)
        found = [*self.whole.get(whole, ()), *self.main.get(whole, ())]
        if main != whole:
            found += [*self.whole.get(main, ()), *self.main.get(main, ())]
        for end in _ends(whole):
            bucket = self.ends.get(end, ())
            if len(bucket) <= COMMON_ENDS:  # "Large Language Models for …" begins too many titles
                found += bucket
        return list(dict.fromkeys(found))


def _ends(key: str) -> tuple[str, ...]:
    return (f"<{key[:AFFIX]}", f">{key[-AFFIX:]}") if len(key) >= AFFIX else ()


def _claimed(record: VenueRecord, papers: Mapping[str, tuple[str, list[str]]]) -> _Link | None:
    """The arXiv paper the record names (``papers``: stored titles and authors by id), when its title
    agrees."""
    if record.arxiv is None or record.arxiv not in papers:
        return None
    title, _ = papers[record.arxiv]
    if title_agreement(record.title, title) < CLAIMED_TITLE:
        return None
    return _Link(record.arxiv, _CLAIMED)


def _best(record: VenueRecord, candidates: Iterable[tuple[str, str, list[str]]]) -> _Link | None:
    """The candidate (id, title, authors) whose title and authors best agree with the record's, if any."""
    names = parsed_names(record.authors)
    if not names:
        return None  # never by title alone
    best: tuple[Agreement, str] | None = None
    for pid, title, authors in candidates:
        said = agreement(record.title, names, title, authors)
        if said.same_paper and (best is None or said.score > best[0].score):
            best = (said, pid)
    return _Link(best[1], best[0].score) if best else None


def _best_arrival(record: VenueRecord, papers: Iterable[Paper]) -> _Link | None:
    names = parsed_names(record.authors)
    best: _Link | None = None
    for p in papers:
        if p.id == record.arxiv and title_agreement(record.title, p.title) >= CLAIMED_TITLE:
            return _Link(p.id, _CLAIMED)
        said = agreement(record.title, names, p.title, p.authors) if names else None
        if said is not None and said.same_paper and (best is None or said.score > best.score):
            best = _Link(p.id, said.score)
    return best
