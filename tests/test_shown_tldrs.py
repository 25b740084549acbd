"""TL;DRs made for the rows shown (``reading/shown.py``'s ``Texts.extractive``, ``library/shapes``'s
``with_tldrs``):
a long list's first view makes the extractive key sentences of its first part only, each later part those of
its own rows, and its JSON twin still carries every row's ``tldr``, the same JSON as when every key
sentence was made at once; a key sentence is made once per process.

Over a real day: every cs.AI paper of 2026-08-21 (82), embedded (``topics_home``); none has a stored
TL;DR."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from papersift.reading import extractive, shown
from papersift.web.parts import PART
from tests.support.data import DAILY_DAYS
from tests.support.homes import home_copy
from tests.support.inproc import app_client

DAY = DAILY_DAYS[1]
LISTING = f"/list/cs.AI/{DAY}"
ROW = re.compile(r'<article class="paper[^"]*" id="p-([^"]+)"')
TLDR = re.compile(r'<p class="tldr" lang="en"><span class="label">[^<]+</span> <span class="tldr-text">')
MADE = {"listing": LISTING, "daily": f"/daily/{DAY}"}


@pytest.fixture(scope="module")
def shown_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(topics_home, tmp_path_factory, "shown-tldrs")


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The abstracts whose key sentence is made from now on (none kept from before)."""
    abstracts: list[str] = []

    def counted(abstract: str, title: str = "") -> str | None:
        abstracts.append(abstract)
        return extractive.key_sentence(abstract, title)

    shown.kept_key_sentence.cache_clear()
    monkeypatch.setattr("papersift.reading.shown.key_sentence", counted)
    yield abstracts
    shown.kept_key_sentence.cache_clear()


@pytest.fixture
def cold(shown_home: Path) -> Iterator[httpx.Client]:
    """The app as ``serve`` starts it: nothing of the day computed yet."""
    with app_client(shown_home) as client:
        yield client


def abstracts_of(entries: list[dict[str, Any]]) -> list[str]:
    return [str(e["abstract"]) for e in entries]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", ["listing", "daily"])
def test_a_cold_first_view_makes_the_key_sentences_of_its_first_part_only_and_a_part_its_own(
    cold: httpx.Client, made: list[str], page: str, lang: str
) -> None:
    path = MADE[page]
    first = cold.get(path, params={"lang": lang})
    assert first.status_code == 200
    ids = ROW.findall(first.text)
    assert len(ids) == PART and len(TLDR.findall(first.text)) == PART  # each row shown with its TL;DR
    assert len(made) == PART  # those rows' key sentences alone
    entries = cold.get(f"/api{path}", params={"lang": lang}).json()["entries"]
    assert [e["id"] for e in entries[:PART]] == ids and len(entries) > 2 * PART
    assert sorted(made[:PART]) == sorted(abstracts_of(entries[:PART])) and len(made) == len(entries)
    del made[:]
    second = cold.get(path, params={"lang": lang, "part": 2, "fragment": 1}).text
    assert ROW.findall(second) == [e["id"] for e in entries[PART : 2 * PART]]
    assert len(TLDR.findall(second)) == PART and made == []  # made once: the JSON twin made them


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_later_part_makes_its_own_rows_key_sentences_and_the_json_the_rest(
    cold: httpx.Client, made: list[str], lang: str
) -> None:
    third = cold.get(LISTING, params={"lang": lang, "part": 3, "fragment": 1}).text
    ids = ROW.findall(third)
    assert len(ids) == PART and len(TLDR.findall(third)) == PART and len(made) == PART
    entries = cold.get(f"/api{LISTING}", params={"lang": lang}).json()["entries"]
    assert sorted(made[:PART]) == sorted(abstracts_of(entries[2 * PART : 3 * PART]))
    assert len(made) == len(entries)  # the JSON made the others, none twice


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_json_twin_carries_every_rows_tldr_as_when_all_were_made_at_once(
    cold: httpx.Client, made: list[str], lang: str
) -> None:
    from papersift.web.listings import listing_data

    cold.get(LISTING, params={"lang": lang})  # the page's first part made first
    answer = cold.get(f"/api{LISTING}", params={"lang": lang}).json()
    state = cold.app.state.site.state  # type: ignore[attr-defined]
    eager = json.loads(json.dumps(listing_data(state, "cs.AI", DAY, lang)))
    entries = [{k: v for k, v in e.items() if k not in ("saved", "rating")} for e in answer["entries"]]
    assert entries == eager["entries"] and answer | {"entries": None} == eager | {"entries": None}
    assert [list(e) for e in entries] == [list(e) for e in eager["entries"]]  # the keys in their order
    assert all(e["tldr"]["text"] and e["tldr"]["by"] == "extractive" for e in entries)


def test_the_daily_json_carries_every_rows_tldr(cold: httpx.Client, made: list[str]) -> None:
    cold.get(f"/daily/{DAY}")
    entries = cold.get(f"/api/daily/{DAY}").json()["entries"]
    assert entries and all(e["tldr"]["text"] and e["tldr"]["by"] == "extractive" for e in entries)
    assert sorted(made) == sorted(abstracts_of(entries))


@pytest.mark.parametrize("page", ["listing", "daily"])
def test_a_topics_rows_without_script_each_come_with_their_key_sentence(
    cold: httpx.Client, made: list[str], page: str
) -> None:
    """A chip without script (``?topic=N``) shows one topic's rows from anywhere in the list: the handler
    makes their key sentences (``web/parts.with_topic_rows``), as it does for a part's."""
    path = MADE[page]
    shown_topics = [cold.get(path, params={"topic": n}).text for n in range(3)]
    rows = [ROW.findall(text) for text in shown_topics]
    assert all(rows) and sum(map(len, rows)) > PART // 2  # the topics' rows, not the first part's
    assert [len(TLDR.findall(text)) for text in shown_topics] == [len(r) for r in rows]
