"""Failures kept in the old text form, read once: the migration step ``failures_as_data`` (a migration of
both backends, ``schema.shared_migrations``) turns every stored failure into data
(``records/messages.stored``) and is the only reader of the old form left.

The old form was a message's English and then, in brackets, what it was made of: ``timed out after 30 s [say
model_timeout(seconds="30")]`` (a message argument written as a call in turn); a failed check was its
sentence and its reason: ``… [check wrong_language(asked="zh", got="en")]``. Any other text was kept as it
is. The columns: a model call's ``llm_failures.reason`` (kept within 1000 characters), a generated text's
``readings.error``, a full text's ``fulltexts.error``, a digest's ``digests.error``.
"""

from __future__ import annotations

import json
import re
from contextlib import suppress

from papersift.records.messages import Arg, Message, say, stored
from papersift.store.sql import Tx

# table, failure column, the columns that find its row, the length the failure is kept within
COLUMNS: tuple[tuple[str, str, tuple[str, ...], int | None], ...] = (
    ("llm_failures", "reason", ("at", "model", "reason"), 1000),
    ("readings", "error", ("paper_id", "version", "model", "prompt", "lang", "kind"), None),
    ("fulltexts", "error", ("paper_id", "version"), None),
    ("digests", "error", ("id",), None),
)

_OLD_SAY = re.compile(r" \[say (?=\w+\()")
_OLD_HEAD = re.compile(r"(\w+)\(")
_OLD_NAME = re.compile(r"(?:, )?(\w+)=")
_OLD_STRING = json.JSONDecoder().raw_decode
_OLD_CHECK = re.compile(r" \[check (\w+)\((.*)\)\]$")
_OLD_CHECK_ARG = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*")')
# a check's arguments said as messages, as reading/checks.py's Verdict.sentence says them
_OLD_CHECK_NAMED = (("asked", "language"), ("got", "language"), ("unit", "unit"))


def failures_as_data(tx: Tx) -> None:
    """Every stored failure in the old text form, stored again as data."""
    for table, column, keys, limit in COLUMNS:
        selected = ", ".join(dict.fromkeys((*keys, column)))
        rows = tx.execute(f"SELECT {selected} FROM {table} WHERE {column} IS NOT NULL").fetchall()
        where = " AND ".join(f"{key} = ?" for key in keys)
        tx.executemany(
            f"UPDATE {table} SET {column} = ? WHERE {where}",
            [(stored(read_old_form(r[column]), limit), *(r[key] for key in keys)) for r in rows],
        )


def read_old_form(text: str) -> str:
    """A failure as the old form kept it: the message it was made of (a failed check's sentence), else the
    text as it is (one of a key or a reason not known here too)."""
    for found in _OLD_SAY.finditer(text):
        try:
            message, end = _old_call(text, found.end())
        except (KeyError, TypeError, ValueError):
            continue
        if text[end:] == "]":
            return message
    check = _OLD_CHECK.search(text)
    if check is not None:
        with suppress(KeyError, TypeError, ValueError):
            return _old_check(check.group(1), check.group(2))
    return text


def _old_call(call: str, at: int) -> tuple[Message, int]:
    """The message written as a call (``key(name="value", name=key(…))``) at ``at``, and where it ends."""
    head = _OLD_HEAD.match(call, at)
    if head is None:
        raise ValueError(call)
    args: dict[str, Arg] = {}
    at = head.end()
    while not call.startswith(")", at):
        name = _OLD_NAME.match(call, at)
        if name is None:
            raise ValueError(call)
        at = name.end()
        args[name.group(1)], at = _OLD_STRING(call, at) if call.startswith('"', at) else _old_call(call, at)
    key = head.group(1)
    if key.endswith("_1"):  # a plural's one-form key: the plural key now, said with n = 1
        args.setdefault("n", 1)
    return say(_renamed(key), **args), at + 1


# keys the one English table renamed after failures were kept in the old form
_RENAMED = {"times_2": "twice", "times_3": "three_times"}


def _renamed(key: str) -> str:
    """``key`` as the message table names it now: a plural's one-form key (``years_earlier_1``) is its
    plural key (``years_earlier``), said with the same ``n``."""
    if key in _RENAMED:
        return _RENAMED[key]
    return key[: -len("_1")] if key.endswith("_1") else key


def _old_check(reason: str, written: str) -> Message:
    """A failed check's sentence (``check_<reason>``) from its reason and its arguments as written."""
    args: dict[str, Arg] = {name: str(json.loads(value)) for name, value in _OLD_CHECK_ARG.findall(written)}
    for name, kind in _OLD_CHECK_NAMED:
        if name in args:
            with suppress(KeyError):
                args[name] = say(f"{kind}_{args[name]}")
    return say(f"check_{reason}", **args)
