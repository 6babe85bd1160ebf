"""`parsec stats`: most used commands, failure rates, busiest directories, activity, LLM usage."""

from __future__ import annotations

import json

import typer


def register(app: typer.Typer) -> None:
    @app.command("stats")
    def stats(
        since: str | None = typer.Option(None, "--since", help="Only since then: 30d, 2024-01-01 ... (default: all)."),
        top: int = typer.Option(10, "--top", min=1, help="Rows per list."),
        days: int = typer.Option(14, "--days", min=1, max=366, help="Days of activity to show."),
        as_json: bool = typer.Option(False, "--json", help="Everything as one JSON object."),
    ) -> None:
        """Summaries of your history and of LLM token usage."""
        from ...store.stats import stats as compute
        from .history_common import check_limit, open_configured_store, parse_when, to_json

        check_limit(top, "--top", minimum=1)
        start = parse_when(since, "--since") if since else None
        with open_configured_store() as store:
            figures = compute(store, since=start, top=top, days=days)
        if as_json:
            typer.echo(json.dumps(figures, indent=1, ensure_ascii=False, default=to_json))
            return
        _print(figures)


def _print(figures: dict) -> None:
    from ..render import table

    total, failed = figures["total"], figures["failed"]
    rate = f"{failed / total:.1%}" if total else "-"
    typer.echo(f"{total} commands, {failed} failed ({rate})")
    table(
        ["command", "runs", "failed", "failure rate"],
        [
            (p["program"], p["runs"], p["failed"], "-" if p["failure_rate"] is None else f"{p['failure_rate']:.1%}")
            for p in figures["programs"]
        ],
        title="most used commands",
    )
    table(["directory", "runs"], [(d["cwd"], d["runs"]) for d in figures["directories"]], title="busiest directories")
    peak = max((a["commands"] for a in figures["activity"]), default=0) or 1
    table(
        ["day", "commands", ""],
        [(a["day"], a["commands"], "#" * round(30 * a["commands"] / peak)) for a in figures["activity"]],
        title="activity (days up to the newest command)",
    )
    usage = figures["llm_usage"]
    if usage:
        table(
            ["provider", "model", "calls", "input tokens", "output tokens"],
            [(u["provider"], u["model"], u["calls"], u["input_tokens"], u["output_tokens"]) for u in usage],
            title="LLM token usage",
        )
    else:
        typer.echo("LLM token usage: none recorded")
