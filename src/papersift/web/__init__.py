"""The web face: server-rendered pages (Jinja2) and their JSON twins under ``/api`` (FastAPI)."""
