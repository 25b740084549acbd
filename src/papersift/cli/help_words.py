"""The words of ``--help`` and of a refused command line, whose English is the msgid of the catalogs:
the help texts (msgctxt ``cli --help``: each command's docstring or ``help=`` and each option's and
argument's ``help=``, as Typer has them in the command tree it builds from ``cli/commands.app``) and
Typer's own words (msgctxt ``typer``: ``WORDS``). ``cli/said_tree.py`` says them in the reader's language;
``catalog_template`` is every msgid the code says: the one table of the messages, the CLI's lines and the
web's words (``records/english.py``, through ``web/i18n.template``), these help texts, collected from the
tree itself so that none is missed, and Typer's words.

Typer asks gettext for some of its words (``GETTEXT_WORDS``; ``typer.rich_utils`` evaluates its titles
when it is imported). Python's gettext reads a translation for that default lookup only from a .mo file
found through the locale variables, so ``install`` gives the lookup itself: at the start of a process not
in English, before Typer is imported (this module imports no Typer for that). The click Typer bundles
says the rest in English only (``CLICK_WORDS``: ``said_tree`` says them).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Typer is imported after ``install``; Babel with the template only
    from babel.messages.catalog import Catalog
    from typer._click import Command
    from typer.core import TyperArgument, TyperOption

HELP = "cli --help"  # the msgctxt of the help texts
TYPER = "typer"  # the msgctxt of Typer's words
GETTEXT_WORDS = (  # what Typer asks gettext for where a reader meets it (typer/rich_utils.py, typer/core.py)
    "Arguments",
    "Options",
    "Commands",
    "[default: {}]",
    "[env var: {}]",
    "[required]",
    "(deprecated) ",
    "(dynamic)",
    "Error",
    "Try [blue]'{command_path} {help_option}'[/] for help.",
    "Aborted.",
    "Missing command.",
    "No such command {name!r}.",
)
CLICK_WORDS = (  # the bundled click's words (English only there), and Typer's suggestion of a command
    "Usage: ",
    "[OPTIONS]",
    "COMMAND [ARGS]...",
    "Show this message and exit.",
    "No such option: {name}",
    "No such option: {name} (Possible options: {names})",
    "Missing option {name}.",
    "Missing argument {name}.",
    "Invalid value for {name}: {problem}",
    "Option {name} requires an argument.",
    "Option {name} does not take a value.",
    "Got unexpected extra argument(s) ({args})",
    "{message} Did you mean {commands}?",
)
WORDS = (*GETTEXT_WORDS, *CLICK_WORDS)


def catalog(lang: str) -> Any:
    """The catalog of ``lang`` (``records/catalogs.translations``)."""
    from papersift.records.catalogs import translations

    return translations(lang)


def install(lang: str) -> None:
    """Typer's gettext words in ``lang`` for this process: ``gettext.gettext`` (which Typer binds as ``_``
    when it is imported) answers from the catalog's ``typer`` entries, anything else as it is asked."""
    import functools
    import gettext

    gettext.gettext = functools.partial(catalog(lang).pgettext, TYPER)


def tree(command: Command) -> Iterator[Command]:
    """``command`` and every command beneath it."""
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from tree(sub)


def helped(command: Command) -> Iterator[TyperOption | TyperArgument]:
    """The options and arguments of ``command`` that have a help text."""
    from typer.core import TyperArgument, TyperOption

    yield from (p for p in command.params if isinstance(p, TyperOption | TyperArgument) and p.help)


def help_texts(root: Command) -> list[str]:
    """Every help text of the tree ``root``, once each, in the order ``--help`` meets them."""
    texts: list[str | None] = []
    for command in tree(root):
        texts += [command.help, command.short_help, *(p.help for p in helped(command))]
    return [text for text in dict.fromkeys(texts) if text]


def catalog_template() -> Catalog:
    """The catalog template: every msgid the code says (the one table, arXiv's category names, the CLI's
    help texts and Typer's words)."""
    from typer.main import get_command

    from papersift.cli.commands import app
    from papersift.web.i18n import template

    whole = template()
    for text in help_texts(get_command(app)):
        whole.add(text, context=HELP)
    for word in WORDS:
        whole.add(word, context=TYPER)
    return whole
