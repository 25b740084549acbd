"""Author names: when two spellings name the same person.

The index buckets authors by first initial + surname (``index.lexical.author_key``), which is what two
spellings of one person usually share, but so do "Xinyi Fan" and "Xinyue Fan". Within a bucket this module
decides: the surnames must agree, and the first given names must agree as whole names where both sides
spell them out ("Xinyi" ≠ "Xinyue", "Jean-François" = "Jean François"), else by their initials ("J. Smith"
= "John Smith" = "Jane Smith", "J.-F. Quint" = "Jean-François Quint"). Accents are folded ("Jérôme" =
"Jerome"); names in scripts without spaces (张伟) match only as a whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from papersift.records.analyzer import fold_letters, name_pieces


@dataclass(frozen=True, slots=True)
class Name:
    """A name as compared: surname, first given name spelled out ("" when only initials), its initials."""

    surname: str
    given: str
    initials: str


def parse_name(name: str) -> Name:
    """``"Jean-François Quint"`` → Name("quint", "jeanfrancois", "jf"); ``"J.-F. Quint"`` → (…, "", "jf")."""
    folded = fold_letters(name)
    if folded.count(",") == 1:  # "Quint, Jean-François"
        surname_part, given_part = folded.split(",")
        folded = f"{given_part} {surname_part}"
    tokens = folded.split()
    if not tokens:
        return Name("", "", "")
    surname = "".join(name_pieces(tokens[-1]))
    if len(tokens) == 1:
        return Name(surname, "", "")
    first = tokens[0]
    pieces = name_pieces(first)
    initials = "".join(p[:1] for p in pieces)
    spelled = all(len(p) > 1 for p in pieces) and "." not in first
    return Name(surname, "".join(pieces) if spelled else "", initials)


def same_name(a: Name, b: Name) -> bool:
    """Whether two parsed names can be one person (see the module docstring)."""
    if not a.surname or a.surname != b.surname:
        return False
    if not (a.initials or b.initials):
        return True  # both a single word (e.g. 张伟): equal as a whole
    if not (a.initials and b.initials):
        return False
    if a.given and b.given:
        return a.given == b.given
    short, long = sorted((a.initials, b.initials), key=len)
    return long.startswith(short)


def same_author(a: str, b: str) -> bool:
    return same_name(parse_name(a), parse_name(b))


def _bucket(name: Name) -> str:
    return f"{name.initials[:1]} {name.surname}"


class AuthorSet:
    """Names to match others against (e.g. every author of a reader's liked papers)."""

    def __init__(self, names: Iterable[str]) -> None:
        self._buckets: dict[str, list[Name]] = {}
        for raw in names:
            name = parse_name(raw)
            if name.surname:
                self._buckets.setdefault(_bucket(name), []).append(name)

    def __bool__(self) -> bool:
        return bool(self._buckets)

    def __contains__(self, raw: object) -> bool:
        if not isinstance(raw, str):
            return False
        name = parse_name(raw)
        return any(same_name(name, other) for other in self._buckets.get(_bucket(name), ()))

    def shared(self, authors: Iterable[str]) -> tuple[str, ...]:
        """Those of ``authors`` who are in the set."""
        return tuple(a for a in authors if a in self)
