"""Making the texts of many papers: ``summarize`` (``papersift summarize``, the background pass after
``sync`` / ``daily``, a digest before it is sent) makes each paper's TL;DR (and in 中文 its title and
abstract) in turn. Every text is stored as it is made, so a run that is stopped and started again makes only
what is missing; a stored failure is made again only with ``retry_failed``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from papersift.reading.texts import make, reading_key
from papersift.records.messages import Message, say
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.records import Reading


@dataclass
class Made:
    """What a pass did: texts made now, found stored, failed (with the reading of each failure)."""

    made: int = 0
    kept: int = 0
    failures: list[Reading] = field(default_factory=list)

    def line(self, what: str = "summarize") -> Message:
        """The pass in one line, a message (the CLI says it in the reader's language)."""
        return say("made", what=what, made=self.made, kept=self.kept, failed=len(self.failures))


def kinds_for(lang: str) -> tuple[str, ...]:
    """The texts a paper is given in ``lang``: the TL;DR, and in 中文 the title and abstract too."""
    return ("tldr", "title", "abstract") if lang == "zh" else ("tldr",)


def summarize(
    settings: Settings,
    store: Store,
    papers: Sequence[Paper],
    lang: str = "en",
    *,
    retry_failed: bool = False,
    step: Callable[[Paper], None] | None = None,
    budget: int | None = None,
) -> Made:
    """Make what is missing of each paper's texts in ``lang`` (at most ``budget`` model calls when given);
    ``step`` is called after each paper (a progress bar)."""
    done = Made()
    calls = 0
    for paper in papers:
        for kind in kinds_for(lang):
            before = store.reading(reading_key(settings, paper, kind, lang))
            if before is not None and (
                before.state == "done" or (before.state == "failed" and not retry_failed)
            ):
                done.kept += 1
                if before.state == "failed":
                    done.failures.append(before)
                continue
            if budget is not None and calls >= budget:
                return done
            calls += 1
            reading = make(settings, store, paper, kind, lang, retry_failed=retry_failed)
            if reading.state == "failed":
                done.failures.append(reading)
            else:
                done.made += 1
        if step is not None:
            step(paper)
    return done
