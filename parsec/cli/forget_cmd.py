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
        from .history_common import confirm, open_configured_store

        regex = not literal
        with open_configured_store() as store:
            commands = store.forget_executions(pattern, regex=regex, dry_run=True)
            conversations = store.forget_conversations(pattern, regex=regex, dry_run=True)
            learned = store.forget_preferences(pattern, regex=regex, dry_run=True)
            if commands == 0 and conversations == 0 and learned == 0:
                typer.echo(f"no recorded command or conversation matches {pattern!r}")
                return
            what = _counted(commands, conversations) + (f" and {learned} learned choice(s)" if learned else "")
            if not yes and not confirm(f"forget {what} matching {pattern!r}?"):
                typer.echo("nothing forgotten")
                raise typer.Exit(1)
            removed = store.forget_executions(pattern, regex=regex)
            removed_conversations = store.forget_conversations(pattern, regex=regex)
            removed_learned = store.forget_preferences(pattern, regex=regex)
        suffix = f" and {removed_learned} learned {'choice' if removed_learned == 1 else 'choices'}" if removed_learned else ""
        typer.echo(f"forgot {_counted(removed, removed_conversations)}{suffix}")


def _counted(commands: int, conversations: int) -> str:
    """'3 commands', '1 command and 2 conversations', '1 conversation'."""
    parts = []
    if commands or not conversations:
        parts.append(f"{commands} {'command' if commands == 1 else 'commands'}")
    if conversations:
        parts.append(f"{conversations} {'conversation' if conversations == 1 else 'conversations'}")
    return " and ".join(parts)
