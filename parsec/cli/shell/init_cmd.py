"""`parsec init bash|zsh|fish [--install | --uninstall]` (plain `init SHELL` is also answered
without typer by the entry point's fast path)."""

from __future__ import annotations

import typer

from .hook_file import print_hook
from .hook_scripts import SHELLS


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init(
        shell: str = typer.Argument(..., help=f"One of: {', '.join(SHELLS)}"),
        install: bool = typer.Option(
            False, "--install", help="Write the hook file and add the line that loads it to the shell's rc file."
        ),
        uninstall: bool = typer.Option(
            False, "--uninstall", help="Remove that line from the rc file, and the hook file."
        ),
    ) -> None:
        """Print the shell hook (for `eval "$(parsec init bash)"`), and keep the hook file that
        the rc line from `--install` sources, with no Python when a shell starts."""
        if not install and not uninstall:
            raise typer.Exit(print_hook(shell))
        if shell not in SHELLS:
            raise typer.BadParameter(f"one of: {', '.join(SHELLS)}", param_hint="SHELL")
        from ...errors import ParsecError
        from . import rc_file
        from .hook_file import refresh
        from .hook_scripts import config_path, hook_body, hook_file, hook_path, parsec_command

        try:
            if uninstall:
                typer.echo(rc_file.uninstall(shell, hook_file(shell)))
                return
            written = refresh(shell, hook_body(shell), hook_path(shell), config_path())
            if written is None:
                raise typer.BadParameter(f"cannot write {hook_file(shell)}")
            typer.echo(rc_file.install(shell, written, parsec_command()))
        except OSError as err:  # the user's rc or login file: a directory, read-only, a full disk
            raise ParsecError(f"cannot update {err.filename or 'the rc file'}: {err.strerror or err}") from None
