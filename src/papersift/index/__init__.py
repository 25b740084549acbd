"""Indexes derived from the store: dense vectors (``encoder``, ``dense``), sparse features (``lexical``).

Everything here can be rebuilt from the store; the files live in ``Settings.index_dir`` beside it, as index
generations that only ``generations`` writes (``pipeline.refresh`` builds them, ``pipeline.open_indexes``
maps the current one).
"""
