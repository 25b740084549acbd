"""The stop words' old home, kept for ``ranking/topics.py`` until it imports ``records.analyzer`` (which owns
them now); nothing else may import it.
"""

from __future__ import annotations

from papersift.records.analyzer import STOP_WORDS as STOP_WORDS
