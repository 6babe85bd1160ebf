"""`parsec history`: recorded commands, newest first, with filters; a table, JSON or a format."""

from __future__ import annotations

from typing import Optional

import typer

from .history_views import DEFAULT_FORMAT, FIELDS


def register(app: typer.Typer) -> None:
    @app.command("history")
    def history(
        session: Optional[str] = typer.Option(None, "--session", help="'current' or a session id."),
        cwd: Optional[str] = typer.Option(
            None, "--cwd", help="Only this directory ('.' is the current one).", show_default=False
        ),
        here: bool = typer.Option(False, "--here", help="Only the current directory (same as --cwd .)."),
        subtree: bool = typer.Option(False, "--subtree", help="With --cwd: also every directory below it."),
        exit_filter: Optional[str] = typer.Option(None, "--exit", help="ok, fail, or an exit status."),
        since: Optional[str] = typer.Option(None, "--since", help="2h, 3d, yesterday, 2024-05-01 ..."),
        until: Optional[str] = typer.Option(None, "--until", help="Same forms as --since (exclusive)."),
        host: Optional[str] = typer.Option(None, "--host", help="Only commands run on this host."),
        search: Optional[str] = typer.Option(None, "--search", "-s", help="Full text: every word must appear."),
        limit: int = typer.Option(50, "--limit", "-n", min=0, help="How many (0: all)."),
        as_json: bool = typer.Option(False, "--json", help="A JSON array of executions."),
        fmt: Optional[str] = typer.Option(
            None, "--format", help=f"A template with fields {{{'}, {'.join(FIELDS)}}}, e.g. '{DEFAULT_FORMAT}'."
        ),
    ) -> None:
        """Show recorded commands, newest first."""
        from .app import state
        from .history_views import run_history

        run_history(
            session=session, cwd=cwd, here=here, subtree=subtree, exit_filter=exit_filter, since=since,
            until=until, host=host, search=search, limit=limit, as_json=as_json, fmt=fmt,
            overrides=state.overrides,
        )
