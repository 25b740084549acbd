"""``papersift llm status``: the language model papersift calls (endpoint, never the key; model; the local
default), today's tokens against the budget, and recent failures; ``--format json`` gives
``llm/status.py``'s shape."""

from __future__ import annotations

from typing import Annotated

import typer

from papersift.cli.common import FormatOpt, HomeOpt, check_format, load_settings, opened

llm_app = typer.Typer(help="The language model: its endpoint, usage and failures.", no_args_is_help=True)


@llm_app.command("status")
def llm_status(
    failures: Annotated[int, typer.Option("--failures", min=0, max=200, help="Failures listed.")] = 10,
    fmt: FormatOpt = "text",
    home: HomeOpt = None,
) -> None:
    """Where model calls go, today's token usage against the budget, and the latest failures."""
    from papersift.listing import json_line
    from papersift.llm.status import status_json

    check_format(fmt)
    settings = load_settings(home)
    with opened(settings) as o:
        status = status_json(settings, o.store, failures)
    if fmt == "json":
        typer.echo(json_line(status))
        return
    lo = status["local"]
    if settings.llm_url:
        where = f"endpoint: {status['endpoint']} (key {status['key']})"
    elif lo["enabled"]:
        state = f"running at {lo['url']}, pid {lo['pid']}" if lo["running"] else "not running (starts on use)"
        if not lo["installed"]:
            state = "not installed: pip install 'papersift[llm]'"
        where = f"endpoint: the local default, {state}"
    else:
        where = "endpoint: none (set PAPERSIFT_LLM_URL, or PAPERSIFT_LLM_LOCAL=true for the local default)"
    typer.echo(where)
    typer.echo(f"model: {status['model']}")
    if lo["running"] and lo["rss_bytes"]:
        memory = lo["rss_bytes"] / 2**20
        typer.echo(f"local server memory: {memory:.0f} MiB, stops after {lo['idle_minutes']:g} min idle")
    today = status["today"]
    budget = f" of {today['budget']}" if today["budget"] else " (no budget)"
    typer.echo(f"today ({today['day']} UTC): {today['tokens']} tokens{budget}")
    for u in today["models"]:
        typer.echo(
            f"  {u['model']}: {u['calls']} calls, {u['prompt_tokens']} in, {u['completion_tokens']} out"
        )
    checked = status["checks"]
    if checked["failed"]:  # texts the model wrote that failed their checks (reading/checks.py)
        reasons = ", ".join(f"{reason} {n}" for reason, n in checked["reasons"].items())
        typer.echo(f"texts that failed their checks: {checked['failed']} ({reasons})")
    if not status["failures"]:
        typer.echo("failures: none")
        return
    typer.echo(f"failures (latest {len(status['failures'])}):")
    for f in status["failures"]:
        typer.echo(f"  {f['at'][:19]}  {f['model']}: {f['reason']}")
