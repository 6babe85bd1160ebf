"""`parsec shell`: the user's shell inside a pty proxy that records each command's output."""

from __future__ import annotations

import os
import re
import shutil
import sys

import typer


def register(app: typer.Typer) -> None:
    @app.command("shell", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def shell(
        ctx: typer.Context,
        program: str | None = typer.Argument(None, help="Shell to run (default: $SHELL), then its arguments."),
    ) -> None:
        """Run your shell with output capture: each command's output is stored with its record."""
        from ...errors import UsageError
        from ...privacy.masking import mask
        from ...protocol.endpoints import runtime_dir
        from ..app import load_settings
        from .hook_relay import HookRelay
        from .pty_proxy import PtyProxy

        if os.environ.get("PARSEC_PTY_FD"):
            raise UsageError("already inside `parsec shell`: exit it first, or run the shell directly")
        settings = load_settings().settings
        argv = [program or os.environ.get("SHELL") or "/bin/sh", *ctx.args]
        if shutil.which(argv[0]) is None:
            raise UsageError(f"cannot find the shell {argv[0]!r}: pass one, e.g. `parsec shell bash`")
        privacy = settings.privacy
        relay = HookRelay(
            runtime=runtime_dir(settings.daemon.socket_dir),
            capture_output=not settings.context_management.privacy_mode,
            exclude=[re.compile(p) for p in privacy.exclude_commands],
            mask=(lambda text: mask(text, privacy.extra_patterns)) if privacy.mask_secrets else None,
        )
        problem = relay.problem()
        if problem:
            print(f"parsec: {problem}", file=sys.stderr)
        # Raw bytes kept per command before ANSI codes are stripped; the daemon keeps
        # max_command_output_length of the plain text (head + tail).
        keep = 4 * settings.context_pruning.max_command_output_length
        code = PtyProxy(argv, relay, keep, dict(os.environ)).run()
        raise typer.Exit(code)
