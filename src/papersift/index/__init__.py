"""Indexes derived from the store: dense vectors (``encoder``, ``dense``), sparse features (``lexical``).

Everything here can be rebuilt from the store; the files live in ``Settings.index_dir`` beside it, as index
generations that only ``generations`` writes (``pipeline.refresh`` builds them, ``pipeline.open_indexes``
maps the current one).

ONNX Runtime is loaded here, before any module of the package imports usearch: loaded after usearch's
extension, ONNX Runtime's own (1.23 and later, with usearch 2.26) crashes the process while it sets up its
C++ locale facets. ``tests/test_onnx_encoder.py`` checks that order still holds.
"""

import onnxruntime  # noqa: F401  (first: see above)
