"""A parsed query (``records.query.ParsedQuery``) as the store searches it: narrowed for an any-word query
(``any_words``), written in the keyword index's tokens (``analyzed``: ``records.analyzer.keyword_tokens``,
the pipeline both stores index papers with) and written as a safe FTS5 MATCH expression (``fts5``): user
syntax is never an SQL error. PostgreSQL writes the same parsed query as ``tsquery`` text
(``store/postgres.ts_query``) and ranks it as FTS5's ``bm25`` does (``store/postgres._bm25_term``).

Words become quoted FTS5 strings (so ``AND(``, stray ``"`` or ``*`` cannot break the parser); phrases stay
phrases, prefixes prefix queries, exclusions ``NOT``, an ``OR`` group either. Everything else is an implicit
AND, or, with ``any_terms`` (the keyword side of hybrid search, where a query may be a whole sentence), an OR
of the words that are not stop words.
"""

from __future__ import annotations

from collections.abc import Callable

from papersift.records.analyzer import STOP_WORDS, keyword_tokens, words
from papersift.records.query import AnyOf, Clause, ParsedQuery, Term, parse_query


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


def _analyzed_term(term: Term) -> Term | None:
    """A term in the keyword index's tokens (a word may give several: "foo_bar" is a phrase of two); a
    prefix's last token unstemmed; None when no token is left."""
    last = len(term.words) - 1
    found = tuple(
        token
        for i, word in enumerate(term.words)
        for token in keyword_tokens(word, prefix=term.prefix and i == last)
    )
    return Term(found, term.prefix and bool(keyword_tokens(term.words[-1]))) if found else None


def _analyzed_clause(clause: Clause) -> Clause | None:
    if isinstance(clause, Term):
        return _analyzed_term(clause)
    options = tuple(o for c in clause.options if (o := _analyzed_clause(c)) is not None)
    if len(options) > 1:
        return AnyOf(options)
    return options[0] if options else None


def analyzed(query: ParsedQuery) -> ParsedQuery:
    """``query`` in the keyword index's tokens (``records.analyzer.keyword_tokens``), as both stores index
    papers: each word folded, split and stemmed ("Networks" → network), a prefix's last word only folded
    (``graph*``); a clause left without tokens is left out. Two forms of a word stay two clauses ("network
    networks": BM25 counts it twice, as it did when FTS5 stemmed the query itself)."""
    include = tuple(c for c in map(_analyzed_clause, query.include) if c is not None)
    exclude = tuple(t for t in map(_analyzed_term, query.exclude) if t is not None)
    author = tuple(token for word in query.author for token in keyword_tokens(word))
    return ParsedQuery(include, exclude, author)


def keyword_query(
    query: str,
    *,
    author: str | None = None,
    any_terms: bool = False,
    common: Callable[[str], bool] | None = None,
) -> ParsedQuery:
    """``query`` parsed once, as every backend searches it: ``any_words`` with ``any_terms`` (on the words
    as typed), then ``analyzed``."""
    parsed = parse_query(query, author=author, any_terms=any_terms)
    return analyzed(any_words(parsed, common) if any_terms else parsed)


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
