"""Pushes: a reader's top papers of a day sent through Apprise to chat and notification services (Feishu /
Lark, WeCom and DingTalk bots, Slack, Discord, Telegram, ntfy, e-mail, JSON webhooks…).

``PAPERSIFT_PUSH`` holds Apprise URLs (a secret: only a redacted label, scheme and host where the URL has a
real host, plus a short hash, is ever shown or stored). Each service's push is composed for it: Markdown
where it takes Markdown, else plain text; split into as many messages as its body limit needs (Apprise's
``body_maxlen``, its title counted where the service puts the title in the body, ntfy's JSON size), a paper
never cut across two messages. Like an e-mail digest, a push is kept in the store (``digests``, channel
``push LABEL``) before it is sent, so a failure is retried on the next run and shown by ``papersift digest
status``, and a rerun never pushes the same day twice. Each message is tried a few times with backoff; a
pushed paper is marked seen (``pushed``) and not ranked for the reader again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import TYPE_CHECKING, Any

from apprise import Apprise, LogCapture, NotifyBase, NotifyFormat

from papersift.library.delivery import BACKOFF, TRIES, Sending, tried
from papersift.library.words import Words, day_name
from papersift.ranking.daily import DailyPick
from papersift.ranking.followed import FollowedPaper
from papersift.reading.shown import Texts, TldrShape, missing_line
from papersift.records.messages import say
from papersift.services.listing import ABS_URL
from papersift.settings import Settings, is_loopback
from papersift.sources.latex import plain_text
from papersift.store import Store
from papersift.store.records import Account, Digest, DigestText

if TYPE_CHECKING:
    from papersift.library.digest import DigestDay

PART_BREAK = "\f"  # between the kept messages of one push (never in a message)
TITLE_RESERVE = " (99/99)"  # what the part numbers may add to a title
CHANNEL = "push "  # the digests' channel of a push: "push " and the target's label


class PushError(RuntimeError):
    """A push URL papersift cannot use, or a push that failed after its tries (kept for the next run); raised
    with its message (``records/messages.py``)."""


@dataclass(frozen=True, slots=True)
class Target:
    """One configured push service: its redacted label and Apprise's plugin for it (never printed)."""

    label: str
    service: str
    plugin: NotifyBase = field(repr=False)
    secrets: tuple[str, ...] = field(repr=False, default=())

    @property
    def channel(self) -> str:
        return CHANNEL + self.label

    @property
    def markdown(self) -> bool:
        return self.plugin.resolve_format(NotifyFormat.MARKDOWN) == NotifyFormat.MARKDOWN

    def redact(self, text: str) -> str:
        """``text`` without any secret part of the URL (a reason Apprise logged)."""
        for secret in self.secrets:
            text = text.replace(secret, "…")
        return text


def split_urls(value: str) -> list[str]:
    """Apprise URLs as ``PAPERSIFT_PUSH`` holds them: separated by commas or white space."""
    return [u for u in re.split(r"[\s,]+", value) if u]


def redacted(url: str) -> str:
    """What may be shown of a URL that papersift cannot read: its scheme."""
    return url.split("://", 1)[0] + "://…" if "://" in url else "(not a URL)"


def targets(settings: Settings) -> list[Target]:
    """The configured push services (``PAPERSIFT_PUSH``); ``PushError`` names a URL Apprise does not know
    by its scheme alone."""
    if settings.push is None:
        return []
    found = []
    for url in split_urls(settings.push.get_secret_value()):
        plugin = Apprise.instantiate(url, suppress_exceptions=True)
        if not isinstance(plugin, NotifyBase):
            raise PushError(say("push_not_apprise", url=redacted(url)))
        found.append(target(url, plugin))
    return found


def target(url: str, plugin: NotifyBase) -> Target:
    """A service's label (``ntfy://127.0.0.1:8080 #1a2b3c``: the host only where the URL has a real one,
    never a token), and its pacing: none for a service on this machine, else Apprise's."""
    schema = str(getattr(plugin, "schema", None) or url.split("://", 1)[0])
    host = str(getattr(plugin, "host", "") or "")
    port = getattr(plugin, "port", None)
    real_host = "host" in plugin.template_tokens and not plugin.template_tokens["host"].get("private")
    where = f"{schema}://{host}{f':{port}' if port else ''}" if real_host and host else f"{schema}://"
    tag = hashlib.blake2b(url.encode(), digest_size=3).hexdigest()
    if real_host and is_loopback(host):
        plugin.request_rate_per_sec = 0  # our own service: no pause between messages
    rest = url.split("://", 1)[-1]
    secrets = tuple(
        sorted(
            {s for s in re.split(r"[/:@?&=#,]+", rest) if len(s) >= 6 and s != host}, key=len, reverse=True
        )
    )
    if not real_host and host:
        secrets = (host, *secrets)
    return Target(f"{where} #{tag}", str(plugin.service_name), plugin, (url, *secrets))


# -- composing ------------------------------------------------------------------------------------------
_MD_SPECIAL = re.compile(r"([\\`*_\[\]])")


def _md(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def paper_block(
    n: int,
    pick: DailyPick,
    tldr: TldrShape,
    markdown: bool,
    cut: int = 0,
    words: Words | None = None,
    venues: str = "",
) -> str:
    """One paper as a message shows it: number and title, its venues (``COLM 2025 · Poster``), TL;DR, why,
    link (``cut``: the TL;DR and why at most that many characters, for a service whose limit one paper alone
    would pass), in ``words``' tongue."""
    p, words = pick.paper, words or Words()
    lines = []
    summary, why = words.tldr(tldr, plain_text) if tldr.text else "", plain_text(words.why(pick.reasons))
    if cut:
        summary = summary if len(summary) <= cut else summary[: max(cut - 1, 0)].rstrip() + "…"
        why = why if len(why) <= cut else why[: max(cut - 1, 0)].rstrip() + "…"
    score = f" · {words('score', score=f'{pick.score:.2f}')}" if pick.score is not None else ""
    if markdown:
        lines.append(f"**{n}. [{_md(plain_text(p.title))}]({ABS_URL.format(p.id)})**")
        if venues:
            lines.append(_md(venues))
        if summary:
            lines.append(_md(summary))
        if why:
            lines.append(f"_{words('why')}_: {_md(why)}{score}")
    else:
        lines.append(f"#{n:02d} {plain_text(p.title)}")
        if venues:
            lines.append(venues)
        if summary:
            lines.append(summary)
        if why:
            lines.append(f"{words('why_reasons', reasons=why)}{score}")
        lines.append(ABS_URL.format(p.id))
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Composed:
    """A push for one service: its title and its messages, and the papers they carry."""

    title: str
    parts: tuple[str, ...]
    papers: tuple[str, ...]


def fits(plugin: NotifyBase, title: str, body: str) -> bool:
    """Whether Apprise sends ``title`` and ``body`` to the service as one message, uncut: its body limit
    (the title counted where the service puts it in the body), its line limit, ntfy's JSON size."""
    inside = title and (plugin.title_maxlen <= 0 or plugin.overflow_amalgamate_title)
    size = len(body) + (len(title) + 2 if inside else 0)
    if size > plugin.body_maxlen:
        return False
    lines = body.count("\n") + 1 + (1 if inside else 0)
    if plugin.body_max_line_count > 0 and lines > plugin.body_max_line_count:
        return False
    cap = getattr(plugin, "ntfy_json_upstream_size_limit", None)
    envelope = {"topic": "x" * 64, "title": title, "message": body}
    return not (isinstance(cap, int) and len(json.dumps(envelope)) > cap)


def pack(plugin: NotifyBase, title: str, blocks: Sequence[str]) -> list[str]:
    """``blocks`` in as few messages as fit, in order, never one split across two (a block alone too long
    for one message is the caller's to shorten first)."""
    room = title + TITLE_RESERVE
    parts: list[str] = []
    current: list[str] = []
    for block in blocks:
        if current and not fits(plugin, room, "\n\n".join([*current, block])):
            parts.append("\n\n".join(current))
            current = []
        current.append(block)
    if current:
        parts.append("\n\n".join(current))
    return parts


def compose(
    target: Target,
    reader: Account,
    today: DigestDay,
    settings: Settings,
    texts: Texts | None = None,
    lang: str = "en",
) -> Composed:
    """The push of ``today`` for ``target``: its picks with title, TL;DR, why and link, then what the authors
    the reader follows announced this week (``today.followed``), in as many messages as the service's limits
    need; a day arXiv announced nothing (``today.quiet``) says so and names the next listing; a day with no
    picks says why (``today.note``). Its words in ``lang`` (``library/words.py``)."""
    plugin, markdown, words = target.plugin, target.markdown, Words(lang)
    day, picks = today.day, today.picks
    if today.quiet is not None:
        title = words(today.quiet.subject_key, day=day_name(day))
        return Composed(title, (words.said(today.quiet.line()),), ())
    title = words("digest_subject", n=len(picks), reader=reader.name, day=day_name(day))
    room = title + TITLE_RESERVE
    tldrs = [(texts or Texts()).tldr(p.paper) for p in picks]
    blocks = []
    if said := missing_line(tldrs):
        missing = words.said(said)
        blocks.append(_md(missing) if markdown else missing)
    if not picks:
        blocks.append(words.said(today.note) if today.note else words("push_none"))
    for n, (pick, tldr) in enumerate(zip(picks, tldrs, strict=True), 1):
        venues = words.venues(texts, pick.paper.id)
        block, cut = paper_block(n, pick, tldr, markdown, words=words, venues=venues), 400
        while not fits(plugin, room, block) and cut > 20:
            block, cut = paper_block(n, pick, tldr, markdown, cut, words, venues), cut // 2
        blocks.append(block)
    blocks += followed_blocks(today.followed, markdown, words)
    link = f"{settings.base_url.rstrip('/')}/daily/{day.isoformat()}"
    blocks.append(
        f"[{words('push_all_papers')}]({link})" if markdown else words("push_all_papers_at", link=link)
    )
    papers = tuple(p.paper.id for p in picks) + tuple(f.paper.id for f in today.followed)  # seen once sent
    return Composed(title, tuple(pack(plugin, title, blocks)), papers)


def followed_blocks(followed: Sequence[FollowedPaper], markdown: bool, words: Words) -> list[str]:
    """New this week by the authors the reader follows, a block a paper (its title, authors, day, the
    followed authors it names, link), the section's heading over the first."""
    blocks = []
    for n, found in enumerate(followed):
        p, line = found.paper, words.followed(found)
        if markdown:
            block = f"[{_md(plain_text(p.title))}]({ABS_URL.format(p.id)}) — {_md(line)}"
        else:
            block = f"{plain_text(p.title)}\n{line}\n{ABS_URL.format(p.id)}"
        if n == 0:
            heading = words("digest_followed_new")
            block = f"**{_md(heading)}**\n{block}" if markdown else f"{heading}\n{block}"
        blocks.append(block)
    return blocks


def part_title(title: str, n: int, total: int) -> str:
    return title if total == 1 else f"{title} ({n}/{total})"


# -- sending --------------------------------------------------------------------------------------------
def send(target: Target, title: str, parts: Sequence[str], *, backoff: float = BACKOFF) -> None:
    """Every message of one push in order, each tried ``TRIES`` times with backoff; ``PushError`` with
    Apprise's reason (redacted) after the last try of a message."""
    fmt = NotifyFormat.MARKDOWN if target.markdown else NotifyFormat.TEXT
    for n, body in enumerate(parts, 1):
        part = part_title(title, n, len(parts))
        reason = tried(partial(_notify, target, part, body, fmt), TRIES, backoff)
        if reason is not None:
            where = say("push_message_n", n=n, of=len(parts)) if len(parts) > 1 else say("push_the_message")
            raise PushError(say("push_failed", label=target.label, where=where, tries=TRIES, reason=reason))


def _notify(target: Target, title: str, body: str, fmt: NotifyFormat) -> str | None:
    """One message through Apprise: None when the service took it, else why not (its last logged line)."""
    with LogCapture(level=logging.WARNING) as logs:  # type: ignore[no-untyped-call]
        done = target.plugin.notify(body=body, title=title, body_format=fmt)
    if done:
        return None
    lines = [line.split(" - ", 2)[-1] for line in str(logs.getvalue()).splitlines() if line.strip()]
    return target.redact(lines[-1] if lines else f"{target.service} refused the message")


def queue(store: Store, target: Target, reader: Account, day: date, composed: Composed) -> Digest:
    """Keep a composed push for sending (or the one already kept for that day and service)."""
    text = PART_BREAK.join(composed.parts)
    return store.queue_digest(
        reader.id, day, target.channel, DigestText(composed.title, text, "", composed.papers)
    )


def deliver(store: Store, found: Sequence[Target], *, backoff: float = BACKOFF) -> tuple[int, list[str]]:
    """Send every kept push of the configured services (oldest first): (sent, errors). A failure stays
    kept, with its reason, for the next run; a pushed paper is marked seen."""
    sending = Sending(store, PushError, "pushed", say("send_again_push"))
    for t in found:
        for digest in store.unsent_digests(t.channel):
            pushed = partial(send, t, digest.subject, digest.text.split(PART_BREAK), backoff=backoff)
            sending.send(digest, pushed, say("push_day", day=str(digest.day)))
    return sending.sent, sending.errors


def measure(composed: Composed, target: Target) -> dict[str, Any]:
    """What one composed push is for a service: messages, characters, and the limit it was packed to."""
    return {
        "service": target.service,
        "messages": len(composed.parts),
        "characters": sum(len(p) for p in composed.parts),
        "largest": max((len(p) for p in composed.parts), default=0),
        "body_maxlen": target.plugin.body_maxlen,
        "format": "markdown" if target.markdown else "text",
    }
