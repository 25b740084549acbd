"""The language model's bookkeeping: tokens used per (UTC day, model) and the calls that failed (when, which
model, why), for the daily budget and ``papersift llm status``.

``ModelTables`` is mixed into both SQL backends' stores (the SQL is written once, over ``sql.SqlBase``); the
tables are ``schema.LLM`` (SQLite migration 6, PostgreSQL migration 6). Failures older than
``FAILURES_KEPT_DAYS`` are dropped as new ones are recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from papersift.records.messages import restored, stored
from papersift.store.sql import SqlBase

FAILURES_KEPT_DAYS = 30


@dataclass(frozen=True, slots=True)
class ModelUsage:
    """The calls one model answered on one UTC day, and the tokens they used."""

    day: date
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class ModelFailure:
    """A model call that failed: when (UTC), the model asked, and the one-line reason shown to readers."""

    at: datetime
    model: str
    reason: str


class ModelTables(SqlBase):
    """Token usage and failures of model calls, over a backend's connection."""

    def add_llm_usage(self, day: date, model: str, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one answered call of ``model`` on ``day`` and its tokens."""
        self._change(
            "INSERT INTO llm_usage AS u (day, model, calls, prompt_tokens, completion_tokens) "
            "VALUES (?, ?, 1, ?, ?) ON CONFLICT (day, model) DO UPDATE SET calls = u.calls + 1, "
            "prompt_tokens = u.prompt_tokens + excluded.prompt_tokens, "
            "completion_tokens = u.completion_tokens + excluded.completion_tokens",
            [day.isoformat(), model, max(0, prompt_tokens), max(0, completion_tokens)],
        )

    def llm_usage(self, since: date, until: date | None = None) -> list[ModelUsage]:
        """Usage per (day, model) from ``since`` to ``until`` (default: ``since`` alone), by day, model."""
        rows = self._rows(
            "SELECT day, model, calls, prompt_tokens, completion_tokens FROM llm_usage "
            "WHERE day >= ? AND day <= ? ORDER BY day, model",
            [since.isoformat(), (until or since).isoformat()],
        )
        return [
            ModelUsage(
                day=date.fromisoformat(str(r["day"])),
                model=str(r["model"]),
                calls=int(r["calls"]),
                prompt_tokens=int(r["prompt_tokens"]),
                completion_tokens=int(r["completion_tokens"]),
            )
            for r in rows
        ]

    def add_llm_failure(self, model: str, reason: str, at: datetime | None = None) -> None:
        """Record a failed call (``at`` defaults to now; why kept as data within 1000 characters,
        ``records/messages.stored``) and forget failures older than the kept days."""
        when = (at or datetime.now(UTC)).astimezone(UTC)
        with self._tx() as tx:
            tx.execute(
                "INSERT INTO llm_failures (at, model, reason) VALUES (?, ?, ?)",
                [when.isoformat(), model, stored(reason, 1000)],
            )
            tx.execute(
                "DELETE FROM llm_failures WHERE at < ?",
                [(when - timedelta(days=FAILURES_KEPT_DAYS)).isoformat()],
            )

    def llm_failures(self, limit: int = 20, since: datetime | None = None) -> list[ModelFailure]:
        """The latest failures (since ``since`` when given), newest first."""
        after = (since or datetime(1970, 1, 1, tzinfo=UTC)).astimezone(UTC).isoformat()
        rows = self._rows(
            "SELECT at, model, reason FROM llm_failures WHERE at >= ? ORDER BY at DESC LIMIT ?",
            [after, limit],
        )
        return [
            ModelFailure(
                at=datetime.fromisoformat(str(r["at"])),
                model=str(r["model"]),
                reason=restored(str(r["reason"])),
            )
            for r in rows
        ]
