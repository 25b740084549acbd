"""What ``--help`` shows for a value: ``TEXT``, ``INTEGER``, ``NUMBER``, ``PATH`` (click's words) rather
than typer's ``<str>``, ``<int range>``, ``<bool>`` labels, nothing for a flag, and nothing beside an
argument (its name says it already).

Typer has no setting for this: ``metavar=`` on every option would do it for options (not for ``--help``)
but renames an argument in the usage line. So the root group (``PlainMetavarGroup``, given to
``typer.Typer(cls=…)``) turns every command beneath it, and their parameters, into the subclasses below when
typer builds the click command tree: typer's own instances, given a subclass that only overrides how a value
is shown. Nothing global changes (typer's classes are not patched; other Typer apps are untouched).
``tests/test_cli.py::test_help_shows_no_type_placeholders`` keeps it true.
"""

from __future__ import annotations

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


class PlainMetavarCommand(typer.core.TyperCommand):
    """A command whose parameters (``--help`` too, made on first use) show plain metavars."""

    def get_help_option(self, ctx: Any) -> typer.core.TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            _plain_param(option)
        return option


class PlainMetavarGroup(typer.core.TyperGroup):
    """The root group: on creation it turns every command and group beneath it, and their parameters, into
    the plain-metavar classes (subclasses that only override how a value is shown)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain(self)

    def get_help_option(self, ctx: Any) -> typer.core.TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            _plain_param(option)
        return option


def _plain(command: object) -> None:
    if type(command) is typer.core.TyperCommand:
        command.__class__ = PlainMetavarCommand
    elif type(command) is typer.core.TyperGroup:
        command.__class__ = PlainMetavarGroup
    for param in getattr(command, "params", ()):
        _plain_param(param)
    for sub in getattr(command, "commands", {}).values():
        _plain(sub)
