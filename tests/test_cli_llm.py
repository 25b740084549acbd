"""``papersift llm status``: the endpoint (without the key or credentials in the URL), the model, today's
tokens against the budget and the failures the client recorded, as text and as JSON."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from papersift.llm import client
from papersift.llm.errors import ModelError
from papersift.settings import Settings
from papersift.store.sqlite import SqliteStore
from tests.llm_server import completion, error, fake_model
from tests.support.inproc import invoke

KEY = "sk-status-secret-42"


def test_status_shows_usage_and_failures_but_never_the_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with fake_model(
        [completion("ok", 40, 2), error(429, "Rate limit reached", **{"Retry-After": "0"})]
    ) as model:
        s = Settings(home=home, llm_url=model.url, llm_model="qwen-plus", llm_key=KEY, llm_retries=0)
        store = SqliteStore(s.db_path)
        try:
            client.complete(s, [{"role": "user", "content": "hi"}], store=store)
            with contextlib.suppress(ModelError):
                client.complete(s, [{"role": "user", "content": "hi"}], store=store)
        finally:
            store.close()
        url = model.url.replace("http://", "http://someone:hunter2@")
    env = {"PAPERSIFT_LLM_URL": url, "PAPERSIFT_LLM_MODEL": "qwen-plus", "PAPERSIFT_LLM_KEY": KEY}
    env["PAPERSIFT_LLM_DAILY_TOKENS"] = "5000"
    shown = invoke("llm", "status", "--format", "json", home=home, env=env).stdout
    assert KEY not in shown and "hunter2" not in shown
    status = json.loads(shown)
    assert status["endpoint"] == model.url
    assert status["model"] == "qwen-plus"
    assert status["key"] == "set"
    assert status["today"]["tokens"] == 42
    assert status["today"]["budget"] == 5000
    assert status["today"]["models"] == [
        {"model": "qwen-plus", "calls": 1, "prompt_tokens": 40, "completion_tokens": 2}
    ]
    (failure,) = status["failures"]
    assert failure["model"] == "qwen-plus"
    assert failure["reason"] == "the endpoint answered 429 once: Rate limit reached"
    text = invoke("llm", "status", home=home, env=env).stdout
    assert KEY not in text and "hunter2" not in text
    assert f"endpoint: {model.url} (key set)" in text
    assert "42 tokens of 5000" in text
    assert "qwen-plus: the endpoint answered 429 once: Rate limit reached" in text


def test_status_with_nothing_configured_says_how_to_configure(tmp_path: Path) -> None:
    env = {"PAPERSIFT_LLM_URL": "", "PAPERSIFT_LLM_LOCAL": "false"}
    text = invoke("llm", "status", home=tmp_path, env=env).stdout
    assert "endpoint: none (connect one: papersift llm setup; or set PAPERSIFT_LLM_URL" in text
    assert "failures: none" in text


def test_status_says_where_url_model_and_key_came_from(tmp_path: Path) -> None:
    from papersift.settings import save_home_config

    key_file = tmp_path / "k.key"
    key_file.write_text(KEY)
    home = tmp_path / "home"
    save_home_config(
        home, {"llm_url": "http://127.0.0.1:9/v1", "llm_model": "saved", "llm_key_file": key_file}
    )
    status = json.loads(invoke("llm", "status", "-f", "json", home=home).stdout)
    assert status["endpoint"] == "http://127.0.0.1:9/v1" and status["model"] == "saved"
    assert status["sources"] == {"url": "home config", "model": "home config", "key": "key file",
                                 "key_file": str(key_file)}  # fmt: skip
    assert status["config"] == str(home / "config.json")
    env = {"PAPERSIFT_LLM_MODEL": "env-model", "PAPERSIFT_LLM_KEY": KEY}
    text = invoke("llm", "status", home=home, env=env).stdout
    assert KEY not in text
    assert f"from: url home config, model env, key env (home config: {home / 'config.json'})" in text
    zh = invoke("llm", "status", home=home, env=env | {"PAPERSIFT_LANG": "zh"}).stdout
    assert f"来源：url home 配置，模型 环境变量，密钥 环境变量（home 配置：{home / 'config.json'}）" in zh
    nothing = json.loads(invoke("llm", "status", "-f", "json", home=tmp_path / "empty").stdout)
    assert nothing["sources"] == {"url": "default", "model": "default", "key": "unset", "key_file": None}
