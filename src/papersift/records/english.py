"""The one table of everything papersift says in English, by key: the messages (``records/messages.say``:
reasons, notes, errors), the CLI's lines (``cli_…``: ``cli/language.Speech.line``, ``cli/common.refuse``) and
the web pages' words (``t.KEY`` in ``web/templates``). Each text is the msgid of its entry in the gettext
catalogs under ``papersift/locale/`` (msgctxt: the key), so a face says it in the reader's language from
there and in English from here.

One placeholder style: python-format, ``%(name)s`` (``%%`` a percent sign), the style gettext's
``python-format`` flag names and Babel checks (``babel.messages.checkers.python_format``), and the one
Jinja's ``format`` filter speaks (``{{ t.KEY | format(n=3) }}``). A text said with a count is a ``Plural``
(msgid and msgid_plural; said with ``npgettext``, its count the argument ``n``); a day is a
``DatePattern``, a CLDR pattern Babel formats (``babel.dates.format_date``), its argument ``day``; a
list a ``ListPattern`` (``babel.lists``), its items the arguments ``0``, ``1``, ….
"""

from __future__ import annotations

from typing import NamedTuple


class Plural(NamedTuple):
    """A text said of a count ``n``: its English singular and plural (the catalogs' msgid and
    msgid_plural); each language has as many forms as its plural rule (中文 one)."""

    one: str
    other: str


class DatePattern(str):
    """A day said by Babel (``babel.dates.format_date``) in this CLDR pattern (``EEE, dd MMM y``): the
    msgid; each language's msgstr is its own pattern (中文 ``y-MM-dd（EEE）``)."""


class ListPattern(str):
    """Items said as a list by Babel in this style of CLDR's list patterns: a ``babel.lists.format_list``
    style (``standard``: ``A, B and C``), or ``series``, every item joined by the standard style's middle
    pattern (``A, B, C``; 中文 ``A、B、C``), for a list that goes on (``A, B, C and 2 more``). The msgid;
    a language's msgstr may name another style."""


ENGLISH: dict[str, str | Plural] = {
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
    "years_earlier": Plural("%(n)s year earlier", "%(n)s years earlier"),
    "months_earlier": Plural("%(n)s month earlier", "%(n)s months earlier"),
    "weeks_earlier": Plural("%(n)s week earlier", "%(n)s weeks earlier"),
    "days_earlier": Plural("%(n)s day earlier", "%(n)s days earlier"),
    "cites_same": "cites %(n)s of the same papers",
    "cited_together": Plural("cited together by %(n)s paper", "cited together by %(n)s papers"),
    "cites_library": Plural("cites %(n)s paper of your library", "cites %(n)s papers of your library"),
    "cited_by_library": Plural(
        "cited by %(n)s paper of your library",
        "cited by %(n)s papers of your library",
    ),
    "followed_authors": "followed authors: %(authors)s",
    "library_authors": "authors in your library: %(authors)s",
    "close_to": "close to %(titles)s",
    "followed_category": "followed category (%(category)s)",
    # how a query or a text was read (ranking/understand.py, search.py, related.py)
    "translated": "translated by the offline dictionary: %(query)s → %(translation)s",
    "translated_model": "translated by the model: %(query)s → %(translation)s",
    "translation_refused": "the model's translation “%(answer)s” was set aside: %(reason)s",
    "not_translated": "not translated: no offline dictionary for %(script)s text",
    "corrected": "corrected: %(wrong)s → %(right)s",
    "acronym": "acronym: %(form)s = %(other)s",
    "text_cut": "text cut to the model's %(tokens)s-token window for the dense match (%(chars)s characters "
    "given); key terms use the first 100,000 characters",
    "no_facet_sentence": "no %(facet)s sentence found: the whole text is used",
    "facet_background": "background",
    "facet_method": "method",
    "facet_result": "results",
    "no_index_yet": "no index yet: keyword matches only (run `papersift embed`)",
    "no_vectors_yet": "no vectors yet: keyword results only (run `papersift embed`)",
    "an_arxiv_id": "an arXiv id: that paper",
    "empty_query": "empty query",
    "no_good_matches": "no good matches",
    "newest_of_relevant": "newest first among the %(n)s most relevant results",
    # what is missing or wrong (ranking/daily.py, the server's errors)
    "no_followed_listings": "no listings for the followed categories yet",
    "no_listing_of": "no listing of %(categories)s on %(day)s",
    "no_listing_on": "no %(category)s listing on %(day)s",
    "no_listings_for": "no listings for %(category)s",
    "unknown_tag": "no tag “%(tag)s” in your library; your tags: %(tags)s",
    "unknown_tag_none": "no tag “%(tag)s”: your library has no tags yet",
    "all_categories": "all categories",
    "no_venue": "no accept list of %(venue)s %(year)s is stored",
    "all_venues": "all venues",
    # a day with no listing (ranking/daily.py QuietDay): the page, digests, pushes and the CLI
    "quiet_weekend": "arXiv announces nothing for %(weekday)s %(day)s: it lists new papers Monday to Friday. "
    "The next listing is %(next_weekday)s %(next)s, announced %(announced)s US-Eastern (%(utc)s UTC).",
    "quiet_holiday": "arXiv announced nothing for %(weekday)s %(day)s (a holiday). The next listing is "
    "%(next_weekday)s %(next)s, announced %(announced)s US-Eastern (%(utc)s UTC).",
    "quiet_not_yet": "No listing for %(weekday)s %(day)s yet: arXiv announces it %(announced)s US-Eastern "
    "(%(utc)s UTC).",
    "quiet_future": "%(weekday)s %(day)s is still to come: arXiv announces its listing %(announced)s "
    "US-Eastern (%(utc)s UTC).",
    "quiet_not_stored": "The listing of %(weekday)s %(day)s is not stored here; run `papersift sync` to "
    "fetch arXiv's latest listings.",
    "weekday": DatePattern("EEEE"),
    "not_in_store": "%(id)s is not in the store",
    "no_paper_in_store": "no paper %(id)s in the store",
    "not_on_arxiv": "%(id)s is not on arXiv",
    "not_in_library": "%(entry)s is not in your library",
    "key_not_in_library": "that key is not in your library",
    "no_such_tag": "no entry in your library is tagged %(tag)s",
    "text_empty": "the text is empty",
    "mode_one_of": "mode must be one of %(modes)s",
    "sort_one_of": "sort must be one of %(sorts)s",
    "not_a_date": "not a date (YYYY-MM-DD): %(value)s",
    "not_a_number": "not a number: %(value)s",
    "log_in_first": "log in first",
    "read_only": "this server is read-only",
    "not_found": "Not found",
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
    "series": ListPattern("series"),
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
    "check_echoes_prompt": "the model's text repeats its instructions: “%(words)s”",
    "check_not_a_query": "the translation is a sentence, not a search query: “%(words)s”",
    "check_off_topic": "the translation shares no word with the dictionary's reading of the query "
    "(%(reading)s)",
    "language_en": "English",
    "language_zh": "中文",
    "unit_words": "words",
    "unit_characters": "characters",
    # a failed check's reason named for a reader (llm status): its code in English, as the JSON keys it
    "failed_check_empty": "empty",
    "failed_check_markup": "markup",
    "failed_check_too_long": "too_long",
    "failed_check_cut_off": "cut_off",
    "failed_check_wrong_language": "wrong_language",
    "failed_check_mixed_language": "mixed_language",
    "failed_check_several_sentences": "several_sentences",
    "failed_check_copies_title": "copies_title",
    "failed_check_copies_abstract": "copies_abstract",
    "failed_check_math_lost": "math_lost",
    "failed_check_length_off": "length_off",
    "failed_check_no_marks": "no_marks",
    "failed_check_unknown_mark": "unknown_mark",
    "failed_check_echoes_prompt": "echoes_prompt",
    "failed_check_not_a_query": "not_a_query",
    "failed_check_off_topic": "off_topic",
    # the digests and pushes (library/digest.py, library/push.py, library/words.py): their fixed words
    "digest_day": DatePattern("EEE dd MMM y"),
    "venue_badge": "%(venue)s %(year)s · %(status)s",
    "venue_badge_bare": "%(venue)s %(year)s",
    "digest_subject": "papersift: %(n)s papers for %(reader)s, %(day)s",
    "digest_quiet_subject": "papersift: no arXiv listing for %(day)s",
    "digest_not_stored_subject": "papersift: no listing of %(day)s stored here",
    "eval_tags_note": "per tag: each library of %(least)s or more papers split into %(tags)s tags by k-means "
    "of its papers' vectors (clusters, not sections: the corpus has no full text), each hidden reference in "
    "the nearest tag; papersift-tag ranks by the tag's papers alone, papersift@tag is the whole library's "
    "ranking, both scored on the tag's hidden papers; (reader, tag) pairs per size %(pairs)s",
    "digest_tag_subject": "papersift: %(n)s papers like your tag “%(tag)s”, %(day)s",
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
    "why_reasons": "why: %(reasons)s",
    "why": "why",
    "score": "score %(score)s",
    "tldr_line_by": "TL;DR (%(by)s): %(text)s",
    "digest_key_sentence": "key sentence",
    "digest_tldr_unavailable": "TL;DR unavailable: %(error)s",
    "tldr_line": "TL;DR: %(text)s",
    "tldrs_missing": "%(n)s of %(of)s TL;DRs are missing (%(reasons)s)",
    "lab_popular_week": "Popular in your lab this week",
    "digest_followed_new": "New this week by authors you follow",
    "lab_saved": "%(saves)s saved",
    "lab_saved_upvoted": "%(saves)s saved · %(upvotes)s +1",
    "markdown_title": "Daily Papers for %(reader)s, %(day)s",
    "digest_ranked_by_tag": "Ranked by the papers of your tag “%(tag)s” alone",
    "feed_title": "papersift Daily Papers for %(reader)s",
    # a request's values that are not valid (the page's sentence for a validation error)
    "invalid_choice": "%(where)s must be one of %(choices)s",
    "invalid_number": "%(where)s: not a whole number: %(value)s",
    "invalid_decimal": "%(where)s: not a number: %(value)s",
    "invalid_bool": "%(where)s: not true or false: %(value)s",
    "invalid_too_small": "%(where)s: at least %(limit)s",
    "invalid_too_large": "%(where)s: at most %(limit)s",
    "invalid_missing": "%(where)s: missing",
    "invalid_too_long": "%(where)s: too long (at most %(limit)s characters)",
    "invalid_value": "%(where)s: not a valid value",
    # what a run did, in one line (reading/passes.py Made, services/eprints.py Fetched, library/zotero_sync.py
    # SyncReport): the CLI's summaries
    "made": "%(what)s: %(made)s made, %(kept)s already stored, %(failed)s failed",
    "fulltext_fetched": "fulltext: %(stored)s stored (%(size)s bytes), %(kept)s already stored, "
    "%(failed)s failed",
    "zotero_synced": "zotero: %(items)s items read, %(matched)s matched to arXiv papers (%(fetched)s fetched "
    "from arXiv), %(kept)s kept with their own text, %(removed)s removed; %(entries)s entries from Zotero in "
    "the library (%(linked)s linked); %(requests)s requests, %(seconds)s s",
    # the errors of the layers below the faces, raised with their message (``reason`` finds it): the model's
    # (llm/client.py, answers.py, local.py, setup.py; stored as a text's failure, ``stored``), the store's,
    # the pushes' and mails' (library/push.py, digest.py, delivery.py) and Zotero's (library/zotero_*.py)
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
    "in_file": "%(path)s: %(problem)s",
    "answer_html_page": "a web page titled “%(title)s”, not an OpenAI-compatible API",
    "eval_no_rouge": "eval tldr scores with ROUGE, which is not installed: %(install)s",
    "model_no_gguf": "the local model needs a GGUF file of yours: set PAPERSIFT_LLM_GGUF to its path and "
    "PAPERSIFT_LLM_GGUF_SHA256 to the SHA-256 its publisher gives (or run a model server and `papersift llm "
    "setup`)",
    "model_gguf_missing": "the local model's GGUF file %(path)s does not exist",
    "model_gguf_no_sha256": "%(path)s is loaded only with its SHA-256 pinned: set PAPERSIFT_LLM_GGUF_SHA256 "
    "to the hash its publisher gives",
    "file_not_pinned": "%(path)s is not the pinned file: its SHA-256 is %(found)s, expected "
    "%(expected)s; nothing loaded",
    "int8_needs_onnx": "the int8 form of the model is made with the onnx package: pip install "
    "'papersift[int8]' (make does), or set PAPERSIFT_QUANTIZE=false to run the model as shipped",
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
    "twice": "twice",
    "three_times": "three times",
    "times": Plural("once", "%(n)s times"),
    "characters": Plural("%(n)s character", "%(n)s characters"),
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
    "listing_day": DatePattern("EEE, dd MMM y"),
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
    "paper_version": "v%(version)s: %(day)s %(time)s UTC",
    # what the reading layer says of a text it has not (reading/shown.py, texts.py, tldr_eval.py)
    "tldr_no_sentence": "the abstract has no sentence to show",
    "tldr_no_text": "no text",
    "tldr_missing_reason": "%(n)s: %(error)s",
    "ask_empty_question": "the question is empty",
    "ask_no_papers": "no papers to answer from",
    "not_json_object": "not a JSON object",
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
    # a mailed digest that could not go (library/digest.py)
    "reader_no_email": "the reader has no e-mail address",
    "digest_no_email": "digest %(id)s: no e-mail address for reader %(reader)s",
    # a paper whose full text arXiv does not have (services/eprints.py)
    # the words of `papersift eval`'s tables and notes (ranking/harness.py, reading/tldr_eval.py)
    "eval_corpus": "corpus: %(n)s papers from %(path)s",
    "eval_method": "method",
    "eval_vs": "vs",
    "eval_queries": "queries",
    "eval_readers": "readers",
    "eval_papers": "papers",
    "eval_mean": "mean",
    "eval_size": "size %(n)s",
    "eval_by_size": "nDCG@10 (Recall@10) by library size; readers per size %(readers)s",
    # a setting refused at start (settings.py settings_problems): the value given, and our validators' own
    "setting_got": "%(problem)s (got %(value)s)",
    "key_file_unreadable": "PAPERSIFT_LLM_KEY_FILE: %(path)s cannot be read (%(problem)s)",
    "key_file_not_text": "not text",
    "key_file_empty": "PAPERSIFT_LLM_KEY_FILE: %(path)s is empty",
    "smtp_plain_login": "PAPERSIFT_SMTP_USER is set but PAPERSIFT_SMTP_SECURITY is none: the password would "
    "cross the network to %(host)s in plain text; set PAPERSIFT_SMTP_SECURITY=starttls or ssl (a login "
    "without TLS is allowed only to a loopback host)",
    "eprint_missing": "%(name)s: arXiv has neither source nor PDF (HTTP %(status)s)",
    # a full text that cannot be read (sources/eprint.py, tex.py, pdf.py; services/eprints.py)
    "extract_of": "%(id)s: %(problem)s",
    "extract_too_deep": "the source nests too deeply to read",
    "extract_not_pdf": "not a PDF, though served as one",
    "extract_unknown_kind": "neither a TeX source (gzipped tar, gzipped .tex, tar) nor a PDF",
    "extract_bomb": "the archive unpacks to more than the limit (a decompression bomb?)",
    "extract_corrupt_gzip": "corrupt gzip (%(problem)s)",
    "extract_file_too_big": "the single file is over the size limit",
    "extract_postscript": "a PostScript e-print (not read)",
    "extract_absolute_path": "a member with an absolute path: %(name)s",
    "extract_outside": "a member outside the archive: %(name)s",
    "extract_no_tex": "no TeX files in the archive",
    "extract_members": "more than %(n)s members in the archive",
    "extract_link": "a link in the archive: %(name)s → %(target)s",
    "extract_special": "a special file in the archive: %(name)s",
    "extract_member_too_big": "a member over the size limit: %(name)s (%(size)s bytes)",
    "extract_tex_too_big": "TeX sources over the limit of %(n)s bytes",
    "extract_corrupt_tar": "corrupt tar (%(problem)s)",
    "extract_tex_loop": "the TeX source expands to too much text (an \\input loop?)",
    "extract_no_main": "no TeX main file (no \\documentclass) in the e-print",
    "extract_pdf_unreadable": "not a readable PDF (%(problem)s)",
    "extract_pdf_pages": "a PDF of %(pages)s pages, over the limit of %(most)s",
    "extract_pdf_no_text": "the PDF has no text layer (a scanned document?)",
    "fulltext_unreadable": "cannot read it: %(problem)s",
    # a file or an answer papersift cannot read (sources/__init__.py, zotero.py; services/harvest.py,
    # enrich.py; library/zotero_api.py)
    "format_unknown": "unknown format (not a snapshot, OAI-PMH, API, RSS, mailing or .abs)",
    "format_not_one_of": "unknown format %(name)s; one of %(formats)s",
    "zotero_format_not_json": "not JSON: %(problem)s at line %(line)s",
    "zotero_format_not_array": "the %(what)s answer is not a JSON array",
    "zotero_format_not_object": "the deleted answer is not a JSON object",
    "zotero_not_followed": "refusing to follow %(url)s: not on %(host)s",
    "s2_not_batch": "Semantic Scholar: not a batch answer: %(answer)s",
    "s2_not_json": "Semantic Scholar: not JSON (%(problem)s)",
    "http_refused": "%(url)s: %(problem)s: %(answer)s",
    "oai_bad_xml": "%(url)s: HTTP %(status)s: %(message)s",
    "oai_error": "%(url)s: OAI-PMH error %(code)s: %(message)s",
    "arxiv_api_error": "arXiv API: %(message)s",
    # the home's config (settings.py), a mail that could not go (library/digest.py), the index build
    # (index/engines.py, indexes.py)
    "config_unreadable": "%(path)s: cannot be read (%(problem)s)",
    "config_not_json": "%(path)s: not JSON (%(problem)s); fix it or remove it",
    "config_not_object": "%(path)s: not a JSON object of settings",
    "config_secret": "%(path)s holds %(name)s: a secret stays out of the home (PAPERSIFT_%(variable)s in "
    "the environment, or PAPERSIFT_LLM_KEY_FILE naming a file of your own); remove it",
    "config_not_setting": "%(path)s: %(name)s is not a setting the home's config may hold",
    "config_not_saved": "%(name)s may not be saved in the home's config",
    "mail_failed": "%(where)s: %(problem)s",
    "engine_dask_missing": "--engine dask needs the [dask] extra: pip install 'papersift[dask]' "
    "(%(problem)s)",
    "engine_tls_files": "a tls:// scheduler needs --tls-ca, --tls-cert and --tls-key",
    "engine_tls_scheduler": "--tls-ca/--tls-cert/--tls-key need a tls:// scheduler, not %(scheduler)s",
    "model_mismatch": "the store's vectors were made by %(stored)s but the settings name %(wanted)s; run "
    "`papersift embed --reset` to re-embed every paper with %(wanted)s, or set "
    "PAPERSIFT_MODEL/PAPERSIFT_QUANTIZE/PAPERSIFT_RUNTIME back",
    "model_mismatch_torch": "the store's vectors were made by %(stored)s but the settings name %(wanted)s; "
    "run `papersift embed --reset` to re-embed every paper with %(wanted)s, or set "
    "PAPERSIFT_MODEL/PAPERSIFT_QUANTIZE/PAPERSIFT_RUNTIME back (vectors made with torch: "
    "PAPERSIFT_RUNTIME=torch)",
    "model_mismatch_shipped": "the store's vectors were made by %(stored)s but the settings name "
    "%(wanted)s; run `papersift embed --reset` to re-embed every paper with %(wanted)s, or set "
    "PAPERSIFT_MODEL/PAPERSIFT_QUANTIZE/PAPERSIFT_RUNTIME back (the model as shipped: "
    "PAPERSIFT_QUANTIZE=false)",
    # venues' accept lists (sources/paperlists.py, services/venue_import.py, cli/venues_cmd.py)
    "venue_file_name": "%(file)s: its name does not say its venue and year (like colm2025.json.gz): give "
    "--venue and --year",
    "venue_bad_name": "not a venue name: %(name)s (letters, digits, - and _, from a letter; no slash)",
    "venue_bad_year": "not a venue's year: %(year)s",
    "venue_not_array": "%(file)s is not a JSON array of records",
    "venue_bad_json": "%(file)s is not valid JSON: %(problem)s",
    "venue_unreadable": "%(file)s cannot be read: %(problem)s",
    "venue_skip_no_title": "no title",
    "venue_skip_authors": "its author field is a %(kind)s, not text",
    "venue_skip_again": "the same record again (same id)",
    # ---- the CLI's lines (cli/…; said by cli/language.Speech.line and cli/common.refuse) ----
    # the CLI's text output
    "cli_error": "error: %(message)s",
    "cli_note": "note: %(note)s",
    "cli_searched_for": "searched for: %(query)s",
    "cli_search_instead": "search instead for: %(query)s (--exact)",
    "cli_nearest_terms": "nearest terms: %(terms)s",
    "cli_no_results": "no results",
    "cli_related_to": "Related to %(paper)s",
    "cli_no_related": "no related papers found",
    "cli_below_threshold": "----- below your threshold (%(limit)s): not pushed or mailed -----",
    "cli_seen": "(seen: %(how)s)",
    "cli_picks": "%(n)s papers for %(reader)s on %(day)s",
    "cli_ranked_by_tag": "ranked by the papers of your tag “%(tag)s” alone",
    "cli_followed_new": "New this week by authors you follow (%(n)s, the last %(days)s days):",
    "cli_tag_not_pushed": "--tag makes an e-mail, Atom or Markdown digest, not pushes",
    "cli_sync_first": "%(problem)s (sync or ingest first)",
    "cli_more_failed": "error: … and %(n)s more failed records",
    "cli_counts": "%(what)s: %(new)s new, %(updated)s updated, %(skipped)s skipped, %(failed)s failed",
    "cli_counts_deleted": (
        "%(what)s: %(new)s new, %(updated)s updated, %(skipped)s skipped, %(failed)s failed, %(deleted)s "
        "deleted"
    ),
    "cli_fulltext_stopped": "error: fulltext: %(problem)s (rerun to resume)",
    "cli_harvest_stopped": "harvest stopped (rerun to resume): %(problem)s",
    "cli_sync_asking": "sync: asking %(url)s for %(categories)s",
    "cli_waiting": "waiting: %(line)s",
    "cli_new_updated": "%(what)s: %(new)s new, %(updated)s updated",
    "cli_interest_categories": "categories: %(values)s",
    "cli_interest_categories_default": (
        "categories: %(values)s (the default, as none is followed: --category)"
    ),
    "cli_interest_authors": "authors: %(values)s",
    "cli_interest_must": "must: %(values)s",
    "cli_interest_never": "never: %(values)s",
    "cli_interest_venues": "venues: %(values)s",
    "cli_interest_languages": "languages: %(values)s",
    "cli_interest_min_score": "min score: %(value)s",
    "cli_interest_digest_tags": "digest tags: %(values)s",
    "cli_zotero_failed": "error: zotero: %(problem)s (continuing with the library as it is)",
    "cli_below_left_out": "%(n)s papers below your threshold (%(limit)s) left out",
    "cli_atom_written": "atom: %(n)s papers written to %(path)s",
    "cli_markdown_written": "markdown: %(n)s papers written to %(path)s",
    "cli_email_already_sent": "email: the %(day)s digest was already sent to %(to)s (%(at)s)",
    "cli_email_sending": (
        "email: sending through SMTP %(host)s:%(port)s (an unreachable server is retried for a few seconds)"
    ),
    "cli_email_sent": "email: %(n)s digest(s) sent",
    "cli_no_push_services": (
        "no push services: set PAPERSIFT_PUSH to Apprise URLs (json://, ntfy://, feishu://, …)"
    ),
    "cli_push_already_sent": "push: the %(day)s push to %(to)s was already sent (%(at)s)",
    "cli_push_sent": "push: %(n)s sent to %(services)s service(s)",
    "cli_digest_sent_at": "sent %(at)s",
    "cli_digest_failed": "failed",
    "cli_digest_waiting": "waiting",
    "cli_digest_row": "%(day)s  %(channel)s %(n)s papers  %(state)s (sending runs: %(tries)s)",
    "cli_nothing_sent": "nothing mailed or pushed for %(reader)s yet",
    "cli_sync_failed": "error: sync: %(problem)s (continuing with what is stored)",
    "cli_embedded": "embed: %(n)s papers",
    "cli_digests_sent": "digests: %(n)s sent, %(kept)s kept for the next run",
    "cli_not_in_library": "%(paper)s is not in %(reader)s's library",
    "cli_saved": "saved %(entry)s: %(title)s",
    "cli_removed": "removed %(paper)s",
    "cli_tags": "%(entry)s: %(tags)s",
    "cli_no_tags": "%(entry)s: (no tags)",
    "cli_rated": "%(entry)s: rated %(rating)s",
    "cli_noted": "noted",
    "cli_neither_id_nor_entry": "error: %(paper)s is neither an arXiv id nor in your library",
    "cli_marked_read": "marked %(n)s as read",
    "cli_marked_unread": "marked %(n)s as unread",
    "cli_papers": "%(n)s papers",
    "cli_papers_tagged": "%(n)s papers tagged %(tag)s",
    "cli_entry_skipped": "error: %(where)s: %(problem)s (skipped)",
    "cli_more_skipped": "error: … and %(n)s more skipped entries",
    "cli_imported": (
        "import (%(format)s): %(read)s entries read, %(linked)s linked to arXiv papers, %(kept)s kept with "
        "their own text, %(new)s new in the library, %(skipped)s skipped"
    ),
    "cli_exported": "exported %(n)s entries to %(path)s",
    "cli_arxiv_offline_sync": "arXiv: %(problem)s (items kept with their own text; linked by a later sync)",
    "cli_library_status": "%(reader)s: %(n)s entries (%(linked)s arXiv papers), %(zotero)s from Zotero",
    "cli_never_synced": "zotero: never synced (papersift library sync zotero --user ID)",
    "cli_last_sync": (
        "last sync %(at)s (%(seconds)s s, %(requests)s requests): %(items)s items read, %(matched)s "
        "matched, %(kept)s kept with their own text, %(removed)s removed"
    ),
    "cli_build_waiting": "%(problem)s; waiting for it to finish (Ctrl-C to stop)",
    "cli_embedded_of": "embedded %(n)s of %(todo)s",
    "cli_store_busy_embed": (
        "the store: %(problem)s; the previous index generation keeps serving, run `papersift embed` again"
    ),
    "cli_embed_done": "embed: %(n)s papers embedded; index: %(papers)s papers, %(vectors)s vectors",
    "cli_embed_done_rate": (
        "embed: %(n)s papers embedded (%(rate)s/s); index: %(papers)s papers, %(vectors)s vectors"
    ),
    "cli_no_listing_days": "no %(category)s listing on %(day)s or the %(before)s days before",
    "cli_topics": "%(category)s %(span)s: %(n)s papers in %(topics)s topics",
    "cli_other_papers": "(other papers)",
    "cli_terms": "terms: %(terms)s",
    "cli_not_stored_offline": "%(ids)s not in the store and arXiv not reached: %(problem)s",
    "cli_fulltext_stopped_resume": "fulltext stopped (rerun to resume): %(problem)s",
    "cli_resolved": "resolve: %(n)s references resolved now",
    "cli_enrich_stopped": "enrich stopped: %(problem)s",
    "cli_enriched": "enrich: %(n)s of %(of)s papers counted by Semantic Scholar",
    "cli_llm_endpoint": "endpoint: %(endpoint)s (key %(secret)s)",
    "cli_llm_local_running": "running at %(url)s, pid %(pid)s",
    "cli_llm_local_stopped": "not running (starts on use)",
    "cli_llm_local_not_installed": "not installed: pip install 'papersift[llm]'",
    "cli_llm_endpoint_local": "endpoint: the local default, %(state)s",
    "cli_llm_endpoint_none": (
        "endpoint: none (connect one: papersift llm setup; or set PAPERSIFT_LLM_URL, or "
        "PAPERSIFT_LLM_LOCAL=true for the local default)"
    ),
    "cli_llm_model": "model: %(model)s",
    "cli_llm_key_file": "key file %(path)s",
    "cli_llm_source_env": "env",
    "cli_llm_source_home_config": "home config",
    "cli_llm_source_argument": "argument",
    "cli_llm_source_default": "default",
    "cli_llm_source_unset": "unset",
    "cli_llm_from": "from: url %(url)s, model %(model)s, key %(secret)s (home config: %(config)s)",
    "cli_llm_local_memory": "local server memory: %(memory)s MiB, stops after %(idle)s min idle",
    "cli_llm_today_budget": "today (%(day)s UTC): %(tokens)s tokens of %(budget)s",
    "cli_llm_today": "today (%(day)s UTC): %(tokens)s tokens (no budget)",
    "cli_llm_usage": "  %(model)s: %(calls)s calls, %(prompt)s in, %(completion)s out",
    "cli_llm_checks_failed": "texts that failed their checks: %(n)s (%(reasons)s)",
    "cli_llm_no_failures": "failures: none",
    "cli_llm_failures": "failures (latest %(n)s):",
    "cli_llm_not_listed": "note: %(url)s does not list %(model)s; trying it anyway",
    "cli_llm_test_call": "test call: %(model)s at %(url)s answered %(reply)s",
    "cli_llm_saved": (
        "saved in %(path)s: url %(url)s, model %(model)s (key: %(secret)s; never written to the home)"
    ),
    "cli_llm_env_wins": "note: %(name)s is set here and wins over the saved value",
    # the CLI's refusals of a command line or of what it names (cli/common.refuse)
    "cli_not_a_date": "%(option)s: not a date (YYYY-MM-DD): %(value)s",
    "cli_one_of": "%(option)s must be one of %(allowed)s, not %(value)s",
    "cli_cannot_read": "cannot read %(path)s: %(problem)s",
    "cli_file_not_found": "file not found: %(path)s",
    "cli_no_such_file": "%(path)s: no such file",
    "cli_not_in_store": "%(paper)s is not in the store",
    "cli_not_in_store_list": "not in the store: %(papers)s",
    "cli_no_listings_in_store": "no listings for %(category)s in the store (ingest or sync first)",
    "cli_no_listing_on_nearest": "no %(category)s listing on %(day)s (nearest: %(nearest)s)",
    "cli_library_sizes": "--library-sizes: whole numbers of at least 1, comma-separated, not %(value)s",
    "cli_not_relevance_lines": "%(path)s: not {query_id, candidate_id, label} JSON lines (%(problem)s)",
    "cli_no_model": (
        "no model is configured: set PAPERSIFT_LLM_URL (an OpenAI-compatible API, e.g. "
        "http://127.0.0.1:11434/v1) and PAPERSIFT_LLM_MODEL, or PAPERSIFT_LLM_LOCAL=true for the local "
        "default"
    ),
    "cli_ids_or_day": "give arXiv ids, or --date D --category C for a day's listing",
    "cli_a_day_is": "a day is --date D and --category C",
    "cli_ask_usage": (
        'give one or more arXiv ids, then the question in quotes: papersift ask 2401.00001 "…"'
    ),
    "cli_at_most_papers": "at most %(n)s papers per question",
    "cli_query_or_file": "give a QUERY or --queries-from FILE (one of them)",
    "cli_ids_or_text": "give paper IDs, --ids-from FILE, or --text TEXT (ids or text, not both)",
    "cli_text_empty": "--text is empty",
    "cli_lang_en_or_zh": "--lang must be en or zh, not %(value)s",
    "cli_min_score_not_number": "--min-score: not a number: %(value)s",
    "cli_unknown_digest_action": "unknown digest action %(action)s (status)",
    "cli_digest_where": "say where the digest goes: --email ADDR, --push, --atom PATH or --markdown PATH",
    "cli_name_papers": "name papers: ID..., --date D --category C, --library or --daily N",
    "cli_date_with_category": "--date and --category go together",
    "cli_engine_local_or_dask": "--engine must be local or dask, not %(value)s",
    "cli_scheduler_needs_dask": "--scheduler and --workers need --engine dask",
    "cli_workers_or_scheduler": (
        "--workers sizes a local cluster; with --scheduler the cluster's own workers run"
    ),
    "cli_tls_needs_scheduler": "--tls-ca/--tls-cert/--tls-key need --scheduler tls://HOST:PORT",
    "cli_tls_needs_all": "a tls:// scheduler needs all of --tls-ca, --tls-cert and --tls-key",
    "cli_as_one_of": "--as must be one of %(allowed)s",
    "cli_rating_values": "a rating is +1, -1 or 0, not %(value)s",
    "cli_sync_from_zotero": "papersift syncs a library from zotero, not %(value)s",
    "cli_whose_library": "say whose library: --user ID or --group ID (or set PAPERSIFT_ZOTERO_USER)",
    "cli_migrate_needs_postgres": (
        "migrate needs the [postgres] extra: pip install 'papersift[postgres]' (%(problem)s)"
    ),
    "cli_to_postgres_url": "--to must be a postgresql:// URL, not %(value)s",
    "cli_no_sqlite_store": "--from: no SQLite store at %(path)s",
    "cli_target_differs": "the target differs from the source",
    "cli_url_or_provider": "give --url or --provider, not both",
    "cli_provider_needs_key": "%(provider)s needs a key: export PAPERSIFT_LLM_KEY=… or give --key-file FILE",
    "cli_nothing_saved": "%(problem)s; nothing saved",
    # settings and the command line (cli/common.py)
    "cli_settings": "settings: %(problem)s",
    "cli_not_a_category": "%(value)s is not an arXiv category (the web UI's /categories lists them)",
    "cli_not_a_category_nearest": (
        "%(value)s is not an arXiv category; did you mean %(nearest)s? (the web UI's /categories lists them)"
    ),
    "cli_either": "%(first)s or %(second)s",
    "cli_en_or_zh": "en or zh, not %(value)s",
    # progress bars
    "cli_bar_embedding": "embedding",
    "cli_bar_embedding_model": "embedding (%(model)s)",
    "cli_bar_embedding_cached": "embedding (cached vectors are reused)",
    "cli_bar_tldrs_by": "TL;DRs by %(model)s",
    "cli_bar_indexing_terms": "indexing terms",
    "cli_bar_full_text": "full text",
    "cli_bar_citation_counts": "citation counts",
    "cli_bar_ingesting": "ingesting",
    "cli_bar_records": "{task.completed:,} records",
    "cli_bar_oai_all": "OAI all",
    "cli_bar_oai_page": "OAI page %(page)s",
    "cli_bar_copying": "copying",
    "cli_bar_summarize": "summarize",
    # serve and demo (cli/serve.py)
    "cli_demo_other_days": "demo (the other days)",
    "cli_demo_loaded": "demo: loaded; %(n)s papers in %(home)s",
    "cli_demo_offline": (
        "offline: arXiv is unreachable and no offline data was found at %(snapshot)s; connect to the "
        "internet or pass --shared PATH"
    ),
    "cli_demo_from_snapshot": (
        "arXiv unreachable or skipped: loading each category's latest %(days)s days from %(snapshot)s"
    ),
    "cli_demo_from_snapshot_later": (
        "arXiv unreachable or skipped: loading each category's latest %(days)s days from %(snapshot)s (the "
        "latest day now, the others in the background)"
    ),
    "cli_demo_papers": (
        "demo: %(n)s papers in %(home)s; the latest %(category)s listing: `papersift list %(category)s`"
    ),
    "cli_demo_later_api": (
        "loading the other %(n)s days from arXiv's API in the background, then embedding them (progress: "
        "%(log)s; the pages show each paper as it is stored)"
    ),
    "cli_demo_later_snapshot": (
        "loading the other %(n)s days of every category in the background, then embedding them (progress: "
        "%(log)s; the pages show each paper as it is stored)"
    ),
    "cli_build_running": "an index build (`papersift embed`) is already running: not starting another",
    "cli_demo_embedding": (
        "embedding the %(n)s papers in the background, newest first (log: %(log)s); `papersift related ID` "
        "and `papersift search --mode hybrid` use them as they arrive"
    ),
    "cli_not_loaded": "%(path)s: not loaded (%(problem)s)",
    "cli_whole_day": (
        "whole day of %(category)s: %(day)s (%(n)s new submissions): `papersift list %(category)s --date "
        "%(day)s`"
    ),
    "cli_only_today": "%(problem)s; only today's announcements are loaded",
    "cli_refusing_to_serve": (
        "refusing to serve on %(host)s: without accounts anyone who can reach it could read and change the "
        "library. Set PAPERSIFT_ACCOUNTS=true (and add readers with `papersift reader add`), pass "
        "--public-read-only (listings and search only), or serve on 127.0.0.1."
    ),
    "cli_loopback_only": (
        "papersift: only loopback names are answered; set PAPERSIFT_BASE_URL (or PAPERSIFT_ALLOWED_HOSTS) "
        "to the name clients use"
    ),
    "cli_loading_indexes": "papersift: loading the indexes and the query model…",
    "cli_cannot_listen": "cannot listen on %(host)s:%(port)s: %(problem)s",
    "cli_cannot_listen_busy": (
        "cannot listen on %(host)s:%(port)s: %(problem)s (is another server using it? try --port)"
    ),
    # papersift llm setup (cli/llm_cmd.py)
    "cli_llm_flags": (
        "papersift llm setup --url URL --model NAME (or --provider NAME; --port N for a server on another "
        "port)"
    ),
    "cli_llm_port": "port %(port)s",
    "cli_llm_no_server": (
        "no OpenAI-compatible server answered on 127.0.0.1 (%(where)s): start one (e.g. `ollama serve`), "
        "or name one: %(flags)s"
    ),
    "cli_llm_found": "found %(server)s at %(url)s",
    "cli_llm_server_at": "%(server)s at %(url)s",
    "cli_llm_several": (
        "several servers answer (%(listed)s): choose one with --url URL (no terminal to ask on)"
    ),
    "cli_llm_server_choice": "%(n)s. %(server)s at %(url)s (%(count)s models)",
    "cli_llm_which_server": "Which server",
    "cli_llm_offers": "it offers %(models)s",
    "cli_llm_no_models": "it lists no models",
    "cli_llm_choose_model": (
        "choose a model with --model NAME (%(url)s: %(offered)s; no terminal to ask on): %(flags)s"
    ),
    "cli_llm_model_name": "Model name",
    "cli_llm_which_model": "Which model",
    "cli_llm_a_number": "a number from 1 to %(count)s, please",
    # papersift migrate (cli/migrate_cmd.py): the header's columns are 16, 12, 12, 2, 18 and 18 wide
    "cli_migrate_header": "table            source rows target rows  source sum        target sum        ",
    "cli_migrate_ok": "ok",
    "cli_migrate_differs": "DIFFERS",
    "cli_migrated": "migrated %(path)s -> PostgreSQL: every table matches",
    "cli_tldr_extractive": "extractive",
    "cli_tldr_unavailable": "TL;DR unavailable: %(problem)s",
    "cli_translation": "译文: %(title)s",
    "cli_full_text_read": "Full text (%(source)s): %(sections)s sections, %(words)s words",
    "cli_references_count": "References: %(n)s; %(m)s in this store (--references)",
    "cli_cited_by_count": "Cited by: %(n)s in this store (--cited-by)",
    "cli_code": "Code: %(url)s",
    "cli_own_code": "Code: %(url)s (the paper's own)",
    "cli_citations": "Citations: %(n)s (Semantic Scholar, %(day)s)",
    "cli_references_heading": "References (%(n)s; %(m)s in this store)",
    "cli_cited_by_heading": "Cited by (%(n)s in this store)",
    "cli_summarize_failed": "failed: %(paper)s %(kind)s (%(lang)s): %(problem)s",
    "cli_answer_unavailable": "answer unavailable: %(problem)s",
    # papersift reader (cli/accounts_cmd.py)
    "cli_password": "password",
    "cli_reader_created": "reader %(name)s created",
    # papersift venues, venue (cli/venues_cmd.py)
    "cli_no_venues": "no accept lists imported yet (papersift venues import FILE…)",
    "cli_venue_summary": "%(venue)s %(year)s: %(records)s records, %(linked)s linked to arXiv; %(statuses)s",
    "cli_venue_imported": (
        "%(file)s: %(venue)s %(year)s: %(read)s records read, %(linked)s linked to an arXiv paper, "
        "%(kept)s kept as venue papers, %(skipped)s skipped"
    ),
    "cli_venue_skipped_one": "%(file)s: record %(record)s skipped: %(reason)s",
    "cli_venue_skipped_why": "  skipped %(n)s: %(reason)s",
    "cli_venue_changes": (
        "  %(new)s new, %(changed)s changed, %(unchanged)s unchanged, %(removed)s removed (%(seconds)s s)"
    ),
    "cli_no_venue_list": "no accept list of %(venue)s %(year)s is imported (papersift venues lists them)",
    "cli_venue_paper_only": "no arXiv version: %(id)s",
    "cli_no_venue_status": "no record of %(venue)s %(year)s is %(status)s; its statuses: %(statuses)s",
    "cli_accepted_at": "accepted: %(venues)s",
    # ---- the web pages' words (web/templates/*.html as ``t.KEY``, web/*.py) ----
    "title": "papersift",
    "tagline": "arXiv, sifted",
    "new": "new",
    "cross": "cross-lists",
    "replace": "replacements",
    "previous": "previous day",
    "next": "next day",
    "related": "Related papers",
    "search": "Search",
    "search_placeholder": 'words, "phrases", or an arXiv id',
    "related_text": "Related papers for any text",
    "related_placeholder": "paste an abstract…",
    "find": "Find",
    "abstract": "Abstract",
    "more": "more",
    "no_results": "No results.",
    "bad_request": "Bad request",
    "category": "Category",
    "since": "since",
    "mode": "mode",
    "same_category_only": "same category",
    "last_years": "last 5 years",
    "any_time": "any time",
    "facet": "alike in",
    "whole_paper": "the whole paper",
    "listing": "Listing",
    "language": "中文",
    "page": "page",
    "daily": "Daily Papers",
    "feed": "Atom feed",
    "categories": "Categories",
    "taxonomy": "All arXiv categories",
    "on_day": "papers in this day's listing",
    "listings": "announcements stored",
    "no_listings": "nothing stored",
    "alias_of": "alias of",
    "now_filed": "now",
    "other_categories": "Other ids in the store",
    "save": "save",
    "save_interests": "Save",
    "note": "note",
    "save_note": "keep note",
    "mark_read": "Read",
    "mark_unread": "mark unread",
    "more_like": "more like this",
    "not_for_me": "not for me",
    "papers": "papers",
    "ranked_library": "ranked by your library",
    "ranked_tag": "ranked by your tag “%(tag)s” alone",
    "rank_by_tag": "Rank by one tag",
    "whole_library": "whole library",
    "followed_new_week": "New this week by authors you follow",
    "until": "until",
    "sort": "sort",
    "sort_relevance": "relevance",
    "sort_date": "newest first",
    "ranked_arxiv": "in arXiv order",
    "login_to_rank": "log in to rank by your library",
    "library": "Library",
    "login": "Log in",
    "logout": "log out",
    "name": "Name",
    "password": "Password",
    "imported": "Imported",
    "linked": "linked to arXiv",
    "kept": "kept as they are",
    "skipped": "skipped",
    "all": "all",
    "tag": "tag",
    "add_tag": "add tag",
    "remove": "remove",
    "library_empty": "Nothing saved yet: use ☆ save, + or − on any paper, or import a bibliography.",
    "interests": "Interests",
    "categories_followed": "Categories",
    "authors_followed": "Authors",
    "must": "Must contain one of",
    "never": "Never show papers with",
    "import": "Import",
    "kind_cross": "cross",
    "kind_replace": "replaced",
    "kind_replace-cross": "replaced",
    "mode_hybrid": "hybrid",
    "mode_keyword": "keyword",
    "mode_semantic": "semantic",
    "next_page": "page %(n)s →",
    "prev_page": "← page %(n)s",
    "results_range": "results %(first)s–%(last)s",
    "no_good_matches_hint": "No good matches: try other words, or an arXiv id.",
    "copy_bibtex": "Copy BibTeX",
    "copied": "Copied",
    "keys_hint": (
        "Keys: j / k next / previous paper (j past the last one loads more), o or Enter open it, p its "
        "PDF, s save, + / − more / less like it, e its abstract, r mark it read"
    ),
    "more_nav": "more papers",
    "more_part": "more: #%(first)s–#%(last)s of %(total)s",
    "more_results": "more results: #%(first)s–#%(last)s",
    "rest_part": "all %(n)s remaining",
    "part_shown": "papers #%(first)s–#%(last)s of %(total)s",
    "topic_shown": "topic “%(topic)s”: %(n)s papers",
    "whole_list": "show them all",
    "go_to_day": "Go to day",
    "go": "Go",
    "top": "↑ top",
    "saved": "saved",
    "your_rating": "your rating",
    "untag": "remove tag",
    "rate": "rate",
    "confirm_remove": "Remove this entry from your library?",
    "katex_missing": "Math is shown as LaTeX source: KaTeX is not installed (run `npm install`).",
    "demo_loading": "The demo is still loading earlier days: more papers appear as they are stored.",
    "description_listing": "%(category)s papers announced on arXiv on %(day)s, numbered as arXiv lists them.",
    "description_paper": "%(title)s: abstract, BibTeX and related papers.",
    "description_site": "papersift: arXiv papers sifted: daily listings, search, related papers.",
    "error": "Error",
    "unauthorized": "Log in first",
    "forbidden": "Forbidden",
    "all_modes": "mode",
    "import_formats": "BibTeX · RIS · CSL-JSON (Zotero) · arXiv ids",
    "zotero_sync": "Last Zotero sync",
    "zotero_items": "items read",
    "zotero_matched": "matched to arXiv papers",
    "zotero_kept": "kept with their own text",
    "zotero_removed": "removed",
    "zotero_entries": "entries from Zotero",
    "zotero_arxiv_offline": "arXiv was out of reach: those items keep their own text for now",
    "topics": "Topics",
    "map_page": "map page",
    "map_drawing": "The topic map is being drawn.",
    "map_open": "Open it",
    "other_topic": "other papers",
    "central_paper": "no term most of its papers share: named by its most central paper",
    "filter_topic": "Show only one topic's papers",
    "days": "days",
    "trending": "Popular in your lab",
    "trending_about": "Saved or rated +1 by this install's readers in the last %(days)s days (counts only)",
    "trending_empty": "Nothing saved in this period yet.",
    "you_are_counted": "Your saves and +1s are counted here (never with your name).",
    "stop_counting": "Don't count me",
    "you_are_not_counted": "Your saves and +1s are not counted.",
    "start_counting": "Count me",
    "lab_saved_label": "saved",
    "lab_title": "readers of this install who saved it · rated it +1",
    "tldr": "TL;DR",
    "tldr_extractive": "key sentence of the abstract",
    "tldr_by": "by",
    "tldr_unavailable": "TL;DR unavailable",
    "write_tldr": "Write the TL;DR",
    "original": "原文",
    "translation": "译文",
    "side_by_side": "对照",
    "not_translated_yet": "Not translated yet.",
    "translation_unavailable": "Translation unavailable",
    "faq": "FAQ",
    "faq_unavailable": "FAQ unavailable",
    "faq_write": "Write the FAQ",
    "faq_writing": "Writing…",
    "no_model_configured": "no model is configured for this server",
    "ask": "Ask",
    "ask_placeholder": "a question about this paper…",
    "ask_selected": "Ask about the selected papers",
    "answer_unavailable": "Answer unavailable",
    "written_by": "Written by",
    "understood": "How the query was read",
    "showing_results_for": "Showing results for",
    "search_instead_for": "search instead for",
    "searched_for": "Searched for:",
    "nearest_terms": "Nearest terms:",
    "go_instead": "Go instead to:",
    "fetch_paper": "Fetch it from arXiv",
    "results_total": "%(n)s results",
    "results_total_more": "%(n)s+ results",
    "your_tags": "Your tags",
    "your_note": "Your note",
    "colon": ": ",
    "in_parens": " (%(inner)s)",
    "key_phrases": "Key phrases",
    "in_listing": "Show only these in the listing",
    "search_only_for": "Search only for %(q)s",
    "query_shortened": "Your query was %(n)s characters long: searched its first %(m)s.",
    "unknown_category": "%(c)s is not an arXiv category.",
    "did_you_mean": "Did you mean",
    "browse_categories": "Browse the categories",
    "results_with_words": "%(n)s papers have your words",
    "results_with_words_more": "%(n)s+ papers have your words",
    "references": "References",
    "references_count": "%(n)s; %(m)s in this store",
    "cited_by": "Cited by",
    "cited_by_count": "%(n)s in this store",
    "code": "Code",
    "own_code": "the paper's own",
    "html_title": "arXiv's HTML version of the paper",
    "first_page": "The first page of the paper",
    "full_text": "Full text",
    "full_text_from": "read from its %(source)s: %(sections)s sections, %(words)s words",
    "citation_count": "%(n)s citations (Semantic Scholar, %(day)s)",
    "no_model_title": "With a language model",
    "no_model_adds": (
        "A language model would add here a FAQ of this paper, answers to your questions about it (each "
        "claim marked with its paper), one-sentence TL;DRs and 中文 translations of titles and abstracts. "
        "The TL;DRs shown now are key sentences of the abstracts."
    ),
    "no_model_connect": (
        "To connect one (a local server or a provider's API), run `papersift llm setup` on the server's "
        "machine and restart `papersift serve`."
    ),
    "no_model_link": "Connecting a model",
    "no_model_public": (
        "This server's language model writes only for its owner; the texts it has made are shown."
    ),
    "not_translated_no_model": "Not translated: no language model is connected (see below).",
    "model_help_steps": (
        "On the machine that runs papersift, `papersift llm setup` finds an OpenAI-compatible server on "
        "this machine (Ollama, llama.cpp, LM Studio, vLLM) or takes a provider's URL, makes one test call "
        "and saves the URL and the model; `papersift llm status` then shows them. Or set PAPERSIFT_LLM_URL "
        "and PAPERSIFT_LLM_MODEL (and PAPERSIFT_LLM_KEY) before `papersift serve`."
    ),
    "model_help_more": "The README's section “Connecting a model” says more.",
    "model_help_adds": (
        "A language model writes one-sentence TL;DRs, 中文 translations of titles and abstracts, a FAQ of "
        "each paper and answers to questions about papers, each claim marked with its paper; each text is "
        "checked before it is shown (its language, no markup, one sentence for a TL;DR, the math kept in a "
        "translation), and one that fails is shown as a failure with its reason."
    ),
    "below_threshold": "below your threshold (%(score)s): not pushed or mailed",
    "min_score": "Push and mail only papers scoring at least",
    "min_score_none": "(empty: everything)",
    "show_seen": "show the papers you have seen",
    "hide_seen": "hide the papers you have seen",
    "seen_as": "seen",
    "seen_pushed": "pushed",
    "seen_mailed": "mailed",
    "seen_opened": "opened",
    "seen_read": "read",
    "seen_accepted": "shown as a new acceptance",
    "mark_read_title": "Mark read: it leaves your Daily Papers (key r)",
    "new_since": "New since your last visit (%(since)s): %(days)s listing days, %(papers)s papers",
    "sections_read": "sections read",
    # venues: their pages (web/venue_pages.py), badges, the search filter, following one
    "venues": "Venues",
    "venue": "Venue",
    "venues_about": "Conferences' accept lists, each paper linked to its arXiv version where it has one",
    "venue_records": "accepted papers",
    "venue_statuses": "by status",
    "venue_status": "Status",
    "venue_no_status": "no status",
    "no_venues": "No venue is stored yet: import an accept list with `papersift venues import FILE`.",
    "description_venue": (
        "The papers accepted at %(venue)s %(year)s, each linked to its arXiv version where it has one."
    ),
    "venue_search": "Search this venue",
    "venue_search_placeholder": "words in the papers of %(venue)s",
    "venue_map_cover": "The map shows the %(n)s of these %(m)s papers that have vectors.",
    "venue_only": "no arXiv version",
    "venue_record_page": "its page at the venue",
    "link_site": "venue page",
    "link_openreview": "OpenReview",
    "link_pdf": "pdf",
    "link_github": "GitHub",
    "link_project": "project page",
    "link_video": "video",
    "venue_code": "(code of its %(venue)s record)",
    "venue_filter": "venue",
    "venues_followed": "Venues",
    "accepted_new": "New acceptances at the venues you follow",
    "accepted_at": "Accepted at %(venue)s: %(n)s papers",
    "accepted_list": "%(venue)s: the whole accept list, its topics and a search within it",
}

# the counts a message carries for languages to choose between: 中文 names the whole count of authors
# (``A、B、C 等 5 人``, ``total``) where English names the ones left out (``A, B, C and 2 more``, ``n``).
# Not a plural (npgettext picks a form by one count; here each language names another count): Babel's
# python-format check reports the 中文 ``total``, and tests/test_messages_catalogs.py allows it here only
COUNTED_OTHERWISE: dict[str, frozenset[str]] = {"and_more": frozenset({"n", "total"})}
