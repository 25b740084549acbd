"""The topic map's JSON (``papersift topics --format json``, ``/api/map/...``): one model per shape, the
models ``web/models.py`` lists for the OpenAPI document."""

from __future__ import annotations

from papersift.records.json_model import Shape


class Cluster(Shape):
    """A topic; one labelled ``""`` (at most one, last) is the day's other papers, no phrase naming them."""

    label: str
    terms: list[str]
    papers: list[str]


class MapPoint(Shape):
    id: str
    x: float
    y: float
    cluster: int


class TopicMap(Shape):
    """A day's topic map (``ranking/topics.py: map_json``)."""

    category: str
    date: str
    clusters: list[Cluster]
    points: list[MapPoint]
