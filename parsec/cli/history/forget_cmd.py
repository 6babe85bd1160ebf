"""`parsec forget PATTERN`: remove matching commands and conversations everywhere, after asking."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("forget")
    def forget(
        pattern: str = typer.Argument(..., help="A regular expression searched in each command."),
        literal: bool = typer.Option(False, "--literal", "-F", help="PATTERN is plain text, not a regex."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask for confirmation."),
    ) -> None:
        """Delete every recorded command and conversation matching PATTERN, full-text index and
        free pages included."""
        from .forget_matching import forget_matching
        from .history_common import confirm, open_configured_store

        with open_configured_store() as store:
            outcome, message = forget_matching(
                store, pattern, regex=not literal, ask=lambda question: yes or confirm(question)
            )
        typer.echo(message)
        if outcome == "declined":
            raise typer.Exit(1)
