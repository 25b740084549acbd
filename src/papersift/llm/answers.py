"""What an OpenAI-compatible endpoint answers, read for ``client.py``: a completion's text (a reasoning
model's ``<think>`` left out), a stream's JSON chunks (server-sent events, read by ``httpx-sse``), their
deltas and usage, and an error body's one-line reason (the key never in it). A broken answer is a
``ModelError`` with its message (``records/messages.py``), one line a reader can be shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import httpx
import httpx_sse
import orjson
from pydantic import SecretStr

from papersift.llm.errors import ModelError
from papersift.records.messages import Message, counted, say

if TYPE_CHECKING:
    from papersift.settings import Settings


def completion_text(data: Any) -> str:
    """The text of a completion that is not streamed (``choices[0].message.content``)."""
    try:
        text = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as e:
        raise ModelError(say("model_no_text")) from e
    if not isinstance(text, str):
        raise ModelError(say("model_no_text"))
    return re.sub(r"^\s*<think>.*?</think>\s*", "", text, flags=re.S)  # a reasoning model's thoughts


def events(settings: Settings, response: httpx.Response, parts: list[str]) -> Iterator[Mapping[str, Any]]:
    """The JSON chunks of a server-sent-event stream (``parts``: the text yielded so far, for the errors);
    ``ModelError`` when it stops before its end."""
    finished = False
    try:
        for event in httpx_sse.EventSource(response).iter_sse():
            payload = event.data.strip()
            if not payload:
                continue
            if payload == "[DONE]":
                return
            try:
                chunk = orjson.loads(payload)
            except orjson.JSONDecodeError as e:
                raise ModelError(say("model_chunk_not_json", chars=_chars(parts))) from e
            if not isinstance(chunk, dict):
                continue
            if "error" in chunk:
                raise ModelError(say("model_failed_mid_stream", error=error_text(chunk, None)))
            choices = chunk.get("choices") or []
            if choices and isinstance(choices[0], dict) and choices[0].get("finish_reason"):
                finished = True
            yield chunk
    except httpx_sse.SSEError as e:
        raise ModelError(say("model_not_a_stream", problem=str(e))) from e
    except httpx.TimeoutException as e:
        seconds = f"{settings.llm_timeout:g}"
        raise ModelError(say("model_timeout_stream", seconds=seconds, chars=_chars(parts))) from e
    except httpx.TransportError as e:
        raise ModelError(say("model_stream_cut_by", chars=_chars(parts), kind=type(e).__name__)) from e
    if not finished:
        raise ModelError(say("model_stream_cut", chars=_chars(parts)))


def delta(chunk: Mapping[str, Any]) -> str:
    """The text a stream's chunk adds ("" when none)."""
    choices = chunk.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        return ""
    content = (choices[0].get("delta") or {}).get("content")
    return content if isinstance(content, str) else ""


def usage_of(chunk: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The token usage a stream's chunk reports, if any."""
    usage = chunk.get("usage")
    if not usage:  # Moonshot puts the usage of a stream in its last choice
        choices = chunk.get("choices") or []
        usage = choices[0].get("usage") if choices and isinstance(choices[0], dict) else None
    return usage if isinstance(usage, dict) else None


def error_message(raw: bytes, key: SecretStr | None) -> str:
    """The one-line reason an error body gives (OpenAI's ``{"error": {"message"}}`` and its kin); a web
    page (a server that is no model API) is named by its title, never shown whole."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = raw.decode("utf-8", "replace")
        if _HTML.match(data):
            return say("answer_html_page", title=error_text(_title(data), key) or "-")
    return error_text(data, key)


_HTML = re.compile(r"\s*<(?:!doctype\s+html|html|head|body|title)\b", re.I)


def _title(page: str) -> str:
    """The ``<title>`` of an HTML page, else its first heading; empty when it has neither."""
    from lxml import html

    try:
        tree = html.fromstring(page)
    except (ValueError, SyntaxError):  # lxml's ParserError is a ValueError
        return ""
    for tag in ("title", "h1", "h2"):
        found = tree.find(f".//{tag}")
        text = "".join(str(t) for t in found.itertext()).strip() if found is not None else ""
        if text:
            return text
    return ""


def error_text(data: Any, key: SecretStr | None) -> str:
    """The reason in an error's JSON (or text) on one line of at most 300 characters, ``key`` masked."""
    text: Any = data
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            text = error.get("message") or error.get("code") or error
        else:
            text = error or data.get("message") or data.get("detail") or data
    line = " ".join(str(text).split())
    if key is not None and key.get_secret_value():
        line = line.replace(key.get_secret_value(), "**********")
    return line[:300] + ("…" if len(line) > 300 else "")


def _chars(parts: list[str]) -> Message:
    return counted("characters", sum(len(p) for p in parts))
