"""What ``papersift llm status`` shows, as one JSON shape (``LlmStatus``, whose models make the JSON): the
endpoint (never the key), the model, the local default's state, today's token usage against the budget, and
the latest failures.

``{"endpoint": URL | null, "model": str, "key": "set" | "unset", "available": bool,
"sources": {"url", "model": "env" | "home config" | "argument" | "default", "key": "env" | "key file" |
"argument" | "unset", "key_file": PATH | null}, "config": PATH (the home's config),
"local": {"enabled", "installed", "running", "url", "pid", "rss_bytes", "idle_minutes"},
"today": {"day", "tokens", "budget", "models": [{"model", "calls", "prompt_tokens", "completion_tokens"}]},
"failures": [{"at", "model", "reason"}],
"checks": {"failed": int, "reasons": {reason: count}}}``

``checks`` counts the stored texts that failed their checks (``reading/checks.py``), per reason: read from
each failure's stored message (its key ``check_<reason>``, kept as data: ``records/messages.stored``).
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import httpx

from papersift.llm import client, local
from papersift.records.json_model import Said, Shape
from papersift.records.messages import Message
from papersift.settings import CONFIG_NAME, origin

if TYPE_CHECKING:
    from papersift.settings import Settings
    from papersift.store import Store


CHECKS_COUNTED = 100_000  # the latest failed texts whose reasons are counted
CHECK_KEY = "check_"  # the key of a failed check's message: check_<reason> (records/english.py)


def shown_url(url: str) -> str:
    """A base URL as it may be shown: scheme, host, port and path (no user, password, query or fragment)."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return "(not a URL)"
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.scheme}://{parsed.host}{port}{parsed.path}".rstrip("/")


class Sources(Shape):
    """Where the endpoint's URL, the model and the key came from."""

    url: str
    model: str
    key: str
    key_file: str | None


class LocalDefault(Shape):
    """The local default model: enabled, installed, running (its URL, pid and memory), its idle limit."""

    enabled: bool
    installed: bool
    running: bool
    url: str | None
    pid: int | None
    rss_bytes: int | None
    idle_minutes: float


class ModelUsage(Shape):
    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int


class Today(Shape):
    day: str
    tokens: int
    budget: int | None
    models: list[ModelUsage]


class Failure(Shape):
    at: str
    model: str
    reason: Said  # a message (kept as data: records/messages.stored): its English in the JSON


class Checks(Shape):
    failed: int
    reasons: dict[str, int]


class LlmStatus(Shape):
    """The status of the language model in one configuration (see the module docstring)."""

    endpoint: str | None
    model: str
    key: str
    available: bool
    sources: Sources
    config: str
    local: LocalDefault
    today: Today
    failures: list[Failure]
    checks: Checks


def sources(settings: Settings) -> Sources:
    """Where the endpoint's URL, the model and the key came from (``papersift llm setup`` saves the first two
    in the home's config; the key comes from the environment or a key file, never the home)."""
    key = origin(settings, "llm_key") if settings.llm_key else "unset"
    return Sources.make(
        url=origin(settings, "llm_url"),
        model=origin(settings, "llm_model"),
        key=key,
        key_file=str(settings.llm_key_file) if key == "key file" else None,
    )


def status(settings: Settings, store: Store, failures: int = 10) -> LlmStatus:
    """The status of the language model in this configuration (see the module docstring)."""
    day = datetime.now(UTC).date()
    usage = store.llm_usage(day)
    running = local.state(settings)
    return LlmStatus.make(
        endpoint=shown_url(settings.llm_url) if settings.llm_url else running.url,
        model=client.model_name(settings),
        key="set" if settings.llm_key and settings.llm_key.get_secret_value() else "unset",
        available=client.available(settings),
        sources=sources(settings),
        config=str(settings.home / CONFIG_NAME),
        local=LocalDefault.made_of(
            running,
            enabled=settings.llm_local and not settings.llm_url,
            idle_minutes=settings.llm_idle_minutes,
        ),
        today=Today.make(
            day=day.isoformat(),
            tokens=sum(u.tokens for u in usage),
            budget=settings.llm_daily_tokens or None,
            models=[ModelUsage.made_of(u) for u in usage],
        ),
        failures=[Failure.made_of(f, at=f.at.isoformat()) for f in store.llm_failures(failures)],
        checks=_checks(store),
    )


def _checks(store: Store) -> Checks:
    """The latest failed texts that failed a check, per reason, most first."""
    counts = Counter(
        r.error.key.removeprefix(CHECK_KEY)
        for r in store.failed_readings(CHECKS_COUNTED)
        if isinstance(r.error, Message) and r.error.key.startswith(CHECK_KEY)
    )
    ranked = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return Checks.make(failed=sum(counts.values()), reasons=ranked)
