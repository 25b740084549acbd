"""What ``--help`` shows for a value: ``TEXT``, ``INTEGER``, ``NUMBER``, ``PATH`` (click's words) rather
than typer's ``<str>``, ``<int range>``, ``<bool>`` labels, nothing for a flag, and nothing beside an
argument (its name says it already).

Typer's rich help also keeps the docstrings' own line breaks, so at 80 columns a sentence broke where the
source did and a command's short help was cut ("each with wh…"). ``format_help`` of both classes shows each
help text with its paragraphs on one line (``unwrapped``), for the terminal to wrap, while it formats; the
texts stay as written (they are the catalogs' msgids).

Typer has no setting for this: ``metavar=`` on every option would do it for options (not for ``--help``)
but renames an argument in the usage line. So the root group (``PlainMetavarGroup``, given to
``typer.Typer(cls=…)``) turns every command beneath it, and their parameters, into the subclasses below when
typer builds the click command tree: typer's own instances, given a subclass that only overrides how a value
is shown. Nothing global changes (typer's classes are not patched; other Typer apps are untouched).
``tests/test_cli.py::test_help_shows_no_type_placeholders`` keeps it true.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer.core

_METAVARS = {
    "str": "TEXT",
    "int": "INTEGER",
    "float": "NUMBER",
    "int range": "INTEGER",
    "float range": "NUMBER",
}


class PlainMetavarOption(typer.core.TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag:
            return None
        if self.metavar:
            return str(self.metavar)
        label = str(self.display_type(ctx)).strip("<>")
        return _METAVARS.get(label, label.upper() if label in ("path", "file", "directory") else label)


class PlainMetavarArgument(typer.core.TyperArgument):
    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the argument's name is its metavar already


def _plain_param(param: object) -> None:
    if type(param) is typer.core.TyperOption:
        param.__class__ = PlainMetavarOption
    elif type(param) is typer.core.TyperArgument:
        param.__class__ = PlainMetavarArgument


def unwrapped(text: str | None) -> str | None:
    """A help text with each paragraph on one line (click's ``\\b`` paragraphs as they are)."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split()) for p in paragraphs)


@contextmanager
def _unwrapped_help(command: Any) -> Iterator[None]:
    """For the block: ``command``'s help texts and its subcommands' (the commands panel) unwrapped, and
    every help text of the panels folded at the column's edge rather than cut with "…". Rich wraps at
    spaces only, and a run of 中文 has none: in a table cell (the commands and options panels) Typer's
    columns cut it. Typer makes each cell's text in ``rich_utils._make_rich_text``; that one function is
    wrapped here, for the block only, to make the text fold."""
    from rich.text import Text
    from typer import rich_utils

    shown = [command, *getattr(command, "commands", {}).values()]
    kept = [(c, c.help, c.short_help) for c in shown]
    made = rich_utils._make_rich_text

    def folding(**kwargs: Any) -> Any:
        text = made(**kwargs)
        if isinstance(text, Text):
            text.overflow = "fold"
        return text

    for c in shown:
        c.help, c.short_help = unwrapped(c.help), unwrapped(c.short_help)
    rich_utils._make_rich_text = folding
    try:
        yield
    finally:
        rich_utils._make_rich_text = made
        for c, help_text, short_help in kept:
            c.help, c.short_help = help_text, short_help


def _plain_option(option: typer.core.TyperOption | None) -> typer.core.TyperOption | None:
    if option is not None:
        _plain_param(option)
    return option


class PlainMetavarCommand(typer.core.TyperCommand):
    """A command whose parameters (``--help`` too, made on first use) show plain metavars."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _unwrapped_help(self):
            super().format_help(ctx, formatter)

    def get_help_option(self, ctx: Any) -> typer.core.TyperOption | None:
        return _plain_option(super().get_help_option(ctx))


class PlainMetavarGroup(typer.core.TyperGroup):
    """The root group: on creation it turns every command and group beneath it, and their parameters, into
    the plain-metavar classes (subclasses that only override how a value is shown)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain(self)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _unwrapped_help(self):
            super().format_help(ctx, formatter)

    def get_help_option(self, ctx: Any) -> typer.core.TyperOption | None:
        return _plain_option(super().get_help_option(ctx))


def _plain(command: object) -> None:
    if type(command) is typer.core.TyperCommand:
        command.__class__ = PlainMetavarCommand
    elif type(command) is typer.core.TyperGroup:
        command.__class__ = PlainMetavarGroup
    for param in getattr(command, "params", ()):
        _plain_param(param)
    for sub in getattr(command, "commands", {}).values():
        _plain(sub)
