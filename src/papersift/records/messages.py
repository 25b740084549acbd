"""What papersift says to a reader (reasons, notes, errors) as typed messages: a key, its arguments and the
English template of each key. A ``Message`` is its English text (a ``str``: JSON, the CLI and every
comparison see exactly that sentence) that still knows its key and arguments, so a face can say it in the
reader's language from a catalog (``records/catalogs.py``; the English template is the catalog's msgid).
An error raised with a message (``ModelError(say("model_timeout", seconds="30"))``) is its English to
``str(e)``, and ``reason(e)`` gives the message. ``stored`` and ``restored``: a message kept in a text
column (a text's failure) as its English and what it was made of, and read back as the message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

from papersift.records.english import ENGLISH as ENGLISH  # re-exported: the faces read the templates here

Arg = str | int | float


class Message(str):
    """A message: its English text, with the ``key`` and ``args`` it was made of (an argument may itself
    be a Message: a face says it in the same language)."""

    key: str
    args: Mapping[str, Arg]

    def __new__(cls, key: str, **args: Arg) -> Message:
        self = super().__new__(cls, ENGLISH[key] % args)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "args", dict(args))
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Message is immutable")

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (the page cache, a worker) as what it was made of
        return (_remade, (self.key, dict(self.args)))

    def english(self) -> str:
        """The English sentence, a plain ``str``."""
        return str.__str__(self)


def _remade(key: str, args: dict[str, Arg]) -> Message:
    return Message(key, **args)


def reason(error: BaseException) -> str:
    """What ``error`` was raised saying: its Message as it is, else its text."""
    said = error.args[0] if len(error.args) == 1 else None
    return said if isinstance(said, Message) else str(error)


_STORED = re.compile(r" \[say (?=\w+\()")
_HEAD = re.compile(r"(\w+)\(")
_NAME = re.compile(r"(?:, )?(\w+)=")
_STRING = json.JSONDecoder().raw_decode


def stored(text: str, limit: int | None = None) -> str:
    """How a text column keeps ``text``: a message as its English, then in brackets what it was made of
    (``timed out after 30 s [say model_timeout(seconds="30")]``, as a failed check's ``[check …]`` is in
    ``reading/checks.py``); any other text as it is. Within ``limit`` characters when given: a message's
    long arguments (an endpoint's answer) are shortened with "…" so that it stays whole, never cut short."""
    if not isinstance(text, Message):
        return text[:limit]
    kept, longest = text, max(_lengths(text), default=0)
    while True:
        written = f"{kept.english()} [say {_call(kept)}]"
        if limit is None or len(written) <= limit or longest <= 1:
            return written[:limit]
        longest = max(1, longest - (len(written) - limit + 1) // 2)  # an argument is written twice
        kept = _shortened(text, longest)


def _lengths(message: Message) -> Iterator[int]:
    for v in message.args.values():
        yield from _lengths(v) if isinstance(v, Message) else (len(str(v)),)


def _shortened(message: Message, most: int) -> Message:
    """``message`` with each argument of more than ``most`` characters cut to ``most`` (the last one "…")."""
    args = {
        name: _shortened(v, most)
        if isinstance(v, Message)
        else v
        if len(str(v)) <= most
        else f"{str(v)[: most - 1]}…"
        for name, v in message.args.items()
    }
    return Message(message.key, **args)


def _call(message: Message) -> str:
    """``key(name="value", name=key(…))``: the message's key and arguments, a message argument as a call."""
    args = (
        f"{name}={_call(v) if isinstance(v, Message) else json.dumps(str(v), ensure_ascii=False)}"
        for name, v in message.args.items()
    )
    return f"{message.key}({', '.join(args)})"


def restored(text: str) -> str:
    """A text as ``stored`` kept it: the message again; any other text (one of a key not known here too) as
    it is."""
    for found in _STORED.finditer(text):
        try:
            message, end = _parsed(text, found.end())
        except (KeyError, TypeError, ValueError):
            continue
        if text[end:] == "]":
            return message
    return text


def _parsed(call: str, at: int) -> tuple[Message, int]:
    """The message written as ``_call`` writes it at ``at`` in ``call``, and where it ends."""
    head = _HEAD.match(call, at)
    if head is None:
        raise ValueError(call)
    args: dict[str, Arg] = {}
    at = head.end()
    while not call.startswith(")", at):
        name = _NAME.match(call, at)
        if name is None:
            raise ValueError(call)
        at = name.end()
        args[name.group(1)], at = _STRING(call, at) if call.startswith('"', at) else _parsed(call, at)
    return Message(head.group(1), **args), at + 1


def say(key: str, **args: Arg) -> Message:
    """The message ``key`` with ``args`` (the English template's placeholders)."""
    return Message(key, **args)


def counted(key: str, n: int, **args: Arg) -> Message:
    """``key`` with the count ``n``: its singular form ``key_1`` when ``n`` is 1."""
    return Message(f"{key}_1" if n == 1 else key, n=n, **args)


def dated(key: str, day: date, **args: Arg) -> Message:
    """``key`` naming ``day`` by its short weekday and month (``weekday_short_N``, ``month_short_N``), its day
    of the month ``dd`` and its ``year``."""
    weekday, month = say(f"weekday_short_{day.weekday()}"), say(f"month_short_{day.month}")
    return say(key, weekday=weekday, dd=f"{day:%d}", month=month, year=day.year, **args)


def venue_badge(venue: str, year: int, status: str) -> Message:
    """A venue's badge on a paper: ``COLM 2025 · Poster`` (``COLM 2025`` for a record with no status)."""
    if not status:
        return say("venue_badge_bare", venue=venue, year=year)
    return say("venue_badge", venue=venue, year=year, status=status)


def invalid(error: Mapping[str, Any], where: str) -> Message:
    """One of pydantic's validation errors (an entry of ``ValidationError.errors()``) as a sentence of the
    catalogs, for the request or setting ``where``: what was wrong, with the value given where it helps; an
    error one of our validators raised with a message is that message."""
    kind, ctx, value = error["type"], error.get("ctx") or {}, str(error.get("input", ""))[:80]
    raised = reason(ctx["error"]) if isinstance(ctx.get("error"), BaseException) else None
    if isinstance(raised, Message):
        return raised
    if kind in ("literal_error", "enum"):
        return say("invalid_choice", where=where, choices=str(ctx.get("expected", "")))
    if kind in ("int_parsing", "int_from_float"):
        return say("invalid_number", where=where, value=value)
    if kind == "float_parsing":
        return say("invalid_decimal", where=where, value=value)
    if kind == "bool_parsing":
        return say("invalid_bool", where=where, value=value)
    if kind in ("greater_than_equal", "greater_than"):
        return say("invalid_too_small", where=where, limit=str(ctx.get("ge", ctx.get("gt", ""))))
    if kind in ("less_than_equal", "less_than"):
        return say("invalid_too_large", where=where, limit=str(ctx.get("le", ctx.get("lt", ""))))
    if kind == "missing":
        return say("invalid_missing", where=where)
    if kind == "string_too_long":
        return say("invalid_too_long", where=where, limit=str(ctx.get("max_length", "")))
    return say("invalid_value", where=where)
