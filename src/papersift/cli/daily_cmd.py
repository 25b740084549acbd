"""A reader's day: ``papersift follow`` (interests), ``recommend`` (Daily Papers), ``digest`` (e-mail, Atom,
Markdown) and ``daily``, the cron job: sync → embed → every reader's digest, once per day."""

from __future__ import annotations

import math
from datetime import date
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import (
    FormatOpt,
    HomeOpt,
    Opened,
    ReaderOpt,
    check_format,
    fail,
    known_categories_option,
    load_settings,
    opened,
    parse_day,
    progress_bar,
    refuse,
)
from papersift.cli.language import Speech
from papersift.sources.latex import plain_text

if TYPE_CHECKING:
    from papersift.library.digest import DigestDay
    from papersift.library.push import Target
    from papersift.ranking.daily import DailyPick
    from papersift.reading.shown import Texts
    from papersift.settings import Settings
    from papersift.store import Store
    from papersift.store.records import Account


def follow(
    category: Annotated[
        list[str] | None,
        typer.Option(
            "--category", "-c", help="Follow a category (any case).", callback=known_categories_option
        ),
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
    venue: Annotated[
        list[str] | None,
        typer.Option(
            "--venue", help="Follow a venue: its accepted papers come into your Daily Papers once (COLM)."
        ),
    ] = None,
    digest_tag: Annotated[
        list[str] | None,
        typer.Option("--digest-tag", help="Also e-mail a daily digest ranked by this tag of your library."),
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Forget every interest first.")] = False,
    threshold: Annotated[
        str | None,
        typer.Option(
            "--min-score", help="Push and mail only papers scoring at least this ('none': everything)."
        ),
    ] = None,
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Show or change what you follow: categories, authors, venues, keywords, the score threshold."""
    from papersift.ranking.acceptances import follow_venues, followed_venues
    from papersift.ranking.daily import MIN_SCORE
    from papersift.records.messages import say as msg
    from papersift.records.venues import is_venue_name
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
            refuse("cli_lang_en_or_zh", 2, say=o.say, value=", ".join(sorted(unknown)))
        if clear or any((category, author, must, never, lang)):
            o.store.set_interests(who.id, now)
        for name in venue or ():
            if not is_venue_name(name.strip()):
                fail(msg("venue_bad_name", name=repr(name)), 2, say=o.say)
        if clear or venue:
            before = () if clear else followed_venues(o.store, who.id)
            follow_venues(o.store, who.id, [*before, *(venue or ())])
        venues = followed_venues(o.store, who.id)
        if threshold is not None:
            o.store.set_reader_setting(who.id, MIN_SCORE, _threshold(threshold))
        kept = o.store.reader_setting(who.id, MIN_SCORE)
        tagged = _digest_tags(o, who, digest_tag, clear)
    say = o.say
    listed = partial(say.joined, series=True)  # a, b / a、b
    if now.categories:  # none followed: Daily Papers reads the settings' default ones, so say those
        typer.echo(say.line("cli_interest_categories", values=listed(now.categories)))
    else:
        typer.echo(say.line("cli_interest_categories_default", values=listed(o.settings.default_categories)))
    typer.echo(say.line("cli_interest_authors", values=listed(now.authors) or "-"))
    typer.echo(say.line("cli_interest_must", values=listed(now.must) or "-"))
    typer.echo(say.line("cli_interest_never", values=listed(now.never) or "-"))
    typer.echo(say.line("cli_interest_venues", values=listed(venues) or "-"))
    languages = say.joined((msg("language_" + code) for code in ("en", *now.languages)), series=True)
    typer.echo(say.line("cli_interest_languages", values=languages))
    typer.echo(say.line("cli_interest_min_score", value=kept or "-"))
    typer.echo(say.line("cli_interest_digest_tags", values=listed(tagged) or "-"))


def _digest_tags(o: Opened, who: Account, more: list[str] | None, clear: bool) -> list[str]:
    """The reader's digest tags after ``follow`` (``--digest-tag`` added, each a tag of their library;
    ``--clear`` forgets the others first)."""
    from papersift.library.digest import digest_tags, set_digest_tags
    from papersift.ranking.tags import UnknownTag, known_tag
    from papersift.records.messages import reason

    try:
        added = [known_tag(o.store, who, t) for t in more or ()]
    except UnknownTag as e:
        fail(reason(e), 2, o.say)
    if clear or added:
        set_digest_tags(o.store, who, [*([] if clear else digest_tags(o.store, who)), *added])
    return digest_tags(o.store, who)


def _threshold(value: str) -> str | None:
    """A ``--min-score`` as kept: a number, or None for 'none' (everything is pushed)."""
    if value.strip().lower() in ("none", "off", ""):
        return None
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        refuse("cli_min_score_not_number", 2, value=repr(value))
    return repr(number)


MinScoreOpt = Annotated[
    float | None,
    typer.Option("--min-score", help="Papers scoring below this are not pushed or mailed (default: yours)."),
]
AnnouncementDayOpt = Annotated[
    str | None, typer.Option("--date", "-d", help="Announcement day (default: latest).")
]


TagOpt = Annotated[
    str | None, typer.Option("--tag", "-t", help="Ranked by the papers of this library tag alone.")
]


def _picks(
    o: Opened, who: Account, day: date | None, k: int, show_seen: bool = False, tag: str | None = None
) -> tuple[date, list[DailyPick]]:
    from papersift.ranking.daily import NoDailyPapers, daily_picks, day_quiet, reader_categories
    from papersift.ranking.tags import UnknownTag
    from papersift.records.messages import reason

    say = Speech(o.settings.lang)
    try:
        view = daily_picks(
            o.store, o.indexes, who, o.settings.default_categories, day, k=k, show_seen=show_seen, tag=tag
        )
    except UnknownTag as e:
        fail(reason(e), 2, say)
    except NoDailyPapers as e:
        categories = reader_categories(o.store, who, o.settings.default_categories)
        quiet = day_quiet(o.store, categories, day) if day else None
        if quiet is not None:
            fail(quiet.line(), say=say)
        refuse("cli_sync_first", say=say, problem=reason(e))
    return view.day, view.picks


def recommend(
    day: AnnouncementDayOpt = None,
    k: Annotated[int, typer.Option("-k", help="How many.", min=1, max=1000)] = 20,
    show_seen: Annotated[
        bool, typer.Option("--show-seen", help="Also papers you saw (pushed, mailed, opened, read), marked.")
    ] = False,
    threshold: MinScoreOpt = None,
    tag: TagOpt = None,
    fmt: FormatOpt = "text",
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Your Daily Papers: the day's new papers in your categories, ranked by your library (or one tag of
    it: --tag), what you have seen left out, those below your threshold after a line saying so; then what
    the authors you follow announced this week (in JSON, a line each after the picks', with "followed")."""
    from papersift.library.shapes import DailyPickShape, FollowedNew
    from papersift.ranking.daily import min_score
    from papersift.ranking.followed import NEW_DAYS, reader_week
    from papersift.reading.shown import with_venues
    from papersift.records.messages import say as msg
    from papersift.services.listing import json_line
    from papersift.sources.citetext import author_line

    check_format(fmt)
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        when, picks = _picks(o, who, parse_day(day, "--date"), k, show_seen, tag)
        limit = min_score(o.store, who, threshold)
        say = Speech(o.settings.lang)
        followed = reader_week(o.store, who, when)
        papers = [p.paper for p in picks] + [f.paper for f in followed]
        shown = with_venues(o.store, papers) if fmt == "json" else None
    cut = False
    for n, pick in enumerate(picks, 1):
        below = limit is not None and pick.score is not None and pick.score < limit
        if fmt == "json":
            typer.echo(
                json_line(
                    DailyPickShape.of_pick(pick, shown, rank=n, date=when.isoformat(), below=below).dump()
                )
            )
            continue
        if below and not cut:
            typer.echo(say.line("cli_below_threshold", limit=f"{limit:g}"))
            cut = True
        seen = f"  {say.line('cli_seen', how=', '.join(pick.seen))}" if pick.seen else ""
        typer.echo(f"#{n:02d} {pick.paper.id}  {plain_text(pick.paper.title)}{seen}")
        typer.echo(f"     {say(author_line(pick.paper.authors))}  [{', '.join(pick.paper.categories)}]")
        if pick.reasons:
            score = f" ({say.line('score', score=f'{pick.score:.2f}')})" if pick.score is not None else ""
            typer.echo(f"     {say.line('why_reasons', reasons=say.joined(pick.reasons))}{score}")
    if fmt == "json":
        for f in followed:
            typer.echo(json_line(FollowedNew.of_followed(f, shown).dump()))
    if fmt == "text" and followed:
        typer.echo("")
        typer.echo(say.line("cli_followed_new", n=len(followed), days=NEW_DAYS))
        for f in followed:
            day_of = f.paper.announced or f.paper.published or ""
            by = msg("followed_authors", authors=", ".join(f.authors))
            typer.echo(f"  {f.paper.id}  {plain_text(f.paper.title)}")
            typer.echo(f"     {say(author_line(f.paper.authors))} · {day_of} · {say(by)}")
    if fmt == "text":
        if tag is not None:
            typer.echo(say.line("cli_ranked_by_tag", tag=tag), err=True)
        typer.echo(say.line("cli_picks", n=len(picks), reader=who.name, day=when), err=True)


def _zotero_first(store: Store, settings: Settings, who: Account) -> bool:
    """The reader's library synced from Zotero first when ``PAPERSIFT_ZOTERO_USER`` / ``_GROUPS`` are set
    (they are the CLI reader's); a failure is said and the day goes on with the library as it is (False)."""
    from papersift.library.zotero_api import ZoteroError
    from papersift.library.zotero_sync import configured, sync_configured
    from papersift.records.messages import reason

    if not configured(settings) or who.name != settings.reader:
        return True
    say = Speech(settings.lang)
    try:
        report = sync_configured(store, settings, who)
    except ZoteroError as e:
        typer.echo(say.line("cli_zotero_failed", problem=reason(e)), err=True)
        return False
    if report is not None:
        typer.echo(say(report.line()))
    return True


def digest(
    action: Annotated[
        str | None,
        typer.Argument(help="status: what was mailed and pushed when, to which service, and what failed."),
    ] = None,
    email: Annotated[
        str | None, typer.Option("--email", help="Send to this address (SMTP settings).")
    ] = None,
    push: Annotated[
        bool, typer.Option("--push", help="Push to the services of PAPERSIFT_PUSH (Apprise URLs).")
    ] = False,
    atom: Annotated[Path | None, typer.Option("--atom", help="Write an Atom feed here.")] = None,
    markdown: Annotated[Path | None, typer.Option("--markdown", help="Write Markdown here.")] = None,
    day: AnnouncementDayOpt = None,
    threshold: MinScoreOpt = None,
    tag: TagOpt = None,
    fmt: FormatOpt = "text",
    reader: ReaderOpt = None,
    home: HomeOpt = None,
) -> None:
    """Your top papers of the day, not yet seen, as an e-mail or pushes (each sent once per day), an Atom
    feed or Markdown (--tag: a digest ranked by one tag of your library, e-mailed apart from the usual
    one); ``digest status``: what was sent."""
    from papersift.library.digest import (
        EMAIL,
        deliver,
        digest_day,
        lab_week,
        queue_email,
        reader_texts,
        tag_channel,
    )
    from papersift.library.digest import atom as atom_bytes
    from papersift.library.digest import markdown as markdown_text
    from papersift.library.words import digest_lang
    from papersift.ranking.daily import NoDailyPapers
    from papersift.ranking.tags import UnknownTag
    from papersift.records.messages import reason

    if action is not None:
        if action != "status":
            refuse("cli_unknown_digest_action", 2, action=repr(action))
        return _status(fmt, reader, home)
    check_format(fmt)
    if not (email or atom or markdown or push):
        refuse("cli_digest_where", 2)
    if tag is not None and push:
        refuse("cli_tag_not_pushed", 2)
    settings = load_settings(home)
    services = _push_targets(settings) if push else []
    errors: list[str] = []
    say = Speech(settings.lang)
    with opened(settings) as o:
        who = o.account(reader)
        _zotero_first(o.store, settings, who)
        try:
            today = digest_day(
                o.store, o.indexes, settings, who, parse_day(day, "--date"), threshold=threshold, tag=tag
            )
        except UnknownTag as e:
            fail(reason(e), 2, say)
        except NoDailyPapers as e:
            refuse("cli_sync_first", say=say, problem=reason(e))
        when, picks = today.day, today.picks
        if today.note:
            typer.echo(say(today.note), err=True)
        elif today.below:
            typer.echo(say.line("cli_below_left_out", n=today.below, limit=f"{today.threshold:g}"), err=True)
        lang = digest_lang(o.store, settings, who)  # the reader's: 中文 for one who follows with --lang zh
        texts = reader_texts(o.store, settings, who, picks, lang) if atom or markdown else None
        if atom:
            atom.write_bytes(
                atom_bytes(who, when, picks, settings, texts, lang=lang, followed=today.followed)
            )
            typer.echo(say.line("cli_atom_written", n=len(picks), path=atom))
        if markdown:
            made = markdown_text(who, when, picks, lab_week(o.store), texts, lang, today.tag, today.followed)
            markdown.write_text(made, encoding="utf-8")
            typer.echo(say.line("cli_markdown_written", n=len(picks), path=markdown))
        if email:
            if email != who.email:
                o.store.update_account(who.id, email=email)
            channel = EMAIL if today.tag is None else tag_channel(today.tag)
            queued = queue_email(
                o.store, settings, who, when, picks, today.note, today.subject, channel, today.followed
            )
            if queued.sent:
                at = f"{queued.sent:%Y-%m-%d %H:%M}"
                typer.echo(say.line("cli_email_already_sent", day=when, to=email, at=at))
            typer.echo(
                say.line("cli_email_sending", host=settings.smtp_host, port=settings.smtp_port), err=True
            )
            sent, errors = deliver(o.store, settings, tuple(dict.fromkeys((EMAIL, channel))))
            for err in errors:
                typer.echo(say.line("cli_error", message=err), err=True)
            typer.echo(say.line("cli_email_sent", n=sent))
        if push:
            errors += _push(o, who, today, services)
    if errors:
        raise typer.Exit(1)


def _tag_digests(o: Opened, today: date, threshold: float | None) -> list[str]:
    """Keep each reader's digest of each of their digest tags (``follow --digest-tag``) that is due; the
    channels of every reader's tags (so that one kept from a failed run is sent too)."""
    from papersift.library.digest import digest_tags, due, queue_email, tag_channel
    from papersift.ranking.daily import NoDailyPapers
    from papersift.ranking.tags import UnknownTag

    channels: list[str] = []
    for reader in o.store.accounts():
        for tag in digest_tags(o.store, reader) if reader.email else []:
            channel = tag_channel(tag)
            channels.append(channel)
            try:
                mail = due(
                    o.store, o.indexes, o.settings, reader, channel, today, threshold=threshold, tag=tag
                )
            except (NoDailyPapers, UnknownTag):  # no listing, or the tag is gone from the library
                continue
            if mail is not None and mail.picks:
                queue_email(
                    o.store, o.settings, reader, mail.day, mail.picks, mail.note, mail.subject, channel
                )
    return list(dict.fromkeys(channels))


def _push_targets(settings: Settings) -> list[Target]:
    from papersift.library.push import PushError, targets
    from papersift.records.messages import reason

    try:
        found = targets(settings)
    except PushError as e:
        fail(reason(e), 2, Speech(settings.lang))
    if not found:
        refuse("cli_no_push_services", 2, Speech(settings.lang))
    return found


def _push_words(o: Opened, who: Account, today: DigestDay) -> tuple[str, Texts]:
    """The language of ``who``'s pushes and the texts they show of ``today``'s picks (made first)."""
    from papersift.library.digest import reader_texts
    from papersift.library.words import digest_lang

    lang = digest_lang(o.store, o.settings, who)
    return lang, reader_texts(o.store, o.settings, who, today.picks, lang)


def _queue_push(o: Opened, who: Account, today: DigestDay, service: Target, lang: str, texts: Texts) -> None:
    """Compose the day's push for one service and keep it for sending (or say it was sent already)."""
    from papersift.library.push import compose, queue

    kept = queue(o.store, service, who, today.day, compose(service, who, today, o.settings, texts, lang))
    if kept.sent:
        when = f"{kept.sent:%Y-%m-%d %H:%M}"
        typer.echo(o.say.line("cli_push_already_sent", day=today.day, to=service.label, at=when))


def _push(o: Opened, who: Account, today: DigestDay | None, services: list[Target]) -> list[str]:
    """Keep the day's push for each service (``today``; None: only what is kept), its texts made once, then
    send every kept push: the errors."""
    from papersift.library.push import deliver

    if today is not None:
        lang, texts = _push_words(o, who, today)
        for service in services:
            _queue_push(o, who, today, service, lang, texts)
    sent, errors = deliver(o.store, services)
    for err in errors:
        typer.echo(o.say.line("cli_error", message=err), err=True)
    typer.echo(o.say.line("cli_push_sent", n=sent, services=len(services)))
    return errors


def _status(fmt: str, reader: str | None, home: Path | None) -> None:
    """``digest status``: the reader's digests, newest first: day, channel, papers, sent or why not."""
    from papersift.library.digest import digest_json
    from papersift.services.listing import json_line

    check_format(fmt)
    with opened(load_settings(home)) as o:
        who = o.account(reader)
        kept = o.store.digests(who.id)
    say = o.say
    for d in kept:
        if fmt == "json":
            typer.echo(json_line(digest_json(d)))
            continue
        if d.sent:
            state = say.line("cli_digest_sent_at", at=f"{d.sent:%Y-%m-%d %H:%M}")
        else:
            state = say.line("cli_digest_failed" if d.error else "cli_digest_waiting")
        row = {"day": d.day, "channel": f"{d.channel:<40}", "n": f"{len(d.papers):>3}", "tries": d.attempts}
        typer.echo(say.line("cli_digest_row", **row, state=state))
        if d.error and not d.sent:
            typer.echo(f"     {say.line('cli_error', message=d.error)}")
    if fmt == "text" and not kept:
        typer.echo(say.line("cli_nothing_sent", reader=who.name))


def daily(
    categories: Annotated[
        list[str] | None,
        typer.Argument(
            help="Categories to sync (default: what readers follow; any case).",
            callback=known_categories_option,
        ),
    ] = None,
    no_sync: Annotated[
        bool, typer.Option("--no-sync", help="Skip fetching from arXiv (and Zotero).")
    ] = False,
    threshold: MinScoreOpt = None,
    today: Annotated[
        str | None, typer.Option("--today", hidden=True, help="The run's US-Eastern date (replays, tests).")
    ] = None,
    home: HomeOpt = None,
) -> None:
    """The cron job: sync today's announcements, embed them, make TL;DRs of each reader's top papers (with a
    model), e-mail each reader's digest and push yours (PAPERSIFT_PUSH), once per day; on a day arXiv
    announces nothing, a note naming the next listing instead."""
    from datetime import datetime

    from papersift.index.pipeline import embed_missing, refresh
    from papersift.library.digest import EMAIL, deliver, due, queue_email, read_ahead
    from papersift.llm.client import available
    from papersift.ranking.daily import NoDailyPapers
    from papersift.records.messages import reason
    from papersift.records.schedule import EASTERN
    from papersift.services.harvest import ArxivClient, HarvestError, sync_rss
    from papersift.store.cache import VectorCache

    settings = load_settings(home)
    services = _push_targets(settings) if settings.push is not None else []
    run_day = parse_day(today, "--today") or datetime.now(EASTERN).date()
    failed = False
    say = Speech(settings.lang)
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
                typer.echo(say.line("cli_new_updated", what="sync", new=counts.new, updated=counts.updated))
            except HarvestError as e:
                typer.echo(say.line("cli_sync_failed", problem=reason(e)), err=True)
                failed = True
            failed = not _zotero_first(store, settings, o.account(None)) or failed
        cache = VectorCache(settings.cache_path)
        try:
            with progress_bar() as bar:
                task = bar.add_task(say.line("cli_bar_embedding"), total=store.count() - store.vector_count())
                done = embed_missing(store, settings, cache=cache, progress=lambda n: bar.advance(task, n))
            refresh(store, settings)
        finally:
            cache.close()
        typer.echo(say.line("cli_embedded", n=done))
        indexes = o.indexes
        if not no_sync:
            from papersift.cli.common import fulltext_pass

            fulltext_pass(o)  # first: the TL;DRs made next read the full text
        if available(settings):
            typer.echo(say(read_ahead(store, indexes, settings, readers).line("reading")))
        for who in readers:
            if not who.email:
                continue
            try:
                mail = due(store, indexes, settings, who, "email", run_day, threshold=threshold)
            except NoDailyPapers:
                continue
            if mail is not None:
                queue_email(
                    store,
                    settings,
                    who,
                    mail.day,
                    mail.picks,
                    mail.note,
                    mail.subject,
                    followed=mail.followed,
                )
        channels = [EMAIL, *_tag_digests(o, run_day, threshold)]
        sent, errors = deliver(store, settings, channels)
        if services:
            me = o.account(None)
            for service in services:
                try:
                    now = due(store, indexes, settings, me, service.channel, run_day, threshold=threshold)
                except NoDailyPapers:
                    break
                if now is not None:
                    _queue_push(o, me, now, service, *_push_words(o, me, now))
            errors += _push(o, me, None, services)
    for err in errors:
        typer.echo(say.line("cli_error", message=err), err=True)
    typer.echo(say.line("cli_digests_sent", n=sent, kept=len(errors)))
    if errors or failed:
        raise typer.Exit(1)
