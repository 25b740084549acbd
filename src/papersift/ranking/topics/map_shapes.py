"""The topic map's JSON shapes: ``TopicMap``, its ``Cluster`` topics, its ``MapPoint`` points."""

from __future__ import annotations

from typing import Any

from papersift.records.json_model import Shape


class Cluster(Shape):
    """A topic; one labelled ``""`` (at most one, last) is the day's other papers, no phrase naming
    them."""

    label: str
    terms: list[str]
    papers: list[str]


class MapPoint(Shape):
    """A paper's place on the map, in [0, 1]², and the number of its topic."""

    id: str
    x: float
    y: float
    cluster: int


class TopicMap(Shape):
    """A day's topics, largest first, and a point per paper in the order given (``date``:
    ``map_json``'s)."""

    category: str
    date: str
    clusters: list[Cluster]
    points: list[MapPoint]


def map_json(category: str, day: str, tmap: TopicMap) -> dict[str, Any]:
    """The map's JSON, with the listing it maps."""
    return tmap.model_copy(update={"category": category, "date": day}).dump()
