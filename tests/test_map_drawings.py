"""The map's drawings as the server lays them out (web/topic_pages.py): at each size a listing or the map page
draws, the labels ``place_labels`` keeps are inside the drawing and apart, however crowded the topics, and a
中文 label is measured as wide as it is drawn (the browser tests check the same in Chromium)."""

from __future__ import annotations

from pathlib import Path

import pytest

from papersift.ranking.topics import MOST_TOPICS
from papersift.web.topic_pages import (
    COLOURS,
    GAP,
    LISTING_SIZES,
    MAP_PAGE_SIZES,
    Size,
    colour,
    label_box,
    label_width,
    place_labels,
)

NAMES = [
    "language models",
    "vision-language models",
    "diffusion models",
    "reinforcement learning",
    "medical image",
    "magnetic resonance",
    "reconstruction",
    "high-resolution",
    "扩散模型",
    "大语言模型",
    "motion",
    "camera",
]


@pytest.mark.parametrize("size", [*LISTING_SIZES, *MAP_PAGE_SIZES], ids=lambda s: s.name)
def test_labels_placed_for_each_size_are_inside_it_and_apart(size: Size) -> None:
    middle = (size.width / 2, size.height / 2)  # every topic's centre in one spot: the worst crowding
    centres = [(name, 100 - n, middle[0] + n, middle[1] - n) for n, name in enumerate(NAMES)]
    placed = place_labels(centres, size.width, size.height)
    assert len(placed) >= 6  # most still fit, moved off the crowded centre
    boxes = [label_box(text, x, y) for text, x, y in placed.values()]
    for left, top, right, bottom in boxes:
        assert left >= 0 and right <= size.width and top >= 0 and bottom <= size.height
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[2] + GAP <= b[0] or b[2] + GAP <= a[0] or a[3] + GAP <= b[1] or b[3] + GAP <= a[1]


def test_a_wide_characters_label_is_measured_a_full_em_per_character() -> None:
    assert label_width("扩散模型") > label_width("diff") + 4 * 4  # 13 px each, not a Latin letter's 8
    assert label_width("ab") < label_width("扩散")


def test_no_two_of_a_busy_days_24_topics_are_drawn_alike() -> None:
    drawn = [colour(n) for n in range(MOST_TOPICS)]
    assert len(set(drawn)) == MOST_TOPICS
    assert drawn[0] == "t0" and drawn[COLOURS] == "t0 ring"  # the hues again, as rings
    css = (Path(__file__).parents[1] / "src/papersift/web/static/topics.css").read_text()
    assert (
        all(f".t{n} " in css for n in range(COLOURS)) and ".pt.ring circle" in css and ".swatch.ring" in css
    )
