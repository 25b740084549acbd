"""The one typed settings object: where data lives and how politely arXiv is asked.

Values come from arguments, then ``PAPERSIFT_*`` environment variables, then the home's config
(``HOME/config.json``, a JSON object of setting names and values, written by ``papersift llm setup``; never
the home itself or a secret), then these defaults; ``origin`` says which one a value came from. A value that
is not allowed stops the program at start (``settings_problems`` words the messages): an ``smtp_security``
other than ``none``, ``starttls`` or ``ssl``, or an SMTP login that would cross the network in plain text.
Secrets are ``SecretStr``: printing or logging the settings shows ``**********``.
"""

from __future__ import annotations

import ipaddress
import json
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from papersift.records.files import write_atomic
from papersift.records.messages import ENGLISH, Message, invalid, say
from papersift.records.taxonomy import spelled


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


def environment_language() -> Literal["en", "zh"]:
    """``PAPERSIFT_LANG`` when en or zh, else zh where the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` set
    names Chinese (gettext's order), else en: the language known before (or without) the settings."""
    given, names = os.environ.get("PAPERSIFT_LANG", "").strip().lower(), ("LC_ALL", "LC_MESSAGES", "LANG")
    for value in (given if given in ("en", "zh") else "", *(os.environ.get(n) for n in names)):
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def _default_model_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "papersift" / "models"


CONFIG_NAME = "config.json"  # the home's config: HOME/config.json
_NOT_IN_CONFIG = frozenset({"home", "llm_key", "smtp_password"})  # the home itself and the secrets
# given as a,b,c (PAPERSIFT_DEFAULT_CATEGORIES=cs.CV,stat.ML, as the settings table shows its default)
_COMMA_LISTS = (
    "default_categories",
    "allowed_hosts",
    "zotero_groups",
    "zotero_collections",
    "zotero_not_for_me",
)


class HomeConfigError(ValueError):
    """The home's config cannot be read or holds what it may not (one line, naming the file)."""


def read_home_config(home: Path) -> dict[str, Any]:
    """The settings saved in ``home``'s config (``{}`` when there is none); ``HomeConfigError`` when it is not
    a JSON object of known setting names, or names the home or a secret."""
    path = home / CONFIG_NAME
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise HomeConfigError(say("config_unreadable", path=str(path), problem=str(e.strerror))) from e
    import orjson

    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise HomeConfigError(say("config_not_json", path=str(path), problem=str(e))) from e
    if not isinstance(data, dict):
        raise HomeConfigError(say("config_not_object", path=str(path)))
    for name in data:
        if name in ("llm_key", "smtp_password"):
            raise HomeConfigError(say("config_secret", path=str(path), name=name, variable=name.upper()))
        if name not in Settings.model_fields or name in _NOT_IN_CONFIG:
            raise HomeConfigError(say("config_not_setting", path=str(path), name=repr(name)))
    return data


def save_home_config(home: Path, values: dict[str, Any]) -> Path:
    """``values`` merged into ``home``'s config (a value of None removes the setting), written atomically
    (a temporary name in the home, fsync, rename); its path."""
    config = read_home_config(home)
    for name, value in values.items():
        if name not in Settings.model_fields or name in _NOT_IN_CONFIG:
            raise HomeConfigError(say("config_not_saved", name=repr(name)))
        if value is None:
            config.pop(name, None)
        else:
            config[name] = str(value) if isinstance(value, Path) else value
    import orjson

    path = home / CONFIG_NAME
    write_atomic(path, orjson.dumps(config, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    return path


class _HomeConfigSource(PydanticBaseSettingsSource):
    """The home's config as a settings source: the home is the one the arguments or the environment name
    (else the default home)."""

    def __init__(
        self,
        settings_cls: type[BaseSettings],
        init: PydanticBaseSettingsSource,
        env: PydanticBaseSettingsSource,
    ) -> None:
        super().__init__(settings_cls)
        self.init = init
        self.env = env

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # __call__ reads the whole file at once

    def __call__(self) -> dict[str, Any]:
        home = self.init().get("home") or self.env().get("home") or _default_home()
        return read_home_config(Path(home).expanduser())


class Settings(BaseSettings):
    """papersift's configuration (env prefix ``PAPERSIFT_``)."""

    model_config = SettingsConfigDict(env_prefix="PAPERSIFT_", frozen=True)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        home_config = _HomeConfigSource(settings_cls, init_settings, env_settings)
        return init_settings, env_settings, home_config, dotenv_settings, file_secret_settings

    home: Path = Field(
        default_factory=_default_home,
        description="Data directory: the SQLite store, the index generations, the vector cache.",
        json_schema_extra={"shown": "~/.local/share/papersift"},
    )
    oai_url: str = Field(
        default="https://oaipmh.arxiv.org/oai", description="arXiv's OAI-PMH endpoint (harvest)."
    )
    api_url: str = Field(default="https://export.arxiv.org/api/query", description="arXiv's API endpoint.")
    rss_url: str = Field(
        default="https://rss.arxiv.org/atom", description="arXiv's RSS/Atom feeds (today's listings)."
    )
    request_interval: float = Field(default=3.0, description="Seconds between requests to one arXiv service.")
    max_retries: int = Field(default=5, description="Attempts of one arXiv request before giving up.")
    timeout: float = Field(default=60.0, description="Seconds an arXiv request may take.")
    user_agent: str = Field(
        default="papersift/0.1 (self-hosted arXiv radar)", description="User-Agent sent to arXiv."
    )
    ingest_chunk: int = Field(default=20_000, ge=1, description="Records per ingest transaction.")
    default_categories: Annotated[tuple[str, ...], NoDecode] = Field(
        default=("cs.LG", "cs.CL", "cs.AI", "cs.CV", "stat.ML"),
        description="Categories harvested (and read by Daily Papers) when none are given or followed.",
    )
    model: str = Field(
        default="all-MiniLM-L6-v2", description="The embedding model (or a sentence-transformers path)."
    )
    quantize: bool = Field(
        default=True, description="int8 compute: dynamic quantisation of the model on the CPU."
    )
    runtime: Literal["onnx", "torch"] = Field(
        default="onnx", description="ONNX Runtime, or sentence-transformers on torch (the [torch] extra)."
    )
    model_cache: Path = Field(
        default_factory=_default_model_cache,
        description="Derived once per machine: the int8 model, the 中文 dictionary's compact file.",
        json_schema_extra={"shown": "$XDG_CACHE_HOME/papersift/models (~/.cache/…)"},
    )
    embed_batch: int = Field(default=16, ge=1, description="Texts per batch the model encodes.")
    embed_chunk: int = Field(default=256, ge=1, description="Papers per committed write (and per Dask task).")
    threads: int = Field(default=0, ge=0, description="Threads of the model's runtime; 0: every core.")
    exact_below: int = Field(
        default=50_000, ge=0, description="Vector counts below this are searched exactly."
    )
    resident_minutes: float = Field(
        default=10.0,
        ge=0,
        description="Minutes the resident helper of search/related stays loaded when unused (0: no helper).",
    )
    sentences: bool = Field(
        default=False,
        description="Sentence vectors of every abstract (facets, sentence matching): ~2.3x embedding time.",
    )
    web_assets: Path | None = Field(
        default=None, description="node_modules holding KaTeX (default: the checkout's)."
    )
    db: str | None = Field(
        default=None,
        description="postgresql://user@host/papersift or sqlite:///PATH (default: SQLite in home).",
    )
    accounts: bool = Field(
        default=False, description="Reader accounts with logins (a lab server); else one reader."
    )
    reader: str = Field(default="me", description="The CLI's reader (and the single-user web reader).")
    lang: Literal["en", "zh"] = Field(
        default_factory=environment_language,
        description="The CLI's language, en or zh: its messages and labels (JSON stays as it is).",
        json_schema_extra={"shown": "zh under a Chinese locale (LANG=zh_CN…), else en"},
    )
    base_url: str = Field(
        default="http://127.0.0.1:8000", description="The public address: links in digests, feeds."
    )
    secure_cookies: bool = Field(default=False, description="Cookies sent over HTTPS only: set behind HTTPS.")
    session_days: int = Field(default=30, ge=1, description="Days a login session lasts.")
    login_attempts: int = Field(
        default=5, ge=1, description="Wrong passwords per name (x4 per address) in a day before back-off."
    )
    login_backoff: float = Field(
        default=1.0, gt=0, description="Seconds of the first wait, doubled per wrong password."
    )
    login_backoff_max: float = Field(
        default=900.0, gt=0, description="Longest wait of an address, in seconds (a name's: 60 s)."
    )
    allowed_hosts: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(), description="Host names answered besides loopback and base_url's host (comma-separated)."
    )
    read_only: bool = Field(
        default=False, description="No writes and no library pages (serve --public-read-only)."
    )
    digest_k: int = Field(default=20, ge=1, le=200, description="Papers in a digest.")
    smtp_host: str = Field(default="127.0.0.1", description="SMTP server of digests by e-mail.")
    smtp_port: int = Field(default=25, description="Its port.")
    smtp_security: SmtpSecurity = Field(
        default=SmtpSecurity.NONE,
        description="none, starttls or ssl (exactly; anything else is refused at start).",
    )
    smtp_user: str | None = Field(
        default=None, description="SMTP login; with security none only to a loopback host (else refused)."
    )
    smtp_password: SecretStr | None = Field(
        default=None, description="SMTP password (never printed or logged)."
    )
    smtp_timeout: float = Field(default=30.0, description="Seconds an SMTP exchange may take.")
    mail_from: str = Field(default="papersift@localhost", description="The From address of digests.")
    # the language model (llm/): an OpenAI-compatible endpoint, or a GGUF file papersift serves itself
    llm_url: str | None = Field(
        default=None, description="Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1."
    )
    llm_model: str | None = Field(
        default=None, description="The model the endpoint is asked for (e.g. deepseek-chat, qwen-plus)."
    )
    llm_key: SecretStr | None = Field(
        default=None, description="Bearer token, sent only to llm_url; never printed, logged or stored."
    )
    llm_key_file: Path | None = Field(
        default=None,
        description="A file of yours holding the key (read if PAPERSIFT_LLM_KEY is unset), not in the home.",
    )
    llm_local: bool = Field(
        default=False, description="With no llm_url: serve llm_gguf on 127.0.0.1 (the [llm] extra)."
    )
    llm_gguf: Path | None = Field(
        default=None, description="A GGUF model file of yours that the local server runs (llm_local)."
    )
    llm_gguf_sha256: str | None = Field(
        default=None,
        pattern=r"^[0-9a-fA-F]{64}$",
        description="The GGUF file's SHA-256 as its publisher gives it: checked before it is loaded.",
    )
    llm_timeout: float = Field(
        default=120.0, gt=0, description="Seconds a model request (or a streamed chunk) may take."
    )
    llm_concurrency: int = Field(default=2, ge=1, description="Model requests in flight at once per process.")
    llm_retries: int = Field(
        default=3, ge=0, description="Retries of a 429, a 5xx or an unreachable model endpoint."
    )
    llm_retry_max: float = Field(
        default=60.0, ge=0, description="Longest wait before a model retry, in seconds (Retry-After capped)."
    )
    llm_max_tokens: int | None = Field(
        default=None, ge=1, description="Cap on the max_tokens asked of the model (else the caller's)."
    )
    llm_daily_tokens: int = Field(
        default=1_000_000, ge=0, description="Model tokens a UTC day, all models together (0: no budget)."
    )
    llm_idle_minutes: float = Field(
        default=10.0, gt=0, description="Minutes unused after which the local model stops."
    )
    llm_threads: int = Field(
        default=0, ge=0, description="The local model's CPU threads (0: half the cores)."
    )
    query_model: bool = Field(
        default=True,
        description="A 中文 query goes to the model set up, to be translated (checked); false: offline only.",
    )
    # reading (reading/): TL;DRs, 中文, FAQ, Ask
    reading_public: bool = Field(
        default=False, description="A --public-read-only server calls the model for visitors only when true."
    )
    ask_per_hour: int = Field(
        default=20, ge=0, description="Ask questions per client address per hour (web)."
    )
    reading_pass_papers: int = Field(
        default=20, ge=0, description="Texts made per reader (or digest) by the pass after sync/daily."
    )
    reading_claim_seconds: float = Field(
        default=300.0,
        gt=0,
        description="Seconds after which another process retakes a claim to write a text.",
    )
    reading_context_chars: int = Field(
        default=24_000,
        ge=0,
        description="Characters of a paper's full text a FAQ or Ask prompt carries (a TL;DR a quarter; "
        "sections chosen for it; 0: the abstract only).",
    )
    # Zotero as the library's source (library/zotero_sync.py): `library sync zotero`, before daily / digest
    zotero_url: str = Field(
        default="https://api.zotero.org", description="Base URL of the Zotero Web API v3."
    )
    zotero_key: SecretStr | None = Field(
        default=None, description="Zotero API key, sent only to zotero_url; never printed, logged or stored."
    )
    zotero_user: int | None = Field(
        default=None,
        ge=1,
        description="Zotero user id whose library is the reader's (sync before daily/digest).",
    )
    zotero_groups: Annotated[tuple[int, ...], NoDecode] = Field(
        default=(), description="Zotero group ids synced too (comma-separated)."
    )
    zotero_collections: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="Zotero collections that count as interests (comma-separated names; none: all).",
    )
    zotero_not_for_me: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(), description='Zotero collections whose items are "not for me" (rated -1; comma-separated).'
    )
    # full text (services/eprints.py, enrich.py): arXiv's e-prints and PDFs, Semantic Scholar's counts
    eprint_url: str = Field(
        default="https://arxiv.org/e-print", description="arXiv's e-print (TeX source) endpoint (fulltext)."
    )
    pdf_url: str = Field(default="https://arxiv.org/pdf", description="arXiv's PDF endpoint (fulltext).")
    fulltext_pass_papers: int = Field(
        default=10,
        ge=0,
        description="Top Daily Papers per reader fetched in full by the pass after sync/daily.",
    )
    fulltext_pass_saved: int = Field(
        default=100, ge=0, description="Saved papers per reader (newest first) fetched in full by that pass."
    )
    # thumbnails (services/thumbnails.py): the first page of a PDF fetched for full text
    thumbnails_fetch: bool = Field(
        default=False,
        description="Download a PDF just for its thumbnail (else only PDFs fetched for full text give one).",
    )
    thumbnails_in_listings: bool = Field(
        default=False, description="First-page thumbnails in listings and search results too (where kept)."
    )
    s2_url: str = Field(
        default="https://api.semanticscholar.org", description="Semantic Scholar's API (enrich)."
    )
    s2_key: SecretStr | None = Field(
        default=None, description="Semantic Scholar API key (optional; sent as x-api-key, never shown)."
    )
    push: SecretStr | None = Field(
        default=None,
        description="Apprise URLs the day's papers are pushed to (comma or space separated; a secret: "
        "shown only as scheme and host).",
    )

    @field_validator(*_COMMA_LISTS, mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if value.lstrip().startswith("["):  # a JSON list, as pydantic-settings reads lists by default
            try:
                return tuple(json.loads(value))
            except (ValueError, TypeError):
                return value  # said as not a valid list
        return tuple(v.strip() for v in value.split(",") if v.strip())

    @field_validator("default_categories")
    @classmethod
    def _as_arxiv_spells_them(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(spelled(c) for c in value)  # PAPERSIFT_DEFAULT_CATEGORIES in any case

    @model_validator(mode="before")
    @classmethod
    def _key_from_its_file(cls, data: Any) -> Any:
        """``llm_key`` read from ``llm_key_file`` when no key is given itself."""
        if not isinstance(data, dict) or not data.get("llm_key_file") or data.get("llm_key"):
            return data
        path = Path(str(data["llm_key_file"])).expanduser()
        try:
            key = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as e:
            why = str(e.strerror) if isinstance(e, OSError) else say("key_file_not_text")
            raise ValueError(say("key_file_unreadable", path=str(path), problem=why)) from e
        if not key:
            raise ValueError(say("key_file_empty", path=str(path)))
        return {**data, "llm_key": key}

    @model_validator(mode="after")
    def _no_plain_text_login(self) -> Settings:
        if self.smtp_user and self.smtp_security is SmtpSecurity.NONE and not is_loopback(self.smtp_host):
            raise ValueError(say("smtp_plain_login", host=self.smtp_host))
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


def origin(settings: Settings, name: str) -> str:
    """Where ``settings.name`` came from: ``env`` (``PAPERSIFT_*``), ``home config``, ``key file`` (the
    key, read from ``llm_key_file``), ``argument`` or ``default``."""
    if name in EnvSettingsSource(Settings)():
        return "env"
    if name == "llm_key" and settings.llm_key is not None and settings.llm_key_file is not None:
        return "key file"
    try:
        if name in read_home_config(settings.home):
            return "home config"
    except HomeConfigError:
        pass
    default = Settings.model_fields[name].get_default(call_default_factory=True)
    return "default" if getattr(settings, name) == default else "argument"


def settings_problems(error: ValidationError) -> list[Message]:
    """What is wrong with the settings that were refused, a message a setting (``records/messages.invalid``)
    naming its ``PAPERSIFT_*`` variable and the value given (never the value of a secret)."""
    problems = []
    for e in error.errors(include_url=False):
        name = "_".join(str(part) for part in e["loc"])
        problem, given = invalid(e, f"PAPERSIFT_{name.upper()}" if name else "PAPERSIFT"), e.get("input")
        field = Settings.model_fields.get(str(e["loc"][0])) if e["loc"] else None
        secret = field is None or "SecretStr" in str(field.annotation)
        said = "%(value)s" in ENGLISH[problem.key]  # a number that is not one says its value itself
        shown = not secret and not said and isinstance(given, str | int | float)
        problems.append(say("setting_got", problem=problem, value=repr(given)) if shown else problem)
    return problems


TABLE_START = "<!-- settings table: generated by `python -m papersift.settings --readme README.md` -->"
TABLE_END = "<!-- end of the settings table -->"


def _shown(name: str) -> str:
    """A setting's default as the table shows it (the same on every machine)."""
    info = Settings.model_fields[name]
    extra = info.json_schema_extra
    if isinstance(extra, dict) and "shown" in extra:
        return str(extra["shown"])
    value = info.get_default(call_default_factory=False)
    if value is None or value == ():
        return "—"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if isinstance(value, bool):
        return str(value).lower()
    return str(value.value if isinstance(value, StrEnum) else value)


def settings_table() -> str:
    """Every setting as a Markdown table row: its variable, default and description, in field order."""
    rows = ["| variable | default | what |", "|---|---|---|"]
    for name, info in Settings.model_fields.items():
        what = (info.description or "").replace("|", "\\|")
        rows.append(f"| `PAPERSIFT_{name.upper()}` | `{_shown(name)}` | {what} |")
    return "\n".join(rows) + "\n"


def with_table(text: str) -> str:
    """``text`` (the README) with the settings table between its markers replaced by the current one."""
    head, start, rest = text.partition(TABLE_START)
    _, end, tail = rest.partition(TABLE_END)
    if not start or not end:
        raise ValueError(f"the markers {TABLE_START!r} and {TABLE_END!r} are not both there")
    return f"{head}{start}\n{settings_table()}{end}{tail}"


if __name__ == "__main__":  # python -m papersift.settings --markdown | --readme README.md
    import sys

    if sys.argv[1:2] == ["--readme"] and len(sys.argv) == 3:
        readme = Path(sys.argv[2])
        readme.write_text(with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
    elif sys.argv[1:] == ["--markdown"]:
        sys.stdout.write(settings_table())
    else:
        sys.exit("usage: python -m papersift.settings --markdown | --readme README.md")
