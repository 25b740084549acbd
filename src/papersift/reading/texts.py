"""Making the texts: each stored once per (paper id, paper version, model, prompt version, language, kind)
with its failure, one generation per key however many processes ask (the store's claim), and Ask.

``make`` returns the stored text of a key, making it first when it is not stored: it claims the key, calls
the model, checks the text (``reading/checks.py``; a failing one is asked for once more with the broken rule
said plainly, and a TL;DR too long still becomes its first sentence when that stands alone), stores the
text or the error (``ModelError``'s message, "the endpoint answered 429 three times", kept as a message,
or the failed check's sentence and reason), and gives the claim back if it is stopped halfway (a killed
process's claim goes stale after ``reading_claim_seconds`` and is retaken). A caller that loses the claim
waits for the winner's text.
``faq_stream`` yields the FAQ as the model writes it and checks and stores it when it is whole; ``ask``
answers a question about several papers with a mark per claim, checked like the rest (never stored:
questions are a reader's own).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta

from papersift.llm import client
from papersift.llm.errors import ModelError
from papersift.reading import checks, prompts, sections
from papersift.reading.sections import Encode, Passage
from papersift.records.messages import reason, say
from papersift.records.paper import Paper
from papersift.settings import Settings
from papersift.store import Store
from papersift.store.records import Reading, ReadingKey
from papersift.store.rows import now

WAIT_STEP = 0.2  # seconds between looks at a text another process is making
_MARK = re.compile(r"\[(\d{1,2})(?:\s*§\s*[\w.]{1,12})?\]")  # [2]; [2 §3.1]: a section of its full text


def reading_key(settings: Settings, paper: Paper, kind: str, lang: str) -> ReadingKey:
    """The key the ``kind`` text of ``paper`` in ``lang`` by the configured model is stored under."""
    prompt_kind = "tldr" if kind == "tldr" else kind
    return ReadingKey(
        paper.id,
        paper.version or 0,
        client.model_name(settings),
        prompts.PROMPT_VERSION[prompt_kind],
        lang,
        kind,
    )


def passages(
    settings: Settings,
    store: Store,
    paper: Paper,
    kind: str,
    question: str = "",
    *,
    share: int = 1,
    encode: Encode | None = None,
) -> tuple[Passage, ...]:
    """The sections of the paper's stored full text a ``kind`` prompt carries (none without one): for the
    FAQ chosen by its questions, for a TL;DR by the title and abstract (a quarter of the budget), for Ask
    by ``question`` (the budget shared by ``share`` papers)."""
    budget = settings.reading_context_chars // max(share, 1)
    if kind == "faq":
        queries: tuple[str, ...] = sections.FAQ_QUERIES
    elif kind == "tldr":
        queries, budget = (f"{paper.title}. {paper.abstract}",), budget // sections.TLDR_SHARE
    elif kind == "ask":
        queries = (question,)
    else:
        return ()
    if budget < sections.MIN_PIECE:
        return ()
    return sections.choose(store.fulltext(paper.id), queries, budget, encode)


def _messages(paper: Paper, kind: str, lang: str, given: tuple[Passage, ...] = ()) -> prompts.Messages:
    if kind == "tldr":
        return prompts.tldr(paper, lang, given)
    if kind in ("title", "abstract"):
        return prompts.translation(paper, kind, lang)
    if kind == "faq":
        return prompts.faq(paper, lang, given)
    raise ValueError(f"no such kind of text: {kind!r}")


def _generate(
    settings: Settings, store: Store, paper: Paper, kind: str, lang: str, encode: Encode | None = None
) -> tuple[str | None, str | None]:
    given = passages(settings, store, paper, kind, encode=encode)
    messages = _messages(paper, kind, lang, given)
    try:
        return checked(
            settings,
            store,
            messages,
            kind,
            lang,
            title=paper.title,
            abstract=paper.abstract,
        )
    except ModelError as e:
        return None, reason(e) or type(e).__name__


_SHORTER = ("several_sentences", "too_long", "cut_off")


def checked(
    settings: Settings,
    store: Store,
    messages: prompts.Messages,
    kind: str,
    lang: str,
    *,
    title: str = "",
    abstract: str = "",
    given: int = 0,
) -> tuple[str | None, str | None]:
    """The model's ``kind`` text for ``messages`` when it passes its checks, asked once more when it does
    not; ``(None, why)`` when that fails too (a ``ModelError`` of the endpoint is raised)."""

    def ask(asked: prompts.Messages) -> tuple[str, checks.Verdict]:
        reply = client.complete(settings, asked, max_tokens=prompts.MAX_TOKENS[kind], store=store)
        text = prompts.clean(kind, reply.text)
        return text, checks.check(kind, text, lang, title=title, abstract=abstract, given=given)

    first, verdict = ask(messages)
    if verdict.ok:
        return first, None
    again = prompts.stricter(messages, first, kind, lang, verdict.sentence(), given)
    second, retried = ask(again)
    if retried.ok:
        return second, None
    if kind == "tldr":
        for text, why in ((second, retried), (first, verdict)):
            if why.reason in _SHORTER and (
                one := checks.first_sentence(text, lang, title=title, abstract=abstract)
            ):
                return one, None
    return None, retried.sentence()


def make(
    settings: Settings,
    store: Store,
    paper: Paper,
    kind: str,
    lang: str,
    *,
    retry_failed: bool = False,
    wait: float = 120.0,
    encode: Encode | None = None,
) -> Reading:
    """The ``kind`` text of ``paper`` in ``lang``: stored, else made now (or by whoever claimed it first,
    waited for up to ``wait`` seconds; a still ``pending`` reading when it is not done by then)."""
    key = reading_key(settings, paper, kind, lang)
    found = store.reading(key)
    if found is not None and (found.state == "done" or (found.state == "failed" and not retry_failed)):
        return found
    stale = now() - timedelta(seconds=settings.reading_claim_seconds)
    if store.claim_reading(key, stale_before=stale, retry_failed=retry_failed):
        try:
            text, error = _generate(settings, store, paper, kind, lang, encode)
        except BaseException:
            store.release_reading(key)
            raise
        store.finish_reading(key, text, error)
    deadline = time.monotonic() + wait
    while True:
        found = store.reading(key)
        if found is None:  # the winner was stopped and gave its claim back: make it here
            again = make(
                settings, store, paper, kind, lang, retry_failed=retry_failed, wait=wait, encode=encode
            )
            return again
        if found.state != "pending" or time.monotonic() >= deadline:
            return found
        time.sleep(WAIT_STEP)


def faq_stream(
    settings: Settings, store: Store, paper: Paper, lang: str, encode: Encode | None = None
) -> Iterator[str]:
    """The FAQ of ``paper`` in ``lang`` as it is written (the stored one at once, when there is one),
    stored when whole; a failure is stored and raised as ``ModelError``."""
    key = reading_key(settings, paper, "faq", lang)
    found = store.reading(key)
    if found is not None and found.state == "done" and found.text:
        yield found.text
        return
    stale = now() - timedelta(seconds=settings.reading_claim_seconds)
    if not store.claim_reading(key, stale_before=stale, retry_failed=True):  # another is writing it
        done = make(settings, store, paper, "faq", lang, encode=encode)
        if done.text is None:
            raise ModelError(done.error or say("faq_being_written"))
        yield done.text
        return
    parts: list[str] = []
    size = 0
    bound = prompts.MAX_CHARS["faq"]
    try:
        given = passages(settings, store, paper, "faq", encode=encode)
        for delta in client.stream(
            settings, prompts.faq(paper, lang, given), max_tokens=prompts.MAX_TOKENS["faq"], store=store
        ):
            delta = delta[: max(0, bound - size)]
            if not delta:
                break
            parts.append(delta)
            size += len(delta)
            yield delta
    except ModelError as e:
        store.finish_reading(key, None, reason(e))
        raise
    except BaseException:  # the reader went away (GeneratorExit) or the process is stopped
        store.release_reading(key)
        raise
    text = prompts.clean("faq", "".join(parts))
    verdict = checks.check("faq", text, lang, title=paper.title, abstract=paper.abstract)
    if verdict.ok and size >= bound:
        verdict = checks.fail("too_long", size=size, limit=bound, unit="characters")
    if not verdict.ok:
        error = verdict.sentence()
        store.finish_reading(key, None, error)
        raise ModelError(error)
    store.finish_reading(key, text, None)


@dataclass(frozen=True)
class Answer:
    """An answer to a question about ``papers`` ([1] is the first): its text with the marks, the marks it
    used, and who wrote it; ``text`` None and ``error`` set when it failed."""

    question: str
    papers: tuple[Paper, ...]
    text: str | None
    by: str
    error: str | None
    lang: str
    sections: tuple[tuple[Passage, ...], ...] = ()  # the full text's sections given, paper by paper

    def marks(self) -> list[int]:
        """The paper numbers the answer cites, in order of first use (only numbers of given papers)."""
        seen: list[int] = []
        for m in _MARK.finditer(self.text or ""):
            n = int(m.group(1))
            if 1 <= n <= len(self.papers) and n not in seen:
                seen.append(n)
        return seen


def ask(
    settings: Settings,
    store: Store,
    papers: Sequence[Paper],
    question: str,
    lang: str = "en",
    encode: Encode | None = None,
) -> Answer:
    """Answer ``question`` from the texts of ``papers`` (at most ``MAX_PAPERS``; their full text's sections
    chosen for it where stored), every claim marked with its paper (and section: ``[1 §3]``)."""
    question = " ".join(question.split())[: prompts.MAX_QUESTION]
    chosen = tuple(papers[: prompts.MAX_PAPERS])
    by = client.model_name(settings)
    if not question:
        return Answer(question, chosen, None, by, say("ask_empty_question"), lang)
    if not chosen:
        return Answer(question, chosen, None, by, say("ask_no_papers"), lang)
    given = tuple(
        passages(settings, store, p, "ask", question, share=len(chosen), encode=encode) for p in chosen
    )
    try:
        text, error = checked(
            settings, store, prompts.ask(chosen, question, lang, given), "ask", lang, given=len(chosen)
        )
    except ModelError as e:
        return Answer(question, chosen, None, by, reason(e), lang, given)
    return Answer(question, chosen, text, by, error, lang, given)
