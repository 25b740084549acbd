"""``papersift library add|remove|tag|rate|note|read|list|import|export|sync|status``: a reader's saved
papers, tags, ratings and notes, bibliographies in and out (BibTeX, RIS, CSL-JSON), the library synced
from Zotero."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import (
    FormatOpt,
    HomeOpt,
    ReaderOpt,
    check_format,
    fail,
    load_settings,
    opened,
    refuse,
)
from papersift.cli.language import Speech
from papersift.records.messages import say as say_message
from papersift.sources.latex import plain_text

if TYPE_CHECKING:
    from papersift.store import Store
    from papersift.store.records import Account

library_app = typer.Typer(help="Your library: save, tag, rate, import, export.", no_args_is_help=True)

IdsArg = Annotated[list[str], typer.Argument(help="arXiv ids or URLs.")]
KeyArg = Annotated[str, typer.Argument(help="arXiv id (or library key).")]


def _key(store: Store, reader: Account, paper_id: str, say: Speech) -> str:
    """The library key of an id the reader typed (arXiv ids normalised; other keys as given); one not in the
    reader's library ends the command, said in ``say``'s language."""
    from papersift.records.paper import normalize_id

    try:
        key = normalize_id(paper_id)
    except ValueError:
        key = paper_id
    if store.library_entry(reader.id, key) is None:
        refuse("cli_not_in_library", say=say, paper=paper_id, reader=reader.name)
    return key


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
    from papersift.library.saved import save_paper
    from papersift.records.messages import reason
    from papersift.store import StoreError

    failed = 0
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        for paper_id in ids:
            try:
                entry = save_paper(o.store, who, paper_id, tags=tag or (), note=note, rating=rating)
            except StoreError as e:  # one bad id does not stop the others
                typer.echo(o.say.line("cli_error", message=reason(e)), err=True)
                failed += 1
                continue
            typer.echo(o.say.line("cli_saved", entry=entry.key, title=plain_text(entry.title)))
    if failed:
        raise typer.Exit(1)


@library_app.command("remove")
def library_remove(ids: IdsArg, reader: ReaderOpt = None, home: HomeOpt = None) -> None:
    """Remove papers from your library."""
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        for paper_id in ids:
            o.store.remove_entry(who.id, _key(o.store, who, paper_id, o.say))
            typer.echo(o.say.line("cli_removed", paper=paper_id))


@library_app.command("tag")
def library_tag(
    paper_id: KeyArg,
    tags: Annotated[list[str], typer.Argument(help="Tags to add.")],
    remove: Annotated[bool, typer.Option("--remove", help="Remove these tags instead.")] = False,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Tag a saved paper (tags are folders: `library list --tag T`, `library export --tag T`)."""
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        key = _key(o.store, who, paper_id, o.say)
        if remove:
            o.store.update_entry(who.id, key, remove_tags=tags)
        else:
            o.store.update_entry(who.id, key, add_tags=tags)
        entry = o.store.library_entry(who.id, key)
    if entry and entry.tags:
        typer.echo(o.say.line("cli_tags", entry=key, tags=", ".join(entry.tags)))
    else:
        typer.echo(o.say.line("cli_no_tags", entry=key))


@library_app.command("rate", context_settings={"ignore_unknown_options": True})  # -1 is a rating
def library_rate(
    paper_id: Annotated[str, typer.Argument(help="arXiv id.")],
    rating: Annotated[str, typer.Argument(help="+1 (more like this), -1 (not for me) or 0.")],
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Rate a paper; it is saved first if it is not in your library."""
    from papersift.library.saved import save_paper

    if rating not in ("+1", "1", "-1", "0"):
        refuse("cli_rating_values", 2, value=repr(rating))
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        entry = save_paper(o.store, who, paper_id)
        o.store.update_entry(who.id, entry.key, rating=int(rating))
    typer.echo(o.say.line("cli_rated", entry=entry.key, rating=f"{int(rating):+d}"))


@library_app.command("note")
def library_note(
    paper_id: KeyArg,
    text: Annotated[str, typer.Argument(help="The note ('' clears it).")],
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Keep a note with a saved paper."""
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        o.store.update_entry(who.id, _key(o.store, who, paper_id, o.say), note=text)
    typer.echo(o.say.line("cli_noted"))


@library_app.command("read")
def library_read(ids: IdsArg, unread: bool = False, reader: ReaderOpt = None, home: HomeOpt = None) -> None:
    """Mark papers read, saved or not (or --unread): a read paper is not in your Daily Papers, digests or
    pushes again."""
    from papersift.records.paper import InvalidIdError, normalize_id

    failed = 0
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        for paper_id in ids:
            try:
                pid = normalize_id(paper_id)
            except InvalidIdError:
                if o.store.library_entry(who.id, paper_id) is None:
                    typer.echo(o.say.line("cli_neither_id_nor_entry", paper=paper_id), err=True)
                    failed += 1
                    continue
                o.store.update_entry(who.id, paper_id, read=not unread)  # an entry of a bibliography
                continue
            if unread:
                o.store.unmark_seen(who.id, [pid], "read")
            else:
                o.store.mark_seen(who.id, [pid], "read")
            if o.store.library_entry(who.id, pid) is not None:
                o.store.update_entry(who.id, pid, read=not unread)
    typer.echo(o.say.line("cli_marked_unread" if unread else "cli_marked_read", n=len(ids) - failed))
    if failed:
        raise typer.Exit(1)


@library_app.command("list")
def library_list(
    tag: Annotated[str | None, typer.Option("--tag", "-t", help="Only this tag.")] = None,
    fmt: FormatOpt = "text",
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Your library, newest first (one JSON object a line with --format json)."""
    from papersift.library.shapes import LibraryEntryShape
    from papersift.services.listing import json_line

    check_format(fmt)
    with opened(load_settings(home)) as o:
        entries = o.store.library(o.account(reader).id, tag)
        venues = o.store.venues_of([e.paper_id for e in entries if e.paper_id]) if fmt == "json" else {}
    for e in entries:
        if fmt == "json":
            typer.echo(json_line(LibraryEntryShape.of(e, venues.get(e.paper_id or "", [])).dump()))
        else:
            mark = {1: "+1", -1: "-1"}.get(e.rating, "  ")
            tags = f"  [{', '.join(e.tags)}]" if e.tags else ""
            typer.echo(f"{mark} {e.key:<22} {plain_text(e.title)[:80]}{tags}")
    if fmt == "text":
        n = len(entries)
        typer.echo(
            o.say.line("cli_papers_tagged", n=n, tag=tag) if tag else o.say.line("cli_papers", n=n), err=True
        )


@library_app.command("import")
def library_import(
    path: Annotated[Path, typer.Argument(help="BibTeX, RIS, CSL-JSON (Zotero exports) or a list of ids.")],
    tag: Annotated[list[str] | None, typer.Option("--tag", "-t", help="Tag every imported entry.")] = None,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Import a bibliography; entries are linked to stored papers by arXiv id, DOI or exact title."""
    from papersift.library.saved import import_references
    from papersift.sources.bibliography import read_bibliography_file

    if not path.exists():
        refuse("cli_no_such_file", path=path)
    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # its own log repeats our per-entry errors
    result = read_bibliography_file(path)
    settings = load_settings(home)
    if not result.format and result.errors:  # no bibliography at all: said once, nothing imported
        problem = result.errors[0].message
        if not str(problem).startswith(f"{path}:"):
            problem = say_message("in_file", path=str(path), problem=problem)
        fail(problem, say=Speech(settings.lang))
    with opened(settings) as o:
        report = import_references(
            o.store, o.account(reader), result.references, tags=tag or (), source=f"import:{result.format}"
        )
    errors = [*result.errors, *report.errors]
    say = o.say
    for err in errors[:50]:
        where = f"{path}:{err.line}" if err.line else str(path)
        typer.echo(say.line("cli_entry_skipped", where=where, problem=err.message), err=True)
    if len(errors) > 50:
        typer.echo(say.line("cli_more_skipped", n=len(errors) - 50), err=True)
    counts = {"read": report.read, "linked": report.linked, "kept": report.kept, "new": report.new}
    typer.echo(say.line("cli_imported", format=result.format, **counts, skipped=len(errors)))
    if errors:
        raise typer.Exit(1)


@library_app.command("export")
def library_export(
    tag: Annotated[str | None, typer.Option("--tag", "-t", help="Only this tag.")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="bibtex, csl-json or ris")] = "bibtex",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File (default: stdout).")] = None,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Export your library (or one tag) as BibTeX, CSL-JSON or RIS."""
    from papersift.library.saved import exported
    from papersift.sources.bibliography import to_bibtex, to_csl_json, to_ris

    check_format(fmt, ("bibtex", "csl-json", "ris"))
    with opened(load_settings(home)) as o:
        items = exported(o.store, o.account(reader), tag)
    writers = {"bibtex": to_bibtex, "csl-json": to_csl_json, "ris": to_ris}
    text = writers[fmt](items)
    if output:
        output.write_text(text, encoding="utf-8")
        typer.echo(o.say.line("cli_exported", n=len(items), path=output), err=True)
    else:
        typer.echo(text, nl=False)


@library_app.command("sync")
def library_sync(
    source: Annotated[str, typer.Argument(help="Where the library comes from: zotero.")],
    user: Annotated[
        int | None, typer.Option("--user", help="Zotero user id (default PAPERSIFT_ZOTERO_USER).", min=1)
    ] = None,
    group: Annotated[
        list[int] | None, typer.Option("--group", help="Zotero group id, synced too; repeatable.", min=1)
    ] = None,
    collection: Annotated[
        list[str] | None,
        typer.Option("--collection", "-c", help="A collection that counts (and those below it); repeatable."),
    ] = None,
    not_for_me: Annotated[
        list[str] | None,
        typer.Option(
            "--not-for-me", help="A collection whose items are 'not for me' (rated -1); repeatable."
        ),
    ] = None,
    full: Annotated[
        bool, typer.Option("--full", help="Read every item again, not only the changes.")
    ] = False,
    no_arxiv: Annotated[
        bool, typer.Option("--no-arxiv", help="Never ask arXiv for papers not in the store.")
    ] = False,
    fmt: FormatOpt = "text",
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Sync your library from Zotero (the key: PAPERSIFT_ZOTERO_KEY): only what changed since the last sync;
    items deleted in Zotero leave the library. With no option (and no PAPERSIFT_ZOTERO_* setting): the
    libraries and collections of the last sync."""
    import orjson

    from papersift.library.zotero_api import ZoteroError
    from papersift.library.zotero_sync import libraries, previous_choice, sync_zotero
    from papersift.records.messages import reason

    check_format(fmt)
    if source != "zotero":
        refuse("cli_sync_from_zotero", 2, value=repr(source))
    settings = load_settings(home)
    libs = libraries(user or settings.zotero_user, group or settings.zotero_groups)
    chosen = collection or list(settings.zotero_collections)
    negative = not_for_me or list(settings.zotero_not_for_me)
    with opened(settings) as o:
        who = o.account(reader)
        if not (libs or chosen or negative) and (before := previous_choice(o.store, who)):
            libs, chosen, negative = before  # `library sync zotero` alone: as the last time
        if not libs:
            refuse("cli_whose_library", 2, say=o.say)
        try:
            report = sync_zotero(
                o.store,
                settings,
                who,
                libs,
                collections=chosen,
                not_for_me=negative,
                full=full,
                arxiv=not no_arxiv,
                on_wait=lambda line: typer.echo(line, err=True),
            )
        except ZoteroError as e:
            fail(reason(e), say=o.say)
    if fmt == "json":
        typer.echo(orjson.dumps(report.as_json()).decode())
    else:
        typer.echo(o.say(report.line()))
        if report.arxiv.startswith(("offline", "failed")):
            typer.echo(o.say.line("cli_arxiv_offline_sync", problem=report.arxiv), err=True)


@library_app.command("status")
def library_status(fmt: FormatOpt = "text", reader: ReaderOpt = None, home: HomeOpt = None) -> None:
    """Your library in numbers, and the last sync from Zotero (when, items matched, kept, removed)."""
    import orjson

    from papersift.library.zotero_sync import last_sync, owner

    check_format(fmt)
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        entries = o.store.library(who.id)
        last = last_sync(o.store, who)
    zotero = [e for e in entries if owner(e)]
    status = {
        "reader": who.name,
        "entries": len(entries),
        "linked": sum(e.paper_id is not None for e in entries),
        "zotero_entries": len(zotero),
        "last_sync": last,
    }
    if fmt == "json":
        typer.echo(orjson.dumps(status).decode())
        return
    say = o.say
    typer.echo(
        say.line(
            "cli_library_status",
            reader=who.name,
            n=status["entries"],
            linked=status["linked"],
            zotero=len(zotero),
        )
    )
    if last is None:
        typer.echo(say.line("cli_never_synced"))
        return
    t = last["totals"]
    when = {"at": last["at"], "seconds": f"{last['seconds']:.2f}", "requests": last["requests"]}
    counts = {name: t[name] for name in ("items", "matched", "kept", "removed")}
    typer.echo(say.line("cli_last_sync", **when, **counts))
