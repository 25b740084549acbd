"""What papersift says to a reader (reasons, notes, errors, the CLI's lines) as typed messages: a key and
its arguments, said from the one table of English (``records/english.py``) or a catalog (``spoken``). A
``Message`` is its English text (a ``str``: JSON, the CLI and every comparison see exactly that sentence)
that still knows its key and arguments, so a face can say it in the reader's language from a catalog
(``records/catalogs.py``; the English text is the catalog's msgid).
An error raised with a message (``ModelError(say("model_timeout", seconds="30"))``) is its English to
``str(e)``, and ``reason(e)`` gives the message. ``to_data`` and ``from_data``: a message as data (its key,
its arguments, its English), and back; ``stored`` and ``restored``: that data as the JSON text a column keeps
(a failure), never parsed from English.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from gettext import NullTranslations
from typing import Any, cast

import orjson

from papersift.records.english import ENGLISH as ENGLISH  # re-exported: the faces read the templates here
from papersift.records.english import DatePattern, ListPattern, Plural

Arg = str | int | float


class Message(str):
    """A message: its English text, with the ``key`` and ``args`` it was made of (an argument may itself
    be a Message: a face says it in the same language)."""

    key: str
    args: Mapping[str, Arg]

    def __new__(cls, key: str, **args: Arg) -> Message:
        self = super().__new__(cls, spoken(key, args))
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


ENGLISH_CATALOG = NullTranslations()  # English: the table's texts as they are


def spoken(
    key: str, args: Mapping[str, Any], catalog: NullTranslations = ENGLISH_CATALOG, lang: str = "en"
) -> str:
    """The text of ``key`` with ``args`` (already said in ``lang``) from ``catalog``: a ``Plural`` by its
    count ``n`` (``npgettext``), a ``DatePattern`` its ``day`` as Babel formats it in ``lang``, a
    ``ListPattern`` its items ``0``, ``1``, … as a list of ``lang``; any other text with its placeholders
    filled (``%(name)s``)."""
    english = ENGLISH[key]
    if isinstance(english, Plural):
        return catalog.npgettext(key, english.one, english.other, int(args["n"])) % args
    text = catalog.pgettext(key, english)
    if isinstance(english, DatePattern):
        from babel.dates import format_date

        return format_date(date.fromisoformat(str(args["day"])), text, locale=lang)
    if isinstance(english, ListPattern):
        return joined([str(args[str(n)]) for n in range(len(args))], text, lang)
    return text % args


def joined(items: Sequence[str], style: str, lang: str) -> str:
    """``items`` as a list of ``lang`` in ``style`` (``records/english.ListPattern``): Babel's
    ``format_list``, or for ``series`` every item joined by the standard style's middle pattern."""
    from babel import Locale
    from babel.lists import format_list

    if style != "series":
        return format_list(list(items), style=cast(Any, style), locale=lang)  # a style the catalog names
    middle = Locale.parse(lang).list_patterns["standard"]["middle"]
    said = items[-1] if items else ""
    for item in reversed(items[:-1]):
        said = middle.format(item, said)
    return said


def reason(error: BaseException) -> str:
    """What ``error`` was raised saying: its Message as it is, else its text."""
    said = error.args[0] if len(error.args) == 1 else None
    return said if isinstance(said, Message) else str(error)


def to_data(said: str) -> dict[str, Any]:
    """``said`` as data: a message as its ``key``, its ``args`` (a message argument as data too, a number as
    a number, anything else as text) and its English ``text``; any other text as ``{"text": …}``."""
    if not isinstance(said, Message):
        return {"text": str(said)}
    args = {
        name: to_data(v) if isinstance(v, Message) else v if isinstance(v, int | float) else str(v)
        for name, v in said.args.items()
    }
    return {"key": said.key, "args": args, "text": said.english()}


def from_data(data: Mapping[str, Any]) -> str:
    """What ``to_data`` made, again: the message; its English ``text`` when this version cannot make it (a
    key it does not know, a template asking for other arguments); the text of any other text."""
    if "key" in data:
        args = {name: from_data(v) if isinstance(v, dict) else v for name, v in data["args"].items()}
        try:
            return Message(data["key"], **args)
        except (KeyError, TypeError, ValueError):
            pass
    return str(data["text"])


def stored(said: str, limit: int | None = None) -> str:
    """How a column keeps what was said (a failure): the JSON text of ``to_data``. Within ``limit``
    characters when given: long arguments (an endpoint's answer), or a long text, are shortened with "…" so
    that what is kept stays whole."""
    kept, longest = said, max(_lengths(said), default=0)
    while True:
        written = orjson.dumps(to_data(kept)).decode()
        if limit is None or len(written) <= limit or longest <= 1:
            return written
        longest = max(1, longest - (len(written) - limit + 1) // 2)  # an argument is written twice or more
        kept = _shortened(said, longest)


def restored(kept: str) -> str:
    """What ``stored`` kept, again: the message, or the text (``from_data``)."""
    return from_data(orjson.loads(kept))


def _lengths(said: str) -> Iterator[int]:
    """The lengths of what ``_shortened`` may cut: a text, or each argument of a message (numbers aside)."""
    if not isinstance(said, Message):
        yield len(said)
        return
    for v in said.args.values():
        if not isinstance(v, int | float):
            yield from _lengths(v if isinstance(v, str) else str(v))


def _shortened(said: str, most: int) -> str:
    """``said`` with a text, or each argument of a message, of more than ``most`` characters cut to ``most``,
    the last one "…"."""
    if not isinstance(said, Message):
        return said if len(said) <= most else f"{said[: most - 1]}…"
    args = {
        name: v if isinstance(v, int | float) else _shortened(v if isinstance(v, str) else str(v), most)
        for name, v in said.args.items()
    }
    return Message(said.key, **args)


def say(key: str, **args: Arg) -> Message:
    """The message ``key`` with ``args`` (the English template's placeholders)."""
    return Message(key, **args)


def counted(key: str, n: int, **args: Arg) -> Message:
    """``key`` (a ``Plural`` of the table) with the count ``n``: its form for ``n`` in each language."""
    return Message(key, n=n, **args)


def dated(key: str, day: date, **args: Arg) -> Message:
    """``day`` said in the form ``key`` (a ``DatePattern`` of the table: ``listing_day``, ``digest_day``,
    ``weekday``); or the message ``key`` with ``args``, its argument ``day`` said as a listing's day."""
    if isinstance(ENGLISH[key], DatePattern):
        # a datetime's day, as ISO writes it: year 523 is "0523" (strftime's %Y would write "523")
        return Message(key, day=date(day.year, day.month, day.day).isoformat())
    return Message(key, day=dated("listing_day", day), **args)


def listed(key: str, items: Sequence[Arg]) -> Message:
    """``items`` said as the list ``key`` (a ``ListPattern`` of the table), each in the face's language."""
    return Message(key, **{str(n): item for n, item in enumerate(items)})


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
