"""Accounts and sessions, once for both SQL backends: readers, their sessions (stored only as hashes),
login failures, interests, and whether a reader counts in the lab's signals.

``AccountTables`` is mixed into each backend's store. Every query names the reader, so one reader's rows
are never read or changed through another reader's calls.
"""

from __future__ import annotations

from datetime import datetime
from typing import Unpack

import orjson

from papersift.records.messages import say
from papersift.store import StoreError
from papersift.store.records import Account, AccountChanges, Interests
from papersift.store.rows import account_from_row, now, parse_ts
from papersift.store.sql import SqlBase

_READER = "id, name, password_hash, feed_token, email, created"
_R_READER = ", ".join(f"r.{c} AS {c}" for c in _READER.split(", "))  # the same, from ``readers r``


class AccountTables(SqlBase):
    """Readers, sessions and login failures over a backend's connection."""

    def add_account(
        self, name: str, password_hash: str | None, feed_token: str, email: str | None = None
    ) -> Account:
        name = name.strip()
        if not name or len(name) > 64:
            raise StoreError(say("reader_name_length"))
        try:
            with self._tx() as tx:
                row = tx.execute(
                    f"INSERT INTO readers (name, password_hash, feed_token, email, created) "
                    f"VALUES (?, ?, ?, ?, ?) RETURNING {_READER}",
                    (name, password_hash, feed_token, email, now().isoformat()),
                ).fetchall()[0]
        except self.dialect.integrity_errors as e:
            raise StoreError(say("reader_exists", name=repr(name))) from e
        return account_from_row(row)

    def _one_account(self, where: str, arg: object) -> Account | None:
        row = self._one(f"SELECT {_READER} FROM readers WHERE {where}", (arg,))
        return account_from_row(row) if row else None

    def account(self, name: str) -> Account | None:
        return self._one_account("name = ?", name.strip())

    def account_by_id(self, reader_id: int) -> Account | None:
        return self._one_account("id = ?", reader_id)

    def account_by_token(self, feed_token: str) -> Account | None:
        return self._one_account("feed_token = ?", feed_token)

    def accounts(self) -> list[Account]:
        return [account_from_row(r) for r in self._rows(f"SELECT {_READER} FROM readers ORDER BY id")]

    def update_account(self, reader_id: int, **changes: Unpack[AccountChanges]) -> None:
        with self._tx() as tx:
            for column in ("password_hash", "email", "feed_token"):
                if (value := changes.get(column)) is not None:
                    tx.execute(f"UPDATE readers SET {column} = ? WHERE id = ?", (value, reader_id))

    def add_session(self, reader_id: int, token_hash: str, expires: datetime) -> None:
        with self._tx() as tx:
            tx.execute("DELETE FROM sessions WHERE expires < ?", (now().isoformat(),))
            tx.execute(
                "INSERT INTO sessions (token_hash, reader, expires) VALUES (?, ?, ?)",
                (token_hash, reader_id, expires.isoformat()),
            )

    def session_account(self, token_hash: str) -> Account | None:
        row = self._one(
            f"SELECT {_R_READER} FROM sessions s "
            "JOIN readers r ON r.id = s.reader WHERE s.token_hash = ? AND s.expires > ?",
            (token_hash, now().isoformat()),
        )
        return account_from_row(row) if row else None

    def drop_session(self, token_hash: str) -> None:
        self._change("DELETE FROM sessions WHERE token_hash = ?", (token_hash,))

    def add_login_failure(self, name: str, address: str | None = None) -> None:
        self._change(
            "INSERT INTO login_failures (name, address, at) VALUES (?, ?, ?)",
            (name, address, now().isoformat()),
        )

    def login_failures(
        self, since: datetime, *, name: str | None = None, address: str | None = None
    ) -> tuple[int, datetime | None]:
        column, value = ("name", name) if address is None else ("address", address)
        row = self._one(
            f"SELECT COUNT(*) AS n, MAX(at) AS last FROM login_failures WHERE {column} = ? AND at >= ?",
            (value, since.isoformat()),
        )
        return (int(row["n"]), parse_ts(row["last"])) if row else (0, None)

    def prune_logins(self, failures_before: datetime) -> int:
        with self._tx() as tx:
            failures = tx.execute(
                "DELETE FROM login_failures WHERE at < ?", (failures_before.isoformat(),)
            ).rowcount
            sessions = tx.execute("DELETE FROM sessions WHERE expires < ?", (now().isoformat(),)).rowcount
        return failures + sessions

    # -- interests --------------------------------------------------------------------------------
    def interests(self, reader_id: int) -> Interests:
        row = self._one("SELECT interests FROM readers WHERE id = ?", (reader_id,))
        data = orjson.loads(row["interests"]) if row else {}
        return Interests(**{k: tuple(v) for k, v in data.items() if k in Interests.__slots__})

    def set_interests(self, reader_id: int, interests: Interests) -> None:
        data = {k: list(getattr(interests, k)) for k in Interests.__slots__}
        self._change(
            "UPDATE readers SET interests = ? WHERE id = ?", (orjson.dumps(data).decode(), reader_id)
        )

    # -- the lab's counts -------------------------------------------------------------------------
    def counted(self, reader_id: int) -> bool:
        """Whether the reader's saves and ratings count in the lab's signals (the default)."""
        row = self._one("SELECT counted FROM readers WHERE id = ?", (reader_id,))
        return bool(row and row["counted"])

    def set_counted(self, reader_id: int, counted: bool) -> None:
        self._change("UPDATE readers SET counted = ? WHERE id = ?", (int(counted), reader_id))
