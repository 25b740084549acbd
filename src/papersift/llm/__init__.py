"""The model client: OpenAI-compatible chat completions (issue 24a owns this package; see client.py)."""
