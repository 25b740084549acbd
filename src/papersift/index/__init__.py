"""Indexes derived from the store: dense vectors (``encoder``, ``dense``), sparse features (``lexical``).

Everything here can be rebuilt from the store; the files live in ``Settings.index_dir`` beside it.
"""
