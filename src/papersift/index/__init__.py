"""Indexes derived from the store: dense vectors (``encoder``, ``dense``), sparse features (``lexical``).

Everything here can be rebuilt from the store; the files live in ``Settings.index_dir`` beside it, as index
generations that only ``generations`` writes (``pipeline.refresh`` builds them, ``indexes.open_indexes``
maps the current one).

Importing the package loads neither ONNX Runtime nor usearch: a keyword search needs neither, and each is
imported where it is first used (``dense._usearch`` keeps the order they must load in).
"""
