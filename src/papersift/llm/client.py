"""A stand-in for issue 24a's model client, with the agreed interface (notes/LLM_API.md): OpenAI-compatible
chat completions, plain and streamed, from ``PAPERSIFT_LLM_URL``. Replaced by 24a's client on merge; it has
only what the reading layer and its tests need (a timeout, three tries on 429 and 5xx).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from papersift.settings import Settings

if TYPE_CHECKING:
    from papersift.store import Store

TRIES = 3
TIMEOUT = 60.0


class ModelError(Exception):
    """A call that failed; ``str(e)`` is one line a reader can be shown."""


@dataclass(frozen=True)
class Reply:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int


def available(settings: Settings) -> bool:
    return bool(settings.llm_url)


def model_name(settings: Settings) -> str:
    return settings.llm_model or "default"


def _request(settings: Settings, messages: Sequence[Mapping[str, str]], **options: Any) -> httpx.Request:
    if not settings.llm_url:
        raise ModelError("no model is configured (PAPERSIFT_LLM_URL)")
    headers = {"content-type": "application/json"}
    if settings.llm_key is not None:
        headers["authorization"] = f"Bearer {settings.llm_key.get_secret_value()}"
    body = {"model": model_name(settings), "messages": [dict(m) for m in messages], **options}
    url = settings.llm_url.rstrip("/") + "/chat/completions"
    return httpx.Request("POST", url, headers=headers, content=orjson.dumps(body))


def _send(client: httpx.Client, request: httpx.Request, stream: bool) -> httpx.Response:
    status = 0
    for attempt in range(TRIES):
        try:
            response = client.send(request, stream=stream)
        except httpx.TimeoutException as e:
            raise ModelError(f"timed out after {TIMEOUT:.0f} s") from e
        except httpx.TransportError as e:
            raise ModelError(f"the endpoint could not be reached ({type(e).__name__})") from e
        if response.status_code < 400:
            return response
        status = response.status_code
        response.close()
        if status != 429 and status < 500:
            raise ModelError(f"the endpoint answered {status}")
        if attempt + 1 < TRIES:
            time.sleep(0.1 * 2**attempt)
    raise ModelError(f"the endpoint answered {status} {'three times' if TRIES == 3 else f'{TRIES} times'}")


def complete(
    settings: Settings,
    messages: Sequence[Mapping[str, str]],
    *,
    max_tokens: int = 512,
    temperature: float = 0.2,
    store: Store | None = None,
) -> Reply:
    request = _request(settings, messages, max_tokens=max_tokens, temperature=temperature)
    with httpx.Client(timeout=TIMEOUT) as client:
        response = _send(client, request, stream=False)
        try:
            data = response.json()
            text = data["choices"][0]["message"]["content"] or ""
            usage = data.get("usage") or {}
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise ModelError("the endpoint's answer was not a chat completion") from e
    return Reply(
        text,
        str(data.get("model") or model_name(settings)),
        usage.get("prompt_tokens", 0),
        usage.get("completion_tokens", 0),
    )


def stream(
    settings: Settings,
    messages: Sequence[Mapping[str, str]],
    *,
    max_tokens: int = 1024,
    temperature: float = 0.2,
    store: Store | None = None,
) -> Iterator[str]:
    request = _request(settings, messages, max_tokens=max_tokens, temperature=temperature, stream=True)
    with httpx.Client(timeout=TIMEOUT) as client:
        response = _send(client, request, stream=True)
        done = False
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    done = True
                    break
                try:
                    delta = orjson.loads(payload)["choices"][0].get("delta", {}).get("content")
                except (ValueError, KeyError, IndexError, TypeError) as e:
                    raise ModelError("the endpoint's stream was not a chat completion") from e
                if delta:
                    yield delta
        except httpx.HTTPError as e:
            raise ModelError("the stream was cut halfway") from e
        finally:
            response.close()
        if not done:
            raise ModelError("the stream was cut halfway")
