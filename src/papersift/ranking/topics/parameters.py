"""The topic map's parameters, in one documented object (``PARAMETERS``).

Each figure was measured on ``bench/topics.py``'s day (NMI against the papers' primary
categories) and on ``bench/topic_names.py``'s ten busy days (the share of papers no name fits);
the docstrings of ``clusters`` and ``naming`` say what each rule keeps out."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Parameters:
    """How the day's papers are grouped, named and drawn."""

    # --- clusters (``clusters.py``) ---
    dimensions: int = 24
    """Principal axes of the MiniLM vectors k-means works on."""
    seed: int = 0
    """The fixed seed of PCA, k-means and the silhouette's sample: same papers, same map."""
    n_init: int = 3
    """k-means++ starts per k."""
    min_topic: int = 10
    """Papers per topic the ks are sized for (k up to n / ``min_topic``); a day of fewer than twice
    this many papers draws no map on the web."""
    max_topics: int = 16
    """The largest k tried by silhouette."""
    most_topics: int = 24
    """The most topics a day may have once unsettled topics are split."""
    min_group: int = 4
    """A k-means topic of fewer papers is an outlier: it joins the nearest topic."""
    min_part: int = 5
    """The fewest papers either half of a split may hold."""
    merge_below: int = 20
    """A topic of fewer papers that no phrase names may be merged into its nearest neighbour."""
    name_slack: float = 0.01
    """The ks whose silhouette is within this of the best are candidates…"""
    refined: int = 3
    """…and this many of them, those leaving the fewest papers unnamed, are refined."""
    largest: float = 0.4
    """No topic holds more than this share of the day: a larger one is split."""
    silhouette_sample: int = 1500
    """Papers the silhouette is measured on (a fixed sample) on larger days."""
    other_groups: int = 4
    """The day's other papers are split into at most this many groups, each offered as a topic when
    a name fits it."""

    # --- naming (``naming.py``) ---
    name_words: int = 5
    """Words of a name at most."""
    min_share: float = 1 / 3
    """A name is written by at least this share of its topic's papers (and by two papers at least)…"""
    day_share: float = 1 / 4
    """…and by at most this share of the day's papers: a phrase more of the day writes is the
    field's vocabulary of the day and names nothing, as does the name of a category more of the
    day lists."""
    contrast: float = 1.5
    """A name is at least this many times as common in its topic as in the rest of the day."""
    category_contrast: float = 3.0
    """A category naming a topic is listed this many times as often in it as in the rest of the
    day."""
    cut_short: float = 0.6
    """A phrase opening or ending a longer one that this share of its holders write names as the
    longer."""
    store_vocabulary: float = 0.2
    """A phrase written by more of the store than this is its field's vocabulary: it names no topic
    while topics are formed, and names one only when nothing else does."""
    collocation: float = 0.035
    """A final name's word pairs are each written together by this share of the store's papers
    writing the pair's rarer word."""
    zipf_common: float = 4.0
    """A word the lexicon lacks this common in English (Zipf) is no term (numbers, fillers)."""
    mmr: float = 0.7
    """The terms' weight of relevance against redundancy (maximal marginal relevance)."""
    terms: int = 5
    """Terms listed per topic."""

    # --- layout (``layout.py``) ---
    pull: float = 0.5
    """Each paper is drawn this share of the way from its topic's centre to its own place."""
    spread: float = 3.0
    """The weight of the topics' spread over the papers' own when the map's two axes are chosen."""


PARAMETERS = Parameters()
