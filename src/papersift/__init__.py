"""papersift: a self-hosted research-paper radar for arXiv."""

__version__ = "0.1.0"
