"""`parsec forget PATTERN`: remove matching commands from history everywhere, after asking."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("forget")
    def forget(
        pattern: str = typer.Argument(..., help="A regular expression searched in each command."),
        literal: bool = typer.Option(False, "--literal", "-F", help="PATTERN is plain text, not a regex."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    ) -> None:
        """Delete every recorded command matching PATTERN, full-text index and free pages included."""
        from .history_common import confirm, open_configured_store

        with open_configured_store() as store:
            count = store.forget_executions(pattern, regex=not literal, dry_run=True)
            if count == 0:
                typer.echo(f"no recorded command matches {pattern!r}")
                return
            noun = "command" if count == 1 else "commands"
            if not yes and not confirm(f"forget {count} recorded {noun} matching {pattern!r}?"):
                typer.echo("nothing forgotten")
                raise typer.Exit(1)
            removed = store.forget_executions(pattern, regex=not literal)
        typer.echo(f"forgot {removed} {'command' if removed == 1 else 'commands'}")
