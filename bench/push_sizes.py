"""A push of 20 papers per service: requests and bytes (``python bench/push_sizes.py``).

1. A temporary home (never the real one) holding every cs.CL / cs.AI paper announced on 2026-08-21 in
   arxiv-300k.jsonl.gz, embedded with ``papersift embed``, and a reader who liked the first three papers
   with "agent" in their title on the day before (also ingested): the day's top 20 are ranked by that
   library, each with its extractive TL;DR (no model configured) and its why line, as ``digest --push``
   composes them.
2. Sent for real through Apprise to a local server on 127.0.0.1 in the JSON webhook (``json://``) and
   self-hosted ntfy (``ntfy://``) forms: the requests and the bytes of their bodies, as the server took them.
3. Composed, not sent (they would leave the machine), for Slack, Feishu, Lark, WeCom, DingTalk, Discord and
   Telegram with Apprise's own limits and formats: messages, characters, the largest message and the
   limit. Printed as a Markdown table and written to ``bench/out/push_sizes.md``; the home is removed.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "arxiv-300k.jsonl.gz"
OUT = ROOT / "bench" / "out"
DAYS = ("2026-08-20", "2026-08-21")
COMPOSED = {  # well-formed URLs with made-up tokens: composed with each service's limits, never sent
    "Slack": "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ",
    "Feishu": "feishu://abcdefghijklmnopqrstuv",
    "Lark": "lark://abcdefghijklmnopqrstuvwxyz",
    "WeCom Bot": "wecombot://ABCDEFGHIJKLMNOPQRSTUVWXYZ123456",
    "DingTalk": "dingtalk://abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123",
    "Discord": "discord://123456/abcdefghijklmnop",
    "Telegram": "tgram://123456789:abcdefg_hijklmnop/12315544/",
}


def cli(home: Path, *args: str) -> str:
    env = {**os.environ, "PAPERSIFT_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "papersift.cli", *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def main() -> None:
    from apprise import Apprise

    from papersift.cli.common import opened
    from papersift.library.digest import digest_day, digest_texts
    from papersift.library.push import compose, send, target
    from papersift.settings import Settings
    from tests.push_server import PushServer

    home = Path(tempfile.mkdtemp(prefix="push-sizes-"))
    marks = tuple(f'"announced": "{d}"'.encode() for d in DAYS)
    with gzip.open(DATA, "rb") as f:
        records = [orjson.loads(line) for line in f if any(m in line for m in marks)]
    (home / "days.jsonl").write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    cli(home, "ingest", str(home / "days.jsonl"))
    started = time.perf_counter()
    cli(home, "embed")
    print(f"{len(records)} papers ingested and embedded in {time.perf_counter() - started:.0f} s")
    liked = [r["id"] for r in records if r["announced"] == DAYS[0] and "agent" in r["title"].lower()][:3]
    cli(home, "library", "add", *liked, "--rating", "1")
    settings = Settings(home=home)
    rows = []
    with opened(settings) as o:
        me = o.account(None)
        today = digest_day(o.store, o.indexes, settings, me, date_of(DAYS[1]))
        texts = digest_texts(o.store, settings, today.picks)
        assert len(today.picks) == 20, len(today.picks)
        with PushServer() as server:
            for url in (server.json_url(), server.ntfy_url()):
                plugin = Apprise.instantiate(url)
                service = target(url, plugin)
                made = compose(service, me, today, settings, texts)
                before = len(server.taken)
                send(service, made.title, made.parts)
                got = server.taken[before:]
                rows.append(
                    (
                        service.service,
                        "sent",
                        len(got),
                        sum(len(r.body) for r in got),
                        sum(len(p) for p in made.parts),
                        max(len(p) for p in made.parts),
                        plugin.body_maxlen,
                        "markdown" if service.markdown else "text",
                    )
                )
        for name, url in COMPOSED.items():
            plugin = Apprise.instantiate(url)
            service = target(url, plugin)
            made = compose(service, me, today, settings, texts)
            rows.append(
                (
                    name,
                    "composed",
                    len(made.parts),
                    None,
                    sum(len(p) for p in made.parts),
                    max(len(p) for p in made.parts),
                    plugin.body_maxlen,
                    "markdown" if service.markdown else "text",
                )
            )
    table = [
        "| service | how | requests (messages) | request body bytes | characters | largest | limit "
        "| format |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        sent = "—" if r[3] is None else r[3]
        table.append(f"| {r[0]} | {r[1]} | {r[2]} | {sent} | {r[4]} | {r[5]} | {r[6]} | {r[7]} |")
    text = "\n".join(table) + "\n"
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "push_sizes.md").write_text(text, encoding="utf-8")
    shutil.rmtree(home)


def date_of(day: str):  # type: ignore[no-untyped-def]
    from datetime import date

    return date.fromisoformat(day)


if __name__ == "__main__":
    main()
