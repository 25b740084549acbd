"""Debian's chromium as the browser tests and the screenshot bench launch it (``CHROMIUM``, ``FLAGS``; the
``browser`` fixture is in ``tests/support/fixtures.py``), a fresh page on a server that may run no script
from paper text and reach nothing outside (``browsing``), its screenshot (``SHOTS``), and the topic map's
label boxes as the browser lays them out (``label_boxes``): how many, which two intersect, which reach
outside the drawing, how large their text is drawn on screen; ``visit`` opens a page at a window's width."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.data import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = ROOT / "test-output" / "screenshots"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MAP_MS = 120_000  # how long a page's topic map may take to come (drawn after the page on a busy machine)


@contextlib.contextmanager
def browsing(browser: object, base_url: str, shot: Path) -> Iterator[object]:
    """A fresh browser context on ``base_url``; no dialog may open and no request may leave the server."""
    context = browser.new_context(base_url=base_url)  # type: ignore[attr-defined]
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    outside: list[str] = []
    page.on("request", lambda r: None if r.url.startswith(base_url) else outside.append(r.url))
    try:
        yield page
    finally:
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot), full_page=True)
        context.close()
    assert not dialogs, f"script from paper text ran: {dialogs}"
    assert not outside, f"the page reached outside the server: {outside}"


def screenshot_path(request: pytest.FixtureRequest) -> Path:
    """Where the test ``request`` runs saves its screenshot: ``test-output/screenshots/<test name>.png``."""
    return SHOTS / f"{request.node.name}.png"


LABEL_BOXES = """() => {
  const drawn = Array.from(document.querySelectorAll("svg.map")).find((s) => s.getClientRects().length > 0);
  const svg = drawn.getBoundingClientRect();
  const scale = svg.width / drawn.viewBox.baseVal.width;  // CSS px on screen per unit of the drawing
  const boxes = Array.from(drawn.querySelectorAll("text.lbl")).map((t) => {
    const r = t.getBoundingClientRect();
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom, px};
  });
  return {svg: {left: svg.left, right: svg.right, top: svg.top, bottom: svg.bottom}, boxes,
          name: drawn.classList[1] || ""};
}"""

Box = dict[str, object]


@dataclass(frozen=True, slots=True)
class Labels:
    """The drawn map's label boxes: their texts, the pairs that intersect, those not inside the drawing."""

    texts: list[str]
    overlapping: list[tuple[Box, Box]]
    outside: list[Box]
    drawing: Box  # the drawn map's box (left, right, top, bottom in CSS px)
    heights: list[float]  # each label box's height in CSS px: how large its text is drawn
    font_px: list[float]  # each label's font size as drawn on screen, in CSS px (its size × the scale)
    name: str  # which of the page's drawings is shown (its class: small, mid, phone, wide, …)


def visit(page: object, path: str, width: int = 1280, height: int = 900) -> object:
    """Open ``path`` on a Playwright ``page`` in a window ``width`` × ``height`` CSS px (its response), its
    topic map in place (a map drawn after the page comes into its placeholder: web/topic_pages.py)."""
    page.set_viewport_size({"width": width, "height": height})  # type: ignore[attr-defined]
    response = page.goto(path)  # type: ignore[attr-defined]
    page.locator(".topic-map.pending").wait_for(state="detached", timeout=MAP_MS)  # type: ignore[attr-defined]
    return response


def _apart(a: Box, b: Box) -> bool:
    return bool(
        a["right"] <= b["left"]  # type: ignore[operator]
        or b["right"] <= a["left"]  # type: ignore[operator]
        or a["bottom"] <= b["top"]  # type: ignore[operator]
        or b["bottom"] <= a["top"]  # type: ignore[operator]
    )


def _inside(box: Box, svg: Box) -> bool:
    return bool(
        svg["left"] <= box["left"]  # type: ignore[operator]
        and box["right"] <= svg["right"]  # type: ignore[operator]
        and svg["top"] <= box["top"]  # type: ignore[operator]
        and box["bottom"] <= svg["bottom"]  # type: ignore[operator]
    )


def label_boxes(page: object) -> Labels:
    """The label boxes of the first shown ``svg.map`` on ``page`` (a Playwright page), checked against each
    other and against the drawing's box."""
    found = page.evaluate(LABEL_BOXES)  # type: ignore[attr-defined]
    svg, boxes = found["svg"], found["boxes"]
    overlapping = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :] if not _apart(a, b)]
    return Labels(
        texts=[str(b["text"]) for b in boxes],
        overlapping=overlapping,
        outside=[b for b in boxes if not _inside(b, svg)],
        drawing=svg,
        heights=[float(b["bottom"]) - float(b["top"]) for b in boxes],  # type: ignore[arg-type]
        font_px=[float(b["px"]) for b in boxes],
        name=str(found["name"]),
    )
