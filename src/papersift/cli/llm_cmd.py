"""``papersift llm status``: the language model papersift calls (endpoint, never the key; model; the local
default; where each value came from), today's tokens against the budget, and recent failures;
``--format json`` gives ``llm/status.py``'s shape. ``papersift llm setup``: a server found on this machine or
a provider, its models, one test call, and the URL and model saved in the home's config
(``llm/setup.py``)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from papersift.cli.common import FormatOpt, HomeOpt, check_format, load_settings, opened, refuse
from papersift.cli.language import Speech

if TYPE_CHECKING:
    from papersift.llm.setup import Found

llm_app = typer.Typer(
    help="The language model: connecting one, its endpoint, usage and failures.", no_args_is_help=True
)


@llm_app.command("status")
def llm_status(
    failures: Annotated[int, typer.Option("--failures", min=0, max=200, help="Failures listed.")] = 10,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Where model calls go, today's token usage against the budget, and the latest failures."""
    from papersift.llm.status import status
    from papersift.services.listing import json_line

    check_format(fmt)
    settings = load_settings(home)
    with opened(settings) as o:
        st = status(settings, o.store, failures)
    if fmt == "json":
        typer.echo(json_line(st.dump()))
        return
    say = Speech(settings.lang)
    lo = st.local
    if settings.llm_url:
        where = say.line("cli_llm_endpoint", endpoint=st.endpoint, secret=st.key)
    elif lo.enabled:
        if not lo.installed:
            state = say.line("cli_llm_local_not_installed")
        elif lo.running:
            state = say.line("cli_llm_local_running", url=lo.url, pid=lo.pid)
        else:
            state = say.line("cli_llm_local_stopped")
        where = say.line("cli_llm_endpoint_local", state=state)
    else:
        where = say.line("cli_llm_endpoint_none")
    typer.echo(where)
    typer.echo(say.line("cli_llm_model", model=st.model))
    src = st.sources
    key_from = (
        say.line("cli_llm_key_file", path=src.key_file) if src.key == "key file" else _source(say, src.key)
    )
    url, model = _source(say, src.url), _source(say, src.model)
    typer.echo(say.line("cli_llm_from", url=url, model=model, secret=key_from, config=st.config))
    if lo.running and lo.rss_bytes:
        memory = f"{lo.rss_bytes / 2**20:.0f}"
        typer.echo(say.line("cli_llm_local_memory", memory=memory, idle=f"{lo.idle_minutes:g}"))
    today = st.today
    if today.budget:
        typer.echo(say.line("cli_llm_today_budget", day=today.day, tokens=today.tokens, budget=today.budget))
    else:
        typer.echo(say.line("cli_llm_today", day=today.day, tokens=today.tokens))
    for u in today.models:
        used = {"calls": u.calls, "prompt": u.prompt_tokens, "completion": u.completion_tokens}
        typer.echo(say.line("cli_llm_usage", model=u.model, **used))
    if st.checks.failed:  # texts the model wrote that failed their checks (reading/checks.py)
        from papersift.reading.checks import reason_name

        counted = (f"{say(reason_name(reason))} {n}" for reason, n in st.checks.reasons.items())
        reasons = say.joined(counted, series=True)
        typer.echo(say.line("cli_llm_checks_failed", n=st.checks.failed, reasons=reasons))
    if not st.failures:
        typer.echo(say.line("cli_llm_no_failures"))
        return
    typer.echo(say.line("cli_llm_failures", n=len(st.failures)))
    for f in st.failures:
        typer.echo(f"  {f.at[:19]}  {f.model}: {say(f.reason)}")


def _source(say: Speech, origin: str) -> str:
    """Where a model setting came from (``settings.origin``: env, home config, argument, default, unset)."""
    return say.line("cli_llm_source_" + origin.replace(" ", "_"))


@llm_app.command("setup")
def llm_setup(
    url: Annotated[
        str | None, typer.Option("--url", help="Base URL, e.g. http://127.0.0.1:11434/v1.")
    ] = None,
    provider_name: Annotated[
        str | None,
        typer.Option("--provider", help="deepseek, kimi (moonshot), qwen (dashscope), openai, or *-intl."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="The model to use (else chosen).")] = None,
    key_file: Annotated[
        Path | None, typer.Option("--key-file", help="A file of yours holding the key (its path is saved).")
    ] = None,
    ports: Annotated[
        list[int] | None,
        typer.Option(
            "--port", min=1, max=65535, metavar="PORT", help="Look on these 127.0.0.1 ports, not the usual."
        ),
    ] = None,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Connect a model: find a server on this machine (Ollama, llama.cpp, LM Studio, vLLM) or name a
    provider, list its models, make one test call, and save the URL and model in the home's config. The
    key stays in PAPERSIFT_LLM_KEY or in your --key-file, never in the home. Without a terminal, give the
    choices as options."""
    from papersift.llm import setup
    from papersift.llm.errors import ModelError
    from papersift.llm.status import shown_url
    from papersift.services.listing import json_line
    from papersift.settings import origin, save_home_config

    check_format(fmt)
    settings = load_settings(home)
    say = Speech(settings.lang)
    asking = sys.stdin.isatty() and fmt == "text"
    if url and provider_name:
        refuse("cli_url_or_provider", 2, say=say)
    try:
        key = settings.llm_key
        saved_key_file: Path | None = None
        if key_file is not None:
            saved_key_file = setup.key_outside_home(key_file, settings.home)
            key = setup.read_key(saved_key_file)
        suggested = None
        listed: list[str] | None = None
        if provider_name:
            chosen = setup.provider(provider_name)
            url, suggested = chosen.url, chosen.suggested
            if key is None or not key.get_secret_value():
                refuse("cli_provider_needs_key", say=say, provider=chosen.name)
        elif not url:
            servers = (
                [(say.line("cli_llm_port", port=p), p) for p in ports] if ports else list(setup.LOCAL_SERVERS)
            )
            found = setup.discover(servers)
            picked = _pick_server(found, servers, asking, say)
            url, listed = picked.url, list(picked.models)
        url = setup.checked_url(url)
        if listed is None:
            listed = setup.models(url, key)
            if listed is None and not url.endswith("/v1"):  # the server's root given: its API is under /v1
                with contextlib.suppress(ModelError):
                    listed = setup.models(f"{url}/v1", key)
                    url = f"{url}/v1" if listed is not None else url
        model = model or _pick_model(url, listed, suggested, asking, say)
        if listed and model not in listed and fmt == "text":
            typer.echo(say.line("cli_llm_not_listed", url=url, model=model), err=True)
        reply = setup.trial_call(settings, url, model, key)
    except ModelError as e:
        refuse("cli_nothing_saved", say=say, problem=e)
    key_source = "key file" if saved_key_file else origin(settings, "llm_key") if key else "none"
    if (
        saved_key_file is None
        and key_source == "key file"
        and origin(settings, "llm_key_file") == "home config"
    ):
        keep: Path | None = settings.llm_key_file  # the saved key file made the test call work: kept
    else:
        keep = saved_key_file
    path = save_home_config(settings.home, {"llm_url": url, "llm_model": model, "llm_key_file": keep})
    result = {
        "url": shown_url(url),
        "model": model,
        "models": listed or [],
        "reply": reply.text.strip()[:200],
        "key": key_source,
        "key_file": str(keep) if keep else None,
        "config": str(path),
    }
    if fmt == "json":
        typer.echo(json_line(result))
        return
    typer.echo(say.line("cli_llm_test_call", model=model, url=result["url"], reply=repr(result["reply"])))
    where = {"none": "none", "env": "PAPERSIFT_LLM_KEY"}.get(key_source) or say.line(
        "cli_llm_key_file", path=keep
    )
    typer.echo(say.line("cli_llm_saved", path=path, url=result["url"], model=model, secret=where))
    overriding = [n for n in ("llm_url", "llm_model") if origin(settings, n) == "env"]
    for name in overriding:
        typer.echo(say.line("cli_llm_env_wins", name=f"PAPERSIFT_{name.upper()}"), err=True)


def _pick_server(found: list[Found], servers: list[tuple[str, int]], asking: bool, say: Speech) -> Found:
    """The server to use: the one found, or the reader's choice among several; else a clear error."""
    if not found:
        where = ", ".join(f"{name} {port}" for name, port in servers)
        refuse("cli_llm_no_server", say=say, where=where, flags=say.line("cli_llm_flags"))
    if len(found) == 1:
        typer.echo(say.line("cli_llm_found", server=found[0].server, url=found[0].url), err=True)
        return found[0]
    if not asking:
        listed = "; ".join(say.line("cli_llm_server_at", server=f.server, url=f.url) for f in found)
        refuse("cli_llm_several", say=say, listed=listed)
    for n, f in enumerate(found, 1):
        typer.echo(say.line("cli_llm_server_choice", n=n, server=f.server, url=f.url, count=len(f.models)))
    choice = _ask_number(say.line("cli_llm_which_server"), len(found), 1, say)
    return found[choice - 1]


def _pick_model(url: str, listed: list[str] | None, suggested: str | None, asking: bool, say: Speech) -> str:
    """The model to use: the one listed, or the reader's choice; else a clear error naming the flags."""
    if listed is not None and len(listed) == 1:
        return listed[0]
    if not asking:
        offered = (
            say.line("cli_llm_offers", models=", ".join(listed[:20]))
            if listed
            else say.line("cli_llm_no_models")
        )
        refuse("cli_llm_choose_model", say=say, url=url, offered=offered, flags=say.line("cli_llm_flags"))
    if not listed:
        return str(typer.prompt(say.line("cli_llm_model_name"), default=suggested or None))
    for n, name in enumerate(listed, 1):
        typer.echo(f"{n}. {name}")
    default = listed.index(suggested) + 1 if suggested in listed else 1
    choice = _ask_number(say.line("cli_llm_which_model"), len(listed), default, say)
    return listed[choice - 1]


def _ask_number(question: str, count: int, default: int, say: Speech) -> int:
    """A number from 1 to ``count`` typed on the terminal (asked again until it is one)."""
    while True:
        answer = typer.prompt(question, default=str(default)).strip()
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer)
        typer.echo(say.line("cli_llm_a_number", count=count))
