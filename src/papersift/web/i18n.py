"""Interface text and messages in the reader's language, and how a request picks one (paper text is never
translated). English is in the code, the msgids: ``INTERFACE``'s words (the msgctxt is their key),
``records/messages.py``'s templates (the msgctxt is the message's key) and arXiv's category names (msgctxt
``arXiv category``); the other languages are gettext catalogs,
``papersift/locale/<lang>/LC_MESSAGES/papersift.po`` (the template ``papersift/locale/papersift.pot``), read
with Babel when first used (``records/catalogs.py``, which the CLI and the digests read them through too).
The pages' templates get the same catalog as the interface words ``t``, a message through the ``tr`` filter
and a category's name through ``arxiv_name``. A new msgid: say it in the
code, write the template again (``cli/help_words.catalog_template()``: this ``template`` with the CLI's
lines and help; ``tests/test_messages_catalogs.py`` says how) and translate it in each .po (the tests fail
until every one is).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from papersift.records.catalogs import DOMAIN, LANGUAGES, said, translations
from papersift.records.messages import ENGLISH
from papersift.records.taxonomy import categories, groups

if TYPE_CHECKING:  # Babel and Jinja load with the first catalog or page (the CLI's English needs neither)
    from babel.messages.catalog import Catalog
    from jinja2 import Environment

CATEGORY = "arXiv category"  # the msgctxt of arXiv's category names

# the interface's words, by key (the templates' ``t.key``): English, the msgids of the catalogs
INTERFACE: dict[str, str] = {
    "title": "papersift",
    "tagline": "arXiv, sifted",
    "new": "new",
    "cross": "cross-lists",
    "replace": "replacements",
    "previous": "previous day",
    "next": "next day",
    "related": "Related papers",
    "why": "why",
    "search": "Search",
    "search_placeholder": 'words, "phrases", or an arXiv id',
    "related_text": "Related papers for any text",
    "related_placeholder": "paste an abstract…",
    "find": "Find",
    "abstract": "Abstract",
    "more": "more",
    "no_results": "No results.",
    "not_found": "Not found",
    "bad_request": "Bad request",
    "category": "Category",
    "all_categories": "all categories",
    "since": "since",
    "mode": "mode",
    "same_category": "same category",
    "last_years": "last 5 years",
    "any_time": "any time",
    "facet": "alike in",
    "whole_paper": "the whole paper",
    "facet_background": "background",
    "facet_method": "method",
    "facet_result": "results",
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
    "ranked_tag": "ranked by your tag “{tag}” alone",
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
    "next_page": "page {n} →",
    "prev_page": "← page {n}",
    "results_range": "results {first}–{last}",
    "no_good_matches": "No good matches: try other words, or an arXiv id.",
    "copy_bibtex": "Copy BibTeX",
    "copied": "Copied",
    "keys_hint": (
        "Keys: j / k next / previous paper (j past the last one loads more), o or Enter open it, p its PDF, "
        "s save, + / − more / less like it, e its abstract, r mark it read"
    ),
    "more_nav": "more papers",
    "more_part": "more: #{first}–#{last} of {total}",
    "more_results": "more results: #{first}–#{last}",
    "rest_part": "all {n} remaining",
    "part_shown": "papers #{first}–#{last} of {total}",
    "topic_shown": "topic “{topic}”: {n} papers",
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
    "description_listing": "{category} papers announced on arXiv on {day}, numbered as arXiv lists them.",
    "description_paper": "{title}: abstract, BibTeX and related papers.",
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
    "other_topic": "other papers",
    "central_paper": "no term most of its papers share: named by its most central paper",
    "filter_topic": "Show only one topic's papers",
    "days": "days",
    "trending": "Popular in your lab",
    "trending_about": "Saved or rated +1 by this install's readers in the last {days} days (counts only)",
    "trending_empty": "Nothing saved in this period yet.",
    "you_are_counted": "Your saves and +1s are counted here (never with your name).",
    "stop_counting": "Don't count me",
    "you_are_not_counted": "Your saves and +1s are not counted.",
    "start_counting": "Count me",
    "lab_saved": "saved",
    "lab_title": "readers of this install who saved it · rated it +1",
    "tldr": "TL;DR",
    "tldr_extractive": "key sentence of the abstract",
    "tldr_by": "by",
    "tldr_unavailable": "TL;DR unavailable",
    "write_tldr": "Write the TL;DR",
    "original": "原文",
    "translation": "译文",
    "side_by_side": "对照",
    "not_translated": "Not translated yet.",
    "translation_unavailable": "Translation unavailable",
    "faq": "FAQ",
    "faq_unavailable": "FAQ unavailable",
    "faq_write": "Write the FAQ",
    "faq_writing": "Writing…",
    "no_model": "no model is configured for this server",
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
    "results_total": "{n} results",
    "results_total_more": "{n}+ results",
    "your_tags": "Your tags",
    "your_note": "Your note",
    "colon": ": ",
    "in_parens": " ({inner})",
    "key_phrases": "Key phrases",
    "in_listing": "Show only these in the listing",
    "search_only_for": "Search only for {q}",
    "query_shortened": "Your query was {n} characters long: searched its first {m}.",
    "unknown_category": "{c} is not an arXiv category.",
    "did_you_mean": "Did you mean",
    "browse_categories": "Browse the categories",
    "results_with_words": "{n} papers have your words",
    "results_with_words_more": "{n}+ papers have your words",
    "references": "References",
    "references_count": "{n}; {m} in this store",
    "cited_by": "Cited by",
    "cited_by_count": "{n} in this store",
    "code": "Code",
    "own_code": "the paper's own",
    "html_title": "arXiv's HTML version of the paper",
    "first_page": "The first page of the paper",
    "full_text": "Full text",
    "full_text_from": "read from its {source}: {sections} sections, {words} words",
    "citation_count": "{n} citations (Semantic Scholar, {day})",
    "no_model_title": "With a language model",
    "no_model_adds": (
        "A language model would add here a FAQ of this paper, answers to your questions about it "
        "(each claim marked with its paper), one-sentence TL;DRs and 中文 translations of titles "
        "and abstracts. The TL;DRs shown now are key sentences of the abstracts."
    ),
    "no_model_connect": (
        "To connect one (a local server or a provider's API), run `papersift llm setup` on the "
        "server's machine and restart `papersift serve`."
    ),
    "no_model_link": "Connecting a model",
    "no_model_public": (
        "This server's language model writes only for its owner; the texts it has made are shown."
    ),
    "not_translated_no_model": "Not translated: no language model is connected (see below).",
    "model_help_steps": (
        "On the machine that runs papersift, `papersift llm setup` finds an OpenAI-compatible "
        "server on this machine (Ollama, llama.cpp, LM Studio, vLLM) or takes a provider's URL, "
        "makes one test call and saves the URL and the model; `papersift llm status` then shows "
        "them. Or set PAPERSIFT_LLM_URL and PAPERSIFT_LLM_MODEL (and PAPERSIFT_LLM_KEY) before "
        "`papersift serve`."
    ),
    "model_help_more": "The README's section “Connecting a model” says more.",
    "model_help_adds": (
        "A language model writes one-sentence TL;DRs, 中文 translations of titles and abstracts, a "
        "FAQ of each paper and answers to questions about papers, each claim marked with its "
        "paper; each text is checked before it is shown (its language, no markup, one sentence "
        "for a TL;DR, the math kept in a translation), and one that fails is shown as a failure "
        "with its reason."
    ),
    "below_threshold": "below your threshold ({score}): not pushed or mailed",
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
    "new_since": "New since your last visit ({since}): {days} listing days, {papers} papers",
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
    "all_venues": "all venues",
    "description_venue": (
        "The papers accepted at {venue} {year}, each linked to its arXiv version where it has one."
    ),
    "venue_search": "Search this venue",
    "venue_search_placeholder": "words in the papers of {venue}",
    "venue_map_cover": "The map shows the {n} of these {m} papers that have vectors.",
    "venue_only": "no arXiv version",
    "venue_record_page": "its page at the venue",
    "link_site": "venue page",
    "link_openreview": "OpenReview",
    "link_pdf": "pdf",
    "link_github": "GitHub",
    "link_project": "project page",
    "link_video": "video",
    "venue_code": "(code of its {venue} record)",
    "venue_filter": "venue",
    "venues_followed": "Venues",
    "accepted_new": "New acceptances at the venues you follow",
    "accepted_at": "Accepted at {venue}: {n} papers",
    "accepted_list": "{venue}: the whole accept list, its topics and a search within it",
}


def pick_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    """``?lang=`` first, then the remembered cookie, then the browser's Accept-Language (its languages in
    the order of their q-values, RFC 9110 §12.5.4; ``q=0`` means not wanted), else English."""
    for choice in (query, cookie):
        if choice in LANGUAGES:
            return choice
    for tag in accepted(accept):
        for lang in LANGUAGES:
            if tag == lang or tag.startswith(f"{lang}-"):
                return lang
    return "en"


def accepted(header: str | None) -> list[str]:
    """The language tags of an Accept-Language header, lowercased, most wanted first (ties in the order
    given), those with ``q=0`` or an unreadable q left out."""
    ranked: list[tuple[float, int, str]] = []
    for n, part in enumerate((header or "").split(",")):
        tag, *params = (piece.strip() for piece in part.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag and 0.0 < q <= 1.0:
            ranked.append((-q, n, tag.lower()))
    return [tag for _, _, tag in sorted(ranked)]


@functools.cache
def interface(lang: str) -> Mapping[str, str]:
    """``INTERFACE`` in ``lang`` (read from its catalog when first asked for, then kept)."""
    found = translations(lang)
    return MappingProxyType({key: found.pgettext(key, english) for key, english in INTERFACE.items()})


def arxiv_name(name: str, lang: str) -> str:
    """The English name of one of arXiv's categories or archives (``records/taxonomy.py``) in ``lang``."""
    return translations(lang).pgettext(CATEGORY, name)


def install(env: Environment) -> None:
    """The filters the pages' templates say catalog text with, in the language of the page rendered: ``tr``
    (a message) and ``arxiv_name`` (a category's name); the interface's words come as ``t``."""
    env.filters["tr"] = said
    env.filters["arxiv_name"] = arxiv_name


def template(*faces: Mapping[str, str]) -> Catalog:
    """The catalog template: the interface's words, then each of ``faces`` (other faces' words by key: the
    CLI's lines, ``cli/help_words.catalog_template``, as the web imports no CLI), the messages, the category
    names."""
    from babel.messages.catalog import Catalog

    catalog = Catalog(project=DOMAIN, domain=DOMAIN, fuzzy=False)
    for words in (INTERFACE, *faces):
        for key, english in words.items():
            catalog.add(english, context=key)
    for key, english in ENGLISH.items():
        catalog.add(english, context=key, flags=["python-format"] if "%(" in english else [])
    for g in groups():
        for a in g.archives:
            catalog.add(a.name, context=CATEGORY)
    for c in categories():
        catalog.add(c.name, context=CATEGORY)
    return catalog
