"""The threshold: papers scoring below ``--min-score`` (or the reader's own, set with ``follow --min-score``
or on the library page) are not pushed or mailed; ``recommend`` and the Daily Papers page mark the cut."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.push_server import PushServer
from tests.support.data import DAILY_DAYS, day_records
from tests.support.homes import home_copy
from tests.support.inproc import app_client, invoke

DAY = DAILY_DAYS[1]


@pytest.fixture(scope="module")
def home(daily_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two real days, embedded, and a reader who liked three agent papers of the first."""
    home = home_copy(daily_home, tmp_path_factory, "threshold")
    liked = [str(r["id"]) for r in day_records(home, DAILY_DAYS[0]) if "agent" in str(r["title"]).lower()][:3]
    invoke("library", "add", *liked, "--rating", "1", home=home)
    return home


def test_papers_below_the_threshold_are_marked_and_never_pushed(home: Path) -> None:
    lines = invoke("recommend", "--date", DAY, "-k", "20", "--format", "json", home=home).stdout.splitlines()
    scores = [json.loads(line)["score"] for line in lines]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)
    cut = (scores[4] + scores[5]) / 2  # five papers at or above it
    text = invoke("recommend", "--date", DAY, "-k", "20", "--min-score", str(cut), home=home).stdout
    before, line, after = text.partition(f"----- below your threshold ({cut:g}): not pushed or mailed -----")
    assert (
        line
        and len(re.findall(r"^#\d\d ", before, re.M)) == 5
        and len(re.findall(r"^#\d\d ", after, re.M)) == 15
    )
    with PushServer() as server:
        env = {"PAPERSIFT_PUSH": server.json_url()}
        invoke("digest", "--push", "--date", DAY, "--min-score", str(cut), home=home, env=env)
        (pushed,) = server.messages()
    assert pushed["title"].startswith("papersift: 5 papers for me") and pushed["message"].count("**") == 10
    # the reader's own threshold: kept, shown on the page at the cut, in the API per paper
    assert f"min score: {cut!r}" in invoke("follow", "--min-score", str(cut), home=home).stdout
    with app_client(home) as web:
        entries = web.get(f"/api/daily/{DAY}").json()["entries"]
        seen_pushed = 5  # the five pushed are seen now: the page leaves them out
        assert entries and all(e["below"] for e in entries), [
            (e["score"], e["below"], e["seen"]) for e in entries[:8]
        ]
        page = web.get(f"/daily/{DAY}").text
        assert page.count('class="threshold-cut"') == 1 and "below your threshold" in page
        assert "低于你的阈值" in web.get(f"/daily/{DAY}?lang=zh").text
        shown = web.get(f"/api/daily/{DAY}", params={"seen": "1"}).json()["entries"]
        assert [e["below"] for e in shown[:6]] == [False] * seen_pushed + [True]
        assert all(e["seen"] == ["pushed"] for e in shown[:seen_pushed])
        library = web.get("/library").text
        assert f'name="min_score" inputmode="decimal" value="{cut}"' in library
    assert "min score: -" in invoke("follow", "--min-score", "none", home=home).stdout
    bad = invoke("follow", "--min-score", "high", home=home, check=False)
    assert bad.returncode == 2 and "not a number" in bad.stderr
