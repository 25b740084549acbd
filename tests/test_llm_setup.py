"""``papersift llm setup`` against a local OpenAI-shaped server on a free 127.0.0.1 port
(``tests/llm_server.py``): with flags, by discovery (pointed at the server's port with ``--port``, so no
other program's port is touched), with a key file; what it saves in the home's config (URL and model, never
the key) and how every later command reads it (the environment wins over it, it wins over the defaults);
and the clear errors that leave nothing saved (no terminal to ask on, a failed test call, a key file in the
home, a config holding a key), said in the reader's language."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from pathlib import Path

import pytest

from papersift.llm import client, setup
from papersift.settings import HomeConfigError, Settings, origin, read_home_config, save_home_config
from tests.llm_server import completion, error, fake_model
from tests.support.inproc import invoke
from tests.support.processes import run_cli

KEY = "sk-setup-secret-7731"


def _home_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_setup_with_flags_tests_the_model_saves_url_and_model_and_never_the_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_model([completion("ready"), completion("hello")], models=["qwen-plus", "qwen-max"]) as model:
        ran = invoke(
            "llm", "setup", "--url", model.url + "/", "--model", "qwen-plus", "--format", "json",
            home=home, env={"PAPERSIFT_LLM_KEY": KEY},
        )  # fmt: skip
        shown = json.loads(ran.stdout)
        assert shown["url"] == model.url and shown["model"] == "qwen-plus"
        assert shown["models"] == ["qwen-plus", "qwen-max"] and shown["reply"] == "ready"
        assert shown["key"] == "env" and shown["key_file"] is None
        assert KEY not in ran.stdout + ran.stderr
        listing, trial = model.seen
        assert (listing.path, trial.path) == ("/v1/models", "/v1/chat/completions")
        assert listing.headers["authorization"] == trial.headers["authorization"] == f"Bearer {KEY}"
        assert trial.body["model"] == "qwen-plus" and trial.body["max_tokens"] == 16
        assert json.loads((home / "config.json").read_text()) == {
            "llm_model": "qwen-plus",
            "llm_url": model.url,
        }
        assert KEY.encode() not in _home_bytes(home)
        # every command now calls it with no variable set (the settings every command and `serve` load)
        settings = Settings(home=home)
        assert (settings.llm_url, settings.llm_model) == (model.url, "qwen-plus")
        assert client.complete(settings, [{"role": "user", "content": "hi"}]).text == "hello"
        assert model.seen[-1].body["model"] == "qwen-plus" and "authorization" not in model.seen[-1].headers


def test_discovery_finds_the_server_on_the_port_it_is_pointed_at(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with fake_model([completion("ready")], models=["qwen2.5:7b"]) as model:
        port = int(model.url.split(":")[2].split("/")[0])
        found = setup.discover([("one", _closed_port()), ("fake", port)])
        assert found == [setup.Found("fake", f"http://127.0.0.1:{port}/v1", ("qwen2.5:7b",))]
        ran = invoke("llm", "setup", "--port", str(port), home=home)  # one server, one model: no question
        assert f"found port {port} at {model.url}" in ran.stderr
        assert f"saved in {home / 'config.json'}: url {model.url}, model qwen2.5:7b" in ran.stdout
        assert "key: none" in ran.stdout
        assert "authorization" not in model.seen[0].headers  # a probe carries no key
    assert read_home_config(home) == {"llm_url": model.url, "llm_model": "qwen2.5:7b"}


def test_the_servers_root_url_is_completed_with_v1(tmp_path: Path) -> None:
    with fake_model([completion("ready")]) as model:
        root = model.url.removesuffix("/v1")
        shown = json.loads(invoke("llm", "setup", "--url", root, "-f", "json", home=tmp_path).stdout)
        assert shown["url"] == model.url and shown["model"] == "m"


def test_nothing_found_or_nothing_chosen_without_a_terminal_is_a_clear_error_and_nothing_is_saved(
    tmp_path: Path,
) -> None:
    ran = invoke("llm", "setup", "--port", str(_closed_port()), home=tmp_path, check=False)
    assert ran.returncode == 1
    assert "no OpenAI-compatible server answered on 127.0.0.1" in ran.stderr
    assert "papersift llm setup --url URL --model NAME" in ran.stderr
    with fake_model([], models=["a", "b"]) as model:
        ran = invoke("llm", "setup", "--url", model.url, home=tmp_path, check=False)  # stdin is no terminal
        assert ran.returncode == 1
        assert "choose a model with --model NAME" in ran.stderr and "it offers a, b" in ran.stderr
        assert [s.path for s in model.seen] == ["/v1/models"]  # no test call, no question asked
    assert not (tmp_path / "config.json").exists()


def test_a_failed_test_call_saves_nothing(tmp_path: Path) -> None:
    with fake_model([error(404, "The model `nope` does not exist", "not_found_error")]) as model:
        ran = invoke("llm", "setup", "--url", model.url, "--model", "nope", home=tmp_path, check=False)
    assert ran.returncode == 1
    assert "The model `nope` does not exist; nothing saved" in ran.stderr
    assert "does not list nope" in ran.stderr
    assert not (tmp_path / "config.json").exists()


def test_a_model_error_is_said_in_the_readers_language_and_in_english_as_before(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    asked = ("llm", "setup", "--url", url, "--model", "m")
    said = {
        lang: run_cli(*asked, home=tmp_path / lang, env={"PAPERSIFT_LANG": lang}, check=False)
        for lang in ("zh", "en")
    }
    assert said["zh"].returncode == said["en"].returncode == 1
    assert said["zh"].stderr == f"错误：无法连接 {url}（ConnectError）；未保存任何内容\n"
    assert said["en"].stderr == f"error: could not reach {url} (ConnectError); nothing saved\n"


def test_a_key_file_is_named_in_the_config_and_its_key_stays_out_of_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    key_file = tmp_path / "deepseek.key"
    key_file.write_text(KEY + "\n")
    with fake_model([completion("ready"), completion("ok")], models=["deepseek-chat"]) as model:
        ran = invoke("llm", "setup", "--url", model.url, "--key-file", str(key_file), home=home)
        assert f"key: key file {key_file}" in ran.stdout
        assert model.seen[1].headers["authorization"] == f"Bearer {KEY}"
        assert read_home_config(home)["llm_key_file"] == str(key_file)
        assert KEY.encode() not in _home_bytes(home)
        settings = Settings(home=home)
        assert settings.llm_key is not None and settings.llm_key.get_secret_value() == KEY
        assert origin(settings, "llm_key") == "key file"
        client.complete(settings, [{"role": "user", "content": "hi"}])
        assert model.seen[-1].headers["authorization"] == f"Bearer {KEY}"
        inside = home / "my.key"
        inside.write_text(KEY)
        ran = invoke("llm", "setup", "--url", model.url, "--key-file", str(inside), home=home, check=False)
        assert ran.returncode == 1 and "is inside the home" in ran.stderr


def test_the_environment_wins_over_the_home_config_which_wins_over_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERSIFT_HOME", str(tmp_path))
    save_home_config(tmp_path, {"llm_url": "http://127.0.0.1:9/v1", "llm_model": "saved", "llm_timeout": 7})
    s = Settings()
    assert (s.llm_url, s.llm_model, s.llm_timeout, s.llm_retries) == (
        "http://127.0.0.1:9/v1",
        "saved",
        7.0,
        3,
    )
    assert [origin(s, n) for n in ("llm_url", "llm_timeout", "llm_retries")] == [
        "home config",
        "home config",
        "default",
    ]
    monkeypatch.setenv("PAPERSIFT_LLM_MODEL", "from-env")
    s = Settings()
    assert s.llm_model == "from-env" and origin(s, "llm_model") == "env"
    save_home_config(tmp_path, {"llm_timeout": None})  # None removes a saved value
    assert Settings().llm_timeout == 120.0 and read_home_config(tmp_path)["llm_model"] == "saved"
    other = tmp_path / "other"  # --home: that home's config
    save_home_config(other, {"llm_model": "other's"})
    assert Settings(home=other).llm_model == "from-env"
    monkeypatch.delenv("PAPERSIFT_LLM_MODEL")
    assert Settings(home=other).llm_model == "other's" and Settings(home=other).llm_url is None


def test_a_home_config_holding_a_key_or_not_json_is_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"llm_key": KEY}))
    with pytest.raises(HomeConfigError, match="secret stays out of the home"):
        Settings(home=tmp_path)
    ran = invoke("llm", "status", home=tmp_path, check=False)
    assert ran.returncode == 2 and "settings:" in ran.stderr and "holds llm_key" in ran.stderr
    assert KEY not in ran.stderr
    (tmp_path / "config.json").unlink()
    with pytest.raises(HomeConfigError, match="may not be saved"):
        save_home_config(tmp_path, {"llm_key": KEY})
    (tmp_path / "config.json").write_text("{not json")
    ran = invoke("llm", "status", home=tmp_path, check=False)
    assert ran.returncode == 2 and "config.json: not JSON" in ran.stderr
    (tmp_path / "config.json").write_text(json.dumps({"llm_colour": "red"}))
    with pytest.raises(HomeConfigError, match="'llm_colour' is not a setting"):
        Settings(home=tmp_path)


def test_providers_are_known_by_name_and_need_a_key(tmp_path: Path) -> None:
    assert setup.provider("DeepSeek").url == "https://api.deepseek.com/v1"
    assert setup.provider("kimi").url == setup.provider("moonshot").url == "https://api.moonshot.cn/v1"
    assert setup.provider("qwen").url == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert setup.provider("openai").url == "https://api.openai.com/v1"
    ran = invoke(
        "llm", "setup", "--provider", "deepseek", home=tmp_path, env={"PAPERSIFT_LLM_KEY": ""}, check=False
    )
    assert ran.returncode == 1 and "DeepSeek needs a key" in ran.stderr
    ran = invoke("llm", "setup", "--provider", "mistery", home=tmp_path, check=False)
    assert ran.returncode == 1 and "no provider called 'mistery'" in ran.stderr and "deepseek" in ran.stderr
    ran = invoke("llm", "setup", "--url", "ftp://x", home=tmp_path, check=False)
    assert ran.returncode == 1 and "not an http(s) URL" in ran.stderr
    assert not (tmp_path / "config.json").exists()


def test_a_key_file_that_cannot_be_read_stops_at_start_naming_the_setting(tmp_path: Path) -> None:
    missing = tmp_path / "gone.key"
    ran = invoke("llm", "status", home=tmp_path, env={"PAPERSIFT_LLM_KEY_FILE": str(missing)}, check=False)
    assert ran.returncode == 2
    assert f"PAPERSIFT_LLM_KEY_FILE: {missing} cannot be read" in ran.stderr
    missing.write_text("\n")
    ran = invoke("llm", "status", home=tmp_path, env={"PAPERSIFT_LLM_KEY_FILE": str(missing)}, check=False)
    assert ran.returncode == 2 and "is empty" in ran.stderr
    env = {"PAPERSIFT_LLM_KEY_FILE": str(missing), "PAPERSIFT_LLM_KEY": KEY}  # the variable wins: not read
    assert json.loads(invoke("llm", "status", "-f", "json", home=tmp_path, env=env).stdout)["key"] == "set"


class _WebPage(http.server.BaseHTTPRequestHandler):
    """A web server that is no model API: every request answers 404 with an HTML page."""

    PAGE = (
        b"<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>"
        b"<p>The requested URL was not found on this server.</p>"
        b"<address>Apache/2.4.57</address></body></html>"
    )

    def _page(self) -> None:
        self.send_response(404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(self.PAGE)))
        self.end_headers()
        self.wfile.write(self.PAGE)

    do_GET = do_POST = _page

    def log_message(self, *args: object) -> None:
        pass


def test_a_server_that_is_no_model_is_named_in_one_line_by_what_it_returned(tmp_path: Path) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _WebPage)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    asked = ("llm", "setup", "--url", url, "--model", "m")
    try:
        said = {
            lang: run_cli(*asked, home=tmp_path / lang, env={"PAPERSIFT_LANG": lang}, check=False).stderr
            for lang in ("en", "zh")
        }
    finally:
        server.shutdown()
    assert said["en"] == (
        "error: the endpoint answered 404: a web page titled “404 Not Found”, not an OpenAI-compatible API; "
        "nothing saved\n"
    )
    assert (
        said["zh"]
        == "错误：端点返回 404：一个标题为“404 Not Found”的网页，而不是 OpenAI 兼容的 API；未保存任何内容\n"
    )
    assert not (tmp_path / "en" / "config.json").exists()
