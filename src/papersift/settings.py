"""The one typed settings object: where data lives and how politely arXiv is asked.

Values come from arguments, then ``PAPERSIFT_*`` environment variables, then these defaults.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_home() -> Path:
    return Path.home() / ".local" / "share" / "papersift"


class Settings(BaseSettings):
    """papersift's configuration (env prefix ``PAPERSIFT_``)."""

    model_config = SettingsConfigDict(env_prefix="PAPERSIFT_", frozen=True)

    home: Path = Field(default_factory=_default_home)
    oai_url: str = "https://oaipmh.arxiv.org/oai"
    api_url: str = "https://export.arxiv.org/api/query"
    rss_url: str = "https://rss.arxiv.org/atom"
    request_interval: float = 3.0  # seconds between requests to one arXiv service
    max_retries: int = 5
    timeout: float = 60.0
    user_agent: str = "papersift/0.1 (self-hosted arXiv radar)"
    ingest_chunk: int = Field(default=20_000, ge=1)  # records per transaction
    default_categories: tuple[str, ...] = ("cs.LG", "cs.CL", "cs.AI", "cs.CV", "stat.ML")
    model: str = "all-MiniLM-L6-v2"  # or any sentence-transformers model path
    quantize: bool = True  # int8 dynamic quantisation of the model's Linear layers on the CPU
    runtime: Literal["onnx", "torch"] = "onnx"  # ONNX Runtime, or sentence-transformers (the [torch] extra)
    embed_batch: int = Field(default=16, ge=1)
    embed_chunk: int = Field(default=256, ge=1)  # papers per committed write (and per Dask task)
    threads: int = Field(default=0, ge=0)  # torch threads; 0 = every core
    exact_below: int = Field(default=50_000, ge=0)  # vector counts below this are searched exactly
    web_assets: Path | None = None  # node_modules holding KaTeX (default: the checkout's)
    db: str | None = None  # postgresql://user@host/papersift or sqlite:///PATH (default: SQLite in home)
    # readers: one personal reader with no login by default; PAPERSIFT_ACCOUNTS=true for a lab server
    accounts: bool = False
    reader: str = "me"  # the CLI's reader (and the single-user web reader)
    base_url: str = "http://127.0.0.1:8000"  # links in digests and feeds
    secure_cookies: bool = False  # set behind HTTPS
    session_days: int = Field(default=30, ge=1)
    login_attempts: int = Field(default=5, ge=1)  # wrong passwords per name per 15 minutes
    digest_k: int = Field(default=20, ge=1, le=200)
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_security: str = "none"  # none | starttls | ssl
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_timeout: float = 30.0
    mail_from: str = "papersift@localhost"

    @property
    def db_path(self) -> Path:
        return self.home / "papersift.db"

    @property
    def index_dir(self) -> Path:
        return self.home / "index"

    @property
    def cache_path(self) -> Path:
        """Vectors by (model, text) so rebuilding a store never re-embeds the same text."""
        return self.home / "vector-cache.db"
