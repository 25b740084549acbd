"""Digests: a reader's top papers of a day as e-mail (HTML + plain text over SMTP), Atom and Markdown
(pushes: ``library/push.py``), and what a day's digests hold (``digest_day``: the papers not yet seen, at or
above the reader's threshold, then what the authors they follow announced this week that they have not
seen, ``ranking/followed.py``; on a day arXiv announces nothing, a note naming the next listing; ``due``:
what the cron job sends on a channel). A sent digest's papers, those of authors followed too, are marked
seen: a digest tells of a paper once.

A digest is composed once per (reader, day, channel) and kept in the store before anything is sent, so a
failed send is retried on the next run and a rerun never sends the same day twice. SMTP supports plain,
STARTTLS and SSL connections with optional login (``PAPERSIFT_SMTP_*``); a login never crosses the network
in plain text. Paper and model texts are shown with their math as Unicode (``plain_text``: ``LoRA-GA$^2$``
→ ``LoRA-GA^2``, ``1.24$\\times$`` → ``1.24×``), as no mail reader typesets LaTeX.
"""

from __future__ import annotations

import html
import smtplib
import ssl
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from functools import partial
from typing import TYPE_CHECKING, Any

from papersift.library.delivery import Sending, tried
from papersift.library.shapes import DailyPickShape, FollowedNew
from papersift.library.words import Words, day_name, digest_lang, shown_texts
from papersift.llm.client import available
from papersift.ranking.daily import (
    DailyPick,
    NoDailyPapers,
    QuietDay,
    above,
    daily_picks,
    day_quiet,
    followed_days,
    min_score,
    reader_categories,
)
from papersift.ranking.followed import FollowedPaper, reader_week
from papersift.reading.passes import Made, summarize
from papersift.reading.shown import Texts, lookup, missing_line
from papersift.records.feeds import atom_feed
from papersift.records.messages import Message, say
from papersift.records.paper import Paper
from papersift.services.eprints import Fetched
from papersift.services.lab import DIGEST_POPULAR, Popular, counts_text, is_lab
from papersift.services.lab import popular as lab_popular
from papersift.services.listing import ABS_URL, PDF_URL
from papersift.settings import Settings, SmtpSecurity, is_loopback
from papersift.sources.citetext import author_line, plain_authors
from papersift.sources.latex import plain_text
from papersift.store import Store
from papersift.store.records import Account, Digest, DigestText

if TYPE_CHECKING:
    from papersift.index.indexes import Indexes


EMAIL = "email"  # the digests' channel of the usual e-mail digest
DIGEST_TAGS = "digest_tags"  # the reader setting: tags with a daily e-mail digest of their own, one a line


class DigestError(RuntimeError):
    """A digest could not be delivered (it stays queued and is retried on the next run)."""


def compose(
    reader: Account,
    day: date,
    picks: Sequence[DailyPick],
    settings: Settings,
    popular: Sequence[Popular] = (),
    texts: Texts | None = None,
    note: str | None = None,
    subject: str | None = None,
    lang: str = "en",
    followed: Sequence[FollowedPaper] = (),
) -> DigestText:
    """The digest's subject, plain text and HTML (every paper text escaped), each paper's TL;DR (and how
    many are missing, and why), then what the authors the reader follows announced this week
    (``followed``) and what the lab read; ``note`` says why there are no papers (a day arXiv announced
    nothing, everything seen or below the threshold). Its words in ``lang`` (``library/words``)."""
    words = Words(lang)
    usual = say("digest_subject", n=len(picks), reader=reader.name, day=day_name(day))
    subject = words.said(subject or usual)
    note = words.said(note) if note else None
    tldrs = [(texts or Texts()).tldr(p.paper) for p in picks]
    missing = missing_line(tldrs, lang)
    lines = [subject, ""] + ([missing, ""] if missing else [])
    items = []
    for n, pick in enumerate(picks, 1):
        p = pick.paper
        why = words("why_reasons", reasons=words.why(pick.reasons)) if pick.reasons else ""
        tldr = words.tldr(tldrs[n - 1], plain_text)
        title, abstract = plain_text(p.title), plain_text(p.abstract)
        venues = words.venues(texts, p.id)  # "COLM 2025 · Poster": where it was accepted
        lines += [
            f"#{n:02d} {title}",
            f"    {words.said(author_line(p.authors))} [{', '.join(p.categories)}]",
            *([f"    {venues}"] if venues else []),
            f"    {tldr}",
            f"    {ABS_URL.format(p.id)}",
        ]
        if why:
            lines.append(f"    {why}")
        lines.append("")
        items.append(
            f'<li><p><a href="{html.escape(ABS_URL.format(p.id))}"><b>{html.escape(title)}</b></a> '
            f'(<a href="{html.escape(PDF_URL.format(p.id))}">pdf</a>)<br>'
            f"{html.escape(words.said(author_line(p.authors)))} · {html.escape(', '.join(p.categories))}"
            + (f" · <b>{html.escape(venues)}</b>" if venues else "")
            + (f"<br><small>{html.escape(why)}</small>" if why else "")
            + f"</p><p><i>{html.escape(tldr)}</i></p>"
            + f"<p>{html.escape(abstract[:600])}{'…' if len(abstract) > 600 else ''}</p></li>"
        )
    if not picks:
        lines.append(note or words("digest_none"))
    by_followed = ""
    if followed:
        heading = words("digest_followed_new")
        lines += ["", heading]
        for f in followed:
            lines += [
                f"- {plain_text(f.paper.title)}",
                f"    {words.followed(f)}",
                f"    {ABS_URL.format(f.paper.id)}",
            ]
        by_followed = (
            f"<h3>{html.escape(heading)}</h3><ul>"
            + "".join(
                f'<li><a href="{html.escape(ABS_URL.format(f.paper.id))}">'
                f"{html.escape(plain_text(f.paper.title))}</a><br>"
                f"<small>{html.escape(words.followed(f))}</small></li>"
                for f in followed
            )
            + "</ul>"
        )
    link = f"{settings.base_url.rstrip('/')}/daily/{day.isoformat()}"
    lines += ["", words("digest_all_papers_at", link=link)]
    lab = ""
    if popular:
        heading = words("lab_popular_week")
        lines += ["", heading]
        lines += [
            f"- {plain_text(p.paper.title)} ({words.said(counts_text(p.saves, p.upvotes))}) "
            f"{ABS_URL.format(p.paper.id)}"
            for p in popular
        ]
        lab = (
            f"<h3>{html.escape(heading)}</h3><ul>"
            + "".join(
                f'<li><a href="{html.escape(ABS_URL.format(p.paper.id))}">'
                f"{html.escape(plain_text(p.paper.title))}</a> "
                f"({html.escape(words.said(counts_text(p.saves, p.upvotes)))})</li>"
                for p in popular
            )
            + "</ul>"
        )
    notes = f"<p><small>{html.escape(missing)}</small></p>" if missing else ""
    if not picks and note:
        notes += f"<p>{html.escape(note)}</p>"
    body = (
        f"<html><body><h2>{html.escape(subject)}</h2>{notes}<ol>{''.join(items)}</ol>{by_followed}{lab}"
        f'<p><a href="{html.escape(link)}">{html.escape(words("digest_all_papers"))}</a></p></body></html>'
    )
    papers = tuple(p.paper.id for p in picks) + tuple(f.paper.id for f in followed)  # seen once sent
    return DigestText(subject, "\n".join(lines) + "\n", body, papers)


def followed_week(
    store: Store, reader: Account, day: date, picks: Sequence[DailyPick]
) -> list[FollowedPaper]:
    """The digests' "new this week by authors you follow": the papers of the week up to ``day`` naming an
    author ``reader`` follows, not among the day's ``picks``, not saved, not seen (a digest that carried
    one marks it seen when sent, so the next day's does not tell of it again)."""
    return reader_week(store, reader, day, unseen=True, leave_out={p.paper.id for p in picks})


def digest_texts(store: Store, settings: Settings, picks: Sequence[DailyPick], lang: str = "en") -> Texts:
    """The texts a digest shows: the papers' TL;DRs made first when a model is available (stored ones
    kept, at most ``reading_pass_papers`` made per call), then looked up."""
    papers = [p.paper for p in picks]
    if available(settings):
        summarize(settings, store, papers, lang, budget=settings.reading_pass_papers)
    return lookup(settings, store, papers, lang)


def reader_texts(
    store: Store, settings: Settings, reader: Account, picks: Sequence[DailyPick], lang: str
) -> Texts:
    """The texts ``reader``'s digest in ``lang`` (``words.digest_lang``) shows, made first (``digest_texts``)
    in English and in each language they read: in 中文 their 中文 TL;DRs where stored, else the English."""
    english = digest_texts(store, settings, picks)
    made = {code: digest_texts(store, settings, picks, code) for code in store.interests(reader.id).languages}
    return shown_texts(english, made.get("zh") if lang == "zh" else None)


def read_ahead(store: Store, indexes: Indexes, settings: Settings, readers: Sequence[Account]) -> Made:
    """The background pass after ``sync`` / ``daily``: the TL;DRs of each reader's top
    ``reading_pass_papers`` Daily Papers, and their 中文 title, abstract and TL;DR for a reader who reads
    中文 (``follow --lang zh``), made when a model is available, what is stored kept."""
    done = Made()
    if not available(settings) or not settings.reading_pass_papers:
        return done
    for reader in readers:
        try:
            view = daily_picks(
                store, indexes, reader, settings.default_categories, k=settings.reading_pass_papers
            )
        except NoDailyPapers:
            continue
        for lang in ("en", *store.interests(reader.id).languages):
            made = summarize(settings, store, [p.paper for p in view.picks], lang)
            done.made, done.kept = done.made + made.made, done.kept + made.kept
            done.failures += made.failures
    return done


def queue_email(
    store: Store,
    settings: Settings,
    reader: Account,
    day: date,
    picks: Sequence[DailyPick],
    note: str | None = None,
    subject: str | None = None,
    channel: str = EMAIL,
    followed: Sequence[FollowedPaper] = (),
) -> Digest:
    """Compose the reader's e-mail digest of ``day`` (its TL;DRs made first when a model is available) and
    keep it for sending (or the one already kept); ``note``, ``subject`` and ``followed``: see ``compose``;
    ``channel``: ``EMAIL``, or a tag's (``tag_channel``)."""
    lang = digest_lang(store, settings, reader)
    texts = reader_texts(store, settings, reader, picks, lang)
    lab = lab_week(store)
    made = compose(reader, day, picks, settings, lab, texts, note, subject, lang, followed)
    return store.queue_digest(reader.id, day, channel, made)


def tag_channel(tag: str) -> str:
    """The e-mail channel of a digest ranked by one tag: kept and sent apart from the day's usual one."""
    return f"{EMAIL} #{tag}"


def digest_tags(store: Store, reader: Account) -> list[str]:
    """The tags the reader gets a digest of each day besides the usual one (``follow --digest-tag``)."""
    kept = store.reader_setting(reader.id, DIGEST_TAGS)
    return [t for t in (kept or "").split("\n") if t]


def set_digest_tags(store: Store, reader: Account, tags: Sequence[str]) -> None:
    """Keep the reader's digest tags (none: forget them)."""
    store.set_reader_setting(reader.id, DIGEST_TAGS, "\n".join(dict.fromkeys(tags)) or None)


def lab_week(store: Store) -> list[Popular]:
    """The digests' "popular in your lab this week" (nothing on a single-reader install)."""
    return lab_popular(store, limit=DIGEST_POPULAR) if is_lab(store) else []


def markdown(
    reader: Account,
    day: date,
    picks: Sequence[DailyPick],
    popular: Sequence[Popular] = (),
    texts: Texts | None = None,
    lang: str = "en",
    tag: str | None = None,
    followed: Sequence[FollowedPaper] = (),
) -> str:
    """The digest as Markdown, its words in ``lang`` (``tag``: it was ranked by that tag alone), with what
    the authors the reader follows announced this week (``followed``) and what the lab read."""
    words = Words(lang)
    out = [f"# {words('markdown_title', reader=reader.name, day=day.isoformat())}", ""]
    if tag is not None:
        out += [f"_{words('digest_ranked_by_tag', tag=tag)}_", ""]
    tldrs = [(texts or Texts()).tldr(p.paper) for p in picks]
    if missing := missing_line(tldrs, lang):
        out += [f"_{missing}_", ""]
    for n, pick in enumerate(picks, 1):
        p = pick.paper
        title = plain_text(p.title).replace("[", "\\[").replace("]", "\\]")
        authors = words.said(author_line(p.authors))
        venues = words.venues(texts, p.id)
        badge = f" · **{venues}**" if venues else ""
        out.append(f"{n}. [{title}]({ABS_URL.format(p.id)}) — {authors} ({', '.join(p.categories)}){badge}")
        tldr = words.tldr(tldrs[n - 1], plain_text).replace("[", "\\[").replace("]", "\\]")
        out.append(f"   - {tldr}")
        if pick.reasons:
            out.append(f"   - {words('why_reasons', reasons=words.why(pick.reasons))}")
    if followed:
        out += ["", f"## {words('digest_followed_new')}", ""]
        for found in followed:
            title = plain_text(found.paper.title).replace("[", "\\[").replace("]", "\\]")
            out.append(f"- [{title}]({ABS_URL.format(found.paper.id)}) — {words.followed(found)}")
    if popular:
        out += ["", f"## {words('lab_popular_week')}", ""]
        for item in popular:
            title = plain_text(item.paper.title).replace("[", "\\[").replace("]", "\\]")
            link = ABS_URL.format(item.paper.id)
            out.append(f"- [{title}]({link}) — {words.said(counts_text(item.saves, item.upvotes))}")
    return "\n".join(out) + "\n"


def atom(
    reader: Account,
    day: date,
    picks: Sequence[DailyPick],
    settings: Settings,
    texts: Texts | None = None,
    base_url: str | None = None,
    lang: str = "en",
    followed: Sequence[FollowedPaper] = (),
) -> bytes:
    """The reader's private Daily Papers feed: the picks, then the papers of the week by authors they follow
    (``followed``: entries in the category "followed", naming those authors); its links on ``base_url``
    (default: the configured one), its words in ``lang``."""
    base = (base_url or settings.base_url).rstrip("/")
    entries = [feed_entry(DailyPickShape.of_pick(p, texts, announced=day.isoformat()).dump()) for p in picks]
    entries += [feed_entry(FollowedNew.of_followed(f, texts).dump()) for f in followed]
    return atom_feed(
        Words(lang)("feed_title", reader=reader.name),
        f"{base}/feed/{reader.name}",
        f"{base}/feed/{reader.feed_token}.atom",
        entries,
        lang,
    )


def feed_entry(paper: dict[str, Any]) -> dict[str, Any]:
    """A ``PaperShape`` as a feed shows it: title and authors as plain Unicode (no LaTeX left)."""
    title, authors = plain_text(paper["title"]), list(plain_authors(paper["authors"]))
    return {**paper, "title": title, "authors": authors}


def message(settings: Settings, to: str, digest: Digest) -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"] = digest.subject
    msg["From"] = settings.mail_from
    msg["To"] = to
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = make_msgid(domain="papersift")
    msg.set_content(digest.text)
    msg.add_alternative(digest.html, subtype="html")
    return msg


def send(settings: Settings, msg: EmailMessage) -> None:
    """One SMTP delivery, retried with backoff; DigestError after the last attempt (at once for a refused
    login: trying a wrong password again only gets the account locked)."""
    where = f"SMTP {settings.smtp_host}:{settings.smtp_port}"

    def once() -> str | None:
        try:
            _send_once(settings, msg)
        except smtplib.SMTPAuthenticationError as e:
            raise DigestError(say("smtp_login_refused", where=where, problem=str(e))) from e
        except (OSError, smtplib.SMTPException) as e:
            return str(e)
        return None

    failed = tried(once)
    if failed is not None:
        raise DigestError(say("mail_failed", where=where, problem=failed))


def _send_once(settings: Settings, msg: EmailMessage) -> None:
    """One connection: TLS from the start (ssl) or upgraded before anything else (starttls; a server that
    does not offer it is an error, never a fall back to plain text). The login goes over TLS only, or in
    plain text to a loopback host (``Settings`` refuses any other plain-text login at start)."""
    host, port, timeout = settings.smtp_host, settings.smtp_port, settings.smtp_timeout
    security = settings.smtp_security
    server: smtplib.SMTP
    if security is SmtpSecurity.SSL:
        server = smtplib.SMTP_SSL(host, port, timeout=timeout, context=ssl.create_default_context())
    else:
        server = smtplib.SMTP(host, port, timeout=timeout)
    with server:
        if security is SmtpSecurity.STARTTLS:
            server.starttls(context=ssl.create_default_context())
        if settings.smtp_user:
            if security is SmtpSecurity.NONE and not is_loopback(host):
                raise smtplib.SMTPException(f"no login in plain text to {host}: use starttls or ssl")
            password = settings.smtp_password.get_secret_value() if settings.smtp_password else ""
            server.login(settings.smtp_user, password)
        server.send_message(msg)


def deliver(store: Store, settings: Settings, channels: Sequence[str] = (EMAIL,)) -> tuple[int, list[str]]:
    """Send every queued e-mail digest of ``channels`` (oldest first): (sent, errors). Failures stay
    queued."""
    sending = Sending(store, DigestError, "mailed", say("send_again_mail"))
    for digest in (d for channel in channels for d in store.unsent_digests(channel)):
        reader = store.account_by_id(digest.reader)
        if reader is None or not reader.email:
            store.mark_digest(digest.id, sent=False, error=say("reader_no_email"))
            sending.errors.append(say("digest_no_email", id=digest.id, reader=digest.reader))
            continue
        mailed = partial(send, settings, message(settings, reader.email, digest))
        sending.send(digest, mailed, f"{reader.name} {digest.day}")
    return sending.sent, sending.errors


def papers_ahead(
    store: Store,
    indexes: Indexes | None,
    settings: Settings,
    readers: Sequence[Account],
    *,
    daily: int,
    saved: int,
) -> list[Paper]:
    """The papers whose full text the pass after ``sync`` / ``daily`` fetches: each reader's top ``daily``
    Daily Papers and latest ``saved`` saved papers (``fulltext --daily N`` and ``--library`` too)."""
    papers: list[Paper] = []
    for reader in readers:
        if daily:
            try:
                view = daily_picks(store, indexes, reader, settings.default_categories, k=daily)
                papers += [p.paper for p in view.picks]
            except NoDailyPapers:
                pass
        if saved:
            ids = [e.paper_id for e in store.library(reader.id) if e.paper_id][:saved]
            papers += store.get_many(ids)
    return list({p.id: p for p in papers}.values())


def fulltext_ahead(
    store: Store, indexes: Indexes | None, settings: Settings, readers: Sequence[Account]
) -> Fetched:
    """The full-text pass after ``sync`` / ``daily``: each reader's top ``fulltext_pass_papers`` Daily Papers
    and latest ``fulltext_pass_saved`` saved papers, what is stored kept (a HarvestError when arXiv is not
    reached)."""
    from papersift.services.eprints import fetch_fulltexts
    from papersift.services.harvest import ArxivClient

    papers = papers_ahead(
        store,
        indexes,
        settings,
        readers,
        daily=settings.fulltext_pass_papers,
        saved=settings.fulltext_pass_saved,
    )
    if not papers:
        return Fetched()
    with ArxivClient(settings) as client:
        return fetch_fulltexts(client, store, papers)


@dataclass(frozen=True, slots=True)
class DigestDay:
    """What a reader's digests of one day hold: the picks at or above their threshold, how many fell below
    it, and for a day with no listing why (``quiet``) and when the next comes."""

    day: date
    picks: list[DailyPick]
    below: int = 0
    threshold: float | None = None
    quiet: QuietDay | None = None
    tag: str | None = None  # ranked by this tag's papers alone
    followed: list[FollowedPaper] = field(default_factory=list)  # new this week by followed authors, unseen

    @property
    def note(self) -> Message | None:
        """Why the digest has no papers, a message (None when it has some)."""
        if self.quiet is not None:
            return self.quiet.line()
        if self.picks:
            return None
        if self.below:
            return say(
                "digest_all_below", day=day_name(self.day), n=self.below, threshold=f"{self.threshold:g}"
            )
        return say("digest_all_seen", day=day_name(self.day))

    @property
    def subject(self) -> Message | None:
        """The subject of a day arXiv announced nothing, a message (None: the usual one)."""
        if self.quiet is not None:
            return say(self.quiet.subject_key, day=day_name(self.day))
        if self.tag is not None:
            return say("digest_tag_subject", n=len(self.picks), tag=self.tag, day=day_name(self.day))
        return None


def digest_day(
    store: Store,
    indexes: Indexes | None,
    settings: Settings,
    reader: Account,
    day: date | None = None,
    *,
    threshold: float | None = None,
    tag: str | None = None,
) -> DigestDay:
    """The reader's digest of ``day`` (default: the latest listing): their top ``digest_k`` papers not yet
    seen (those of this day's other channels kept), at or above the threshold (``threshold``, else theirs);
    a day with no listing says why as far as the store knows it (``day_quiet``: a weekend, a holiday arXiv
    announced, a day not stored here) and when the next listing comes. ``NoDailyPapers`` when the day was
    fetched and the reader's categories had nothing. ``tag``: ranked by that tag's papers alone
    (``UnknownTag`` when there is none)."""
    limit = min_score(store, reader, threshold)
    days = followed_days(store, reader, settings.default_categories)
    when = day or (days[-1] if days else None)
    try:
        view = daily_picks(
            store,
            indexes,
            reader,
            settings.default_categories,
            when,
            k=settings.digest_k,
            digest_day=when,
            tag=tag,
        )
    except NoDailyPapers:
        categories = reader_categories(store, reader, settings.default_categories)
        quiet = day_quiet(store, categories, when) if when is not None else None
        if quiet is None:
            raise
        return DigestDay(quiet.day, [], quiet=quiet, tag=tag)
    kept = above(view.picks, limit)
    followed = followed_week(store, reader, view.day, view.picks) if tag is None else []
    return DigestDay(view.day, kept, len(view.picks) - len(kept), limit, tag=view.tag, followed=followed)


def due(
    store: Store,
    indexes: Indexes | None,
    settings: Settings,
    reader: Account,
    channel: str,
    today: date,
    *,
    threshold: float | None = None,
    tag: str | None = None,
) -> DigestDay | None:
    """What the cron job sends the reader on ``channel`` (``email`` or a push's): the latest listing's
    digest until it is sent; after that, on a ``today`` (US-Eastern) later than that listing with none of
    its own (a weekend, a holiday), a note naming the next listing (once: kept per day and channel); None on
    an ordinary day already sent. ``NoDailyPapers`` when the reader's categories have no listing at all.
    ``tag``: the digest of that tag (``tag_channel``), which sends no note of its own on a quiet day."""
    latest = digest_day(store, indexes, settings, reader, threshold=threshold, tag=tag)
    done = {(d.day, d.channel): d for d in store.digests(reader.id, limit=60)}.get((latest.day, channel))
    if done is None or done.sent is None:
        return latest
    if today <= latest.day or tag is not None:
        return None
    quiet = day_quiet(store, reader_categories(store, reader, settings.default_categories), today)
    return None if quiet is None else DigestDay(today, [], quiet=quiet)


def digest_json(d: Digest) -> dict[str, Any]:
    """One kept digest as ``digest status --format json`` shows it: its day, channel (a push's service
    redacted), papers, when it was sent, tries and the last failure."""
    return {
        "day": d.day.isoformat(),
        "channel": d.channel,
        "subject": d.subject,
        "papers": len(d.papers),
        "ids": list(d.papers),
        "sent": d.sent.isoformat() if d.sent else None,
        "attempts": d.attempts,
        "error": d.error,
    }
