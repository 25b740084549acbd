"""What the tests and the benchmarks share: the sandbox every test runs in (``sandbox``), the real data and
the records made from it (``data``), the real processes they start (``processes``: the CLI, ``serve``, a free
port) and the pytest fixtures built on them (``fixtures``), each defined once."""
