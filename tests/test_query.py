"""A typed query parsed once (records/query.py), and both backends writing that one parse."""

from __future__ import annotations

from papersift.records.query import AnyOf, ParsedQuery, Term, parse_query, query_tokens
from papersift.store.fts_query import fts5, keyword_query
from papersift.store.postgres import ts_query


def test_a_query_parses_into_phrases_prefixes_groups_exclusions_and_the_author() -> None:
    parsed = parse_query('"neural net" OR gnn graph-net* -vision -"deep learning"', author="Grace Hopper")
    assert parsed == ParsedQuery(
        include=(AnyOf((Term(("neural", "net")), Term(("gnn",)))), Term(("graph", "net"), prefix=True)),
        exclude=(Term(("vision",)), Term(("deep", "learning"))),
        author=("Grace", "Hopper"),
    )


def test_or_groups_left_to_right_and_a_leading_or_is_a_word() -> None:
    assert parse_query("a OR b OR c").include == (AnyOf((AnyOf((Term(("a",)), Term(("b",)))), Term(("c",)))),)
    assert parse_query("OR graph").include == (Term(("OR",)), Term(("graph",)))


def test_syntax_characters_alone_are_no_part_of_the_query() -> None:
    assert not parse_query('!!! " * -').searchable
    assert parse_query("AND(x").include == (Term(("AND",)), Term(("x",)))
    assert not ParsedQuery(exclude=(Term(("x",)),)).searchable  # exclusions alone select nothing


def test_an_any_word_query_reads_a_compound_as_its_words() -> None:
    assert parse_query("quasi-one-dimensional", any_terms=True).include == (
        Term(("quasi",)),
        Term(("one",)),
        Term(("dimensional",)),
    )
    assert parse_query("quasi-one-dimensional").include == (Term(("quasi", "one", "dimensional")),)


def test_query_tokens_keep_what_was_typed() -> None:
    tokens = query_tokens('-"deep learning" graph* -x')
    assert [(t.text, t.body, t.negated, t.quoted) for t in tokens] == [
        ('-"deep learning"', "deep learning", True, True),
        ("graph*", "graph*", False, False),
        ("-x", "x", True, False),
    ]


def test_fts5_and_postgres_write_the_same_parse() -> None:
    parsed = keyword_query('"neural net" OR gnn* -vision', author="Grace Hopper")
    assert fts5(parsed) == '(("neural net" OR "gnn"*) AND authors : "grace hopper") NOT "vision"'
    assert ts_query(parsed) == (
        "( ( ('neural' <-> 'net') | ('gnn':*) ) & ('grace':B <-> 'hopper':B) ) & ! ('vision')"
    )


def test_an_any_word_query_is_narrowed_once_for_both_backends() -> None:
    parsed = keyword_query("the learning of Bose gas", any_terms=True, common={"learning"}.__contains__)
    assert parsed.include == (AnyOf((Term(("bose",)), Term(("ga",)))),)  # the keyword index's (Porter's)
    assert fts5(parsed) == '("bose" OR "ga")'
    assert ts_query(parsed) == "( ('bose') | ('ga') )"


def test_nothing_that_must_match_renders_as_nothing_in_both() -> None:
    parsed = keyword_query("-vision")
    assert fts5(parsed) is None and ts_query(parsed) is None
