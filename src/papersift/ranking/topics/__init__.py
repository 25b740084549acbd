"""The day at a glance: a listing's papers grouped into topics, each named by a phrase a third of
its papers write and at most a quarter of the day's papers, on a 2-D map; its JSON ``TopicMap``.

The method, one module a step (all scikit-learn; same papers, same map):

* ``clusters``: the papers' MiniLM vectors on their principal axes (PCA), grouped by k-means
  with k chosen by silhouette; topics no phrase names, or too large, split until names fit; the
  day's other papers grouped again and offered as topics where a name fits.
* ``naming``: each topic's name by c-TF-IDF among the phrases meeting one measure (a third of the
  topic writes it, at most a quarter of the day); ``book`` holds the day's phrases and how they
  are written, ``wording`` whether a phrase reads as a name.
* ``layout``: the map's coordinates.
* ``maps``: the steps in order (``topic_map``); ``map_shapes``: the JSON; ``parameters``: every
  figure, in one documented object; ``caches``: what a day's naming keeps."""

from papersift.ranking.topics.map_shapes import Cluster, MapPoint, TopicMap, map_json
from papersift.ranking.topics.maps import Namer, listing_entries, name_topics, topic_map
from papersift.ranking.topics.parameters import PARAMETERS, Parameters

MIN_TOPIC = PARAMETERS.min_topic
MOST_TOPICS = PARAMETERS.most_topics

__all__ = [
    "MIN_TOPIC",
    "MOST_TOPICS",
    "PARAMETERS",
    "Cluster",
    "MapPoint",
    "Namer",
    "Parameters",
    "TopicMap",
    "listing_entries",
    "map_json",
    "name_topics",
    "topic_map",
]
