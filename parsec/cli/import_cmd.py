"""`parsec import bash|zsh|fish [FILE]`: a shell's own history file into the store.

Each source file becomes one "imported" session. Ids are derived from the content, so importing
the same file twice adds nothing (the store skips ids it already has). Secrets are masked and
the privacy exclusions apply, as for live recording.
"""

from __future__ import annotations

import base64
import getpass
import hashlib
import os
import socket
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import typer

SHELLS = ("bash", "zsh", "fish")
CHUNK = 5000


@dataclass
class ImportReport:
    source: Path
    session_id: str
    entries: int = 0
    added: int = 0
    excluded: int = 0  # leading space, exclude_commands
    malformed: int = 0
    examples: list[tuple[int, str]] = field(default_factory=list)

    @property
    def already_present(self) -> int:
        return self.entries - self.excluded - self.added


def default_history_file(shell: str) -> Path:
    home = Path.home()
    if shell == "bash":
        return Path(os.environ.get("HISTFILE") or home / ".bash_history")
    if shell == "zsh":
        return Path(os.environ.get("HISTFILE") or home / ".zsh_history")
    data = os.environ.get("XDG_DATA_HOME") or str(home / ".local/share")
    return Path(data) / "fish" / "fish_history"


_B32 = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", b"0123456789ABCDEFGHJKMNPQRSTVWXYZ")


def _ulid(millis: int, key: str) -> str:
    """A valid ULID whose time part is `millis` and whose random part is a hash of `key`.

    Encoded with base64's C base32 and an alphabet swap (python-ulid's encoder is the slowest
    step of a large import): 128 bits padded to 160 give 32 characters, the last 26 are the ULID."""
    millis = max(0, min(millis, 2**48 - 1))
    value = int.from_bytes(millis.to_bytes(6, "big") + hashlib.sha256(key.encode()).digest()[:10], "big")
    return base64.b32encode(value.to_bytes(20, "big"))[6:].translate(_B32).decode()


def import_history(store: Any, shell: str, path: Path, privacy: Any, *, host: str = "", user: str = "") -> ImportReport:
    """Parse `path` as `shell` history and append what is new to `store`."""
    from ..errors import UsageError
    from ..models.session import DirectCommandExecution, Session
    from ..store.importers import PARSERS

    try:
        data = path.read_bytes()
        mtime = path.stat().st_mtime
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}; pass the history file as an argument") from None
    parsed = PARSERS[shell](data)
    source = str(path.resolve())
    session_id = _ulid(0, f"import\0{shell}\0{host}\0{user}\0{source}")
    report = ImportReport(path, session_id, entries=len(parsed.entries), malformed=parsed.malformed,
                          examples=parsed.examples)

    # Entries without a timestamp (plain bash/zsh history) are spread over the microseconds
    # before the file's last change, in file order, so "newest first" still makes sense.
    base_micros = int(mtime * 1_000_000) - len(parsed.entries)
    seen: dict[tuple[int | None, str], int] = {}
    executions = []
    for index, entry in enumerate(parsed.entries):
        if not privacy.should_record(entry.command, ""):
            report.excluded += 1
            continue
        command = privacy.mask(entry.command)
        occurrence = seen.get((entry.timestamp, command), 0)
        seen[(entry.timestamp, command)] = occurrence + 1
        if entry.timestamp is not None:
            micros = entry.timestamp * 1_000_000 + occurrence
            millis = entry.timestamp * 1000
        else:
            micros, millis = base_micros + index, 0
        # model_construct: every value here is already valid (a ULID, clean text from the parser,
        # an aware datetime); validating 100,000 models would be the slowest part of an import.
        executions.append(DirectCommandExecution.model_construct(
            id=_ulid(millis, f"{shell}\0{source}\0{entry.timestamp}\0{command}\0{occurrence}"),
            session_id=session_id,
            command=command,
            executed_at=datetime.fromtimestamp(micros // 1_000_000, timezone.utc).replace(microsecond=micros % 1_000_000),
            duration_ms=entry.duration_s * 1000 if entry.duration_s is not None else None,
            host=host,
            user=user,
            source="import",
            exit_status=None, pipeline_statuses=[], stdout=None, stderr=None, working_directory="",
            cwd_after=None,
        ))
    if executions:
        first = min(e.executed_at for e in executions)
        last = max(e.executed_at for e in executions)
        store.save_session(Session(
            id=session_id, created_at=first, last_active=last, ended_at=last, shell=shell,
            tty=f"imported from {source}", user=user, host=host,
        ))
    for start in range(0, len(executions), CHUNK):
        report.added += store.append_executions(executions[start:start + CHUNK])
    return report


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_(
        shell: str = typer.Argument(..., metavar="bash|zsh|fish", help="Which shell wrote the file."),
        file: Optional[Path] = typer.Argument(None, help="The history file (default: the shell's own)."),
    ) -> None:
        """Import a shell's history file; importing the same file again adds nothing."""
        from ..errors import UsageError
        from ..privacy.filters import PrivacyFilter
        from .app import load_settings
        from .history_common import open_configured_store

        if shell not in SHELLS:
            raise UsageError(f"cannot import {shell!r} history: choose bash, zsh or fish")
        settings = load_settings().settings
        privacy = PrivacyFilter(settings.privacy, settings.context_management.privacy_mode)
        path = file or default_history_file(shell)
        with open_configured_store() as store:
            report = import_history(store, shell, path, privacy, host=socket.gethostname(), user=_user())
        typer.echo(
            f"{path}: {report.entries} entries, {report.added} added, {report.already_present} already present, "
            f"{report.excluded} excluded by privacy settings, {report.malformed} malformed lines skipped"
        )
        for line, text in report.examples:
            typer.echo(f"  skipped line {line}: {text!r}", err=True)
        typer.echo(f"session {report.session_id} (parsec sessions show {report.session_id})")


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
