"""Which texts a face shows for a paper, and their JSON (one shape for the CLI, the API, the pages and the
feeds): the ``tldr`` and ``zh`` models (``TldrShape``, ``ZhShape``, on ``records/json_model.py``'s ``Shape``)
make it.

``lookup`` reads the stored texts of many papers at once (``Texts``). For each paper and kind the text of the
configured model and current prompt is shown when stored (its failure too: a failure is shown as one, never
replaced by another text); else the newest text made by any model; else, for the TL;DR, the extractive key
sentence, labelled ``extractive``. Nothing stands in for a failed text. A text made before the checks
(an older prompt's) is checked as it is read: one that fails is shown as that failure (``reading/checks.py``),
never as a text.

The shapes, in every paper's JSON::

    "tldr": {"text": str | null, "lang": "en" | "zh", "by": <model> | "extractive", "error": null | str}
    "zh":   {"title": str | null, "abstract": str | null, "by": <model> | null, "error": null | str}

A long list makes its extractive TL;DRs where they are shown: its texts built with ``extractive`` off
leave ``tldr`` null where it would be the key sentence, and ``library/shapes.with_tldrs`` fills the rows a
page shows (and every row of the list's JSON). A key sentence is made once per process (``KEPT``, by its
title and abstract), so a later part, the JSON or another page never make it again.

``zh`` only when the 中文 texts are asked for (``?lang=zh``, ``--lang zh``); both null with no error: not
translated yet. A failure's ``error`` is the message it was stored as (``records/messages.stored``): its
English in the JSON, said in the page's language on a page.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Self

from papersift.llm import client
from papersift.reading import checks
from papersift.reading.extractive import EXTRACTIVE, key_sentence
from papersift.reading.prompts import PROMPT_VERSION
from papersift.reading.texts import Answer
from papersift.records.catalogs import said, said_list
from papersift.records.json_model import Said, Shape
from papersift.records.messages import say
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.fulltext_rows import PaperLinks
from papersift.store.records import Reading
from papersift.store.venue_rows import VenueMark


@dataclass(frozen=True)
class Texts:
    """The stored texts chosen to show for some papers in one language: ``(paper id, kind)`` → reading."""

    lang: str = "en"
    chosen: Mapping[tuple[str, str], Reading] = field(default_factory=dict)
    links: Mapping[str, PaperLinks] = field(default_factory=dict)  # full text, references, code (store)
    venues: Mapping[str, list[VenueMark]] = field(default_factory=dict)  # accepted where (store/venue_rows)
    extractive: bool = True  # a key sentence made now (False: left for the rows shown, ``shown_tldr``)

    def get(self, paper: Paper, kind: str) -> Reading | None:
        return self.chosen.get((paper.id, kind))

    def tldr(self, paper: Paper) -> TldrShape:
        """The ``tldr`` shown for ``paper``: its stored text (or failure), else the key sentence."""
        return TldrShape.of(paper, self.get(paper, "tldr"))

    def shown_tldr(self, paper: Paper) -> TldrShape | None:
        """``tldr``, but None where it would be the key sentence and ``extractive`` is off (made later, for
        the rows shown: ``library/shapes.with_tldrs``)."""
        if self.extractive or self.get(paper, "tldr") is not None:
            return self.tldr(paper)
        return None

    def zh(self, paper: Paper) -> ZhShape | None:
        """The ``zh`` shown for ``paper`` when these texts are in 中文 (None: not asked for)."""
        if self.lang != "zh":
            return None
        return ZhShape.of(self.get(paper, "title"), self.get(paper, "abstract"))


class TldrShape(Shape):
    """A paper's one-sentence TL;DR: ``text`` null and ``error`` set when it failed; ``by`` the model, or
    ``extractive`` for the abstract's key sentence."""

    text: str | None
    lang: str
    by: str | None
    error: Said | None

    @classmethod
    def of(cls, paper: Paper, reading: Reading | None) -> Self:
        """The model's TL;DR (``reading``), its failure, or the extractive key sentence."""
        if reading is not None:
            return cls.make(
                text=reading.text, lang=reading.key.lang, by=reading.key.model, error=reading.error
            )
        return cls.extractive(paper.title, paper.abstract)

    @classmethod
    def extractive(cls, title: str, abstract: str) -> Self:
        """The abstract's key sentence, labelled ``extractive`` (its error when it has none)."""
        text = kept_key_sentence(abstract, title)
        error = None if text else say("tldr_no_sentence")
        return cls.make(text=text, lang="en", by=EXTRACTIVE, error=error)


KEPT = 4096  # key sentences kept per process (a few days of the largest listings)


@functools.lru_cache(maxsize=KEPT)
def kept_key_sentence(abstract: str, title: str) -> str | None:
    """``extractive.key_sentence``, made once per title and abstract while it is among the ``KEPT`` latest."""
    return key_sentence(abstract, title)


class ZhShape(Shape):
    """A paper's 中文 title and abstract (null when not made or failed)."""

    title: str | None
    abstract: str | None
    by: str | None
    error: Said | None

    @classmethod
    def of(cls, title: Reading | None, abstract: Reading | None) -> Self:
        made = [r for r in (title, abstract) if r is not None]
        return cls.make(
            title=title.text if title is not None else None,
            abstract=abstract.text if abstract is not None else None,
            by=made[0].key.model if made else None,
            error=next((r.error for r in made if r.error), None),
        )


def _choose(readings: list[Reading], current: tuple[str, str] | None) -> Reading | None:
    """The current model's text (or failure) when stored, else the newest made text (``readings`` are newest
    first)."""
    if current is not None:
        for r in readings:
            if (r.key.model, r.key.prompt) == current:
                return r
    return next((r for r in readings if r.state == "done"), None)


def lookup(settings: Settings, store: Store, papers: Iterable[Paper], lang: str = "en") -> Texts:
    """The texts to show for ``papers`` in ``lang``: their TL;DRs, and in 中文 the translated title and
    abstract (one store query); with what is stored of their full text (``Store.paper_links``) and their
    venues (``Store.venues_of``)."""
    by_id = {p.id: p for p in papers}
    kinds = ["tldr", "title", "abstract"] if lang == "zh" else ["tldr"]
    model = client.model_name(settings) if client.available(settings) else None
    found: dict[tuple[str, str], list[Reading]] = {}
    for r in store.readings_of(list(by_id), lang, kinds):
        paper = by_id[r.key.paper_id]
        if r.key.version == (paper.version or 0):
            found.setdefault((r.key.paper_id, r.key.kind), []).append(r)
    chosen = {}
    for (pid, kind), readings in found.items():
        pick = _choose(readings, None if model is None else (model, PROMPT_VERSION[kind]))
        if pick is not None:
            chosen[(pid, kind)] = _checked(pick, by_id[pid])
    return Texts(lang, chosen, store.paper_links(list(by_id)), store.venues_of(list(by_id)))


def with_venues(store: Store, papers: Iterable[Paper], texts: Texts | None = None) -> Texts:
    """``texts`` (none: the extractive TL;DRs alone) with the venues of ``papers`` (one store query): for
    the faces that show papers without looking their texts up."""
    return dataclasses.replace(texts or Texts(), venues=store.venues_of([p.id for p in papers]))


def _checked(reading: Reading, paper: Paper) -> Reading:
    """``reading`` as it may be shown: a text of an older prompt (made before the checks) checked now."""
    if reading.state != "done" or reading.key.prompt == PROMPT_VERSION.get(reading.key.kind):
        return reading
    verdict = checks.check(
        reading.key.kind, reading.text, reading.key.lang, title=paper.title, abstract=paper.abstract
    )
    if verdict.ok:
        return reading
    return dataclasses.replace(reading, state="failed", text=None, error=verdict.sentence())


def answer_json(answer: Answer) -> dict[str, Any]:
    """An answer to a question about papers: the text with its marks, which paper each mark is."""
    return {
        "question": answer.question,
        "answer": answer.text,
        "lang": answer.lang,
        "by": answer.by,
        "error": answer.error,
        "papers": [
            {"mark": n, "id": p.id, "title": p.title, "sections": _given(answer, n)}
            for n, p in enumerate(answer.papers, 1)
        ],
        "marks": answer.marks(),
    }


def _given(answer: Answer, n: int) -> list[dict[str, object]]:
    """The sections of paper ``n``'s full text the question was answered from (``[n §3]``)."""
    return [p.json() for p in answer.sections[n - 1]] if n <= len(answer.sections) else []


def missing_line(tldrs: list[TldrShape], lang: str = "en") -> str | None:
    """How many of these TL;DRs are missing and why, in one line said in ``lang`` (None: none is): each
    reason as the message it was stored as (a failed check's sentence, an endpoint's answer)."""
    missing = [t.error or say("tldr_no_text") for t in tldrs if not t.text]
    if not missing:
        return None
    why: dict[str, int] = {}
    for error in missing:
        why[error] = why.get(error, 0) + 1
    reasons = said_list(
        (
            say("tldr_missing_reason", n=n, error=error)
            for error, n in sorted(why.items(), key=lambda kv: -kv[1])
        ),
        lang,
    )
    return str(said(say("tldrs_missing", n=len(missing), of=len(tldrs), reasons=reasons), lang))
