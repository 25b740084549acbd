"""Every plain face carries no LaTeX command: the listings-extra days (every new cs.LG submission of four June
2026 days, math.NT's of fourteen August days; a third of them write LaTeX, 2606.07598 its own ``\\sphere``)
pushed to a JSON webhook and ntfy, mailed (the text part), in an Atom feed, listed and shown by the CLI and
in the JSON's plain-text fields. The JSON's ``title``, ``abstract``, ``comments``, ``journal_ref`` and TL;DR
stay arXiv's own text (data, as arXiv's API gives it); its other text fields are plain."""

from __future__ import annotations

import gzip
import io
import re
from datetime import date
from pathlib import Path

import orjson
import pytest
from apprise import Apprise
from lxml import etree

from papersift.library import digest, push
from papersift.library.digest import DigestDay
from papersift.ranking.daily import DailyPick
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.sources.snapshot import iter_day_listings, paper_from_record
from papersift.store.records import Account
from papersift.store.sqlite import SqliteStore
from tests.push_server import PushServer
from tests.support.inproc import invoke

COMMAND = re.compile(r"\\[A-Za-z]+")
ME = Account(1, "me", None, "token")
SOURCE_TEXT = {"title", "abstract", "comments", "journal_ref", "tldr", "zh", "cited_by"}  # arXiv's own


@pytest.fixture(scope="module")
def days(shared_data: Path) -> dict[tuple[str, date], list[Paper]]:
    """Each (category, day) of listings-extra with its papers in the listing's order."""
    extra = shared_data / "listings-extra"
    with gzip.open(extra / "papers.jsonl.gz", "rb") as f:
        papers = {p.id: p for p in (paper_from_record(orjson.loads(line), "listings-extra") for line in f)}
    with io.BytesIO(gzip.decompress((extra / "daily-listings.jsonl.gz").read_bytes())) as f:
        return {(x.category, x.day): [papers[i] for i in x.ids if i in papers] for x in iter_day_listings(f)}


@pytest.fixture
def home(tmp_path: Path, days: dict[tuple[str, date], list[Paper]]) -> Path:
    store = SqliteStore(tmp_path / "papersift.db")
    store.upsert([p for papers in days.values() for p in papers])
    store.close()
    return tmp_path


def _picks(papers: list[Paper]) -> list[DailyPick]:
    return [DailyPick(p, 1.0 - n / 1000, ()) for n, p in enumerate(papers)]


def test_the_days_carry_latex_and_2606_07598_its_own_macros(
    days: dict[tuple[str, date], list[Paper]],
) -> None:
    papers = [p for ps in days.values() for p in ps]
    assert len(days) == 18 and sum(1 for p in papers if COMMAND.search(p.title + p.abstract)) > 300
    own = next(p for p in papers if p.id == "2606.07598")
    assert r"\sphere" in own.abstract and r"\cutdist" in own.abstract


def test_pushes_in_markdown_and_in_plain_text_carry_no_latex_command(
    days: dict[tuple[str, date], list[Paper]],
) -> None:
    for url in ("json://127.0.0.1:9/hook", "ntfy://127.0.0.1:9/papers"):  # Markdown, plain text
        plugin = Apprise.instantiate(url)
        assert plugin is not None
        service = push.target(url, plugin)
        for (_, day), papers in days.items():
            made = push.compose(service, ME, DigestDay(day, _picks(papers)), Settings())
            assert made.papers and not COMMAND.search(made.title)
            left = [m[0] for part in made.parts for m in COMMAND.finditer(part)]
            assert left == [], (url, day, left[:5])


def test_the_email_text_part_markdown_and_atom_titles_carry_no_latex_command(
    days: dict[tuple[str, date], list[Paper]],
) -> None:
    for (_, day), papers in days.items():
        picks = _picks(papers)
        made = digest.compose(ME, day, picks, Settings())
        assert not COMMAND.search(made.text), COMMAND.findall(made.text)[:5]
        assert not COMMAND.search(digest.markdown(ME, day, picks))
        feed = etree.fromstring(digest.atom(ME, day, picks, Settings(), base_url="http://127.0.0.1"))
        titles = feed.findall("{http://www.w3.org/2005/Atom}entry/{http://www.w3.org/2005/Atom}title")
        assert len(titles) == len(papers) and not [t.text for t in titles if COMMAND.search(t.text or "")]


def test_a_real_push_of_a_day_with_latex_carries_none(
    home: Path, days: dict[tuple[str, date], list[Paper]]
) -> None:
    day = date(2026, 6, 9)  # 2606.07598's day
    with PushServer() as server:
        env = {"PAPERSIFT_PUSH": f"{server.json_url()}, {server.ntfy_url()}", "PAPERSIFT_DIGEST_K": "200"}
        invoke("digest", "--push", "--date", day.isoformat(), home=home, env=env)
        bodies = [r.json["message"] for r in server.taken]
    pushed = "\n".join(bodies)
    assert "https://arxiv.org/abs/2606.07598" in pushed  # \sphere, \emph, \citep in its TL;DR's abstract
    assert pushed.count("https://arxiv.org/abs/") >= 20 and not COMMAND.search(pushed), COMMAND.findall(
        pushed
    )


def test_cli_listings_shown_papers_and_json_plain_fields_carry_no_latex_command(
    home: Path, days: dict[tuple[str, date], list[Paper]]
) -> None:
    for category, day in days:
        listed = invoke("list", category, "--date", day.isoformat(), home=home).stdout
        assert len(re.findall(r"^#\d+ ", listed, re.M)) == len(days[category, day])
        assert not COMMAND.search(listed), (category, day, COMMAND.findall(listed)[:5])
        lines = invoke("list", category, "--date", day.isoformat(), "--format", "json", home=home).stdout
        for entry in map(orjson.loads, lines.splitlines()):
            plain = {k: v for k, v in entry.items() if k not in SOURCE_TEXT}
            assert not COMMAND.search(orjson.dumps(plain).decode().replace("\\\\", "\\")), entry["id"]
    for pid in ("2606.07598", *(p.id for ps in days.values() for p in ps if COMMAND.search(p.title))):
        shown = invoke("show", pid, home=home).stdout
        assert pid in shown and not COMMAND.search(shown), (pid, COMMAND.findall(shown))
