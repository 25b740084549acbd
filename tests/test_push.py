"""Pushes through Apprise, received by a local service on 127.0.0.1 in Apprise's JSON webhook and ntfy
forms: the day's top papers with title, TL;DR, why and link; split under a service's limit, never a paper
cut across two messages; a failure retried (said in the reader's language), then shown by ``digest status``
with its reason and kept for the next run; a pushed paper never ranked again; the URL (a secret) never
printed; a weekend's push names the next listing."""

from __future__ import annotations

import re
import shutil
from datetime import date
from pathlib import Path

import pytest
from apprise import Apprise

from papersift.library.digest import DigestDay
from papersift.library.push import PushError, Target, compose, fits, send, target, targets
from papersift.ranking.daily import DailyPick
from papersift.records.catalogs import said
from papersift.settings import Settings
from papersift.store.records import Account
from papersift.store.sqlite import SqliteStore
from tests.push_server import PushServer
from tests.support.data import as_papers, spread_records
from tests.support.inproc import invoke

DAY = date(2026, 8, 21)  # a Friday
ME = Account(1, "me", None, "token")


@pytest.fixture(scope="module")
def friday_listing(shared_data: Path) -> list[dict[str, object]]:
    """30 real papers, announced in cs.LG on ``DAY``."""
    chosen = spread_records(shared_data, 600)[:30]
    return [{**r, "announced": DAY.isoformat(), "categories": ["cs.LG"]} for r in chosen]


@pytest.fixture
def home(tmp_path: Path, friday_listing: list[dict[str, object]]) -> Path:
    store = SqliteStore(tmp_path / "papersift.db")
    store.upsert(as_papers(friday_listing))
    store.close()
    return tmp_path


NEXT = "The next listing is Monday 2026-08-24, announced 2026-08-23 20:00 US-Eastern (2026-08-24 00:00 UTC)"


def picks(friday_listing: list[dict[str, object]]) -> list[DailyPick]:
    return [
        DailyPick(p, 1.0 - n / 100, (f"close to liked paper {n}",))
        for n, p in enumerate(as_papers(friday_listing))
    ]


def one(url: str) -> Target:
    plugin = Apprise.instantiate(url)
    assert plugin is not None
    return target(url, plugin)


def test_a_push_reaches_a_json_webhook_and_ntfy_with_title_tldr_why_and_link(
    home: Path, friday_listing: list[dict[str, object]]
) -> None:
    with PushServer() as server:
        env = {"PAPERSIFT_PUSH": f"{server.json_url()}, {server.ntfy_url()}"}
        ran = invoke("digest", "--push", "--date", DAY.isoformat(), home=home, env=env)
        assert "push: 2 sent to 2 service(s)" in ran.stdout
        hooks = [r for r in server.taken if r.path == "/hook"]
        ntfy = [r for r in server.taken if r.path == "/"]
        assert len(hooks) == 1 and len(ntfy) >= 1  # ntfy's 7,800 characters take 20 papers in a few
        hook = hooks[0].json
        assert hook["title"] == "papersift: 20 papers for me, Fri 21 Aug 2026" and hook["type"] == "info"
        first = as_papers(friday_listing)[0]
        assert f"**1. [{first.title}](https://arxiv.org/abs/{first.id})**" in hook["message"]
        assert "TL;DR (key sentence): " in hook["message"]  # the extractive TL;DR, no model configured
        assert hook["message"].count("**") == 40 and "/daily/2026-08-21" in hook["message"]
        assert {m.json["topic"] for m in ntfy} == {"papers"}
        text = "\n".join(m.json["message"] for m in ntfy)
        assert text.count("https://arxiv.org/abs/") == 20 and "#01 " in text and "#20 " in text
        assert all(len(m.json["message"]) + len(m.json["title"]) + 2 <= 7800 for m in ntfy)
        again = invoke("digest", "--push", "--date", DAY.isoformat(), home=home, env=env)
        assert again.stdout.count("was already sent") == 2 and len(server.taken) == len(hooks) + len(ntfy)
    status = invoke("digest", "status", home=home, env=env).stdout
    assert f"json://127.0.0.1:{server.port} #" in status and f"ntfy://127.0.0.1:{server.port} #" in status
    assert status.count(" 20 papers  sent ") == 2 and "hook" not in status  # the path stays secret
    # pushed: never ranked again, unless asked for
    listed = invoke("recommend", "--date", DAY.isoformat(), "-k", "50", home=home).stdout
    assert len(re.findall(r"^#\d\d ", listed, re.M)) == 10
    shown = invoke("recommend", "--date", DAY.isoformat(), "-k", "50", "--show-seen", home=home).stdout
    assert len(re.findall(r"^#\d\d ", shown, re.M)) == 30 and shown.count("(seen: pushed)") == 20


def test_a_push_is_split_under_a_small_limit_never_cutting_a_paper(
    friday_listing: list[dict[str, object]],
) -> None:
    with PushServer() as server:
        service = one(server.json_url())
        service.plugin.body_maxlen = 1500  # a service that takes little
        made = compose(service, ME, DigestDay(DAY, picks(friday_listing)[:20]), Settings())
        assert len(made.parts) > 3 and all(
            fits(service.plugin, made.title + " (99/99)", p) for p in made.parts
        )
        send(service, made.title, made.parts)
        got = server.messages()
    assert [m["title"] for m in got] == [f"{made.title} ({n}/{len(got)})" for n in range(1, len(got) + 1)]
    bodies = [m["message"] for m in got]
    assert all(len(b) <= 1500 for b in bodies)
    for n, p in enumerate(as_papers(friday_listing)[:20], 1):  # each paper whole in exactly one message
        holding = [b for b in bodies if f"https://arxiv.org/abs/{p.id}" in b]
        assert len(holding) == 1 and f"**{n}. [" in holding[0] and "close to liked paper" in holding[0]


def test_a_failed_push_is_its_english_as_before_and_said_in_the_readers_language() -> None:
    with PushServer(fail=3) as server:
        url = server.json_url("hook")
        service = target(url, Apprise.instantiate(url))
        with pytest.raises(PushError) as failed:
            send(service, "papers", ["one", "two"], backoff=0)
    assert str(failed.value).startswith(f"{service.label}: message 1 of 2 failed 3 times: ")
    assert said(failed.value, "zh").startswith(f"{service.label}：第 1 条消息（共 2 条）尝试 3 次均失败：")


def test_a_failing_service_is_retried_then_shown_in_status_and_sent_on_the_next_run(home: Path) -> None:
    with PushServer(fail=3) as server:
        url = server.json_url("secret-hook-path")
        env = {"PAPERSIFT_PUSH": url}
        failed = invoke("digest", "--push", "--date", DAY.isoformat(), home=home, env=env, check=False)
        assert failed.returncode == 1 and len(server.received) == 3 and server.taken == []
        assert "failed 3 times" in failed.stderr and "secret-hook-path" not in failed.stderr + failed.stdout
        status = invoke("digest", "status", home=home, env=env).stdout
        assert "failed (sending runs: 1)" in status and "error=500" in status  # each run tried 3 times
        zh_status = invoke("digest", "status", home=home, env={**env, "PAPERSIFT_LANG": "zh"}).stdout
        assert "（发送轮次：1）" in zh_status and "次）" not in zh_status  # runs, not the tries of a run
        assert "secret-hook-path" not in status
        seen = invoke("recommend", "--date", DAY.isoformat(), "-k", "50", home=home).stdout
        assert len(re.findall(r"^#\d\d ", seen, re.M)) == 30  # nothing was pushed: nothing is seen
        ok = invoke("digest", "--push", "--date", DAY.isoformat(), home=home, env=env)
        assert "push: 1 sent" in ok.stdout and len(server.taken) == 1
    lines = invoke("digest", "status", "--format", "json", home=home, env=env).stdout.splitlines()
    assert len(lines) == 1 and '"attempts":2' in lines[0] and '"papers":20' in lines[0]


def test_a_weekend_push_names_the_next_listing(home: Path) -> None:
    with PushServer() as server:
        env = {"PAPERSIFT_PUSH": server.ntfy_url()}
        ran = invoke("digest", "--push", "--date", "2026-08-22", home=home, env=env)
        assert "push: 1 sent" in ran.stdout
        (msg,) = server.messages()
    assert msg["title"] == "papersift: no arXiv listing for Sat 22 Aug 2026"
    assert "arXiv announces nothing for Saturday 2026-08-22" in msg["message"]
    assert NEXT in msg["message"]


def test_push_urls_are_secrets_never_shown_whole() -> None:
    settings = Settings(push="feishu://abcdefghijklmnopqrstuv, ntfys://ada:pw-123456@ntfy.lab.example/t")
    assert "abcdefghij" not in repr(settings) and "pw-123456" not in str(settings.model_dump())
    feishu, ntfy = targets(settings)
    assert feishu.label.startswith("feishu:// #") and "abcdefgh" not in repr(feishu)
    assert ntfy.label.startswith("ntfys://ntfy.lab.example #")
    assert feishu.redact("refused abcdefghijklmnopqrstuv") == "refused …"
    ran = invoke(
        "digest", "--push", home=Path("."), env={"PAPERSIFT_PUSH": "nope://secret-token"}, check=False
    )
    assert ran.returncode == 2 and "nope://…" in ran.stderr and "secret-token" not in ran.stderr


def test_the_cron_sends_the_day_then_on_a_weekend_a_note_naming_the_next_listing(home: Path) -> None:
    from papersift.library.digest import due, queue_email

    store = SqliteStore(home / "papersift.db")
    me = store.add_account("me", None, "t")
    settings = Settings(home=home)
    friday = due(store, None, settings, me, "email", date(2026, 8, 22))
    assert friday is not None and friday.day == DAY and len(friday.picks) == 20 and friday.quiet is None
    mail = queue_email(store, settings, me, friday.day, friday.picks, friday.note, friday.subject)
    assert due(store, None, settings, me, "email", date(2026, 8, 22)) == friday  # not sent yet: again
    store.mark_digest(mail.id, sent=True)
    assert due(store, None, settings, me, "email", DAY) is None  # an ordinary day, already sent
    saturday = due(store, None, settings, me, "email", date(2026, 8, 22))
    assert saturday is not None and saturday.quiet is not None and saturday.picks == []
    note = queue_email(store, settings, me, saturday.day, saturday.picks, saturday.note, saturday.subject)
    assert note.subject == "papersift: no arXiv listing for Sat 22 Aug 2026" and note.papers == ()
    assert NEXT in note.text
    assert "No new papers in your categories" not in note.text and "The next listing" in note.html
    store.close()


def test_a_day_never_stored_is_pushed_as_not_stored_here_never_as_a_holiday(
    home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    tuesday = "2026-08-18"  # a weekday before the stored Friday that no sync or file brought
    zh_home = shutil.copytree(home, tmp_path_factory.mktemp("zh"), dirs_exist_ok=True)
    invoke("follow", "--lang", "zh", home=zh_home)  # a reader of 中文: the push in 中文
    with PushServer() as server:
        env = {"PAPERSIFT_PUSH": server.json_url()}
        for each in (home, zh_home):
            invoke("digest", "--push", "--date", tuesday, home=each, env=env)
        english, chinese = server.messages()
    assert english["title"] == "papersift: no listing of Tue 18 Aug 2026 stored here"
    assert english["message"] == (
        "The listing of Tuesday 2026-08-18 is not stored here; run `papersift sync` to fetch arXiv's latest "
        "listings."
    )
    assert chinese["title"] == "papersift：本机没有存储 2026-08-18（周二）的列表"
    assert "本机没有存储周二 2026-08-18 的列表；请运行 `papersift sync`" in chinese["message"]
    assert not any(
        word in f"{english}{chinese}" for word in ("holiday", "假日", "announced nothing", "没有公布")
    )
