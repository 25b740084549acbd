"""The one typed settings object: where data lives and how politely arXiv is asked.

Values come from arguments, then ``PAPERSIFT_*`` environment variables, then these defaults. A value that
is not allowed stops the program at start (``settings_problem`` words the message): an ``smtp_security``
other than ``none``, ``starttls`` or ``ssl``, or an SMTP login that would cross the network in plain text.
Secrets are ``SecretStr``: printing or logging the settings shows ``**********``.
"""

from __future__ import annotations

import ipaddress
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class SmtpSecurity(StrEnum):
    """How the SMTP connection is protected: not at all, upgraded with STARTTLS, or TLS from the start."""

    NONE = "none"
    STARTTLS = "starttls"
    SSL = "ssl"


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback address (127.0.0.0/8, ::1): traffic that never leaves the machine."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _default_home() -> Path:
    return Path.home() / ".local" / "share" / "papersift"


def _default_model_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "papersift" / "models"


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
    model_cache: Path = Field(default_factory=_default_model_cache)  # models derived once per machine (int8)
    embed_batch: int = Field(default=16, ge=1)
    embed_chunk: int = Field(default=256, ge=1)  # papers per committed write (and per Dask task)
    threads: int = Field(default=0, ge=0)  # torch threads; 0 = every core
    exact_below: int = Field(default=50_000, ge=0)  # vector counts below this are searched exactly
    # minutes the resident query helper of `search`/`related` stays loaded when unused (0: no helper)
    resident_minutes: float = Field(default=10.0, ge=0)
    # sentence vectors of every abstract (index/sentences.py): facets and sentence matching in related
    # papers and search, for about 2.3x the embedding time and 2.3 kB a paper
    sentences: bool = False
    web_assets: Path | None = None  # node_modules holding KaTeX (default: the checkout's)
    db: str | None = None  # postgresql://user@host/papersift or sqlite:///PATH (default: SQLite in home)
    # readers: one personal reader with no login by default; PAPERSIFT_ACCOUNTS=true for a lab server
    accounts: bool = False
    reader: str = "me"  # the CLI's reader (and the single-user web reader)
    base_url: str = "http://127.0.0.1:8000"  # links in digests and feeds
    secure_cookies: bool = False  # set behind HTTPS
    session_days: int = Field(default=30, ge=1)
    login_attempts: int = Field(default=5, ge=1)  # wrong passwords per name (x4 per address) before back-off
    login_backoff: float = Field(default=1.0, gt=0)  # seconds of the first wait, doubled per wrong password
    login_backoff_max: float = Field(default=900.0, gt=0)  # longest wait of an address (a name's: 60 s)
    # names the web face answers to besides loopback and base_url's host (PAPERSIFT_ALLOWED_HOSTS=a,b)
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = ()
    read_only: bool = False  # no writes and no library pages (serve --public-read-only)
    digest_k: int = Field(default=20, ge=1, le=200)
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_security: SmtpSecurity = SmtpSecurity.NONE  # none | starttls | ssl (exactly; anything else refused)
    smtp_user: str | None = None  # with security none: only to a loopback host (else refused at start)
    smtp_password: SecretStr | None = None
    smtp_timeout: float = 30.0
    mail_from: str = "papersift@localhost"
    # the language model (llm/): an OpenAI-compatible endpoint, or the local default papersift starts itself
    llm_url: str | None = None  # base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1
    llm_model: str | None = None  # the model the endpoint is asked for (e.g. deepseek-chat, qwen-plus)
    llm_key: SecretStr | None = None  # Bearer token, sent only to llm_url; never printed, logged or stored
    llm_local: bool = False  # with no llm_url: the local default model on 127.0.0.1 (the [llm] extra)
    llm_timeout: float = Field(default=120.0, gt=0)  # seconds a request (or a streamed chunk) may take
    llm_concurrency: int = Field(default=2, ge=1)  # requests in flight at once per process
    llm_retries: int = Field(default=3, ge=0)  # retries of a 429, a 5xx or an unreachable endpoint
    llm_retry_max: float = Field(default=60.0, ge=0)  # longest wait before a retry (Retry-After capped)
    llm_max_tokens: int | None = Field(default=None, ge=1)  # cap on max_tokens asked (else the caller's)
    llm_daily_tokens: int = Field(default=1_000_000, ge=0)  # tokens a UTC day, all models (0: no budget)
    llm_idle_minutes: float = Field(default=10.0, gt=0)  # the local default stops after this long unused
    llm_threads: int = Field(default=0, ge=0)  # the local default's CPU threads (0: half the cores)
    # -- reading (reading/): TL;DRs, 中文, FAQ, Ask --
    reading_public: bool = False  # a --public-read-only server calls the model for visitors only when true
    ask_per_hour: int = Field(default=20, ge=0)  # Ask questions per client address per hour (web)
    reading_pass_papers: int = Field(default=20, ge=0)  # texts made per reader (or digest) after sync/daily
    reading_claim_seconds: float = Field(default=300.0, gt=0)  # an older claim to make a text is retaken

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        return tuple(h.strip() for h in value.split(",") if h.strip()) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _no_plain_text_login(self) -> Settings:
        if self.smtp_user and self.smtp_security is SmtpSecurity.NONE and not is_loopback(self.smtp_host):
            raise ValueError(
                f"PAPERSIFT_SMTP_USER is set but PAPERSIFT_SMTP_SECURITY is none: the password would cross "
                f"the network to {self.smtp_host} in plain text; set PAPERSIFT_SMTP_SECURITY=starttls or ssl "
                "(a login without TLS is allowed only to a loopback host)"
            )
        return self

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


def settings_problem(error: ValidationError) -> str:
    """A one-line-per-setting message for settings that were refused, naming the ``PAPERSIFT_*`` variable
    and the value given (never the value of a secret)."""
    lines = []
    for e in error.errors(include_url=False):
        name = "_".join(str(part) for part in e["loc"]).upper()
        where = f"PAPERSIFT_{name}: " if name else ""
        message = str(e["msg"]).removeprefix("Value error, ")
        given = e.get("input")
        shown = name and "PASSWORD" not in name and isinstance(given, str | int | float)
        lines.append(f"{where}{message}" + (f" (got {given!r})" if shown else ""))
    return "; ".join(lines)
