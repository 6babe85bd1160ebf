"""`parsec export`: executions and conversations as JSON Lines, for jq or another tool."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        since: str | None = typer.Option(None, "--since", help="Only since then: 30d, 2024-01-01 ..."),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    ) -> None:
        """Write every execution, then every conversation, one JSON object per line ("type" says which)."""
        from ..errors import UsageError
        from ..store.export import iter_export
        from .history_common import open_configured_store, parse_when

        start = parse_when(since, "--since") if since else None
        try:
            handle = _private_file(output) if output else sys.stdout
        except OSError as err:
            raise UsageError(f"cannot write {output}: {err.strerror}") from None
        count = 0
        try:
            with open_configured_store() as store:
                for record in iter_export(store, since=start):
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                    count += 1
        except BrokenPipeError:  # `parsec export | head`
            sys.stderr.close()
            return
        finally:
            if output:
                handle.close()
        if output:
            typer.echo(f"wrote {count} records to {output}", err=True)


def _private_file(path: Path):
    """The export holds the whole history: readable by its owner only (0600), like the store,
    whether the file is new or was already there."""
    import os

    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
    except OSError:
        pass  # a file system without modes (a FUSE mount): the creation mode is all there is
    return os.fdopen(fd, "w", encoding="utf-8")
