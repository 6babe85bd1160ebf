"""`parsec init bash|zsh|fish` (also answered without typer by the entry point's fast path)."""

from __future__ import annotations

import typer

from .hook_scripts import SHELLS, print_hook


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init(shell: str = typer.Argument(..., help=f"One of: {', '.join(SHELLS)}")) -> None:
        """Print the shell hook, for `eval "$(parsec init bash)"`."""
        raise typer.Exit(print_hook(shell))
