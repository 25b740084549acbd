"""``papersift fulltext`` (papers' e-prints read and stored, their references resolved) and ``papersift
enrich`` (Semantic Scholar's citation counts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import HomeOpt, Opened, fail, load_settings, opened, parse_day, progress_bar, refuse

if TYPE_CHECKING:
    from papersift.records.paper import Paper

IdsArg = Annotated[list[str] | None, typer.Argument(metavar="[ID]...", help="arXiv ids or abs/PDF URLs.")]
DateOpt = Annotated[str | None, typer.Option("--date", help="A day's listing (YYYY-MM-DD), with --category.")]
CategoryOpt = Annotated[str | None, typer.Option("--category", "-c", help="The listing's category.")]
LibraryOpt = Annotated[bool, typer.Option("--library", help="Every reader's saved papers.")]
DailyOpt = Annotated[int | None, typer.Option("--daily", help="Each reader's top N Daily Papers.", min=1)]


def _selected(
    o: Opened,
    ids: Sequence[str],
    day: str | None,
    category: str | None,
    library: bool,
    daily: int | None,
) -> list[Paper]:
    """The papers a command names: ids (looked up on arXiv when not stored), a day's listing, the readers'
    saved papers, their top Daily Papers."""
    from papersift.records.messages import reason
    from papersift.records.paper import InvalidIdError, normalize_id

    if not (ids or day or category or library or daily):
        refuse("cli_name_papers", 2, say=o.say)
    if bool(day) != bool(category):
        refuse("cli_date_with_category", 2, say=o.say)
    store = o.store
    papers: list[Paper] = []
    wanted = []
    for raw in ids:
        try:
            wanted.append(normalize_id(raw))
        except InvalidIdError as e:
            fail(reason(e), 2, say=o.say)
    if wanted:
        found = {p.id: p for p in store.get_many(wanted)}
        missing = [i for i in wanted if i not in found]
        if missing:
            found |= {p.id: p for p in _look_up(o, missing)}
        papers += [found[i] for i in wanted if i in found]
    if day and category:
        when = parse_day(day, "--date")
        assert when is not None
        papers += [e.paper for e in store.listing(category, when)]
    if library:
        papers += _saved(o, None)
    if daily:
        papers += _daily(o, daily)
    return papers


def _look_up(o: Opened, ids: list[str]) -> list[Paper]:
    """Papers not in the store, from arXiv's API (stored); the unknown ones said on stderr."""
    from papersift.records.messages import reason
    from papersift.records.paper import Paper as PaperRecord
    from papersift.services.harvest import ArxivClient, HarvestError, fetch_ids

    try:
        with ArxivClient(o.settings) as client:
            items = fetch_ids(client, ids)
    except HarvestError as e:
        refuse("cli_not_stored_offline", say=o.say, ids=", ".join(ids), problem=reason(e))
    found = [i for i in items if isinstance(i, PaperRecord)]
    for item in items:
        if not isinstance(item, PaperRecord):
            typer.echo(o.say.line("cli_error", message=item), err=True)
    o.store.upsert(found)
    return found


def _saved(o: Opened, limit: int | None) -> list[Paper]:
    """Each reader's saved arXiv papers (newest first)."""
    from papersift.library.digest import papers_ahead

    return papers_ahead(o.store, None, o.settings, o.store.accounts(), daily=0, saved=limit or 10**9)


def _daily(o: Opened, k: int) -> list[Paper]:
    """Each reader's top ``k`` Daily Papers of the latest day."""
    from papersift.library.digest import papers_ahead

    return papers_ahead(o.store, o.indexes, o.settings, o.store.accounts(), daily=k, saved=0)


def fetch(o: Opened, papers: Sequence[Paper], *, retry_failed: bool = False, quiet: bool = False) -> bool:
    """Fetch and store the full text of ``papers`` with a progress bar; False when arXiv was not reached
    (said on stderr)."""
    from papersift.records.messages import reason
    from papersift.services.eprints import Fetched, fetch_fulltexts, to_fetch
    from papersift.services.harvest import ArxivClient, HarvestError

    say = o.say
    todo, _ = to_fetch(o.store, papers, retry_failed=retry_failed)
    try:
        with (
            progress_bar() as bar,
            ArxivClient(
                o.settings, on_retry=lambda line: typer.echo(say.line("cli_waiting", line=line), err=True)
            ) as client,
        ):
            task = bar.add_task(say.line("cli_bar_full_text"), total=len(todo))
            done: Fetched = fetch_fulltexts(
                client,
                o.store,
                papers,
                retry_failed=retry_failed,
                on_paper=lambda p, outcome: bar.update(task, advance=1, description=f"{p.id} {outcome}"),
            )
    except HarvestError as e:
        typer.echo(
            say.line("cli_error", message=say.line("cli_fulltext_stopped_resume", problem=reason(e))),
            err=True,
        )
        return False
    if not quiet:
        for pid, why in done.failed[:50]:  # a reason that names its paper already is said as it is
            named = str(why).startswith(f"{pid}:")
            typer.echo(say.line("cli_error", message=say(why) if named else f"{pid}: {say(why)}"), err=True)
    typer.echo(say(done.line()))
    return True


def fulltext(
    paper_ids: IdsArg = None,
    day: DateOpt = None,
    category: CategoryOpt = None,
    library: LibraryOpt = False,
    daily: DailyOpt = None,
    retry: Annotated[bool, typer.Option("--retry", help="Try versions that failed before again.")] = False,
    resolve: Annotated[
        bool, typer.Option("--resolve", help="Only resolve stored references again (papers added since).")
    ] = False,
    home: HomeOpt = None,
) -> None:
    """Fetch papers' full text from arXiv (TeX source, else PDF): sections, references, code links; once
    per paper version, resumable."""
    from papersift.services.eprints import resolve_stored

    settings = load_settings(home)
    with opened(settings) as o:
        if resolve:
            typer.echo(o.say.line("cli_resolved", n=resolve_stored(o.store)))
            return
        papers = _selected(o, paper_ids or [], day, category, library, daily)
        ok = fetch(o, papers, retry_failed=retry)
    if not ok:
        raise typer.Exit(1)


def enrich(
    paper_ids: IdsArg = None,
    day: DateOpt = None,
    category: CategoryOpt = None,
    library: LibraryOpt = False,
    daily: DailyOpt = None,
    home: HomeOpt = None,
) -> None:
    """Citation counts from Semantic Scholar (PAPERSIFT_S2_KEY optional), stored with their date."""
    from papersift.records.messages import reason
    from papersift.services.enrich import enrich as ask
    from papersift.services.harvest import ArxivClient, HarvestError

    settings = load_settings(home)
    with opened(settings) as o:
        say = o.say
        papers = _selected(o, paper_ids or [], day, category, library, daily)
        ids = list(dict.fromkeys(p.id for p in papers))
        try:
            with (
                progress_bar() as bar,
                ArxivClient(
                    settings, on_retry=lambda line: typer.echo(say.line("cli_waiting", line=line), err=True)
                ) as client,
            ):
                task = bar.add_task(say.line("cli_bar_citation_counts"), total=len(ids))
                counts = ask(client, o.store, ids, on_batch=lambda n, _: bar.update(task, completed=n))
        except HarvestError as e:
            refuse("cli_enrich_stopped", say=say, problem=reason(e))
    typer.echo(say.line("cli_enriched", n=len(counts), of=len(ids)))
