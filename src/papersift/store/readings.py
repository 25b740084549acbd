"""Generated texts, once for both SQL backends: a TL;DR, a translated title or abstract, a FAQ per paper
version, model, prompt version, language and kind, with its failure when it failed.

A generator first claims the row (``claim_reading``: one ``INSERT … ON CONFLICT DO NOTHING``, so of
several processes exactly one wins), calls the model, then finishes it (``finish_reading``: the text, or
None and why, kept as data: ``records/messages.stored``, and read back as the message).
A claim older than ``stale_before`` (its process was killed) may be taken over; a failed text is made again
only when asked (``retry_failed``). Each finished text bumps the ``readings_changed`` state counter, which
page caches key on.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from papersift.records.messages import restored, stored
from papersift.store.records import Reading, ReadingKey
from papersift.store.rows import now, parse_ts
from papersift.store.sql import NamedRow, SqlBase, Tx

READINGS_CHANGED = "readings_changed"
_KEY = "paper_id = ? AND version = ? AND model = ? AND prompt = ? AND lang = ? AND kind = ?"
_COLUMNS = "paper_id, version, model, prompt, lang, kind, state, text, error, made"


def _key_args(key: ReadingKey) -> tuple[str, int, str, str, str, str]:
    return (key.paper_id, key.version, key.model, key.prompt, key.lang, key.kind)


def _reading(row: NamedRow) -> Reading:
    key = ReadingKey(
        row["paper_id"], int(row["version"]), row["model"], row["prompt"], row["lang"], row["kind"]
    )
    error = row["error"] and restored(row["error"])
    return Reading(key, row["state"], row["text"], error, parse_ts(row["made"]))


class ReadingTables(SqlBase):
    """Generated texts over a backend's connection."""

    def claim_reading(self, key: ReadingKey, *, stale_before: datetime, retry_failed: bool = False) -> bool:
        """Whether this caller is now the one to make the text of ``key`` (a new row, a claim gone
        stale, or a failure when ``retry_failed``); False when it is made, failed or being made."""
        stamp = now().isoformat()
        with self._tx() as tx:
            added = tx.execute(
                f"INSERT INTO readings ({_COLUMNS.replace(', made', '')}, claimed) "
                "VALUES (?, ?, ?, ?, ?, ?, 'pending', NULL, NULL, ?) ON CONFLICT DO NOTHING",
                (*_key_args(key), stamp),
            ).rowcount
            if added > 0:
                return True
            taken = tx.execute(
                f"UPDATE readings SET state = 'pending', claimed = ?, text = NULL, error = NULL WHERE {_KEY} "
                "AND ((state = 'pending' AND claimed < ?) OR (state = 'failed' AND ? = 1))",
                (stamp, *_key_args(key), stale_before.isoformat(), int(retry_failed)),
            ).rowcount
            return taken > 0

    def finish_reading(self, key: ReadingKey, text: str | None, error: str | None = None) -> None:
        """Store the text made for a claimed ``key`` (or None and why it failed)."""
        with self._tx() as tx:
            tx.execute(
                f"UPDATE readings SET state = ?, text = ?, error = ?, made = ? WHERE {_KEY}",
                (
                    "done" if text is not None else "failed",
                    text,
                    error and stored(error),
                    now().isoformat(),
                    *_key_args(key),
                ),
            )
            self._bump_readings(tx)

    def release_reading(self, key: ReadingKey) -> None:
        """Give a claim back unfinished (the generator was stopped): the next caller makes it."""
        with self._tx() as tx:
            tx.execute(f"DELETE FROM readings WHERE {_KEY} AND state = 'pending'", _key_args(key))

    def reading(self, key: ReadingKey) -> Reading | None:
        row = self._one(f"SELECT {_COLUMNS} FROM readings WHERE {_KEY}", _key_args(key))
        return None if row is None else _reading(row)

    def readings_of(self, paper_ids: Sequence[str], lang: str, kinds: Sequence[str]) -> list[Reading]:
        """The finished texts (made or failed) of these papers in ``lang`` and ``kinds``, newest first."""
        if not paper_ids:
            return []
        where, arg = self.dialect.one_of("paper_id", list(paper_ids))
        kinds_where, kinds_arg = self.dialect.one_of("kind", list(kinds))
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM readings WHERE {where} AND lang = ? AND {kinds_where} "
            "AND state != 'pending' ORDER BY made DESC",
            (arg, lang, kinds_arg),
        )
        return [_reading(r) for r in rows]

    def failed_readings(self, limit: int = 100) -> list[Reading]:
        """The most recent failures (``papersift llm status``)."""
        rows = self._rows(
            f"SELECT {_COLUMNS} FROM readings WHERE state = 'failed' ORDER BY made DESC LIMIT ?", (limit,)
        )
        return [_reading(r) for r in rows]

    def readings_version(self) -> str:
        """Changes whenever a text is finished (page cache keys)."""
        return self.get_state(READINGS_CHANGED) or "0"

    def get_state(self, key: str) -> str | None:
        raise NotImplementedError

    def _bump_readings(self, tx: Tx) -> None:
        tx.execute(
            "INSERT INTO state (key, value) VALUES (?, '1') "
            "ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(state.value AS BIGINT) + 1 AS TEXT)",
            (READINGS_CHANGED,),
        )
