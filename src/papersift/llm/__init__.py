"""The language model: one client for OpenAI-compatible chat completions (``client.py``) and the local
default model papersift starts itself on 127.0.0.1 when no endpoint is configured (``local.py``)."""
