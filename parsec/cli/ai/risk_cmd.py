"""`parsec risk`: the verdict the workflow's gate gives a command (the same check, workflow/risk/)."""

from __future__ import annotations

import json
import os

import typer


def register(app: typer.Typer) -> None:
    @app.command("risk", context_settings={"allow_interspersed_args": False})
    def risk(
        command: list[str] = typer.Argument(None, help="The command line (one quoted argument, or its words)."),
        as_json: bool = typer.Option(False, "--json", help='Print {"level": …, "reasons": […]} on one line.'),
        cwd: str | None = typer.Option(None, "--cwd", metavar="DIR", help="Judge it as run in DIR (default: here)."),
    ) -> None:
        """Say how risky a shell command is (low, medium or high) and why, as `parsec ask`'s gate does."""
        from ...errors import UsageError
        from ...workflow.risk import assess

        line = _command_line(command or [])
        if not line.strip():
            raise UsageError('give a command to judge, e.g. parsec risk "rm -rf build"')
        if cwd is not None and not os.path.isdir(cwd):
            raise UsageError(f"--cwd: no such directory: {cwd}")
        verdict = assess(line, cwd=os.path.abspath(cwd) if cwd else None)
        if verdict.parse_error is not None:
            raise UsageError(f"cannot parse the command: {verdict.parse_error}")
        if as_json:
            typer.echo(json.dumps({"level": verdict.level, "reasons": verdict.reasons}))
            return
        typer.echo(verdict.level)
        for reason in verdict.reasons:
            typer.echo(f"  - {reason}")


def _command_line(words: list[str]) -> str:
    """One argument is the line as typed; several are its words (`parsec risk -- rm -rf build`)."""
    if len(words) == 1:
        return words[0]
    import shlex

    return shlex.join(words)
