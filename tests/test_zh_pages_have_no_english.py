"""A 中文 page says nothing in English but paper text, nor half-width punctuation beside 中文: on a
real server over two real days of cs.AI, each kind of page under ``?lang=zh`` (a listing, Daily Papers, a
paper with its related papers, a search with a correction, one with a translation, one with no results,
related papers of a text, the topic map, the library, the lab's trending papers, the categories, the login,
the model help, and the error pages: an unknown id, a bad date, an unknown category, no such page, a method
not allowed) has no English word left once the papers' own text (titles, abstracts, authors, phrases, topic
names, ids, dates, URLs) is taken out, but for names (arXiv, papersift, BibTeX, Atom…) and category codes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import httpx
import pytest
from lxml import html

from papersift.records.taxonomy import categories, groups
from tests.support.data import DAILY_DAYS
from tests.support.homes import home_copy
from tests.support.inproc import invoke
from tests.support.processes import serving

DAY = DAILY_DAYS[1]
# elements that hold paper text (or a name of something) only: taken out before the words are read
PAPER_TEXT = (
    "paper-title title authors abstract zh-title comments bibtex tldr-text cats date arxiv chip lbl "
    "map-tip reader tag tags lang by"
).split()
NAMES = frozenset(
    "arXiv papersift BibTeX Atom TL DR pdf KaTeX LaTeX Zotero RIS CSL JSON YYYY MM DD README UTC API URL"
    " OpenAI Ollama llama cpp LM Studio vLLM HTML html COLM CoRL".split()  # names of things: formats,
    # programs, model servers, venues (the examples of the venue fields)
)
CODES = frozenset({c.id for c in categories()} | {a.id for g in groups() for a in g.archives})
_CODE = re.compile(r"(?<![\w.-])[a-z][a-z-]*(?:\.[A-Za-z-]+)?(?![\w.-])")
_WORD = re.compile(r"[A-Za-z]{2,}")


@pytest.fixture(scope="module")
def zh_home(topics_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return home_copy(topics_home, tmp_path_factory, "zh-pages")


@pytest.fixture(scope="module")
def site(zh_home: Path) -> Iterator[httpx.Client]:
    with serving(zh_home) as client:
        yield client


def paper_strings(data: Any) -> set[str]:
    """Every text of a paper or a query in a JSON answer: its titles, authors, phrases, topic names and
    labels, the query as read, and what a reason quotes of the papers ("shared terms: a, b")."""
    found: set[str] = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in (
                "title",
                "abstract",
                "label",
                "comments",
                "translation",
                "text_used",
                "original",
            ):
                found |= {value} if isinstance(value, str) else set()
            elif key in ("corrections", "acronyms"):  # {"from", "to"}, {"form", "other"}
                found |= {text for pair in value for text in pair.values()}
            elif key == "why":
                found |= {part for why in value for part in why.partition(": ")[2].split(", ")}
            elif key in ("authors", "terms", "shared_authors", "phrases", "key_phrases", "suggestions"):
                found |= {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()
            found |= paper_strings(value)
    elif isinstance(data, list):
        for value in data:
            found |= paper_strings(value)
    return found


def english_left(page: str, papers: set[str]) -> list[str]:
    """The English words of the page's body that are no paper's text and no name."""
    text = interface_text(page, papers)
    text = _CODE.sub(lambda m: " " if m.group(0) in CODES else m.group(0), text)
    return [w for w in _WORD.findall(text) if w not in NAMES]


# half-width punctuation touching 中文: "主题: cs.CV", "参考文献 (共 40 条；…)"
_HALF_WIDTH = re.compile(r"[\u4e00-\u9fff][:;,!?](?:\s|$)|[\u4e00-\u9fff] ?\(|\) ?[\u4e00-\u9fff]")


def half_width_left(page: str, papers: set[str]) -> list[str]:
    """The places where the page's interface text (no paper's) puts half-width punctuation beside 中文."""
    return [m.group(0) for m in _HALF_WIDTH.finditer(interface_text(page, papers))]


def interface_text(page: str, papers: set[str]) -> str:
    """The page's body as the reader sees it, less paper text, names, URLs, ids and code."""
    body = html.fromstring(page).find("body")
    assert body is not None
    for el in list(body.iter()):
        classes = set((el.get("class") or "").split())
        paper = el.tag in ("script", "style", "code", "pre", "svg", "mark") or classes & set(PAPER_TEXT)
        if paper and el.getparent() is not None:
            el.drop_tree()
    text = " ".join(
        [
            *body.itertext(),
            *(el.get(a) or "" for el in body.iter() for a in ("title", "placeholder", "aria-label", "alt")),
        ]
    )
    text = re.sub(
        r"https?://\S+|\b[A-Z]+(?:_[A-Z]+)+\b|/\S*|“[^”]*”|`[^`]*`|\b\d{4}\.\d{4,5}(v\d+)?\b", " ", text
    )
    for s in sorted(papers, key=len, reverse=True):
        if len(s) > 1:
            text = text.replace(s, " ")
    return text


def test_every_zh_page_says_its_interface_in_chinese(site: httpx.Client, zh_home: Path) -> None:
    listing = site.get(f"/api/list/cs.AI/{DAY}").json()
    pid = str(listing["entries"][0]["id"])
    invoke("library", "add", *(str(e["id"]) for e in listing["entries"][:3]), home=zh_home)
    corrected = site.get("/api/search", params={"q": "agnets planing"}).json()
    assert any(n.startswith("corrected:") for n in corrected["understood"]["applied"])
    translated = site.get("/api/search", params={"q": "强化学习"}).json()
    notes = translated["understood"]["applied"]
    assert any(n.startswith("translated by the offline dictionary:") for n in notes)
    pages: dict[str, tuple[int, str | None]] = {
        f"/list/cs.AI/{DAY}": (200, f"/api/list/cs.AI/{DAY}"),
        f"/daily/{DAY}": (200, f"/api/daily/{DAY}"),
        f"/abs/{pid}": (200, f"/api/abs/{pid}"),
        "/search?q=agnets+planing": (200, "/api/search?q=agnets+planing"),
        "/search?q=强化学习": (200, "/api/search?q=强化学习"),
        "/search?q=xqzvbn+plorkt": (200, None),
        f"/map/cs.AI/{DAY}": (200, f"/api/map/cs.AI/{DAY}"),
        "/library": (200, "/api/library"),
        "/categories": (200, None),
        "/trending": (200, "/api/trending"),
        "/related?text=multi-agent+planning+with+language+models": (
            200,
            "/api/related?text=multi-agent+planning+with+language+models",
        ),
        "/login": (200, None),
        "/help/model": (200, None),
        "/abs/2501.99999": (404, None),
        "/list/cs.LG/yesterday": (400, None),
        "/list/cs.AI/yesterday": (400, None),
        "/list/cs.XX": (404, None),
        "/no/such/page": (404, None),
        "/seen": (405, None),
    }
    everything = paper_strings(listing)
    left = {}
    for path, (status, api) in pages.items():
        typed = {unquote_plus(path.rpartition("=")[2]), path.rpartition("/")[2]}  # a query, a date as given
        papers = everything | (paper_strings(site.get(api).json()) if api else set()) | typed
        answer = site.get(f"{path}{'&' if '?' in path else '?'}lang=zh")
        assert answer.status_code == status, path
        if words := english_left(answer.text, papers):
            left[path] = words
        if marks := half_width_left(answer.text, papers):
            left[f"{path} (half-width punctuation)"] = marks
    if left:
        pytest.fail(
            json.dumps({path: sorted(set(words)) for path, words in left.items()}, ensure_ascii=False)
        )
