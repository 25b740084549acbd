"""Papers' full text, once for both SQL backends: what was read from each fetched version (zlib-compressed
orjson of the ``FullText``, with its source, sections and words beside it), or why it could not be read; the
newest version's references as edges (citing paper, position, the entry, the store paper it names) and its
code links; Semantic Scholar's citation counts with the day they were asked.

A version is stored in one transaction (``put_fulltext``): its text, its references and its code links
replace those of an older version, never those of a newer one, so a run killed at any instant leaves each
paper as it was or as fetched. Every write bumps ``readings_changed`` (the page caches' key for what is
shown about a paper).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, date, datetime
from typing import Any, cast

import orjson

from papersift.records.messages import restored, stored
from papersift.sources.fulltext import CodeKind, CodeLink, FullText, FullTextFrom, Reference, Section
from papersift.store.sql import NamedRow, SqlBase, Tx


def now() -> datetime:
    return datetime.now(UTC)


def parse_ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


_REF_COLUMNS = "key, text, arxiv_id, doi, title, year, url, resolved"
_ZLIB_LEVEL = 6


@dataclass(frozen=True, slots=True)
class FullTextInfo:
    """What is stored for one version of a paper: ``state`` 'done' (``source``, ``sections``, ``words`` and
    the compressed ``size`` in bytes) or 'failed' (``error``)."""

    paper_id: str
    version: int
    state: str
    source: FullTextFrom | None
    sections: int
    words: int
    size: int
    error: str | None
    fetched: datetime | None


@dataclass(frozen=True, slots=True)
class CitationCount:
    """Semantic Scholar's count of the papers citing ``paper_id`` (and of its references), asked on
    ``day``."""

    paper_id: str
    citations: int
    references: int | None
    s2_id: str | None
    day: date


@dataclass(frozen=True, slots=True)
class Citing:
    """A store paper that cites another: its id and title."""

    paper_id: str
    title: str


@dataclass(frozen=True, slots=True)
class PaperLinks:
    """What a face shows of a paper beyond its record: its full text's summary, references, the store's
    papers citing it, code links and citation count (empty / None when there are none)."""

    fulltext: FullTextInfo | None = None
    references: tuple[Reference, ...] = ()
    cited_by: tuple[Citing, ...] = ()
    code: tuple[CodeLink, ...] = ()
    citations: CitationCount | None = None


def pack(text: FullText) -> bytes:
    """A full text as the store keeps it: zlib-compressed orjson."""
    return zlib.compress(orjson.dumps(text), _ZLIB_LEVEL)


def unpack(blob: bytes) -> FullText:
    """The ``FullText`` of ``pack``'s bytes."""
    data: dict[str, Any] = orjson.loads(zlib.decompress(bytes(blob)))
    data["sections"] = tuple(Section(**s) for s in data["sections"])
    data["captions"] = tuple(data.get("captions") or ())
    data["references"] = tuple(Reference(**r) for r in data.get("references") or ())
    data["code"] = tuple(CodeLink(**c) for c in data.get("code") or ())
    data["macros"] = tuple((name, body) for name, body in data.get("macros") or ())
    known = {f.name for f in fields(FullText)}
    return FullText(**{k: v for k, v in data.items() if k in known})


def _info(row: NamedRow) -> FullTextInfo:
    return FullTextInfo(
        str(row["paper_id"]),
        int(row["version"]),
        str(row["state"]),
        cast("FullTextFrom | None", row["source"]),
        int(row["sections"]),
        int(row["words"]),
        int(row["size"]),
        row["error"] and restored(row["error"]),
        parse_ts(row["fetched"]),
    )


def _reference(row: NamedRow) -> Reference:
    year = row["year"]
    return Reference(
        key=row["key"],
        text=row["text"],
        arxiv_id=row["arxiv_id"],
        doi=row["doi"],
        title=row["title"],
        year=None if year is None else int(year),
        url=row["url"],
        resolved=row["resolved"],
    )


def _code(row: NamedRow) -> CodeLink:
    return CodeLink(str(row["url"]), cast("CodeKind", row["kind"]), bool(row["own"]))


def _count(row: NamedRow) -> CitationCount:
    refs = row["refs"]
    return CitationCount(
        str(row["paper_id"]),
        int(row["citations"]),
        None if refs is None else int(refs),
        row["s2_id"],
        date.fromisoformat(str(row["day"])),
    )


_INFO = "paper_id, version, state, source, sections, words, size, error, fetched"


class FullTextTables(SqlBase):
    """Full texts, references, code links and citation counts over a backend's connection."""

    # -- writing ------------------------------------------------------------------------------------
    def put_fulltext(self, paper_id: str, version: int, text: FullText) -> FullTextInfo:
        """Store what was read from ``version`` of the paper (its references' ``resolved`` as given); its
        references and code links replace an older version's (a newer version's stay)."""
        blob = pack(text)
        stamp = now().isoformat()
        with self._tx() as tx:
            self._put_row(
                tx, paper_id, version, "done", text.source, len(text.sections), text.words, blob, None
            )
            newer = tx.execute(
                "SELECT 1 AS newer FROM fulltexts WHERE paper_id = ? AND version > ? AND state = 'done'",
                (paper_id, version),
            ).fetchall()
            if not newer:
                tx.execute("DELETE FROM paper_references WHERE paper_id = ?", (paper_id,))
                tx.execute("DELETE FROM code_links WHERE paper_id = ?", (paper_id,))
                tx.executemany(
                    f"INSERT INTO paper_references (paper_id, position, version, {_REF_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            paper_id,
                            i,
                            version,
                            r.key,
                            r.text,
                            r.arxiv_id,
                            r.doi,
                            r.title,
                            r.year,
                            r.url,
                            r.resolved,
                        )
                        for i, r in enumerate(text.references, 1)
                    ],
                )
                tx.executemany(
                    "INSERT INTO code_links (paper_id, position, url, kind, own) VALUES (?, ?, ?, ?, ?)",
                    [(paper_id, i, c.url, c.kind, int(c.own)) for i, c in enumerate(text.code, 1)],
                )
            self._bump_readings(tx)
        return FullTextInfo(
            paper_id,
            version,
            "done",
            text.source,
            len(text.sections),
            text.words,
            len(blob),
            None,
            parse_ts(stamp),
        )

    def put_fulltext_failure(self, paper_id: str, version: int, error: str) -> None:
        """Record that ``version`` of the paper could not be fetched or read (a text stored before stays; why
        kept as data, ``records/messages.stored``, and read back as the message)."""
        with self._tx() as tx:
            self._put_row(tx, paper_id, version, "failed", None, 0, 0, None, stored(error))

    def _put_row(
        self,
        tx: Tx,
        paper_id: str,
        version: int,
        state: str,
        source: str | None,
        sections: int,
        words: int,
        blob: bytes | None,
        error: str | None,
    ) -> None:
        tx.execute(
            "INSERT INTO fulltexts (paper_id, version, state, source, sections, words, size, body, error, "
            "fetched) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (paper_id, version) DO UPDATE SET "
            "state = excluded.state, source = excluded.source, sections = excluded.sections, "
            "words = excluded.words, size = excluded.size, body = excluded.body, error = excluded.error, "
            "fetched = excluded.fetched",
            (
                paper_id,
                version,
                state,
                source,
                sections,
                words,
                len(blob or b""),
                blob,
                error,
                now().isoformat(),
            ),
        )

    def set_resolved(self, edges: Sequence[tuple[str, int, str | None]]) -> int:
        """Set the store paper that references name: (citing paper, position, resolved id or None)."""
        if not edges:
            return 0
        with self._tx() as tx:
            tx.executemany(
                "UPDATE paper_references SET resolved = ? WHERE paper_id = ? AND position = ?",
                [(resolved, pid, pos) for pid, pos, resolved in edges],
            )
            self._bump_readings(tx)
        return len(edges)

    def put_citation_counts(self, counts: Sequence[CitationCount]) -> None:
        """Keep Semantic Scholar's counts (a later count of a paper replaces the earlier)."""
        if not counts:
            return
        with self._tx() as tx:
            tx.executemany(
                "INSERT INTO citation_counts (paper_id, citations, refs, s2_id, day) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (paper_id) DO UPDATE SET citations = excluded.citations, refs = excluded.refs, "
                "s2_id = excluded.s2_id, day = excluded.day",
                [(c.paper_id, c.citations, c.references, c.s2_id, c.day.isoformat()) for c in counts],
            )
            self._bump_readings(tx)

    # -- reading ------------------------------------------------------------------------------------
    def _of_papers(self, select: str, paper_ids: Sequence[str], then: str = "") -> list[NamedRow]:
        """The rows ``select`` (``SELECT … FROM`` a table with a ``paper_id`` column) reads of these papers,
        ``then`` (more conditions, an order) after the match; none for no papers."""
        if not paper_ids:
            return []
        where, arg = self.dialect.one_of("paper_id", list(paper_ids))
        return self._rows(f"{select} WHERE {where}{then}", (arg,))

    def fulltext_states(self, paper_ids: Sequence[str]) -> dict[tuple[str, int], str]:
        """Every stored (paper, version) of these papers and its state ('done' or 'failed')."""
        rows = self._of_papers("SELECT paper_id, version, state FROM fulltexts", paper_ids)
        return {(str(r["paper_id"]), int(r["version"])): str(r["state"]) for r in rows}

    def fulltext_info(self, paper_ids: Sequence[str]) -> dict[str, FullTextInfo]:
        """The newest stored text of each of these papers (papers without one left out)."""
        rows = self._of_papers(
            f"SELECT {_INFO} FROM fulltexts", paper_ids, " AND state = 'done' ORDER BY version"
        )
        return {str(r["paper_id"]): _info(r) for r in rows}  # the newest version last wins

    def fulltext(self, paper_id: str) -> FullText | None:
        """The newest stored full text of the paper, its references resolved as stored; None without one."""
        row = self._one(
            "SELECT body FROM fulltexts WHERE paper_id = ? AND state = 'done' ORDER BY version DESC LIMIT 1",
            (paper_id,),
        )
        if row is None or row["body"] is None:
            return None
        text = unpack(row["body"])
        refs = self.references(paper_id)
        return replace(text, references=tuple(refs) or text.references)

    def references(self, paper_id: str) -> list[Reference]:
        """The paper's references in its order (those of its newest fetched version)."""
        rows = self._rows(
            f"SELECT {_REF_COLUMNS} FROM paper_references WHERE paper_id = ? ORDER BY position", (paper_id,)
        )
        return [_reference(r) for r in rows]

    def cited_by(self, paper_id: str) -> list[Citing]:
        """The store's papers whose references name this paper, newest id first."""
        return self._citing([paper_id]).get(paper_id, [])

    def code_links(self, paper_id: str) -> list[CodeLink]:
        """The paper's code links, its own first as read."""
        rows = self._rows(
            "SELECT url, kind, own FROM code_links WHERE paper_id = ? ORDER BY position", (paper_id,)
        )
        return [_code(r) for r in rows]

    def citation_counts(self, paper_ids: Sequence[str]) -> dict[str, CitationCount]:
        rows = self._of_papers("SELECT paper_id, citations, refs, s2_id, day FROM citation_counts", paper_ids)
        return {str(r["paper_id"]): _count(r) for r in rows}

    def unresolved_references(
        self, limit: int = 10_000, after: tuple[str, int] = ("", 0)
    ) -> list[tuple[str, int, Reference]]:
        """References naming no store paper yet, in (paper, position) order after ``after``: what a
        resolution pass looks at again once new papers arrived."""
        rows = self._rows(
            f"SELECT paper_id, position, {_REF_COLUMNS} FROM paper_references WHERE resolved IS NULL "
            "AND (paper_id > ? OR (paper_id = ? AND position > ?)) ORDER BY paper_id, position LIMIT ?",
            (after[0], after[0], after[1], limit),
        )
        return [(str(r["paper_id"]), int(r["position"]), _reference(r)) for r in rows]

    def _citing(self, paper_ids: Sequence[str]) -> dict[str, list[Citing]]:
        where, arg = self.dialect.one_of("r.resolved", list(paper_ids))
        rows = self._rows(
            "SELECT DISTINCT r.resolved AS cited, r.paper_id AS paper_id, p.title AS title "
            f"FROM paper_references r JOIN papers p ON p.id = r.paper_id WHERE {where} AND NOT p.deleted "
            "ORDER BY r.paper_id DESC",
            (arg,),
        )
        found: dict[str, list[Citing]] = {}
        for r in rows:
            found.setdefault(str(r["cited"]), []).append(Citing(str(r["paper_id"]), str(r["title"])))
        return found

    def paper_links(self, paper_ids: Sequence[str]) -> dict[str, PaperLinks]:
        """What faces show of these papers beyond their records (a few queries for all of them); papers with
        nothing stored are left out."""
        ids = list(dict.fromkeys(paper_ids))
        if not ids:
            return {}
        info = self.fulltext_info(ids)
        in_order = " ORDER BY paper_id, position"
        refs: dict[str, list[Reference]] = {}
        for r in self._of_papers(f"SELECT paper_id, {_REF_COLUMNS} FROM paper_references", ids, in_order):
            refs.setdefault(str(r["paper_id"]), []).append(_reference(r))
        code: dict[str, list[CodeLink]] = {}
        for r in self._of_papers("SELECT paper_id, url, kind, own FROM code_links", ids, in_order):
            code.setdefault(str(r["paper_id"]), []).append(_code(r))
        citing = self._citing(ids)
        counts = self.citation_counts(ids)
        out: dict[str, PaperLinks] = {}
        for pid in ids:
            if pid in info or pid in refs or pid in code or pid in citing or pid in counts:
                out[pid] = PaperLinks(
                    info.get(pid),
                    tuple(refs.get(pid, ())),
                    tuple(citing.get(pid, ())),
                    tuple(code.get(pid, ())),
                    counts.get(pid),
                )
        return out

    def _bump_readings(self, tx: Tx) -> None:
        raise NotImplementedError
