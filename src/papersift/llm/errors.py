"""The one error of the model layer: a call that failed, worded for the reader (client and local default
both raise it, so neither imports the other for it)."""

from __future__ import annotations


class ModelError(Exception):
    """A call that failed, raised with a message (``records/messages.py``: ``reason(e)``); ``str(e)`` is its
    English, one line a reader can be shown, e.g. 'the endpoint answered 429 three times', 'timed out after
    60 s', 'daily token budget of 200000 reached'."""
