"""The reader's commands of the ``papersift`` CLI: ``reader``, ``library``, ``follow``, ``recommend``,
``digest`` and ``daily`` (the cron job: sync → embed → digests for every reader).

Registered on the main Typer app by ``cli.py``; every command acts for ``--reader NAME`` or, by default, the
personal reader of a single-user install.
"""

from __future__ import annotations

import logging
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli import (
    FormatOpt,
    HomeOpt,
    _bar,
    _check_format,
    _day,
    _fail,
    _indexes,
    _settings,
    _store,
    app,
)

if TYPE_CHECKING:
    from papersift.library import DailyPick
    from papersift.settings import Settings
    from papersift.store import Store
    from papersift.store.readers import Reader

reader_app = typer.Typer(help="Readers of a shared install (accounts for the web UI).", no_args_is_help=True)
app.add_typer(reader_app, name="reader")
library_app = typer.Typer(help="Your library: save, tag, rate, import, export.", no_args_is_help=True)
app.add_typer(library_app, name="library")

ReaderOpt = Annotated[
    str | None, typer.Option("--reader", "-r", envvar="PAPERSIFT_READER", help="Reader (default: you).")
]
IdsArg = Annotated[list[str], typer.Argument(help="arXiv ids or URLs.")]


def _reader(store: Store, settings: Settings, name: str | None) -> Reader:
    from papersift.accounts import cli_reader
    from papersift.store import StoreError

    try:
        return cli_reader(store, settings, name)
    except StoreError as e:
        _fail(str(e))


def _open(home: Path | None, name: str | None) -> tuple[Settings, Store, Reader]:
    settings = _settings(home)
    store = _store(settings)
    return settings, store, _reader(store, settings, name)


def _key(store: Store, reader: Reader, paper_id: str) -> str:
    """The library key of an id the reader typed (arXiv ids normalised; other keys as given)."""
    from papersift.paper import normalize_id

    try:
        key = normalize_id(paper_id)
    except ValueError:
        key = paper_id
    if store.library_entry(reader.id, key) is None:
        _fail(f"{paper_id} is not in {reader.name}'s library")
    return key


# -- readers ----------------------------------------------------------------------------------
@reader_app.command("add")
def reader_add(
    name: Annotated[str, typer.Argument(help="Login name.")],
    email: Annotated[str | None, typer.Option(help="Where digests are sent.")] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from stdin.")
    ] = False,
    home: HomeOpt = None,
) -> None:
    """Create a reader (asks for a password unless --password-stdin)."""
    from papersift.accounts import create_reader
    from papersift.store import StoreError

    password = (
        sys.stdin.readline().rstrip("\n")
        if password_stdin
        else typer.prompt("password", hide_input=True, confirmation_prompt=True)
    )
    store = _store(_settings(home))
    try:
        reader = create_reader(store, name, password, email)
    except StoreError as e:
        _fail(str(e))
    finally:
        store.close()
    typer.echo(f"reader {reader.name} created")


@reader_app.command("list")
def reader_list(home: HomeOpt = None) -> None:
    """Every reader, with their e-mail and library size."""
    store = _store(_settings(home))
    for r in store.readers():
        typer.echo(f"{r.name}\t{r.email or '-'}\t{len(store.library(r.id))} papers")
    store.close()


@reader_app.command("feed")
def reader_feed(reader: ReaderOpt = None, new: bool = False, home: HomeOpt = None) -> None:
    """The private Atom feed URL of a reader's Daily Papers (--new replaces its secret token)."""
    from papersift.accounts import new_token

    settings, store, who = _open(home, reader)
    if new:
        store.update_reader(who.id, feed_token=new_token())
        who = store.reader_by_id(who.id) or who
    store.close()
    typer.echo(f"{settings.base_url.rstrip('/')}/feed/{who.feed_token}.atom")


# -- library ----------------------------------------------------------------------------------
@library_app.command("add")
def library_add(
    ids: IdsArg,
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Tag (folder); repeatable.")] = None,
    note: Annotated[str, typer.Option(help="A note kept with the paper.")] = "",
    rating: Annotated[int, typer.Option(help="+1 more like this, -1 not for me.", min=-1, max=1)] = 0,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Save papers to your library."""
    from papersift.library import save_paper
    from papersift.store import StoreError

    _, store, who = _open(home, reader)
    failed = 0
    for paper_id in ids:
        try:
            entry = save_paper(store, who, paper_id, tags=tag or (), note=note, rating=rating)
        except StoreError as e:
            typer.echo(f"error: {e}", err=True)
            failed += 1
            continue
        typer.echo(f"saved {entry.key}: {entry.title}")
    store.close()
    if failed:
        raise typer.Exit(1)


@library_app.command("remove")
def library_remove(ids: IdsArg, reader: ReaderOpt = None, home: HomeOpt = None) -> None:
    """Remove papers from your library."""
    _, store, who = _open(home, reader)
    for paper_id in ids:
        store.remove_entry(who.id, _key(store, who, paper_id))
        typer.echo(f"removed {paper_id}")
    store.close()


@library_app.command("tag")
def library_tag(
    paper_id: Annotated[str, typer.Argument(help="arXiv id (or library key).")],
    tags: Annotated[list[str], typer.Argument(help="Tags to add.")],
    remove: Annotated[bool, typer.Option("--remove", help="Remove these tags instead.")] = False,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Tag a saved paper (tags are folders: `library list --tag T`, `library export --tag T`)."""
    _, store, who = _open(home, reader)
    key = _key(store, who, paper_id)
    if remove:
        store.update_entry(who.id, key, remove_tags=tags)
    else:
        store.update_entry(who.id, key, add_tags=tags)
    entry = store.library_entry(who.id, key)
    store.close()
    typer.echo(f"{key}: {', '.join(entry.tags) if entry and entry.tags else '(no tags)'}")


@library_app.command("rate", context_settings={"ignore_unknown_options": True})  # -1 is a rating
def library_rate(
    paper_id: Annotated[str, typer.Argument(help="arXiv id.")],
    rating: Annotated[str, typer.Argument(help="+1 (more like this), -1 (not for me) or 0.")],
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Rate a paper; it is saved first if it is not in your library."""
    from papersift.library import save_paper
    from papersift.store import StoreError

    if rating not in ("+1", "1", "-1", "0"):
        _fail(f"a rating is +1, -1 or 0, not {rating!r}", 2)
    _, store, who = _open(home, reader)
    try:
        entry = save_paper(store, who, paper_id)
        store.update_entry(who.id, entry.key, rating=int(rating))
    except StoreError as e:
        _fail(str(e))
    finally:
        store.close()
    typer.echo(f"{entry.key}: rated {int(rating):+d}")


@library_app.command("note")
def library_note(
    paper_id: Annotated[str, typer.Argument(help="arXiv id (or library key).")],
    text: Annotated[str, typer.Argument(help="The note ('' clears it).")],
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Keep a note with a saved paper."""
    _, store, who = _open(home, reader)
    store.update_entry(who.id, _key(store, who, paper_id), note=text)
    store.close()
    typer.echo("noted")


@library_app.command("read")
def library_read(ids: IdsArg, unread: bool = False, reader: ReaderOpt = None, home: HomeOpt = None) -> None:
    """Mark saved papers as read (or --unread)."""
    _, store, who = _open(home, reader)
    for paper_id in ids:
        store.update_entry(who.id, _key(store, who, paper_id), read=not unread)
    store.close()
    typer.echo(f"marked {len(ids)} as {'unread' if unread else 'read'}")


@library_app.command("list")
def library_list(
    tag: Annotated[str | None, typer.Option("--tag", "-t", help="Only this tag.")] = None,
    fmt: FormatOpt = "text",
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Your library, newest first (one JSON object a line with --format json)."""
    from papersift.library import entry_json
    from papersift.listing import json_line

    _check_format(fmt)
    _, store, who = _open(home, reader)
    entries = store.library(who.id, tag)
    store.close()
    for e in entries:
        if fmt == "json":
            typer.echo(json_line(entry_json(e)))
        else:
            mark = {1: "+1", -1: "-1"}.get(e.rating, "  ")
            tags = f"  [{', '.join(e.tags)}]" if e.tags else ""
            typer.echo(f"{mark} {e.key:<22} {e.title[:80]}{tags}")
    if fmt == "text":
        typer.echo(f"{len(entries)} papers" + (f" tagged {tag}" if tag else ""), err=True)


@library_app.command("import")
def library_import(
    path: Annotated[Path, typer.Argument(help="BibTeX, RIS, CSL-JSON (Zotero exports) or a list of ids.")],
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Tag every imported entry.")] = None,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Import a bibliography; entries are linked to stored papers by arXiv id, DOI or exact title."""
    from papersift.library import import_references
    from papersift.sources.bibliography import read_bibliography_file

    if not path.exists():
        _fail(f"{path}: no such file")
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # its own log repeats our per-entry errors
    result = read_bibliography_file(path)
    _, store, who = _open(home, reader)
    report = import_references(
        store, who, result.references, tags=tag or (), source=f"import:{result.format}"
    )
    store.close()
    errors = [*result.errors, *report.errors]
    for err in errors[:50]:
        where = f"{path}:{err.line}" if err.line else str(path)
        typer.echo(f"error: {where}: {err.message} (skipped)", err=True)
    if len(errors) > 50:
        typer.echo(f"error: … and {len(errors) - 50} more skipped entries", err=True)
    typer.echo(
        f"import ({result.format}): {report.read} entries read, {report.linked} linked to arXiv papers, "
        f"{report.kept} kept with their own text, {report.new} new in the library, {len(errors)} skipped"
    )
    if errors:
        raise typer.Exit(1)


@library_app.command("export")
def library_export(
    tag: Annotated[str | None, typer.Option("--tag", "-t", help="Only this tag.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="bibtex or csl-json")] = "bibtex",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File (default: stdout).")] = None,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Export your library (or one tag) as BibTeX or CSL-JSON."""
    from papersift.library import export_items
    from papersift.sources.bibliography import to_bibtex, to_csl_json

    _check_format(fmt, ("bibtex", "csl-json"))
    _, store, who = _open(home, reader)
    items = export_items(store, store.library(who.id, tag))
    store.close()
    text = to_bibtex(items) if fmt == "bibtex" else to_csl_json(items)
    if output:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"exported {len(items)} entries to {output}", err=True)
    else:
        typer.echo(text, nl=False)


# -- interests, recommendations, digests ------------------------------------------------------
@app.command()
def follow(
    category: Annotated[list[str] | None, typer.Option("--category", "-c", help="Follow a category.")] = None,
    author: Annotated[list[str] | None, typer.Option("--author", "-a", help="Follow an author.")] = None,
    must: Annotated[
        list[str] | None, typer.Option("--must", help="Keep only papers with a must-word.")
    ] = None,
    never: Annotated[list[str] | None, typer.Option("--never", help="Drop papers with this word.")] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Forget every interest first.")] = False,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Show or change what you follow: categories, authors, must / never keywords."""
    from papersift.store.readers import Interests

    _, store, who = _open(home, reader)
    old = Interests() if clear else store.interests(who.id)

    def merged(before: tuple[str, ...], more: list[str] | None) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*before, *(w.strip() for w in more or () if w.strip())]))

    now = Interests(
        categories=merged(old.categories, category),
        authors=merged(old.authors, author),
        must=merged(old.must, must),
        never=merged(old.never, never),
    )
    if clear or any((category, author, must, never)):
        store.set_interests(who.id, now)
    store.close()
    for label, values in (("categories", now.categories), ("authors", now.authors)):
        typer.echo(f"{label}: {', '.join(values) or '-'}")
    typer.echo(f"must: {', '.join(now.must) or '-'}\nnever: {', '.join(now.never) or '-'}")


def _picks(
    settings: Settings, store: Store, who: Reader, day: date | None, k: int
) -> tuple[date, list[DailyPick]]:
    from papersift.library import NoDailyPapers, daily_picks

    try:
        view = daily_picks(store, _indexes(store, settings), who, settings.default_categories, day, k=k)
    except NoDailyPapers as e:
        _fail(f"{e} (sync or ingest first)")
    return view.day, view.picks


@app.command()
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
    from papersift.paper import format_authors
    from papersift.shapes import daily_pick_json

    _check_format(fmt)
    settings, store, who = _open(home, reader)
    when, picks = _picks(settings, store, who, _day(day, "--date"), k)
    store.close()
    for n, pick in enumerate(picks, 1):
        if fmt == "json":
            typer.echo(json_line(daily_pick_json(pick, rank=n, date=when.isoformat())))
            continue
        typer.echo(f"#{n:02d} {pick.paper.id}  {pick.paper.title}")
        typer.echo(f"     {format_authors(pick.paper.authors)}  [{', '.join(pick.paper.categories)}]")
        if pick.reasons:
            typer.echo(f"     why: {'; '.join(pick.reasons)}")
    if fmt == "text":
        typer.echo(f"{len(picks)} papers for {who.name} on {when}", err=True)


@app.command()
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
    from papersift.digest import deliver, lab_week, queue_email
    from papersift.digest import markdown as markdown_text

    if not (email or atom or markdown):
        _fail("say where the digest goes: --email ADDR, --atom PATH or --markdown PATH", 2)
    settings, store, who = _open(home, reader)
    when, picks = _picks(settings, store, who, _day(day, "--date"), settings.digest_k)
    if atom:
        atom.write_bytes(atom_bytes(who, when, picks, settings))
        typer.echo(f"atom: {len(picks)} papers written to {atom}")
    if markdown:
        markdown.write_text(markdown_text(who, when, picks, lab_week(store)), encoding="utf-8")
        typer.echo(f"markdown: {len(picks)} papers written to {markdown}")
    if email:
        if email != who.email:
            store.update_reader(who.id, email=email)
        queued = queue_email(store, settings, who, when, picks)
        if queued.sent:
            typer.echo(f"email: the {when} digest was already sent to {email} ({queued.sent:%Y-%m-%d %H:%M})")
        typer.echo(
            f"email: sending through SMTP {settings.smtp_host}:{settings.smtp_port} "
            "(an unreachable server is retried for a few seconds)",
            err=True,
        )
        sent, errors = deliver(store, settings)
        for err in errors:
            typer.echo(f"error: {err}", err=True)
        typer.echo(f"email: {sent} digest(s) sent")
        store.close()
        if errors:
            raise typer.Exit(1)
        return
    store.close()


@app.command("daily")
def daily_job(
    categories: Annotated[
        list[str] | None, typer.Argument(help="Categories to sync (default: what readers follow).")
    ] = None,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Skip fetching from arXiv.")] = False,
    home: HomeOpt = None,
) -> None:
    """The cron job: sync today's announcements, embed them, e-mail each reader's digest (once per day)."""
    from papersift.digest import deliver, queue_email
    from papersift.harvest import ArxivClient, HarvestError, sync_rss
    from papersift.index.pipeline import embed_missing, refresh
    from papersift.library import NoDailyPapers, daily_picks
    from papersift.store import StoreError
    from papersift.store.cache import VectorCache

    settings = _settings(home)
    store = _store(settings)
    readers = store.readers()
    wanted = categories or sorted(
        {c for r in readers for c in store.interests(r.id).categories} or set(settings.default_categories)
    )
    failed = False
    if not no_sync:
        try:
            with ArxivClient(settings) as client:
                counts = sync_rss(client, store, wanted)
            typer.echo(f"sync: {counts.new} new, {counts.updated} updated")
        except HarvestError as e:
            typer.echo(f"error: sync: {e} (continuing with what is stored)", err=True)
            failed = True
    cache = VectorCache(settings.cache_path)
    try:
        with _bar() as bar:
            task = bar.add_task("embedding", total=store.count() - store.vector_count())
            done = embed_missing(store, settings, cache=cache, progress=lambda n: bar.advance(task, n))
        refresh(store, settings)
    except StoreError as e:
        _fail(str(e))
    finally:
        cache.close()
    typer.echo(f"embed: {done} papers")
    indexes = _indexes(store, settings)
    for who in readers:
        if not who.email:
            continue
        try:
            view = daily_picks(store, indexes, who, settings.default_categories, k=settings.digest_k)
        except NoDailyPapers:
            continue
        queue_email(store, settings, who, view.day, view.picks)
    sent, errors = deliver(store, settings)
    store.close()
    for err in errors:
        typer.echo(f"error: {err}", err=True)
    typer.echo(f"digests: {sent} sent, {len(errors)} kept for the next run")
    if errors or failed:
        raise typer.Exit(1)
