"""`parsec prune [--dry-run]`: apply the retention policy from config and say what went."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    @app.command("prune")
    def prune(
        dry_run: bool = typer.Option(False, "--dry-run", help="Only say what would be removed."),
    ) -> None:
        """Apply the retention settings, per tier: old output, context snapshots and conversations go;
        the command history stays unless history_retention_days or max_sessions is set.

        Conversations leave their achievements behind; on SQLite the space goes back to the disk."""
        from ..app import load_settings
        from .history_common import open_configured_store

        policy = load_settings().settings.context_management.retention_policy()
        with open_configured_store() as store:
            report = store.prune_old_context(policy, dry_run=dry_run)
        typer.echo(describe(report, policy))


def describe(report, policy) -> str:
    """What went (or would go), one line per retention tier."""

    def limit(days: int) -> str:
        return "kept forever" if not days else f"older than {days} days"

    verb = "would remove" if report.dry_run else "removed"
    history = (
        f"history_retention_days = {policy.history_retention_days}"
        if policy.history_retention_days
        else ("history_retention_days = 0: kept forever")
    )
    if policy.max_sessions:
        history += f", beyond the newest {policy.max_sessions} sessions"
    lines = [
        ("by tier:" if report.dry_run else "pruned, by tier:"),
        f"  history (command, time, exit, cwd, duration): {verb} {report.executions} commands and "
        f"{report.sessions} sessions ({history})",
        f"  captured output: {verb} the output of {report.outputs} commands "
        f"({limit(policy.session_retention_days)}, session_retention_days; the commands stay)",
        f"  session context (environment snapshot, tools): {verb} it from {report.contexts} sessions "
        f"({limit(policy.session_retention_days)})",
        f"  conversations: {verb} {report.conversations} "
        f"({limit(policy.conversation_retention_days)}"
        + (f", beyond the newest {policy.max_conversation_history}" if policy.max_conversation_history else "")
        + ")",
    ]
    if not report.dry_run:
        if report.achievements_kept:
            lines.append(f"kept the achievements of {report.achievements_kept} pruned conversations")
        if report.bytes_freed:
            lines.append(f"gave {_size(report.bytes_freed)} back to the disk")
    return "\n".join(lines)


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} B"
