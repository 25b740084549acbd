"""What every command of the ``papersift`` CLI shares: the ``--home``, ``--format`` and ``--reader`` options,
the one-line ``error: …`` exit, date and format checks, the progress bar, and ``opened``: the store (and, on
first use, the indexes and the reader) of a command, always closed when the command ends.

Only light modules are imported here at module level; whatever loads a model, an index or a database driver
is imported inside the function that needs it, so ``papersift --help`` and quick commands start fast.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, Protocol

import typer

from papersift.cli.language import ENGLISH, Speech

if TYPE_CHECKING:
    from rich.progress import Progress

    from papersift.index.indexes import Indexes
    from papersift.index.runtime import Papersift
    from papersift.settings import Settings
    from papersift.store import IngestCounts, Store
    from papersift.store.records import Account

HomeOpt = Annotated[
    Path | None,
    typer.Option(
        "--home", envvar="PAPERSIFT_HOME", help="Data directory (default ~/.local/share/papersift)."
    ),
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="text or json")]


def known_category_option(value: str | None) -> str | None:
    """A category (or archive) as arXiv spells it, any case typed; one arXiv has no such category or archive
    for is an error naming the nearest ids it has (``list cs.FOO`` or a filter on it would quietly find
    nothing, ``follow -c cs.FOO`` follow nothing)."""
    if value is None:
        return None
    from papersift.records import taxonomy

    spelled = taxonomy.spelled(value)
    if taxonomy.is_known(spelled):
        return spelled
    say, nearest = spoken(), taxonomy.nearest(spelled)
    if not nearest:
        raise typer.BadParameter(say.line("cli_not_a_category", value=value))
    either = functools.reduce(
        lambda first, second: say.line("cli_either", first=first, second=second), nearest
    )
    raise typer.BadParameter(say.line("cli_not_a_category_nearest", value=value, nearest=either))


def known_categories_option(values: list[str] | None) -> list[str] | None:
    """Several categories, each as ``known_category_option`` reads it, or None when none is given."""
    return None if values is None else [str(known_category_option(v)) for v in values]


CategoryArg = Annotated[
    str,
    typer.Argument(
        help="Category or archive, e.g. cs.LG or astro-ph (any case).", callback=known_category_option
    ),
]
CategoriesArg = Annotated[
    list[str],
    typer.Argument(help="Categories, e.g. cs.LG stat.ML (any case).", callback=known_categories_option),
]
ListingDayOpt = Annotated[
    str | None, typer.Option("--date", "-d", help="Listing date (default: the latest).")
]


def _lang(value: str) -> str:
    if value not in ("en", "zh"):
        raise typer.BadParameter(spoken().line("cli_en_or_zh", value=repr(value)))
    return value


LangOpt = Annotated[
    str,
    typer.Option(
        "--lang",
        callback=_lang,
        help="en or zh: the language of TL;DRs (zh: with 中文 titles and abstracts).",
    ),
]
ReaderOpt = Annotated[
    str | None, typer.Option("--reader", "-r", envvar="PAPERSIFT_READER", help="Account (default: you).")
]


def fail(message: str, code: int = 1, say: Speech = ENGLISH) -> NoReturn:
    """``error: MESSAGE`` on stderr (said in ``say``'s language) and exit with ``code`` (2: the command line
    itself was wrong)."""
    typer.echo(say.line("cli_error", message=message), err=True)
    raise typer.Exit(code)


def spoken() -> Speech:
    """The reader's language before any settings load (``settings.environment_language``: what
    ``settings.lang`` takes from the environment), for a command line refused before they do."""
    from papersift.settings import environment_language

    return Speech(environment_language())


def refuse(key: str, code: int = 1, say: Speech | None = None, **values: Any) -> NoReturn:
    """``fail`` with the table's text ``key`` (a CLI line ``cli_…``, or any message) and its ``values``,
    said in ``say``'s language (by default the environment's: ``spoken``)."""
    say = say or spoken()
    fail(say.line(key, **values), code, say=say)


def load_settings(home: Path | None) -> Settings:
    """The settings of this run (``--home``, then ``PAPERSIFT_*``, then the home's config); refused values end
    the run with code 2."""
    from pydantic import ValidationError

    from papersift.settings import HomeConfigError, Settings, settings_problems

    try:
        return Settings(home=home) if home else Settings()
    except ValidationError as e:  # refused at start, before anything connects anywhere
        refuse("cli_settings", 2, problem=spoken().joined(settings_problems(e)))
    except HomeConfigError as e:  # the home's config (papersift llm setup writes it)
        refuse("cli_settings", 2, problem=e)


@dataclass
class Opened:
    """A command's open papersift (``index/runtime.py``): its store and, opened on first use of
    ``indexes``, the current index generation."""

    papersift: Papersift
    _indexes: Indexes | None = field(default=None, repr=False)
    owned: bool = True  # False: the resident helper's, kept open when the command ends
    _noted: bool = field(default=False, repr=False)

    @property
    def settings(self) -> Settings:
        return self.papersift.settings

    @property
    def store(self) -> Store:
        return self.papersift.store

    @property
    def say(self) -> Speech:
        """How this command says things: in the reader's language (``settings.lang``)."""
        return Speech(self.settings.lang)

    @property
    def indexes(self) -> Indexes:
        """The indexes over ``store`` (a note on stderr when nothing is embedded yet)."""
        if self._indexes is None:
            self._indexes = self.papersift.indexes()
        if self._indexes.dense is None and not self._noted:
            self._noted = True
            from papersift.records.messages import say

            typer.echo(Speech(self.settings.lang).line("cli_note", note=say("no_vectors_yet")), err=True)
        return self._indexes

    def account(self, name: str | None) -> Account:
        """The reader a command acts for: ``--reader NAME`` (must exist) or the personal reader."""
        from papersift.services.accounts import cli_reader

        return cli_reader(self.store, self.settings, name)

    def close(self) -> None:
        if self.owned:
            self.papersift.close()


class Keeper(Protocol):
    """What keeps stores and indexes open between commands (the resident helper's ``Kept``)."""

    def open(self, settings: Settings) -> Opened: ...


@contextmanager
def opened(settings: Settings, *, warm: bool = False, kept: Keeper | None = None) -> Iterator[Opened]:
    """The papersift ``settings`` name, closed however the command ends; a ``StoreError`` (opening it or
    while the command runs) ends the command with its one-line message. ``warm``: the command encodes a
    text, so the model loads in the background while its indexes open (``index/runtime.py``).
    ``kept``: the resident helper's open stores and indexes (the command's context object), used instead
    and left open."""
    from papersift.index.runtime import open_papersift
    from papersift.records.messages import reason
    from papersift.store import StoreError

    say = Speech(settings.lang)
    try:
        handle = kept.open(settings) if kept is not None else Opened(open_papersift(settings, warm=warm))
    except StoreError as e:
        fail(reason(e), say=say)
    try:
        yield handle
    except StoreError as e:
        fail(reason(e), say=say)
    finally:
        handle.close()


def parse_day(value: str | None, option: str) -> date | None:
    """``value`` as a date (None stays None); anything else ends the run naming ``option``."""
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        refuse("cli_not_a_date", 2, option=option, value=repr(value))


@contextmanager
def opened_listing(
    home: Path | None, category: str, day: str | None
) -> Iterator[tuple[Opened, date, list[date]]]:
    """``list`` / ``topics``: the store opened, the day to list (``--date``, checked before anything opens;
    else the latest with new submissions, ``services/listing.opening_day``) and every day ``category`` has a
    listing; a category without any ends the run."""
    from papersift.services.listing import opening_day

    wanted = parse_day(day, "--date")
    with opened(load_settings(home)) as o:
        days = o.store.announcement_days(category)
        if not days:
            refuse("cli_no_listings_in_store", say=o.say, category=repr(category))
        yield o, wanted or opening_day(o.store, category, days), days


def check_format(fmt: str, allowed: tuple[str, ...] = ("text", "json")) -> None:
    if fmt not in allowed:
        refuse("cli_one_of", 2, option="--format", allowed=", ".join(allowed), value=repr(fmt))


def lines_of(path: Path) -> list[str]:
    """The non-blank, non-comment (``#``) lines of a file, stripped."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        refuse("cli_cannot_read", path=path, problem=e.strerror)
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def progress_bar() -> Progress:
    """A progress bar with counts and time left, on a terminal only."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not sys.stderr.isatty(),
    )


def report(counts: IngestCounts, what: str, say: Speech = ENGLISH) -> None:
    """The failed records (the first 50) on stderr, then one line of counts (said in ``say``'s language)."""
    for err in counts.errors[:50]:
        typer.echo(say.line("cli_error", message=err), err=True)
    if len(counts.errors) > 50:
        typer.echo(say.line("cli_more_failed", n=len(counts.errors) - 50), err=True)
    n = {"what": what, "new": counts.new, "updated": counts.updated, "skipped": counts.skipped}
    if counts.deleted:
        typer.echo(say.line("cli_counts_deleted", **n, failed=counts.failed, deleted=counts.deleted))
    else:
        typer.echo(say.line("cli_counts", **n, failed=counts.failed))


def fulltext_pass(o: Opened) -> None:
    """After ``sync`` / ``daily``: the full text of each reader's top Daily Papers and saved papers
    (``digest.fulltext_ahead``); one line, or why it stopped (the command goes on)."""
    from papersift.library.digest import fulltext_ahead
    from papersift.records.messages import reason
    from papersift.services.harvest import HarvestError

    try:
        typer.echo(o.say(fulltext_ahead(o.store, o.indexes, o.settings, o.store.accounts()).line()))
    except HarvestError as e:
        typer.echo(o.say.line("cli_fulltext_stopped", problem=reason(e)), err=True)
