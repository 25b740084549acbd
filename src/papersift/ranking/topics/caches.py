"""The caches a day's naming keeps, each explicit: what a phrase is written as, what the store says
of it, whether a lone word is a term, and each partition already named.

One ``Caches`` lives in each ``PhraseBook`` (one day's papers), so nothing outlives the map
being made."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Written:
    """How a phrase's papers write it: its most common form (the case kept: ``KV cache``), and
    whether it is written only inside hyphenated compounds (``level preference`` of
    ``sentence-level preference``)."""

    form: str
    only_in_compounds: bool


@dataclass(frozen=True, slots=True)
class InStore:
    """A phrase in the store: the share of its papers writing the phrase's rarest word pair, and
    whether the phrase is a collocation (each word pair written together often enough)."""

    share: float
    collocation: bool


@dataclass(frozen=True, slots=True)
class Partition:
    """A naming asked for: the papers' topic numbers, whether it is the final naming (categories
    and terms), and the topics asked about (empty: all)."""

    labels: bytes
    final: bool
    only: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Naming:
    """A topic's name (a key; ``""`` when none fits) and its terms (keys; final namings only)."""

    name: str
    terms: tuple[str, ...]


@dataclass(slots=True)
class Caches:
    """The caches of one ``PhraseBook``."""

    written: dict[str, Written] = field(default_factory=dict)
    in_store: dict[str, InStore] = field(default_factory=dict)
    lone_terms: dict[str, bool] = field(default_factory=dict)
    namings: dict[Partition, dict[int, Naming]] = field(default_factory=dict)
    rarity: Callable[[str], float] | None = None
