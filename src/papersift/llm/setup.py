"""Connecting a model (``papersift llm setup``): finding an OpenAI-compatible server on this machine or a
provider by name, the models it offers, one test call, and the URL and model saved in the home's config.

Local servers are found by asking ``GET http://127.0.0.1:PORT/v1/models`` on the ports their projects use by
default (Ollama 11434, llama.cpp's server 8080, LM Studio 1234, vLLM 8000), in parallel with a short
timeout; a port counts only when it answers 200 with OpenAI's model list (``{"data": [{"id"}…]}``), so a web
server on the same port (``papersift serve`` on 8000) is not taken for one. No key is sent to a probe.

Providers are named by the base URLs their documentation gives for the OpenAI-compatible API. The key is
never saved here: it stays in ``PAPERSIFT_LLM_KEY`` or in the file ``PAPERSIFT_LLM_KEY_FILE`` names (its
path may be saved; the file must be outside the home).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import SecretStr

from papersift.llm import client
from papersift.llm.errors import ModelError
from papersift.records.messages import say

if TYPE_CHECKING:
    from papersift.settings import Settings


@dataclass(frozen=True)
class Provider:
    """A hosted API: its name as shown, its OpenAI-compatible base URL and a model to suggest."""

    name: str
    url: str
    suggested: str


PROVIDERS = {
    "deepseek": Provider("DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat"),
    "kimi": Provider("Kimi (Moonshot)", "https://api.moonshot.cn/v1", "kimi-k2.6"),
    "moonshot": Provider("Kimi (Moonshot)", "https://api.moonshot.cn/v1", "kimi-k2.6"),
    "moonshot-intl": Provider("Kimi (Moonshot, international)", "https://api.moonshot.ai/v1", "kimi-k2.6"),
    "qwen": Provider("Qwen (DashScope)", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus"),
    "dashscope": Provider(
        "Qwen (DashScope)", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus"
    ),
    "dashscope-intl": Provider(
        "Qwen (DashScope, international)",
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
        "qwen-plus",
    ),
    "openai": Provider("OpenAI", "https://api.openai.com/v1", "gpt-4o-mini"),
}

# (server, port) on 127.0.0.1: the ports each project listens on by default
LOCAL_SERVERS: tuple[tuple[str, int], ...] = (
    ("Ollama", 11434),
    ("llama.cpp", 8080),
    ("LM Studio", 1234),
    ("vLLM", 8000),
)
PROBE_TIMEOUT = 1.0  # seconds a local port may take to answer its model list
LIST_TIMEOUT = 20.0  # seconds a provider may take to list its models
TEST_PROMPT = "Reply with one word: ready"


@dataclass(frozen=True)
class Found:
    """An OpenAI-compatible server answering on this machine: what usually listens there, its base URL and
    the models it lists."""

    server: str
    url: str
    models: tuple[str, ...]


def provider(name: str) -> Provider:
    """The provider called ``name`` (case-insensitive); ``ModelError`` naming the known ones otherwise."""
    known = PROVIDERS.get(name.strip().lower())
    if known is None:
        raise ModelError(say("model_no_provider", name=repr(name), known=", ".join(PROVIDERS)))
    return known


def checked_url(url: str) -> str:
    """``url`` without a trailing slash; ``ModelError`` unless it is an http(s) URL with a host."""
    try:
        parsed = httpx.URL(url.strip())
    except httpx.InvalidURL as e:
        raise ModelError(say("model_not_a_url", url=repr(url))) from e
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ModelError(say("model_not_http", url=repr(url)))
    return url.strip().rstrip("/")


def discover(
    servers: Sequence[tuple[str, int]] = LOCAL_SERVERS, timeout: float = PROBE_TIMEOUT
) -> list[Found]:
    """The OpenAI-compatible servers answering on 127.0.0.1 at ``servers``' ports, in their order."""
    if not servers:
        return []

    def probe(server: tuple[str, int]) -> Found | None:
        url = f"http://127.0.0.1:{server[1]}/v1"
        try:
            models = _models(url, None, timeout)
        except ModelError:
            return None
        return None if models is None else Found(server[0], url, tuple(models))

    with ThreadPoolExecutor(max_workers=len(servers)) as pool:
        return [f for f in pool.map(probe, servers) if f is not None]


def models(url: str, key: SecretStr | None, timeout: float = LIST_TIMEOUT) -> list[str] | None:
    """The model names ``url`` lists (``GET {url}/models``, with the key as a Bearer token), or None where it
    keeps no list (a 404 or 405, or a body of another shape); ``ModelError`` when it cannot be reached or
    refuses (a 401 names the key)."""
    return _models(url.rstrip("/"), key, timeout)


def trial_call(settings: Settings, url: str, model: str, key: SecretStr | None) -> client.Reply:
    """One tiny chat completion to ``url`` with ``model`` (no retries, counted nowhere); ``ModelError``."""
    trial = settings.model_copy(
        update={"llm_url": url.rstrip("/"), "llm_model": model, "llm_key": key, "llm_retries": 0}
    )
    messages = [{"role": "user", "content": TEST_PROMPT}]
    return client.complete(trial, messages, max_tokens=16, temperature=0.0)


def key_outside_home(key_file: Path, home: Path) -> Path:
    """``key_file`` made absolute; ``ModelError`` when it is in the home (copies of the home would carry
    the key) or cannot be read."""
    path = key_file.expanduser().resolve()
    if path.is_relative_to(home.expanduser().resolve()):
        raise ModelError(say("model_key_in_home", path=str(path)))
    try:
        if not path.read_text(encoding="utf-8").strip():
            raise ModelError(say("model_key_empty", path=str(path)))
    except (OSError, UnicodeDecodeError) as e:
        raise ModelError(say("model_key_unreadable", path=str(path))) from e
    return path


def read_key(path: Path) -> SecretStr:
    """The key a key file holds (its text, stripped)."""
    return SecretStr(path.read_text(encoding="utf-8").strip())


def _models(url: str, key: SecretStr | None, timeout: float) -> list[str] | None:
    headers = {"Accept": "application/json", "User-Agent": "papersift/0.1"}
    if key is not None and key.get_secret_value():
        headers["Authorization"] = f"Bearer {key.get_secret_value()}"
    try:
        response = httpx.get(
            f"{url}/models", headers=headers, timeout=timeout, follow_redirects=False, trust_env=False
        )
    except httpx.TimeoutException as e:
        raise ModelError(say("model_no_answer_within", url=url, seconds=f"{timeout:g}")) from e
    except httpx.HTTPError as e:
        raise ModelError(say("model_cannot_reach", url=url, kind=type(e).__name__)) from e
    if response.status_code in (401, 403):
        raise ModelError(say("model_key_refused", url=url, status=response.status_code))
    if response.status_code in (404, 405):
        return None
    if response.status_code != 200:
        raise ModelError(say("model_models_answered", url=url, status=response.status_code))
    try:
        data: Any = response.json()
    except ValueError:
        return None
    listed = data.get("data") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        return None
    return [str(m["id"]) for m in listed if isinstance(m, dict) and m.get("id")]
