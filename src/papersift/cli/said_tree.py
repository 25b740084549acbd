"""The command tree Typer builds from ``cli/commands.app``, said in the reader's language before it runs
(``said_command``; ``cli.main`` runs it for a reader not in English, after ``help_words.install``): every
help text from the catalog (``cli/help_words.py``), the usage line's ``[OPTIONS]`` and ``COMMAND
[ARGS]...``, and the words the click Typer bundles says in English only, said by subclasses of the
plain-metavar classes (``cli/metavars.py``) that each command is turned into: the usage line's prefix, the
help option's help, the suggestion of a mistyped command, and each usage error, rebuilt from its fields (the
one known by its sentence alone: the extra arguments'). The sentences of a value's check (pydantic's "Input
should be …") and the type names of metavars (TEXT, PATH, INTEGER: placeholders, as in click) stay English.
"""

from __future__ import annotations

from collections.abc import Callable
from difflib import get_close_matches
from typing import Any

import typer
from typer._click import Command, Context, HelpFormatter
from typer._click.exceptions import BadOptionUsage, BadParameter, MissingParameter, NoSuchOption, UsageError
from typer.core import TyperCommand, TyperGroup, TyperOption

from papersift.cli.help_words import HELP, TYPER, catalog, helped, tree
from papersift.cli.metavars import PlainMetavarCommand, PlainMetavarGroup

_EXTRA_ARGUMENTS = "Got unexpected extra argument(s) ({args})"


class SaidUsageError(UsageError):
    """A usage error whose sentence is said already (Typer shows it in its usual frame)."""


def _hint(e: BadParameter) -> str | None:
    """The parameter an error names, as click names it (``'-k'``, ``'ID'``)."""
    hint = e.param_hint if e.param_hint is not None else e.param.get_error_hint() if e.param else None
    return hint if hint is None or isinstance(hint, str) else " / ".join(repr(x) for x in hint)


def said_error(e: UsageError, said: Callable[[str], str]) -> str | None:
    """``e``'s sentence in the catalog's language (``said``: one of ``help_words.CLICK_WORDS`` in it),
    rebuilt from its fields; None for an error it does not know."""
    if isinstance(e, NoSuchOption):
        names = ", ".join(sorted(e.possibilities or ()))
        sentence = "No such option: {name} (Possible options: {names})" if names else "No such option: {name}"
        return said(sentence).format(name=e.option_name, names=names)
    if isinstance(e, MissingParameter):
        kind = e.param_type or (e.param.param_type_name if e.param else "")
        missing = {"option": "Missing option {name}.", "argument": "Missing argument {name}."}.get(kind)
        choices = e.param.get_missing_message(ctx=e.ctx) if e.param else None  # a choice's: none here
        return None if missing is None or e.message or choices else said(missing).format(name=_hint(e))
    if isinstance(e, BadParameter):
        hint = _hint(e)
        sentence = "Invalid value for {name}: {problem}"
        return None if hint is None else said(sentence).format(name=hint, problem=e.message)
    if isinstance(e, BadOptionUsage):
        for sentence in ("Option {name} requires an argument.", "Option {name} does not take a value."):
            if e.message == sentence.format(name=repr(e.option_name)):
                return said(sentence).format(name=repr(e.option_name))
        return None
    before, _, after = _EXTRA_ARGUMENTS.partition("{args}")
    if type(e) is UsageError and e.message.startswith(before) and e.message.endswith(after):
        return said(_EXTRA_ARGUMENTS).format(args=e.message[len(before) : -len(after)])
    return None


class _Said(Command):
    """What a command of a tree in ``lang`` says beyond its help texts (``said_command`` sets ``lang``)."""

    lang = "en"

    def said(self, english: str) -> str:
        return str(catalog(self.lang).pgettext(TYPER, english))

    def format_usage(self, ctx: Context, formatter: HelpFormatter) -> None:
        pieces = " ".join(self.collect_usage_pieces(ctx))
        formatter.write_usage(ctx.command_path, pieces, self.said("Usage: "))

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None and option.help:
            option.help = self.said(option.help)  # made on first use; said again, it stays as it is
        return option

    def make_context(
        self, info_name: str | None, args: list[str], parent: Context | None = None, **extra: Any
    ) -> Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except UsageError as e:
            sentence = None if isinstance(e, SaidUsageError) else said_error(e, self.said)
            if sentence is None:
                raise
            raise SaidUsageError(sentence, e.ctx) from e


class SaidCommand(_Said, PlainMetavarCommand):
    """A command (and its plain metavars) that says the bundled click's words."""


class SaidGroup(_Said, PlainMetavarGroup):
    """A group (and its plain metavars) that says the bundled click's words, and suggests a command for a
    mistyped one in them (Typer's suggestion, in English, is turned off)."""

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except UsageError as e:
            matches = get_close_matches(args[0], list(self.commands)) if args else []
            if matches and type(e) is UsageError:
                names, sentence = ", ".join(repr(m) for m in matches), "{message} Did you mean {commands}?"
                e.message = self.said(sentence).format(message=e.message, commands=names)
            raise


def said_command(app: typer.Typer, lang: str) -> Command:
    """The command tree of ``app`` with its help texts and the bundled click's words in ``lang``."""
    from typer.main import get_command

    root, words = get_command(app), catalog(lang)
    for command in tree(root):
        command.help = command.help and words.pgettext(HELP, command.help)
        command.short_help = command.short_help and words.pgettext(HELP, command.short_help)
        for param in helped(command):
            param.help = words.pgettext(HELP, param.help)
        command.options_metavar = words.pgettext(TYPER, command.options_metavar)
        if isinstance(command, TyperGroup):
            command.subcommand_metavar = words.pgettext(TYPER, command.subcommand_metavar)
            command.__class__ = SaidGroup
            command.suggest_commands = False
        elif isinstance(command, TyperCommand):
            command.__class__ = SaidCommand
        if isinstance(command, _Said):
            command.lang = lang
    return root
