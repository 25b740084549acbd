"""A parsed query (``records.query.ParsedQuery``) as the store searches it: narrowed for an any-word query
(``keyword_query``) and written as a safe FTS5 MATCH expression (``fts5``): user syntax is never an SQL
error. PostgreSQL writes the same parsed query as ``to_tsquery`` text (``store/postgres.ts_query``).

Words become quoted FTS5 strings (so ``AND(``, stray ``"`` or ``*`` cannot break the parser); phrases stay
phrases, prefixes prefix queries, exclusions ``NOT``, an ``OR`` group either. Everything else is an implicit
AND, or, with ``any_terms`` (the keyword side of hybrid search, where a query may be a whole sentence), an OR
of the words that are not stop words.
"""

from __future__ import annotations

from collections.abc import Callable

from papersift.records.analyzer import STOP_WORDS, words
from papersift.records.query import AnyOf, Clause, ParsedQuery, parse_query


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def fts5_clause(clause: Clause) -> str:
    """One clause in FTS5: ``"a b"``, ``"graph"*``, ``("a" OR "b")``."""
    if isinstance(clause, AnyOf):
        return "(" + " OR ".join(fts5_clause(c) for c in clause.options) + ")"
    return _quote(" ".join(clause.words)) + ("*" if clause.prefix else "")


def any_words(query: ParsedQuery, common: Callable[[str], bool] | None = None) -> ParsedQuery:
    """An any-word query's include clauses narrowed: stop words and one-letter words left out (all of them
    kept when nothing else is left), then one OR of those ``common`` is false for, or, when every one is
    common, all of them (AND): a store that knows its term frequencies keeps an any-word query off the
    longest posting lists. A clause is read as FTS5 writes it, its outer quotes stripped."""
    keys = {clause: fts5_clause(clause).strip('"') for clause in query.include}
    kept = [c for c in query.include if len(keys[c]) > 1 and keys[c].lower() not in STOP_WORDS]
    kept = kept or list(query.include)
    rare = [c for c in kept if common is None or not common(keys[c])]
    include = (AnyOf(tuple(dict.fromkeys(rare))),) if rare else tuple(dict.fromkeys(kept))
    return ParsedQuery(include, query.exclude, query.author)


def keyword_query(
    query: str,
    *,
    author: str | None = None,
    any_terms: bool = False,
    common: Callable[[str], bool] | None = None,
) -> ParsedQuery:
    """``query`` parsed once, as every backend searches it (``any_words`` with ``any_terms``)."""
    parsed = parse_query(query, author=author, any_terms=any_terms)
    return any_words(parsed, common) if any_terms else parsed


def match_expression(
    query: ParsedQuery,
    clause: Callable[[Clause], str],
    author: Callable[[tuple[str, ...]], str],
    conjunction: str,
    excluding: str,
) -> str | None:
    """``query`` in a backend's syntax (None when nothing must match): its clauses written by ``clause`` and
    its author's words by ``author``, joined by ``conjunction``; then each exclusion by the ``excluding``
    template (``{0}`` the expression so far, ``{1}`` the excluded clause)."""
    include = [clause(c) for c in query.include]
    if query.author:
        include.append(author(query.author))
    if not include:
        return None
    expr = conjunction.join(include)
    for term in query.exclude:
        expr = excluding.format(expr, clause(term))
    return expr


def fts5(query: ParsedQuery) -> str | None:
    """The FTS5 MATCH expression of ``query`` (None when nothing must match)."""
    return match_expression(
        query, fts5_clause, lambda author: "authors : " + _quote(" ".join(author)), " AND ", "({0}) NOT {1}"
    )


def fts_query(
    query: str,
    *,
    author: str | None = None,
    any_terms: bool = False,
    common: Callable[[str], bool] | None = None,
) -> str | None:
    """The FTS5 MATCH expression for what was typed (None when nothing searchable is left): ``fts5`` of
    ``keyword_query``."""
    return fts5(keyword_query(query, author=author, any_terms=any_terms, common=common))


def plain_words(query: str) -> list[str]:
    """The words of ``query`` (what ``fts_query`` may quote one by one), in order, without repeats."""
    return list(dict.fromkeys(words(query)))
