"""What papersift says to a reader (reasons, notes, errors) as typed messages: a key, its arguments and the
English template of each key. A ``Message`` is its English text (a ``str``: JSON, the CLI and every
comparison see exactly that sentence) that still knows its key and arguments, so a face can say it in the
reader's language from a catalog (``records/catalogs.py``; the English template is the catalog's msgid).
An error raised with a message (``ModelError(say("model_timeout", seconds="30"))``) is its English to
``str(e)``, and ``reason(e)`` gives the message. ``stored`` and ``restored``: a message kept in a text
column (a text's failure) as its English and what it was made of, and read back as the message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

Arg = str | int | float

# key → English template (python-format: %(name)s); the msgids of the catalogs under papersift/locale/
ENGLISH: dict[str, str] = {
    # why a paper is related, recommended or picked (ranking/pool.py, recommend.py, evidence.py)
    "sentence_match": "%(mine)s ↔ %(theirs)s (%(cosine)s)",
    "your_title": "your title",
    "your_sentence": "your sentence %(n)s",
    "their_title": "their title",
    "their_sentence": "their sentence %(n)s",
    "same_authors": "same authors: %(authors)s",
    "shared_terms": "shared terms: %(terms)s",
    "close_in_content": "close in content (%(score)s)",
    "similar_wording": "similar wording (%(score)s)",
    "same_category": "same category (%(category)s)",
    "earlier_work": "earlier work",
    "same_day_before": "the same day, submitted before",
    "same_month_before": "the same month, submitted before",
    "years_earlier_1": "%(n)s year earlier",
    "years_earlier": "%(n)s years earlier",
    "months_earlier_1": "%(n)s month earlier",
    "months_earlier": "%(n)s months earlier",
    "weeks_earlier_1": "%(n)s week earlier",
    "weeks_earlier": "%(n)s weeks earlier",
    "days_earlier_1": "%(n)s day earlier",
    "days_earlier": "%(n)s days earlier",
    "cites_same": "cites %(n)s of the same papers",
    "cited_together_1": "cited together by %(n)s paper",
    "cited_together": "cited together by %(n)s papers",
    "cites_library_1": "cites %(n)s paper of your library",
    "cites_library": "cites %(n)s papers of your library",
    "cited_by_library_1": "cited by %(n)s paper of your library",
    "cited_by_library": "cited by %(n)s papers of your library",
    "followed_authors": "followed authors: %(authors)s",
    "library_authors": "authors in your library: %(authors)s",
    "close_to": "close to %(titles)s",
    "followed_category": "followed category (%(category)s)",
    # how a query or a text was read (ranking/understand.py, search.py, related.py)
    "translated": "translated: %(query)s → %(translation)s",
    "not_translated": "not translated: no offline dictionary for %(script)s text",
    "corrected": "corrected: %(wrong)s → %(right)s",
    "acronym": "acronym: %(form)s = %(other)s",
    "text_cut": "text cut to the model's %(tokens)s-token window for the dense match (%(chars)s characters "
    "given); key terms use the first 100,000 characters",
    "no_facet_sentence": "no %(facet)s sentence found: the whole text is used",
    "facet_background": "background",
    "facet_method": "method",
    "facet_result": "result",
    "no_index_yet": "no index yet: keyword matches only (run `papersift embed`)",
    "no_vectors_yet": "no vectors yet: keyword results only (run `papersift embed`)",
    "an_arxiv_id": "an arXiv id: that paper",
    "empty_query": "empty query",
    "no_good_matches": "no good matches",
    # what is missing or wrong (ranking/daily.py, the server's errors)
    "no_followed_listings": "no listings for the followed categories yet",
    "no_listing_of": "no listing of %(categories)s on %(day)s",
    "no_listing_on": "no %(category)s listing on %(day)s",
    "no_listings_for": "no listings for %(category)s",
    "all_categories": "all categories",
    # a day with no listing (ranking/daily.py QuietDay): the page, digests, pushes and the CLI
    "quiet_weekend": "arXiv announces nothing for %(weekday)s %(day)s: it lists new papers Monday to Friday. "
    "The next listing is %(next_weekday)s %(next)s, announced %(announced)s US-Eastern (%(utc)s UTC).",
    "quiet_holiday": "arXiv announced nothing for %(weekday)s %(day)s (a holiday). The next listing is "
    "%(next_weekday)s %(next)s, announced %(announced)s US-Eastern (%(utc)s UTC).",
    "quiet_not_yet": "No listing for %(weekday)s %(day)s yet: arXiv announces it %(announced)s US-Eastern "
    "(%(utc)s UTC).",
    "weekday_0": "Monday",
    "weekday_1": "Tuesday",
    "weekday_2": "Wednesday",
    "weekday_3": "Thursday",
    "weekday_4": "Friday",
    "weekday_5": "Saturday",
    "weekday_6": "Sunday",
    "not_in_store": "%(id)s is not in the store",
    "no_paper_in_store": "no paper %(id)s in the store",
    "not_on_arxiv": "%(id)s is not on arXiv",
    "not_in_library": "%(entry)s is not in your library",
    "key_not_in_library": "that key is not in your library",
    "text_empty": "the text is empty",
    "mode_one_of": "mode must be one of %(modes)s",
    "not_a_date": "not a date (YYYY-MM-DD): %(value)s",
    "not_a_number": "not a number: %(value)s",
    "log_in_first": "log in first",
    "read_only": "this server is read-only",
    "no_such_page": "not found",
    "request_too_big": "the request is over %(limit)s bytes",
    "cross_site": "cross-site requests are refused",
    "stale_form": "the form is stale or comes from another site: reload the page and retry",
    "wrong_login": "wrong name or password",
    "too_many_logins": "too many failed logins; try again in %(seconds)s seconds",
    "no_such_feed": "no such feed",
    "unknown_action": "unknown action %(action)s",
    "file_too_big": "the file is over %(mb)s MB",
    "not_an_arxiv_id": "not an arXiv id",
    "not_arxiv_id": "not an arXiv id: %(raw)s",
    "not_arxiv_id_month": "not an arXiv id: %(raw)s (month %(month)s)",
    "not_found": "Not Found",
    "method_not_allowed": "Method Not Allowed",
    "offline": "offline: cannot reach %(host)s (%(problem)s)",
    "store_busy": "the store is busy (%(problem)s); try again in a moment",
    "no_model": "no language model is connected to this server: connect one with `papersift llm setup` on "
    "its machine and restart `papersift serve` (README: Connecting a model, /help/model)",
    "model_not_here": "no model may write here: %(what)s is not available",
    "the_faq": "the FAQ",
    "a_tldr": "a TL;DR",
    "an_answer": "an answer",
    "questions_an_hour": "at most %(n)s questions an hour from one address",
    "ask_how_many": "ask about 1 to %(n)s papers",
    "and_more": "%(names)s and %(n)s more",
    # the entries of a bibliography skipped on import (sources/bibliography.py, bibtex.py, ris.py, csl.py)
    "entry_line": "line %(line)s: %(message)s",
    "entry_no_title_no_id": "entry %(entry)s has no title and no known arXiv id",
    "ris_no_title": "RIS record has no title (TI or T1); skipped",
    "ris_stray_tag": "RIS tag %(tag)s outside a record (no 'TY  - ' line before it); skipped",
    "ris_bad_line": "not a RIS 'XX  - value' line: %(snippet)s; record from line %(start)s skipped",
    "ris_no_end": "RIS record from line %(start)s has no 'ER  - ' line before line %(n)s",
    "ris_cut_off": "RIS record from line %(start)s is cut off: no 'ER  - ' line",
    "bibtex_entry": "BibTeX entry",
    "bibtex_entry_named": "BibTeX entry %(entry)s",
    "bibtex_no_title": "BibTeX entry %(entry)s has no title; skipped",
    "bibtex_malformed": "%(what)s is malformed and was skipped: %(reason)s",
    "csl_item": "CSL-JSON item %(index)s",
    "csl_item_id": "CSL-JSON item %(index)s (id %(id)s)",
    "csl_not_object": "CSL-JSON item %(index)s is not an object; skipped",
    "csl_no_title": "%(where)s has no title; skipped",
    "csl_malformed": "malformed JSON at line %(line)s, column %(column)s: %(problem)s",
    "csl_not_array": "CSL-JSON must be an array of items",
    "empty_input": "empty input",
    "unrecognised_format": "unrecognised format",
    "no_bibliography": "%(problem)s: expected BibTeX, RIS, CSL-JSON or a list of arXiv ids, one a line",
    "cannot_read": "%(path)s: cannot read: %(reason)s",
    "not_utf8": "%(path)s: not UTF-8 text (byte 0x%(byte)s on line %(line)s); save it as UTF-8",
    "not_an_arxiv_id_line": "not an arXiv id or arXiv URL: %(line)s",
    # a model text that failed its check (reading/checks.py Verdict.sentence), with the languages and units
    # its arguments name
    "check_empty": "the model answered with no text",
    "check_markup": "the model's text carries markup or a prompt tag: %(tag)s",
    "check_too_long": "the text is too long: %(size)s %(unit)s, at most %(limit)s",
    "check_cut_off": "the text is cut off mid-sentence: “%(end)s”",
    "check_wrong_language": "the model answered in %(got)s where %(asked)s was asked",
    "check_mixed_language": "the 中文 text mixes in English: “%(words)s”",
    "check_several_sentences": "the TL;DR is %(count)s sentences, not one",
    "check_copies_title": "the TL;DR repeats the title",
    "check_copies_abstract": "the TL;DR copies a sentence of the abstract",
    "check_math_lost": "the translation lost the math %(span)s",
    "check_length_off": "the translation is not about as long as its source (%(ratio)s× its length)",
    "check_no_marks": "the answer cites no paper with a [n] mark",
    "check_unknown_mark": "the answer cites [%(mark)s], which names none of the %(given)s given",
    "language_en": "English",
    "language_zh": "中文",
    "unit_words": "words",
    "unit_characters": "characters",
    # the digests and pushes (reader/digest.py, reader/push.py, reader/words.py): their fixed words
    "digest_day": "%(weekday)s %(dd)s %(month)s %(year)s",
    **{
        f"weekday_short_{n}": name for n, name in enumerate(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))
    },
    **{
        f"month_short_{n}": name
        for n, name in enumerate(
            ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
        )
    },
    "digest_subject": "papersift: %(n)s papers for %(reader)s, %(day)s",
    "digest_quiet_subject": "papersift: no arXiv listing for %(day)s",
    "digest_all_below": "No new papers for you on %(day)s: the %(n)s not yet seen are all below your "
    "threshold (%(threshold)s).",
    "digest_all_seen": "No new papers for you on %(day)s: every one is already seen, saved or left out by "
    "your keywords.",
    "digest_none": "No new papers in your categories today.",
    "push_none": "No new papers for you today.",
    "digest_all_papers": "All of today's papers",
    "digest_all_papers_at": "All of today's papers: %(link)s",
    "push_all_papers": "All of the day's papers",
    "push_all_papers_at": "All of the day's papers: %(link)s",
    "digest_why": "why: %(reasons)s",
    "digest_why_word": "why",
    "push_score": "score %(score)s",
    "digest_tldr": "TL;DR (%(by)s): %(text)s",
    "digest_key_sentence": "key sentence",
    "digest_tldr_unavailable": "TL;DR unavailable: %(error)s",
    "feed_tldr": "TL;DR: %(text)s",
    "tldrs_missing": "%(n)s of %(of)s TL;DRs are missing (%(reasons)s)",
    "lab_popular_week": "Popular in your lab this week",
    "lab_saved": "%(saves)s saved",
    "lab_saved_upvoted": "%(saves)s saved · %(upvotes)s +1",
    "markdown_title": "Daily Papers for %(reader)s, %(day)s",
    "feed_title": "papersift Daily Papers for %(reader)s",
    # a request's values that are not valid (the page's sentence for a validation error)
    "invalid_choice": "%(where)s must be one of %(choices)s",
    "invalid_number": "%(where)s: not a whole number: %(value)s",
    "invalid_too_small": "%(where)s: at least %(limit)s",
    "invalid_too_large": "%(where)s: at most %(limit)s",
    "invalid_missing": "%(where)s: missing",
    "invalid_too_long": "%(where)s: too long (at most %(limit)s characters)",
    "invalid_value": "%(where)s: not a valid value",
    # what a run did, in one line (reading/passes.py Made, services/eprints.py Fetched, reader/zotero_sync.py
    # SyncReport): the CLI's summaries
    "made": "%(what)s: %(made)s made, %(kept)s already stored, %(failed)s failed",
    "fulltext_fetched": "fulltext: %(stored)s stored (%(size)s bytes), %(kept)s already stored, "
    "%(failed)s failed",
    "zotero_synced": "zotero: %(items)s items read, %(matched)s matched to arXiv papers (%(fetched)s fetched "
    "from arXiv), %(kept)s kept with their own text, %(removed)s removed; %(entries)s entries from Zotero in "
    "the library (%(linked)s linked); %(requests)s requests, %(seconds)s s",
    # the errors of the layers below the faces, raised with their message (``reason`` finds it): the model's
    # (llm/client.py, answers.py, local.py, setup.py; stored as a text's failure, ``stored``), the store's,
    # the pushes' and mails' (reader/push.py, digest.py, delivery.py) and Zotero's (reader/zotero_*.py)
    "model_none": "no language model is configured: set PAPERSIFT_LLM_URL, or PAPERSIFT_LLM_LOCAL=true "
    "(or connect one: papersift llm setup)",
    "model_timeout": "timed out after %(seconds)s s",
    "model_timeout_stream": "timed out after %(seconds)s s, %(chars)s into the stream",
    "model_not_json": "the endpoint's answer was cut or not JSON (%(kind)s)",
    "model_answered": "the endpoint answered %(status)s",
    "model_answered_saying": "the endpoint answered %(status)s: %(message)s",
    "model_answered_times": "the endpoint answered %(status)s %(times)s",
    "model_answered_times_saying": "the endpoint answered %(status)s %(times)s: %(message)s",
    "model_unreachable": "could not reach %(where)s (%(kind)s, %(times)s)",
    "model_budget": "daily token budget of %(tokens)s reached",
    "model_no_text": "the endpoint's answer had no text (no choices[0].message.content)",
    "model_chunk_not_json": "the stream sent a chunk that is not JSON after %(chars)s",
    "model_failed_mid_stream": "the endpoint failed mid-stream: %(error)s",
    "model_not_a_stream": "the endpoint did not answer with an event stream (%(problem)s)",
    "model_stream_cut": "the stream was cut after %(chars)s",
    "model_stream_cut_by": "the stream was cut after %(chars)s (%(kind)s)",
    "model_no_weights": "the local default's weights are not installed (%(name)s is missing): %(install)s",
    "model_no_runtime": "the local default model needs llama-cpp-python: %(install)s",
    "model_not_started": "the local default model did not start (%(line)s; see %(log)s)",
    "model_not_started_within": "the local default model did not start within %(seconds)s s (see %(log)s)",
    "model_no_provider": "no provider called %(name)s: known are %(known)s (or give --url URL)",
    "model_not_a_url": "%(url)s is not a URL (e.g. http://127.0.0.1:11434/v1)",
    "model_not_http": "%(url)s is not an http(s) URL (e.g. http://127.0.0.1:11434/v1)",
    "model_key_in_home": "the key file %(path)s is inside the home: keep it elsewhere (the home holds no "
    "key)",
    "model_key_empty": "the key file %(path)s is empty",
    "model_key_unreadable": "the key file %(path)s cannot be read",
    "model_no_answer_within": "%(url)s did not answer within %(seconds)s s",
    "model_cannot_reach": "could not reach %(url)s (%(kind)s)",
    "model_key_refused": "%(url)s refused the key (%(status)s): set PAPERSIFT_LLM_KEY or --key-file FILE",
    "model_models_answered": "%(url)s/models answered %(status)s",
    "faq_being_written": "the FAQ is still being written; try again in a moment",
    "times_1": "once",
    "times_2": "twice",
    "times_3": "three times",
    "times": "%(n)s times",
    "characters_1": "%(n)s character",
    "characters": "%(n)s characters",
    "store_unusable": "%(path)s: not a usable papersift database (%(problem)s)",
    "store_too_new": "%(path)s: schema version %(found)s is newer than this papersift (%(known)s); upgrade "
    "papersift",
    "store_cannot_connect": "%(path)s: cannot connect to PostgreSQL (%(problem)s)",
    "store_needs_extensions": "%(path)s: the database needs the pgvector and unaccent extensions: run CREATE "
    "EXTENSION vector; CREATE EXTENSION unaccent; in it as a superuser (%(problem)s)",
    "store_not_a_url": "not a database URL papersift knows: %(url)s (postgresql://… or sqlite:///PATH)",
    "store_needs_postgres": "PostgreSQL needs the [postgres] extra: pip install 'papersift[postgres]' "
    "(%(problem)s)",
    "store_target_full": "the target already holds %(held)s: use --force to replace its contents",
    "reader_name_length": "a reader's name is 1 to 64 characters",
    "reader_exists": "a reader named %(name)s already exists",
    "password_too_short": "a password has at least %(n)s characters",
    "no_reader_named": "no reader named %(name)s; create one with `papersift reader add %(plain)s`",
    "is_not_arxiv_id": "%(raw)s is not an arXiv id",
    "no_paper_sync_first": "no paper %(id)s in the store (ingest or sync it first)",
    "push_not_apprise": "PAPERSIFT_PUSH: %(url)s is not an Apprise URL papersift can use",
    "push_failed": "%(label)s: %(where)s failed %(tries)s times: %(reason)s",
    "push_the_message": "the message",
    "push_message_n": "message %(n)s of %(of)s",
    "push_day": "push %(day)s",
    "send_kept": "%(who)s: %(error)s (kept; %(again)s)",
    "send_again_push": "tried again on the next run",
    "send_again_mail": "resent on the next run",
    "smtp_login_refused": "%(where)s: login refused: %(problem)s",
    "zotero_no_library": "no Zotero library: give --user ID or --group ID (or PAPERSIFT_ZOTERO_USER)",
    "zotero_key_refused": "%(url)s: HTTP 403: the key may not read this library (PAPERSIFT_ZOTERO_KEY)",
    "zotero_no_collection": "no collection named %(names)s (collections: %(known)s)",
    "zotero_changing": "%(library)s: the library kept changing while it was read; try again",
    "zotero_not_json": "the Zotero API answered something else than its JSON: %(problem)s",
    "gave_up": "%(url)s: %(problem)s; gave up after %(attempts)s attempts",
    "none": "none",
    # the fixed words of `papersift list` and `show` (services/listing.py); paper text stays as it is
    "listing_header": "%(category)s — %(day)s: %(new)s new, %(cross)s cross-lists, %(replace)s replacements",
    "listing_day": "%(weekday)s, %(dd)s %(month)s %(year)s",
    "listing_replacements": "Replacements",
    "listing_cross_from": "(cross-list from %(category)s)",
    "listing_replaced": "(replaced)",
    "paper_field": "%(label)s: %(value)s",
    "field_categories": "Categories",
    "field_announced": "Announced",
    "field_submitted": "Submitted",
    "field_updated": "Updated",
    "field_comments": "Comments",
    "field_journal_ref": "Journal-ref",
    "field_doi": "DOI",
    "field_license": "License",
    "paper_version": "v%(version)s: %(weekday)s, %(dd)s %(month)s %(year)s %(time)s UTC",
    # what the reading layer says of a text it has not (reading/shown.py, texts.py, tldr_eval.py)
    "tldr_no_sentence": "the abstract has no sentence to show",
    "tldr_no_text": "no text",
    "tldr_missing_reason": "%(n)s: %(error)s",
    "ask_empty_question": "the question is empty",
    "ask_no_papers": "no papers to answer from",
    "eval_not_object": "not a JSON object",
    "eval_needs_id": "an id and an abstract are needed",
    "eval_no_gold": "no gold TL;DR (targets: [str])",
    "eval_bad_line": "%(path)s, line %(n)s: not {id, title, abstract, targets: [str]} nor SciTLDR's "
    "{paper_id, title, source, target} (%(problem)s)",
    "eval_no_papers": "%(path)s: no papers",
    # the index build's errors (index/engines.py, generations.py)
    "tls_file_not_found": "TLS file not found: %(path)s",
    "engine_unreachable": "cannot reach %(where)s: %(problem)s",
    "engine_scheduler_at": "the Dask scheduler at %(scheduler)s",
    "engine_local_cluster": "a local Dask cluster",
    "engine_workers_dying": "the workers running a chunk kept dying: %(problem)s",
    "build_running": "another index build is running",
    "build_running_pid": "another index build is running (process %(pid)s)",
    # a mailed digest that could not go (reader/digest.py)
    "reader_no_email": "the reader has no e-mail address",
    "digest_no_email": "digest %(id)s: no e-mail address for reader %(reader)s",
    # a paper whose full text arXiv does not have (services/eprints.py)
    "eprint_missing": "%(name)s: arXiv has neither source nor PDF (HTTP %(status)s)",
}


class Message(str):
    """A message: its English text, with the ``key`` and ``args`` it was made of (an argument may itself
    be a Message: a face says it in the same language)."""

    key: str
    args: Mapping[str, Arg]

    def __new__(cls, key: str, **args: Arg) -> Message:
        self = super().__new__(cls, ENGLISH[key] % args)
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "args", dict(args))
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Message is immutable")

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (the page cache, a worker) as what it was made of
        return (_remade, (self.key, dict(self.args)))

    def english(self) -> str:
        """The English sentence, a plain ``str``."""
        return str.__str__(self)


def _remade(key: str, args: dict[str, Arg]) -> Message:
    return Message(key, **args)


def reason(error: BaseException) -> str:
    """What ``error`` was raised saying: its Message as it is, else its text."""
    said = error.args[0] if len(error.args) == 1 else None
    return said if isinstance(said, Message) else str(error)


_STORED = re.compile(r" \[say (?=\w+\()")
_HEAD = re.compile(r"(\w+)\(")
_NAME = re.compile(r"(?:, )?(\w+)=")
_STRING = json.JSONDecoder().raw_decode


def stored(text: str, limit: int | None = None) -> str:
    """How a text column keeps ``text``: a message as its English, then in brackets what it was made of
    (``timed out after 30 s [say model_timeout(seconds="30")]``, as a failed check's ``[check …]`` is in
    ``reading/checks.py``); any other text as it is. Within ``limit`` characters when given: a message's
    long arguments (an endpoint's answer) are shortened with "…" so that it stays whole, never cut short."""
    if not isinstance(text, Message):
        return text[:limit]
    kept, longest = text, max(_lengths(text), default=0)
    while True:
        written = f"{kept.english()} [say {_call(kept)}]"
        if limit is None or len(written) <= limit or longest <= 1:
            return written[:limit]
        longest = max(1, longest - (len(written) - limit + 1) // 2)  # an argument is written twice
        kept = _shortened(text, longest)


def _lengths(message: Message) -> Iterator[int]:
    for v in message.args.values():
        yield from _lengths(v) if isinstance(v, Message) else (len(str(v)),)


def _shortened(message: Message, most: int) -> Message:
    """``message`` with each argument of more than ``most`` characters cut to ``most`` (the last one "…")."""
    args = {
        name: _shortened(v, most)
        if isinstance(v, Message)
        else v
        if len(str(v)) <= most
        else f"{str(v)[: most - 1]}…"
        for name, v in message.args.items()
    }
    return Message(message.key, **args)


def _call(message: Message) -> str:
    """``key(name="value", name=key(…))``: the message's key and arguments, a message argument as a call."""
    args = (
        f"{name}={_call(v) if isinstance(v, Message) else json.dumps(str(v), ensure_ascii=False)}"
        for name, v in message.args.items()
    )
    return f"{message.key}({', '.join(args)})"


def restored(text: str) -> str:
    """A text as ``stored`` kept it: the message again; any other text (one of a key not known here too) as
    it is."""
    for found in _STORED.finditer(text):
        try:
            message, end = _parsed(text, found.end())
        except (KeyError, TypeError, ValueError):
            continue
        if text[end:] == "]":
            return message
    return text


def _parsed(call: str, at: int) -> tuple[Message, int]:
    """The message written as ``_call`` writes it at ``at`` in ``call``, and where it ends."""
    head = _HEAD.match(call, at)
    if head is None:
        raise ValueError(call)
    args: dict[str, Arg] = {}
    at = head.end()
    while not call.startswith(")", at):
        name = _NAME.match(call, at)
        if name is None:
            raise ValueError(call)
        at = name.end()
        args[name.group(1)], at = _STRING(call, at) if call.startswith('"', at) else _parsed(call, at)
    return Message(head.group(1), **args), at + 1


def say(key: str, **args: Arg) -> Message:
    """The message ``key`` with ``args`` (the English template's placeholders)."""
    return Message(key, **args)


def counted(key: str, n: int, **args: Arg) -> Message:
    """``key`` with the count ``n``: its singular form ``key_1`` when ``n`` is 1."""
    return Message(f"{key}_1" if n == 1 else key, n=n, **args)


def dated(key: str, day: date, **args: Arg) -> Message:
    """``key`` naming ``day`` by its short weekday and month (``weekday_short_N``, ``month_short_N``), its day
    of the month ``dd`` and its ``year``."""
    weekday, month = say(f"weekday_short_{day.weekday()}"), say(f"month_short_{day.month}")
    return say(key, weekday=weekday, dd=f"{day:%d}", month=month, year=day.year, **args)
