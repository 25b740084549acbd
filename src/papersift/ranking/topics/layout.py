"""Where each paper sits on the map: axes that set the topics apart, papers near their topic.

The axes are the first two principal axes of the topics' size-weighted centres stacked over the
papers themselves (the topics' spread weighted ``spread`` times over the papers'), their signs
fixed; each paper is drawn ``pull`` of the way from its topic's centre to its own place, and the
whole scaled into [0, 1]². Where the labels go on a drawing of a given size is the web's
(``web/topic_pages.place_labels``)."""

from __future__ import annotations

import numpy as np

from papersift.ranking.topics.parameters import PARAMETERS


def layout(vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """2-D positions in [0, 1]² of papers with ``vectors`` in topics ``labels``."""
    n = len(labels)
    if n < 2:
        return np.full((n, 2), 0.5)
    # two or three papers may give fewer than two dimensions: padded
    padding = np.zeros((n, max(0, 2 - vectors.shape[1])))
    vectors = np.hstack([vectors, padding])
    mean = vectors.mean(axis=0)
    sizes = np.bincount(labels)
    centroids = np.stack([vectors[labels == t].mean(axis=0) for t in range(len(sizes))])

    topic_spread = (centroids - mean) * PARAMETERS.spread * np.sqrt(sizes)[:, None]
    stacked = np.vstack([topic_spread, vectors - mean])
    axes = np.linalg.svd(stacked, full_matrices=False)[2][:2]
    # fixed signs: each axis's largest component positive
    largest = axes[np.arange(2), np.abs(axes).argmax(axis=1)]
    axes *= np.where(largest < 0, -1.0, 1.0)[:, None]

    centre_of = ((centroids - mean) @ axes.T)[labels]
    own = (vectors - mean) @ axes.T
    points = centre_of + PARAMETERS.pull * (own - centre_of)
    low = points.min(axis=0)
    span = np.ptp(points, axis=0)
    return np.asarray((points - low) / np.where(span > 0, span, 1.0))
