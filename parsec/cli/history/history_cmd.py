"""`parsec history` and `parsec sessions [show]` in the typer app: raw commands, parsed and run by
history_entry.py (the same code as the typer-free entry), so `parsec --set k=v history …` works."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..arguments import raw_command

if TYPE_CHECKING:
    import typer


def register(app: typer.Typer) -> None:
    from ..app import state
    from .history_entry import run

    raw_command(
        app,
        "history",
        "Show recorded commands, newest first (parsec history --help for the filters).",
        lambda args: run(["history", *args], state.overrides, state.debug),
    )
    raw_command(
        app,
        "sessions",
        "Shell sessions: counts, duration, cwd, shell, host; `sessions show ID` for one.",
        lambda args: run(["sessions", *args], state.overrides, state.debug),
    )
