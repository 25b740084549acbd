"""What papersift says to a reader (reasons, notes, errors) as typed messages: a key, its arguments and the
English template of each key. A ``Message`` is its English text (a ``str``: JSON, the CLI and every
comparison see exactly that sentence) that still knows its key and arguments, so a face can say it in the
reader's language from a catalog (``records/catalogs.py``; the English template is the catalog's msgid).
"""

from __future__ import annotations

from collections.abc import Mapping
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


def say(key: str, **args: Arg) -> Message:
    """The message ``key`` with ``args`` (the English template's placeholders)."""
    return Message(key, **args)


def counted(key: str, n: int, **args: Arg) -> Message:
    """``key`` with the count ``n``: its singular form ``key_1`` when ``n`` is 1."""
    return Message(f"{key}_1" if n == 1 else key, n=n, **args)
