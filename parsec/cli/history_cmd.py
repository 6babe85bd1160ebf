"""`parsec history`: recorded commands, newest first, with filters; a table, JSON or a format."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperCommand

from .history_views import DEFAULT_FORMAT, FIELDS


class _HistoryCommand(TyperCommand):
    """`--cwd [PATH]`: typer's parser has no optional option values, so a bare --cwd gets its "."
    before parsing (the fast path does the same, history_common.optional_cwd)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from .history_common import optional_cwd

        return super().parse_args(ctx, optional_cwd(args))


def register(app: typer.Typer) -> None:
    @app.command("history", cls=_HistoryCommand)
    def history(
        session: str | None = typer.Option(None, "--session", help="'current' or a session id."),
        cwd: str | None = typer.Option(
            None,
            "--cwd",
            metavar="[PATH]",
            show_default=False,
            help="Only this directory; without PATH (or '.') the current one.",
        ),
        here: bool = typer.Option(False, "--here", help="Only the current directory (same as --cwd .)."),
        subtree: bool = typer.Option(False, "--subtree", help="With --cwd: also every directory below it."),
        exit_filter: str | None = typer.Option(None, "--exit", help="ok, fail, or an exit status."),
        since: str | None = typer.Option(None, "--since", help="2h, 3d, yesterday, 2024-05-01 ..."),
        until: str | None = typer.Option(None, "--until", help="Same forms as --since (exclusive)."),
        host: str | None = typer.Option(None, "--host", help="Only commands run on this host."),
        search: str | None = typer.Option(None, "--search", "-s", help="Full text: every word must appear."),
        limit: int = typer.Option(50, "--limit", "-n", min=0, help="How many (0: all)."),
        as_json: bool = typer.Option(False, "--json", help="A JSON array of executions (with captured output)."),
        output: bool = typer.Option(
            False, "--output", help="Show captured output (parsec shell: stdout and stderr merged)."
        ),
        fmt: str | None = typer.Option(
            None, "--format", help=f"A template with fields {{{'}, {'.join(FIELDS)}}}, e.g. '{DEFAULT_FORMAT}'."
        ),
    ) -> None:
        """Show recorded commands, newest first."""
        from .app import state
        from .history_common import check_history_options
        from .history_views import run_history

        check_history_options(limit=limit, exit_filter=exit_filter, since=since, until=until)
        run_history(
            session=session,
            cwd=cwd,
            here=here,
            subtree=subtree,
            exit_filter=exit_filter,
            since=since,
            until=until,
            host=host,
            search=search,
            limit=limit,
            as_json=as_json,
            fmt=fmt,
            overrides=state.overrides,
            output=output,
        )
