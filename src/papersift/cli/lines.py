"""The CLI's interface lines (``LINES``), by key: English, the msgids of the gettext catalogs (the msgctxt is
the key, ``cli_…``). ``cli/language.Speech.line`` says them in the reader's language; the whole catalog
template (``cli/help_words.catalog_template``) lists them with the web's words, the messages and the help.
"""

from __future__ import annotations

LINES: dict[str, str] = {
    # the CLI's text output
    "cli_error": "error: {message}",
    "cli_note": "note: {note}",
    "cli_why": "why: {reasons}",
    "cli_score": "score {score}",
    "cli_searched_for": "searched for: {query}",
    "cli_search_instead": "search instead for: {query} (--exact)",
    "cli_nearest_terms": "nearest terms: {terms}",
    "cli_no_results": "no results",
    "cli_related_to": "Related to {paper}",
    "cli_no_related": "no related papers found",
    "cli_below_threshold": "----- below your threshold ({limit}): not pushed or mailed -----",
    "cli_seen": "(seen: {how})",
    "cli_picks": "{n} papers for {reader} on {day}",
    "cli_ranked_by_tag": "ranked by the papers of your tag “{tag}” alone",
    "cli_followed_new": "New this week by authors you follow ({n}, the last {days} days):",
    "cli_tag_not_pushed": "--tag makes an e-mail, Atom or Markdown digest, not pushes",
    "cli_sync_first": "{problem} (sync or ingest first)",
    "cli_more_failed": "error: … and {n} more failed records",
    "cli_counts": "{what}: {new} new, {updated} updated, {skipped} skipped, {failed} failed",
    "cli_counts_deleted": (
        "{what}: {new} new, {updated} updated, {skipped} skipped, {failed} failed, {deleted} deleted"
    ),
    "cli_fulltext_stopped": "error: fulltext: {problem} (rerun to resume)",
    "cli_harvest_stopped": "harvest stopped (rerun to resume): {problem}",
    "cli_sync_asking": "sync: asking {url} for {categories}",
    "cli_waiting": "waiting: {line}",
    "cli_new_updated": "{what}: {new} new, {updated} updated",
    "cli_interest_categories": "categories: {values}",
    "cli_interest_categories_default": "categories: {values} (the default, as none is followed: --category)",
    "cli_interest_authors": "authors: {values}",
    "cli_interest_must": "must: {values}",
    "cli_interest_never": "never: {values}",
    "cli_interest_venues": "venues: {values}",
    "cli_interest_languages": "languages: {values}",
    "cli_interest_min_score": "min score: {value}",
    "cli_interest_digest_tags": "digest tags: {values}",
    "cli_zotero_failed": "error: zotero: {problem} (continuing with the library as it is)",
    "cli_below_left_out": "{n} papers below your threshold ({limit}) left out",
    "cli_atom_written": "atom: {n} papers written to {path}",
    "cli_markdown_written": "markdown: {n} papers written to {path}",
    "cli_email_already_sent": "email: the {day} digest was already sent to {to} ({at})",
    "cli_email_sending": (
        "email: sending through SMTP {host}:{port} (an unreachable server is retried for a few seconds)"
    ),
    "cli_email_sent": "email: {n} digest(s) sent",
    "cli_no_push_services": (
        "no push services: set PAPERSIFT_PUSH to Apprise URLs (json://, ntfy://, feishu://, …)"
    ),
    "cli_push_already_sent": "push: the {day} push to {to} was already sent ({at})",
    "cli_push_sent": "push: {n} sent to {services} service(s)",
    "cli_digest_sent_at": "sent {at}",
    "cli_digest_failed": "failed",
    "cli_digest_waiting": "waiting",
    "cli_digest_row": "{day}  {channel} {n} papers  {state} (sending runs: {tries})",
    "cli_nothing_sent": "nothing mailed or pushed for {reader} yet",
    "cli_sync_failed": "error: sync: {problem} (continuing with what is stored)",
    "cli_embedded": "embed: {n} papers",
    "cli_digests_sent": "digests: {n} sent, {kept} kept for the next run",
    "cli_not_in_library": "{paper} is not in {reader}'s library",
    "cli_saved": "saved {entry}: {title}",
    "cli_removed": "removed {paper}",
    "cli_tags": "{entry}: {tags}",
    "cli_no_tags": "{entry}: (no tags)",
    "cli_rated": "{entry}: rated {rating}",
    "cli_noted": "noted",
    "cli_neither_id_nor_entry": "error: {paper} is neither an arXiv id nor in your library",
    "cli_marked_read": "marked {n} as read",
    "cli_marked_unread": "marked {n} as unread",
    "cli_papers": "{n} papers",
    "cli_papers_tagged": "{n} papers tagged {tag}",
    "cli_entry_skipped": "error: {where}: {problem} (skipped)",
    "cli_more_skipped": "error: … and {n} more skipped entries",
    "cli_imported": (
        "import ({format}): {read} entries read, {linked} linked to arXiv papers, {kept} kept with "
        "their own text, {new} new in the library, {skipped} skipped"
    ),
    "cli_exported": "exported {n} entries to {path}",
    "cli_arxiv_offline_sync": "arXiv: {problem} (items kept with their own text; linked by a later sync)",
    "cli_library_status": "{reader}: {n} entries ({linked} arXiv papers), {zotero} from Zotero",
    "cli_never_synced": "zotero: never synced (papersift library sync zotero --user ID)",
    "cli_last_sync": (
        "last sync {at} ({seconds} s, {requests} requests): {items} items read, {matched} matched, "
        "{kept} kept with their own text, {removed} removed"
    ),
    "cli_build_waiting": "{problem}; waiting for it to finish (Ctrl-C to stop)",
    "cli_embedded_of": "embedded {n} of {todo}",
    "cli_store_busy_embed": (
        "the store: {problem}; the previous index generation keeps serving, run `papersift embed` again"
    ),
    "cli_embed_done": "embed: {n} papers embedded; index: {papers} papers, {vectors} vectors",
    "cli_embed_done_rate": "embed: {n} papers embedded ({rate}/s); index: {papers} papers, {vectors} vectors",
    "cli_no_listing_day": "no {category} listing on {day}",
    "cli_no_listing_days": "no {category} listing on {day} or the {before} days before",
    "cli_topics": "{category} {span}: {n} papers in {topics} topics",
    "cli_other_papers": "(other papers)",
    "cli_terms": "terms: {terms}",
    "cli_not_stored_offline": "{ids} not in the store and arXiv not reached: {problem}",
    "cli_fulltext_stopped_resume": "fulltext stopped (rerun to resume): {problem}",
    "cli_resolved": "resolve: {n} references resolved now",
    "cli_enrich_stopped": "enrich stopped: {problem}",
    "cli_enriched": "enrich: {n} of {of} papers counted by Semantic Scholar",
    "cli_llm_endpoint": "endpoint: {endpoint} (key {secret})",
    "cli_llm_local_running": "running at {url}, pid {pid}",
    "cli_llm_local_stopped": "not running (starts on use)",
    "cli_llm_local_not_installed": "not installed: pip install 'papersift[llm]'",
    "cli_llm_endpoint_local": "endpoint: the local default, {state}",
    "cli_llm_endpoint_none": (
        "endpoint: none (connect one: papersift llm setup; or set PAPERSIFT_LLM_URL, or "
        "PAPERSIFT_LLM_LOCAL=true for the local default)"
    ),
    "cli_llm_model": "model: {model}",
    "cli_llm_key_file": "key file {path}",
    "cli_llm_source_env": "env",  # where a model setting came from (settings.origin)
    "cli_llm_source_home_config": "home config",
    "cli_llm_source_argument": "argument",
    "cli_llm_source_default": "default",
    "cli_llm_source_unset": "unset",
    "cli_llm_from": "from: url {url}, model {model}, key {secret} (home config: {config})",
    "cli_llm_local_memory": "local server memory: {memory} MiB, stops after {idle} min idle",
    "cli_llm_today_budget": "today ({day} UTC): {tokens} tokens of {budget}",
    "cli_llm_today": "today ({day} UTC): {tokens} tokens (no budget)",
    "cli_llm_usage": "  {model}: {calls} calls, {prompt} in, {completion} out",
    "cli_llm_checks_failed": "texts that failed their checks: {n} ({reasons})",
    "cli_llm_no_failures": "failures: none",
    "cli_llm_failures": "failures (latest {n}):",
    "cli_llm_not_listed": "note: {url} does not list {model}; trying it anyway",
    "cli_llm_test_call": "test call: {model} at {url} answered {reply}",
    "cli_llm_saved": "saved in {path}: url {url}, model {model} (key: {secret}; never written to the home)",
    "cli_llm_env_wins": "note: {name} is set here and wins over the saved value",
    # the CLI's refusals of a command line or of what it names (cli/common.refuse)
    "cli_not_a_date": "{option}: not a date (YYYY-MM-DD): {value}",
    "cli_one_of": "{option} must be one of {allowed}, not {value}",
    "cli_cannot_read": "cannot read {path}: {problem}",
    "cli_file_not_found": "file not found: {path}",
    "cli_no_such_file": "{path}: no such file",
    "cli_not_in_store": "{paper} is not in the store",
    "cli_not_in_store_list": "not in the store: {papers}",
    "cli_no_listings_in_store": "no listings for {category} in the store (ingest or sync first)",
    "cli_no_listing_on": "no {category} listing on {day}",
    "cli_no_listing_on_nearest": "no {category} listing on {day} (nearest: {nearest})",
    "cli_library_sizes": "--library-sizes: whole numbers of at least 1, comma-separated, not {value}",
    "cli_not_relevance_lines": "{path}: not {{query_id, candidate_id, label}} JSON lines ({problem})",
    "cli_no_model": (
        "no model is configured: set PAPERSIFT_LLM_URL (an OpenAI-compatible API, e.g. "
        "http://127.0.0.1:11434/v1) and PAPERSIFT_LLM_MODEL, or PAPERSIFT_LLM_LOCAL=true for the local "
        "default"
    ),
    "cli_ids_or_day": "give arXiv ids, or --date D --category C for a day's listing",
    "cli_a_day_is": "a day is --date D and --category C",
    "cli_ask_usage": 'give one or more arXiv ids, then the question in quotes: papersift ask 2401.00001 "…"',
    "cli_at_most_papers": "at most {n} papers per question",
    "cli_query_or_file": "give a QUERY or --queries-from FILE (one of them)",
    "cli_ids_or_text": "give paper IDs, --ids-from FILE, or --text TEXT (ids or text, not both)",
    "cli_text_empty": "--text is empty",
    "cli_lang_en_or_zh": "--lang must be en or zh, not {value}",
    "cli_min_score_not_number": "--min-score: not a number: {value}",
    "cli_unknown_digest_action": "unknown digest action {action} (status)",
    "cli_digest_where": "say where the digest goes: --email ADDR, --push, --atom PATH or --markdown PATH",
    "cli_name_papers": "name papers: ID..., --date D --category C, --library or --daily N",
    "cli_date_with_category": "--date and --category go together",
    "cli_engine_local_or_dask": "--engine must be local or dask, not {value}",
    "cli_scheduler_needs_dask": "--scheduler and --workers need --engine dask",
    "cli_workers_or_scheduler": (
        "--workers sizes a local cluster; with --scheduler the cluster's own workers run"
    ),
    "cli_tls_needs_scheduler": "--tls-ca/--tls-cert/--tls-key need --scheduler tls://HOST:PORT",
    "cli_tls_needs_all": "a tls:// scheduler needs all of --tls-ca, --tls-cert and --tls-key",
    "cli_tls_file_not_found": "TLS file not found: {path}",
    "cli_as_one_of": "--as must be one of {allowed}",
    "cli_rating_values": "a rating is +1, -1 or 0, not {value}",
    "cli_sync_from_zotero": "papersift syncs a library from zotero, not {value}",
    "cli_whose_library": "say whose library: --user ID or --group ID (or set PAPERSIFT_ZOTERO_USER)",
    "cli_migrate_needs_postgres": (
        "migrate needs the [postgres] extra: pip install 'papersift[postgres]' ({problem})"
    ),
    "cli_to_postgres_url": "--to must be a postgresql:// URL, not {value}",
    "cli_no_sqlite_store": "--from: no SQLite store at {path}",
    "cli_target_differs": "the target differs from the source",
    "cli_url_or_provider": "give --url or --provider, not both",
    "cli_provider_needs_key": "{provider} needs a key: export PAPERSIFT_LLM_KEY=… or give --key-file FILE",
    "cli_nothing_saved": "{problem}; nothing saved",
    # settings and the command line (cli/common.py)
    "cli_settings": "settings: {problem}",
    "cli_not_a_category": "{value} is not an arXiv category (the web UI's /categories lists them)",
    "cli_not_a_category_nearest": (
        "{value} is not an arXiv category; did you mean {nearest}? (the web UI's /categories lists them)"
    ),
    "cli_either": "{first} or {second}",
    "cli_en_or_zh": "en or zh, not {value}",
    # progress bars
    "cli_bar_embedding": "embedding",
    "cli_bar_embedding_model": "embedding ({model})",
    "cli_bar_embedding_cached": "embedding (cached vectors are reused)",
    "cli_bar_tldrs_by": "TL;DRs by {model}",
    "cli_bar_indexing_terms": "indexing terms",
    "cli_bar_full_text": "full text",
    "cli_bar_citation_counts": "citation counts",
    "cli_bar_ingesting": "ingesting",
    "cli_bar_records": "{{task.completed:,}} records",
    "cli_bar_oai_all": "OAI all",
    "cli_bar_oai_page": "OAI page {page}",
    "cli_bar_copying": "copying",
    "cli_bar_summarize": "summarize",
    # serve and demo (cli/serve.py)
    "cli_demo_other_days": "demo (the other days)",
    "cli_demo_loaded": "demo: loaded; {n} papers in {home}",
    "cli_demo_offline": (
        "offline: arXiv is unreachable and no offline data was found at {snapshot}; connect to the "
        "internet or pass --shared PATH"
    ),
    "cli_demo_from_snapshot": (
        "arXiv unreachable or skipped: loading each category's latest {days} days from {snapshot}"
    ),
    "cli_demo_from_snapshot_later": (
        "arXiv unreachable or skipped: loading each category's latest {days} days from {snapshot} "
        "(the latest day now, the others in the background)"
    ),
    "cli_demo_papers": (
        "demo: {n} papers in {home}; the latest {category} listing: `papersift list {category}`"
    ),
    "cli_demo_later_api": (
        "loading the other {n} days from arXiv's API in the background, then embedding them "
        "(progress: {log}; the pages show each paper as it is stored)"
    ),
    "cli_demo_later_snapshot": (
        "loading the other {n} days of every category in the background, then embedding them "
        "(progress: {log}; the pages show each paper as it is stored)"
    ),
    "cli_build_running": "an index build (`papersift embed`) is already running: not starting another",
    "cli_demo_embedding": (
        "embedding the {n} papers in the background, newest first (log: {log}); "
        "`papersift related ID` and `papersift search --mode hybrid` use them as they arrive"
    ),
    "cli_not_loaded": "{path}: not loaded ({problem})",
    "cli_whole_day": (
        "whole day of {category}: {day} ({n} new submissions): `papersift list {category} --date {day}`"
    ),
    "cli_only_today": "{problem}; only today's announcements are loaded",
    "cli_refusing_to_serve": (
        "refusing to serve on {host}: without accounts anyone who can reach it could read and change "
        "the library. Set PAPERSIFT_ACCOUNTS=true (and add readers with `papersift reader add`), pass "
        "--public-read-only (listings and search only), or serve on 127.0.0.1."
    ),
    "cli_loopback_only": (
        "papersift: only loopback names are answered; set PAPERSIFT_BASE_URL (or "
        "PAPERSIFT_ALLOWED_HOSTS) to the name clients use"
    ),
    "cli_loading_indexes": "papersift: loading the indexes and the query model…",
    "cli_cannot_listen": "cannot listen on {host}:{port}: {problem}",
    "cli_cannot_listen_busy": (
        "cannot listen on {host}:{port}: {problem} (is another server using it? try --port)"
    ),
    # papersift llm setup (cli/llm_cmd.py)
    "cli_llm_flags": (
        "papersift llm setup --url URL --model NAME (or --provider NAME; --port N for a server on "
        "another port)"
    ),
    "cli_llm_port": "port {port}",
    "cli_llm_no_server": (
        "no OpenAI-compatible server answered on 127.0.0.1 ({where}): start one (e.g. "
        "`ollama serve`), or name one: {flags}"
    ),
    "cli_llm_found": "found {server} at {url}",
    "cli_llm_server_at": "{server} at {url}",
    "cli_llm_several": "several servers answer ({listed}): choose one with --url URL (no terminal to ask on)",
    "cli_llm_server_choice": "{n}. {server} at {url} ({count} models)",
    "cli_llm_which_server": "Which server",
    "cli_llm_offers": "it offers {models}",
    "cli_llm_no_models": "it lists no models",
    "cli_llm_choose_model": (
        "choose a model with --model NAME ({url}: {offered}; no terminal to ask on): {flags}"
    ),
    "cli_llm_model_name": "Model name",
    "cli_llm_which_model": "Which model",
    "cli_llm_a_number": "a number from 1 to {count}, please",
    # papersift migrate (cli/migrate_cmd.py): the header's columns are 16, 12, 12, 2, 18 and 18 wide
    "cli_migrate_header": (
        f"{'table':<16}{'source rows':>12}{'target rows':>12}  {'source sum':<18}{'target sum':<18}"
    ),
    "cli_migrate_ok": "ok",
    "cli_migrate_differs": "DIFFERS",
    "cli_migrated": "migrated {path} -> PostgreSQL: every table matches",
    # show, summarize, ask (cli/papers_cmd.py, cli/reading_cmd.py)
    "cli_tldr": "TL;DR: {text}",
    "cli_tldr_by": "TL;DR ({by}): {text}",
    "cli_tldr_extractive": "extractive",
    "cli_tldr_unavailable": "TL;DR unavailable: {problem}",
    "cli_translation": "译文: {title}",
    "cli_full_text_read": "Full text ({source}): {sections} sections, {words} words",
    "cli_references_count": "References: {n}; {m} in this store (--references)",
    "cli_cited_by_count": "Cited by: {n} in this store (--cited-by)",
    "cli_code": "Code: {url}",
    "cli_own_code": "Code: {url} (the paper's own)",
    "cli_citations": "Citations: {n} (Semantic Scholar, {day})",
    "cli_references_heading": "References ({n}; {m} in this store)",
    "cli_cited_by_heading": "Cited by ({n} in this store)",
    "cli_summarize_failed": "failed: {paper} {kind} ({lang}): {problem}",
    "cli_answer_unavailable": "answer unavailable: {problem}",
    # papersift reader (cli/readers.py)
    "cli_password": "password",
    "cli_reader_created": "reader {name} created",
    # papersift venues, venue (cli/venues_cmd.py)
    "cli_no_venues": "no accept lists imported yet (papersift venues import FILE…)",
    "cli_venue_summary": "{venue} {year}: {records} records, {linked} linked to arXiv; {statuses}",
    "cli_venue_imported": (
        "{file}: {venue} {year}: {read} records read, {linked} linked to an arXiv paper, {kept} kept as "
        "venue papers, {skipped} skipped"
    ),
    "cli_venue_skipped_one": "{file}: record {record} skipped: {reason}",
    "cli_venue_skipped_why": "  skipped {n}: {reason}",
    "cli_venue_changes": (
        "  {new} new, {changed} changed, {unchanged} unchanged, {removed} removed ({seconds} s)"
    ),
    "cli_no_venue_list": "no accept list of {venue} {year} is imported (papersift venues lists them)",
    "cli_venue_paper_only": "no arXiv version: {id}",
    "cli_no_venue_status": "no record of {venue} {year} is {status}; its statuses: {statuses}",
    "cli_accepted_at": "accepted: {venues}",
}
