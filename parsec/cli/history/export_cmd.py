"""`parsec export`: executions and conversations as JSON Lines, for jq or another tool."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import typer


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        since: str | None = typer.Option(None, "--since", help="Only since then: 30d, 2024-01-01 ..."),
        output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
    ) -> None:
        """Write every execution, then every conversation, one JSON object per line ("type" says which)."""
        from ...errors import UsageError
        from ...store.export import iter_export
        from .history_common import open_configured_store, parse_when

        start = parse_when(since, "--since") if since else None
        count = 0
        try:
            with (
                open_configured_store() as store,
                _replaced_privately(output) if output else contextlib.nullcontext(sys.stdout) as handle,
            ):
                for record in iter_export(store, since=start):
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                    count += 1
        except BrokenPipeError:  # `parsec export | head`
            sys.stderr.close()
            return
        except OSError as err:
            raise UsageError(f"cannot write {output}: {err.strerror or err}") from None
        if output:
            typer.echo(f"wrote {count} records to {output}", err=True)


@contextlib.contextmanager
def _replaced_privately(path: Path) -> Iterator[TextIO]:
    """A new file (0600: it holds the whole history) next to `path`, renamed over it once
    complete. Never written through what is at `path`: a file another user made there (which
    they could read) or a symlink they planted (to a file of ours) is replaced, not written into."""
    import os
    import tempfile

    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")  # O_EXCL, 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
