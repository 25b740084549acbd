"""A reader's day: ``papersift follow`` (interests), ``recommend`` (Daily Papers), ``digest`` (e-mail, Atom,
Markdown) and ``daily``, the cron job: sync → embed → every reader's digest, once per day."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import (
    FormatOpt,
    HomeOpt,
    Opened,
    ReaderOpt,
    all_spelled_option,
    check_format,
    fail,
    load_settings,
    opened,
    parse_day,
    progress_bar,
)

if TYPE_CHECKING:
    from papersift.ranking.daily import DailyPick
    from papersift.settings import Settings
    from papersift.store import Store
    from papersift.store.records import Account


def follow(
    category: Annotated[
        list[str] | None,
        typer.Option("--category", "-c", help="Follow a category (any case).", callback=all_spelled_option),
    ] = None,
    author: Annotated[list[str] | None, typer.Option("--author", "-a", help="Follow an author.")] = None,
    must: Annotated[
        list[str] | None, typer.Option("--must", help="Keep only papers with a must-word.")
    ] = None,
    never: Annotated[list[str] | None, typer.Option("--never", help="Drop papers with this word.")] = None,
    lang: Annotated[
        list[str] | None,
        typer.Option("--lang", help="Also read papers in zh (中文)."),
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Forget every interest first.")] = False,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Show or change what you follow: categories, authors, must / never keywords."""
    from papersift.store.records import Interests

    def merged(before: tuple[str, ...], more: list[str] | None) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*before, *(w.strip() for w in more or () if w.strip())]))

    with opened(load_settings(home)) as o:
        who = o.account(reader)
        old = Interests() if clear else o.store.interests(who.id)
        now = Interests(
            categories=merged(old.categories, category),
            authors=merged(old.authors, author),
            must=merged(old.must, must),
            never=merged(old.never, never),
            languages=merged(old.languages, [x for x in lang or () if x != "en"]),
        )
        unknown = set(now.languages) - {"zh"}
        if unknown:
            fail(f"--lang must be en or zh, not {', '.join(sorted(unknown))}", 2)
        if clear or any((category, author, must, never, lang)):
            o.store.set_interests(who.id, now)
    for label, values in (("categories", now.categories), ("authors", now.authors)):
        typer.echo(f"{label}: {', '.join(values) or '-'}")
    typer.echo(f"must: {', '.join(now.must) or '-'}\nnever: {', '.join(now.never) or '-'}")
    typer.echo(f"languages: {', '.join(('en', *now.languages))}")


def _picks(o: Opened, who: Account, day: date | None, k: int) -> tuple[date, list[DailyPick]]:
    from papersift.ranking.daily import NoDailyPapers, daily_picks

    try:
        view = daily_picks(o.store, o.indexes, who, o.settings.default_categories, day, k=k)
    except NoDailyPapers as e:
        fail(f"{e} (sync or ingest first)")
    return view.day, view.picks


def recommend(
    day: Annotated[
        str | None, typer.Option("--date", "-d", help="Announcement day (default: latest).")
    ] = None,
    k: Annotated[int, typer.Option("-k", help="How many.", min=1, max=1000)] = 20,
    fmt: FormatOpt = "text",
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Your Daily Papers: the day's new papers in your categories, ranked by your library."""
    from papersift.listing import json_line
    from papersift.shapes import daily_pick_json
    from papersift.sources.citetext import author_line

    check_format(fmt)
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        when, picks = _picks(o, who, parse_day(day, "--date"), k)
    for n, pick in enumerate(picks, 1):
        if fmt == "json":
            typer.echo(json_line(daily_pick_json(pick, rank=n, date=when.isoformat())))
            continue
        typer.echo(f"#{n:02d} {pick.paper.id}  {pick.paper.title}")
        typer.echo(f"     {author_line(pick.paper.authors)}  [{', '.join(pick.paper.categories)}]")
        if pick.reasons:
            typer.echo(f"     why: {'; '.join(pick.reasons)}")
    if fmt == "text":
        typer.echo(f"{len(picks)} papers for {who.name} on {when}", err=True)


def _zotero_first(store: Store, settings: Settings, who: Account) -> bool:
    """The reader's library synced from Zotero first when ``PAPERSIFT_ZOTERO_USER`` / ``_GROUPS`` are set
    (they are the CLI reader's); a failure is said and the day goes on with the library as it is (False)."""
    from papersift.library_sync import ZoteroError, configured, sync_configured

    if not configured(settings) or who.name != settings.reader:
        return True
    try:
        report = sync_configured(store, settings, who)
    except ZoteroError as e:
        typer.echo(f"error: zotero: {e} (continuing with the library as it is)", err=True)
        return False
    if report is not None:
        typer.echo(report.line())
    return True


def digest(
    email: Annotated[
        str | None, typer.Option("--email", help="Send to this address (SMTP settings).")
    ] = None,
    atom: Annotated[Path | None, typer.Option("--atom", help="Write an Atom feed here.")] = None,
    markdown: Annotated[Path | None, typer.Option("--markdown", help="Write Markdown here.")] = None,
    day: Annotated[
        str | None, typer.Option("--date", "-d", help="Announcement day (default: latest).")
    ] = None,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Your top papers of the day as an e-mail (sent once per day), an Atom feed or Markdown."""
    from papersift.digest import atom as atom_bytes
    from papersift.digest import deliver, digest_texts, lab_week, queue_email
    from papersift.digest import markdown as markdown_text

    if not (email or atom or markdown):
        fail("say where the digest goes: --email ADDR, --atom PATH or --markdown PATH", 2)
    settings = load_settings(home)
    errors: list[str] = []
    with opened(settings) as o:
        who = o.account(reader)
        _zotero_first(o.store, settings, who)
        when, picks = _picks(o, who, parse_day(day, "--date"), settings.digest_k)
        if atom:
            texts = digest_texts(o.store, settings, picks)
            atom.write_bytes(atom_bytes(who, when, picks, settings, texts))
            typer.echo(f"atom: {len(picks)} papers written to {atom}")
        if markdown:
            texts = digest_texts(o.store, settings, picks)
            markdown.write_text(markdown_text(who, when, picks, lab_week(o.store), texts), encoding="utf-8")
            typer.echo(f"markdown: {len(picks)} papers written to {markdown}")
        if email:
            if email != who.email:
                o.store.update_account(who.id, email=email)
            queued = queue_email(o.store, settings, who, when, picks)
            if queued.sent:
                typer.echo(
                    f"email: the {when} digest was already sent to {email} ({queued.sent:%Y-%m-%d %H:%M})"
                )
            typer.echo(
                f"email: sending through SMTP {settings.smtp_host}:{settings.smtp_port} "
                "(an unreachable server is retried for a few seconds)",
                err=True,
            )
            sent, errors = deliver(o.store, settings)
            for err in errors:
                typer.echo(f"error: {err}", err=True)
            typer.echo(f"email: {sent} digest(s) sent")
    if errors:
        raise typer.Exit(1)


def daily(
    categories: Annotated[
        list[str] | None,
        typer.Argument(
            help="Categories to sync (default: what readers follow; any case).", callback=all_spelled_option
        ),
    ] = None,
    no_sync: Annotated[
        bool, typer.Option("--no-sync", help="Skip fetching from arXiv (and Zotero).")
    ] = False,
    home: HomeOpt = None,
) -> None:
    """The cron job: sync today's announcements, embed them, make TL;DRs of each reader's top papers (with a
    model), e-mail each reader's digest (once per day)."""
    from papersift.digest import deliver, queue_email, read_ahead
    from papersift.harvest import ArxivClient, HarvestError, sync_rss
    from papersift.index.pipeline import embed_missing, refresh
    from papersift.llm.client import available
    from papersift.ranking.daily import NoDailyPapers, daily_picks
    from papersift.store.cache import VectorCache

    settings = load_settings(home)
    failed = False
    with opened(settings) as o:
        store = o.store
        readers = store.accounts()
        wanted = categories or sorted(
            {c for r in readers for c in store.interests(r.id).categories} or set(settings.default_categories)
        )
        if not no_sync:
            try:
                with ArxivClient(settings) as client:
                    counts = sync_rss(client, store, wanted)
                typer.echo(f"sync: {counts.new} new, {counts.updated} updated")
            except HarvestError as e:
                typer.echo(f"error: sync: {e} (continuing with what is stored)", err=True)
                failed = True
            failed = not _zotero_first(store, settings, o.account(None)) or failed
        cache = VectorCache(settings.cache_path)
        try:
            with progress_bar() as bar:
                task = bar.add_task("embedding", total=store.count() - store.vector_count())
                done = embed_missing(store, settings, cache=cache, progress=lambda n: bar.advance(task, n))
            refresh(store, settings)
        finally:
            cache.close()
        typer.echo(f"embed: {done} papers")
        indexes = o.indexes
        if not no_sync:
            from papersift.cli.common import fulltext_pass

            fulltext_pass(o)  # first: the TL;DRs made next read the full text
        if available(settings):
            typer.echo(read_ahead(store, indexes, settings, readers).line("reading"))
        for who in readers:
            if not who.email:
                continue
            try:
                view = daily_picks(store, indexes, who, settings.default_categories, k=settings.digest_k)
            except NoDailyPapers:
                continue
            queue_email(store, settings, who, view.day, view.picks)
        sent, errors = deliver(store, settings)
    for err in errors:
        typer.echo(f"error: {err}", err=True)
    typer.echo(f"digests: {sent} sent, {len(errors)} kept for the next run")
    if errors or failed:
        raise typer.Exit(1)
