"""The one text analyzer (records/analyzer.py): folding, its named pipelines, the plural rule, stems, stop
words; that no other module folds accents its own way, keeps a word pattern or imports a stemmer; and that a
phrase's key ("studie") is never shown."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from re import _constants as sre  # type: ignore[attr-defined]  # the parsed pattern's opcodes
from re import _parser  # type: ignore[attr-defined]  # re's own parser (sre_parse, deprecated, is it)
from typing import Any

import pytest

from papersift.index.lexical import terms
from papersift.ranking.topics.book import phrase_book, shown
from papersift.records.analyzer import (
    STOP_WORDS,
    content_stems,
    fold,
    fold_letters,
    fold_title,
    index_words,
    latin_runs,
    latin_tokens,
    latin_words,
    letter_words,
    mixed_words,
    name_pieces,
    name_words,
    named_compound,
    one_word,
    phrase_key,
    phrase_pieces,
    plain_words,
    singular,
    singular_acronym,
    stem,
    stem_words,
    unhyphenated,
    words,
)
from papersift.records.paper import Paper

SRC = Path(__file__).resolve().parents[1] / "src" / "papersift"


def test_fold_drops_accents_to_ascii_and_lower_cases() -> None:
    assert fold("Schrödinger ÅNGSTRÖM naïve") == "schrodinger angstrom naive"
    assert fold("ﬁnite") == "finite"  # compatibility forms decomposed too
    assert fold("β-decay 张伟") == "-decay "  # no ASCII form: dropped


def test_fold_letters_keeps_other_scripts() -> None:
    assert fold_letters("Jérôme MÜLLER") == "jerome muller"
    assert fold_letters("张伟 Ωmega") == "张伟 ωmega"
    assert fold_letters("Straße") == "strasse"  # case folded, not only lower-cased


def test_fold_title_compares_letters_and_digits_only() -> None:
    assert fold_title("Schrödinger's Cat: a {GNN} study, 2nd ed.") == fold_title(
        "schrodingers cat a GNN study 2nd ed"
    )
    assert fold_title("Graph nets") != fold_title("Graph net")


def test_words_are_word_runs_as_written() -> None:
    assert words("β-decay's GNNs (2024)") == ["β", "decay", "s", "GNNs", "2024"]


def test_name_words_are_a_names_folded_words_with_inner_hyphens_and_apostrophes() -> None:
    assert name_words("Jean-Luc O'Néil, Jr. 3rd") == ["jean-luc", "o'neil", "jr", "rd"]


def test_index_words_are_folded_ascii_tokens_of_two_characters_or_more() -> None:
    assert index_words("Über-Graph a 3D x_1 GNNs, naïve") == ["uber", "graph", "x_1", "gnns", "naive"]


def test_the_lexical_terms_read_index_words_without_stop_words_and_their_pairs() -> None:
    assert terms("The Naïve Graph of GNNs") == ["naive", "graph", "gnns", "naive graph", "graph gnns"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("networks", "network"),
        ("gans", "gan"),
        ("models", "model"),
        ("studies", "studie"),
        ("loss", "loss"),
        ("corpus", "corpus"),
        ("analysis", "analysis"),
        ("gas", "gas"),  # three letters: never
        ("graph", "graph"),
    ],
)
def test_singular_is_one_rule(word: str, expected: str) -> None:
    assert singular(word) == expected


def test_singular_acronym_drops_the_s_of_a_short_form_only() -> None:
    assert [singular_acronym(w) for w in ("GNNs", "LLMs", "IoT", "Ts", "gnns")] == [
        "GNN",
        "LLM",
        "IoT",
        "Ts",
        "gnns",
    ]


def test_stem_is_snowball_english() -> None:
    assert stem("networks") == "network"
    assert stem("learning") == "learn"
    assert stem_words(["generalization", "generalizes"]) == ["general", "general"]


def test_stop_words_are_function_words_only() -> None:
    assert {"the", "of", "and", "we", "via"} <= STOP_WORDS
    assert not {"graph", "model", "quantum"} & STOP_WORDS
    assert all(w == w.lower() for w in STOP_WORDS)


# modules that compose accents (LaTeX → Unicode, NFC) legitimately normalize; NFKD/NFD folding is the
# analyzer's alone
_DECOMPOSE = re.compile(r"""unicodedata\.normalize\(\s*["']NF(?:K?D)["']""")


def test_no_module_but_the_analyzer_folds_accents_its_own_way() -> None:
    own = [
        str(path.relative_to(SRC))
        for path in sorted(SRC.rglob("*.py"))
        if path != SRC / "records" / "analyzer.py" and _DECOMPOSE.search(path.read_text(encoding="utf-8"))
    ]
    assert not own, f"fold with records.analyzer (fold, fold_letters), not by hand: {own}"


def test_the_pipelines_split_as_documented() -> None:
    assert plain_words("Kähler-type GNNs_2") == ["kähler", "type", "gnns", "2"]
    assert letter_words("Kähler word2vec") == ["Kähler", "word", "vec"]
    assert content_stems("The networks learned 3 naïve rules") == ["network", "learn", "naiv", "rule"]
    assert phrase_pieces("Multi-agent RL, in 3D.") == ["multi-agent", "rl", ",", "in", "3d", "."]
    assert unhyphenated("multi-agent chain-of-thought") == "multi agent chain-of-thought"
    assert phrase_key("graph neural networks") == "graph neural network"
    assert name_pieces("Jean-François O’Néil") == ["Jean", "François", "O’Néil"]
    assert named_compound("Navier-Stokes") and not named_compound("state-of-the-art")
    assert latin_words("don't state-of-the-art a 3D") == ["don't", "state-of-the-art"]
    assert latin_tokens("GPT-4 scores 3.5") == ["GPT-4", "scores", "3.5"]
    assert latin_runs("我们用 the Transformer (Vaswani et al., 2017) 模型") == [
        "the Transformer (Vaswani et al"
    ]
    assert mixed_words("我们 Use $x$") == ["我", "们", "use", "$", "x", "$"]
    assert one_word("2n") and one_word("αβ") and not one_word("a+b")


def _holds_word_class(items: Any) -> bool:
    """Whether a character class holds word characters: ``\\w``, ``\\W`` (negated), ``a-z`` or ``A-Z``."""
    for op, arg in items:
        if op is sre.CATEGORY and arg in (sre.CATEGORY_WORD, sre.CATEGORY_NOT_WORD):
            return True
        if op is sre.RANGE and arg in ((ord("a"), ord("z")), (ord("A"), ord("Z"))):
            return True
    return False


_JOINERS = {ord(c) for c in "-'’."}  # what may join a word's parts outside a class: state-of-the-art, don't


def _token_shape(parsed: Any) -> tuple[bool, bool]:
    """(whether the pattern is only classes, repeats, groups, alternatives, boundaries and joiners; whether a
    class holding word characters is repeated in it)."""
    only_shape, repeats_word = True, False
    for op, arg in parsed:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            body = arg[2]
            shape, word = _token_shape(body)
            classes = [a for o, a in body if o is sre.IN]
            only_shape &= shape
            repeats_word |= word or any(_holds_word_class(c) for c in classes)
            repeats_word |= any(o is sre.CATEGORY and a is sre.CATEGORY_WORD for o, a in body)
        elif op is sre.SUBPATTERN or op is sre.BRANCH:
            for branch in [arg[-1]] if op is sre.SUBPATTERN else arg[1]:
                shape, word = _token_shape(branch)
                only_shape &= shape
                repeats_word |= word
        elif not (op in (sre.IN, sre.AT) or (op is sre.LITERAL and arg in _JOINERS)):
            only_shape = False
    return only_shape, repeats_word


def word_pattern(pattern: str) -> bool:
    """Whether a regular expression is a word tokenizer: made only of character classes (repeated, one at
    least holding word characters), joiners and boundaries: ``\\w+``, ``[^\\W\\d_]{4,}``,
    ``[A-Za-z][A-Za-z'-]*[A-Za-z]``. A pattern with literal text (``\\[check (\\w+)``, ``%\\((\\w+)\\)s``) is
    a format, not a tokenizer."""
    try:
        parsed = _parser.parse(pattern)
    except re.error:
        return False
    only_shape, repeats_word = _token_shape(parsed)
    return only_shape and repeats_word


_RE_CALLS = frozenset(
    {"compile", "findall", "finditer", "fullmatch", "match", "search", "split", "sub", "subn"}
)
# patterns of a word's shape that tokenize no prose, and what each matches instead
NOT_WORD_TOKENIZERS: dict[tuple[str, str], str] = {
    ("records/venues.py", r"[A-Za-z][A-Za-z0-9_-]{0,39}"): "a venue's name as a URL holds it",
    ("records/venues.py", r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}"): "a venue paper's own id",
    ("store/rows.py", r"[A-Za-z0-9][A-Za-z0-9._/-]{0,63}"): "a paper id a row may hold",
    ("store/rows.py", r"[A-Za-z][A-Za-z0-9._-]{0,39}"): "an arXiv category (cond-mat.stat-mech)",
    (
        "services/ingest.py",
        r"[a-z][a-z-]{0,15}(?:\.[A-Za-z-]{1,16})?",
    ): "an arXiv category as arXiv writes it",
    ("web/security.py", r"[A-Za-z0-9_-]{32,64}"): "a session or CSRF token",
    (
        "sources/pdf.py",
        r"^([IVX]{1,4})\.\s+([A-Z][A-Z0-9 ,:;'’()&/-]{2,90})$",
    ): "a PDF's heading (IV. RESULTS)",
    ("index/sentences.py", r"([A-Za-z][A-Za-z.]*)$"): "the abbreviation before a full stop (e.g.)",
    ("ranking/cedict.py", r"[a-z][a-z -]*"): "a dictionary sense that is a plain English gloss, whole",
}


def word_patterns(path: Path) -> list[str]:
    """The word-tokenizer patterns written in a module: literal patterns given to ``re``'s functions or as
    a vectorizer's ``token_pattern``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        given = [k.value for k in node.keywords if k.arg in ("token_pattern", "pattern")]
        func = node.func
        of_re = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "re"
        if of_re and isinstance(func, ast.Attribute) and func.attr in _RE_CALLS and node.args:
            given.append(node.args[0])
        for pattern in given:
            if (
                isinstance(pattern, ast.Constant)
                and isinstance(pattern.value, str)
                and word_pattern(pattern.value)
            ):
                found.append(pattern.value)
    return found


_STEMMERS = ("Stemmer", "snowballstemmer", "nltk.stem", "stemming", "krovetz")


def stemmer_imports(path: Path) -> list[str]:
    """The stemmer packages a module imports (PyStemmer, snowballstemmer, NLTK's stemmers, …)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        found += [n for n in names if n.startswith(_STEMMERS) or "Stemmer" in n]
    return found


def test_word_pattern_tells_a_tokenizer_from_a_format() -> None:
    tokenizers = [
        r"\w+",
        r"[^\W\d_]{4,}",
        r"(?u)\b[a-zA-Z_][a-zA-Z0-9_]+\b",
        r"[a-z][a-z0-9]*",
        r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+",
    ]
    formats = [r"\[check (\w+)\((.*)\)\]$", r"%\((\w+)\)s", r"\d{4}\.\d{4,5}", r"\b(?:MAINCIT|CIT)\b", r"\s+"]
    assert all(word_pattern(p) for p in tokenizers)
    assert not any(word_pattern(p) for p in formats)


def test_a_planted_word_pattern_or_stemmer_is_found(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import re\nfrom nltk.stem import PorterStemmer\n_WORD = re.compile(r'[a-z]+')\n"
        "v = TfidfVectorizer(token_pattern=r'(?u)\\b\\w\\w+\\b')\n",
        encoding="utf-8",
    )
    assert word_patterns(planted) == ["[a-z]+", r"(?u)\b\w\w+\b"]
    assert stemmer_imports(planted) == ["nltk.stem", "nltk.stem.PorterStemmer"]


def test_no_module_but_the_analyzer_keeps_a_word_pattern_or_a_stemmer() -> None:
    own: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        module = str(path.relative_to(SRC))
        if module == "records/analyzer.py":
            continue
        own += [f"{module}: {p}" for p in word_patterns(path) if (module, p) not in NOT_WORD_TOKENIZERS]
        own += [f"{module}: import {name}" for name in stemmer_imports(path)]
    assert not own, f"split and stem words with records.analyzer's pipelines, not by hand: {own}"


def test_every_allowed_pattern_is_still_written_where_it_is_allowed() -> None:
    stale = [(m, p) for m, p in sorted(NOT_WORD_TOKENIZERS) if p not in word_patterns(SRC / m)]
    assert not stale, f"no longer there: drop from NOT_WORD_TOKENIZERS: {stale}"


def test_a_phrase_key_is_never_shown_a_topic_shows_its_papers_words() -> None:
    texts = [
        (
            "Case studies of graph networks",
            "We present case studies of graph networks. Our studies show gains.",
        ),
        ("Ablation studies of policies", "Ablation studies and user studies of learned policies."),
        ("A user study of policies", "This user study of learned policies shows ablation studies help."),
    ]
    papers = [
        Paper(id=f"2601.0000{i}", title=t, authors=["A. Author"], abstract=a, categories=["cs.LG"])
        for i, (t, a) in enumerate(texts)
    ]
    book = phrase_book(None, papers)
    assert {"ablation studie", "learned policie", "policie"} <= set(book.keys)  # keys: "studies" → "studie"
    written = {w.lower() for t, a in texts for w in words(f"{t} {a}")}
    for key in book.keys:
        form = shown(book, key)
        assert set(words(form.lower())) <= written, (key, form)  # every shown word a word the papers write
    assert shown(book, "ablation studie") == "ablation studies"
    assert shown(book, "policie") == "policies"
