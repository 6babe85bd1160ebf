"""`parsec sessions` and `parsec sessions show ID`: shell sessions, their commands and conversations."""

from __future__ import annotations

import json

import typer


def register(app: typer.Typer) -> None:
    sessions_app = typer.Typer(help="Shell sessions: counts, duration, cwd, shell, host.", invoke_without_command=True)
    app.add_typer(sessions_app, name="sessions")

    @sessions_app.callback()
    def sessions(
        ctx: typer.Context,
        limit: int = typer.Option(50, "--limit", "-n", min=1, help="How many sessions, most recent first."),
        as_json: bool = typer.Option(False, "--json", help="A JSON array."),
    ) -> None:
        """List sessions, most recently active first."""
        if ctx.invoked_subcommand is not None:
            return
        from .app import state
        from .history_common import check_limit
        from .history_views import run_sessions

        check_limit(limit, minimum=1)
        run_sessions(limit=limit, as_json=as_json, overrides=state.overrides)

    @sessions_app.command("show")
    def show(
        session_id: str = typer.Argument(..., metavar="ID", help="A session id, a unique prefix of one, or 'current'."),
        limit: int = typer.Option(200, "--limit", "-n", min=0, help="Newest commands to show (0: all)."),
        as_json: bool = typer.Option(False, "--json", help="JSON: the session, its commands and conversations."),
    ) -> None:
        """One session: its details, its commands (oldest first) and its conversations."""
        from ..store.history import HistoryQuery, history_via_store, resolve_session_id
        from .history_common import check_limit, human_duration, local_time, open_configured_store, to_json
        from .history_views import current_session_id, describe_output, print_executions

        check_limit(limit)
        with open_configured_store() as store:
            full_id = current_session_id() if session_id == "current" else resolve_session_id(store, session_id)
            session = store.load_session(full_id, history_limit=1)
            newest = history_via_store(store, HistoryQuery(session_id=full_id, limit=limit), with_output=True)
            commands = list(reversed(newest))
            conversations = store.list_conversations(limit=1000, session_id=full_id)
        for row in commands:
            describe_output(row)  # the captured output, and which streams it holds
        if as_json:
            payload = {
                "session": session.model_dump(mode="json", exclude={"command_history"}),
                "commands": [{**row, "executed_at": row["executed_at"].isoformat()} for row in commands],
                "conversations": [
                    {
                        "id": c.id,
                        "name": c.name,
                        "prompt": c.original_prompt,
                        "status": c.status.value,
                        "created_at": c.created_at.isoformat(),
                        "steps": c.step_count,
                        "cwd": c.working_directory,
                    }
                    for c in conversations
                ],
            }
            typer.echo(json.dumps(payload, indent=1, ensure_ascii=False, default=to_json))
            return
        end = session.ended_at or session.last_active
        typer.echo(
            f"session {session.id}  {session.shell or '?'} on {session.user}@{session.host}  "
            f"pid {session.pid or '-'}  {session.tty}"
        )
        typer.echo(
            f"started {local_time(session.created_at)}, "
            f"{'ended' if session.ended_at else 'last active'} {local_time(end)} "
            f"({human_duration((end - session.created_at).total_seconds())})"
        )
        if session.global_context.working_directory:
            typer.echo(f"cwd {session.global_context.working_directory}")
        typer.echo("")
        print_executions(commands, output=True)
        if conversations:
            from .render import table

            typer.echo("")
            table(
                ["conversation", "started", "status", "steps", "prompt"],
                [
                    (c.id, local_time(c.created_at), c.status.value, c.step_count, c.original_prompt[:80])
                    for c in conversations
                ],
            )
