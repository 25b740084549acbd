"""Rankers over the indexes: search, related papers, recommendations, a reader's Daily Papers, the topic map,
and their evaluation."""
