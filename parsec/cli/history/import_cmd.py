"""`parsec import bash|zsh|fish [FILE]`: a shell's own history file into the store.

Each source file becomes one "imported" session. Ids are derived from the content, so importing
the same file twice adds nothing (the store skips ids it already has), and an entry the shell
hooks already recorded live (same text, time within the file's one-second resolution; in an
undated file, the newest lines of each command) is skipped too. A file that is not that shell's history is refused before anything is stored; lines damaged by
a crash (NUL bytes) are skipped and counted (import_read.py).
Secrets are masked and the privacy exclusions apply, as for live recording.
"""

from __future__ import annotations

import functools
import getpass
import hashlib
import os
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import typer

from ...models.session_ids import ulid_text

if TYPE_CHECKING:
    from ...models.retention import RetentionPolicy
    from ...privacy.filters import PrivacyFilter
    from ...store.importers import HistoryEntry
    from ...store.protocols import HistoryStore

SHELLS = ("bash", "zsh", "fish")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
CHUNK = 5000


@dataclass
class ImportReport:
    source: Path
    session_id: str
    entries: int = 0
    added: int = 0
    excluded: int = 0  # leading space, exclude_commands
    recorded_live: int = 0  # already in the store from the shell hooks
    malformed: int = 0
    examples: list[tuple[int, str]] = field(default_factory=list)

    @property
    def already_present(self) -> int:
        return self.entries - self.excluded - self.recorded_live - self.added


class ImportedExecution(NamedTuple):
    """An imported command as the store takes it: a store.base.ExecutionRecord, the attributes
    the store's row builders read (rows.execution_row, execution_insert.session_spans). Every
    value is already valid (a ULID, masked text from the parser, an aware datetime); a tuple is
    built in a fraction of the time of even an unvalidated pydantic model (model_construct was a
    quarter of a 100,000-line import)."""

    id: str
    session_id: str
    command: str
    executed_at: datetime
    duration_ms: int | None
    host: str
    user: str
    exit_status: int | None = None
    pipeline_statuses: tuple[int, ...] = ()
    stdout: None = None
    stderr: None = None
    working_directory: str = ""
    cwd_after: str | None = None
    source: str = "import"
    conversation_id: str | None = None


def default_history_file(shell: str) -> Path:
    home = Path.home()
    if shell == "bash":
        return Path(os.environ.get("HISTFILE") or home / ".bash_history")
    if shell == "zsh":
        return Path(os.environ.get("HISTFILE") or home / ".zsh_history")
    data = os.environ.get("XDG_DATA_HOME") or str(home / ".local/share")
    return Path(data) / "fish" / "fish_history"


def _ulid(millis: int, key: str) -> str:
    """A valid ULID whose time part is `millis` and whose random part is a hash of `key`."""
    return ulid_text(millis, hashlib.sha256(key.encode()).digest())


def import_history(
    store: HistoryStore, shell: str, path: Path, privacy: PrivacyFilter, *, host: str = "", user: str = ""
) -> ImportReport:
    """Parse `path` as `shell` history and append what is new to `store`."""
    from ...errors import UsageError
    from ...models.session import Session
    from ...store.importers import PARSERS, format_problem
    from .import_read import read_history_file

    read = read_history_file(path, shell)
    try:
        mtime = path.stat().st_mtime
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}; pass the history file as an argument") from None
    data = read.data
    parsed = PARSERS[shell](data)
    problem = format_problem(shell, data, parsed, functools.partial(_is_command, shell=shell))
    if problem is not None:
        raise UsageError(f"{path} is not {shell} history: {problem}; nothing imported")
    for line in read.damaged:  # crash damage: NUL bytes
        parsed.skip(line, "(NUL bytes)")
    parsed.examples.sort()
    source = str(path.resolve())
    session_id = _ulid(0, f"import\0{shell}\0{host}\0{user}\0{source}")
    report = ImportReport(
        path, session_id, entries=len(parsed.entries), malformed=parsed.malformed, examples=parsed.examples
    )

    # A history repeats most of its lines: each distinct text is masked once.
    masked: dict[str, str] = {}
    kept: list[tuple[HistoryEntry, str]] = []
    for entry in parsed.entries:
        if not privacy.should_record(entry.command, ""):
            report.excluded += 1
            continue
        command = masked.get(entry.command)
        if command is None:
            command = masked[entry.command] = privacy.mask(entry.command)
        kept.append((entry, command))
    kept, undated_before = _undated_recorded_live(store, shell, host, kept, int(mtime * 1_000_000), report)

    seen: dict[tuple[int | None, str], int] = {}
    executions: list[ImportedExecution] = []
    timed_ids: set[str] = set()  # entries with the file's own timestamp, which live records can match
    undated_index = 0
    for entry, command in kept:
        occurrence = seen.get((entry.timestamp, command), 0)
        seen[(entry.timestamp, command)] = occurrence + 1
        if entry.timestamp is not None:
            micros = entry.timestamp * 1_000_000 + occurrence
            millis = entry.timestamp * 1000
        else:
            micros, millis = undated_before + undated_index, 0
            undated_index += 1
        execution_id = _ulid(millis, f"{shell}\0{source}\0{entry.timestamp}\0{command}\0{occurrence}")
        if entry.timestamp is not None:
            timed_ids.add(execution_id)
        executions.append(
            ImportedExecution(
                execution_id,
                session_id,
                command,
                _EPOCH + timedelta(microseconds=micros),  # half the cost of fromtimestamp().replace()
                entry.duration_s * 1000 if entry.duration_s is not None else None,
                host,
                user,
            )
        )
    executions = _without_live(store, executions, timed_ids, report)
    if executions:
        first = min(e.executed_at for e in executions)
        last = max(e.executed_at for e in executions)
        store.save_session(
            Session(
                id=session_id,
                created_at=first,
                last_active=last,
                ended_at=last,
                shell=shell,
                tty=f"imported from {source}",
                user=user,
                host=host,
            )
        )
    for start in range(0, len(executions), CHUNK):
        report.added += store.append_executions(executions[start : start + CHUNK])
    return report


def _undated_recorded_live(
    store: HistoryStore,
    shell: str,
    host: str,
    kept: list[tuple[HistoryEntry, str]],
    mtime_micros: int,
    report: ImportReport,
) -> tuple[list[tuple[HistoryEntry, str]], int]:
    """Drop the undated entries (plain bash history, Debian's default; plain zsh lines) that the
    shell hooks already recorded live, and say where the rest go in time.

    A plain file has no times to match by, but it is in the order the shell wrote it, newest
    last, and what the hooks recorded is the newest part of the history: so for each command,
    its last N lines in the file are the N times it was recorded live (one live record answers
    for one line). The remaining undated lines were typed before anything recorded live, so
    they are placed just before the oldest live record (or the file's last change, if earlier),
    in file order: never stamped with the import's time at the top of the history.
    Returns the entries kept and the microsecond the first undated one gets."""
    from ...store.micros import to_micros

    undated = [index for index, (entry, _) in enumerate(kept) if entry.timestamp is None]
    if not undated:
        return kept, 0
    counts, oldest = store.recorded_counts(shell, host)
    before = mtime_micros if oldest is None else min(mtime_micros, to_micros(oldest))
    dropped: set[int] = set()
    for index in reversed(undated):
        command = kept[index][1]
        if counts.get(command, 0) > 0:
            counts[command] -= 1
            dropped.add(index)
    report.recorded_live += len(dropped)
    return [item for index, item in enumerate(kept) if index not in dropped], before - (len(undated) - len(dropped))


# A history file keeps whole seconds (zsh's start time, bash's time of entry, fish's `when`); a
# live record keeps the hook's start time. One second of slack on each side covers the rounding
# and the moment between the shell noting the line and the hook's preexec.
LIVE_SLACK = timedelta(seconds=1)
MATCH_CHUNK = 5000  # entries per lookup of live records (a lookup is a few ms even when it finds none)


def _without_live(store: HistoryStore, executions: list, timed_ids: set[str], report: ImportReport) -> list:
    """Drop the timed entries that the shell hooks already recorded: same (masked) text, time
    within the file's resolution. Each live record answers for one entry only, so a command typed
    twice in the same second and recorded twice is matched twice, not more."""
    from ...store.protocols import ExecutionQuery

    timed = sorted((e for e in executions if e.id in timed_ids), key=lambda e: e.executed_at)
    if not timed:
        return executions
    # One count over the file's whole span first: into a store with nothing recorded then (a
    # first import, a fresh store) the per-chunk lookups below find nothing (0.2-0.3 s of 200,000 lines).
    since = timed[0].executed_at.replace(microsecond=0) - LIVE_SLACK
    until = timed[-1].executed_at.replace(microsecond=0) + 2 * LIVE_SLACK
    if not store.count_executions(ExecutionQuery(since=since, until=until)):
        return executions
    live_used: set[str] = set()
    duplicates: set[str] = set()
    for start in range(0, len(timed), MATCH_CHUNK):
        chunk = timed[start : start + MATCH_CHUNK]
        since = chunk[0].executed_at.replace(microsecond=0) - LIVE_SLACK
        until = chunk[-1].executed_at.replace(microsecond=0) + 2 * LIVE_SLACK
        by_command: dict[str, list[tuple[datetime, str]]] = {}
        for live_id, command, when in store.recorded_times(sorted({e.command for e in chunk}), since, until):
            by_command.setdefault(command, []).append((when, live_id))
        if not by_command:
            continue
        for found in by_command.values():
            found.sort()
        for execution in chunk:
            second = execution.executed_at.replace(microsecond=0)
            for when, live_id in by_command.get(execution.command, ()):
                if live_id not in live_used and second - LIVE_SLACK <= when < second + 2 * LIVE_SLACK:
                    live_used.add(live_id)
                    duplicates.add(execution.id)
                    break
    report.recorded_live += len(duplicates)
    return [e for e in executions if e.id not in duplicates]


def _is_command(word: str, shell: str) -> bool:
    """Whether `shell` runs `word`: its keywords and builtins (zsh's `setopt`), or a program."""
    from ...routing.shell_facts import PathIndex, resolve

    global _PATH_INDEX
    if _PATH_INDEX is None:
        _PATH_INDEX = PathIndex()
    return resolve(word, _PATH_INDEX, shell) != "none"


_PATH_INDEX: Any = None


def retention_notice(store: HistoryStore, report: ImportReport, policy: RetentionPolicy) -> str | None:
    """How many of the imported commands a configured history retention would delete at the next
    prune, said before any prune runs (by default the history is kept forever: None)."""
    from ...store.protocols import ExecutionQuery

    if not policy.history_retention_days:
        return None
    cutoff = datetime.now(UTC) - timedelta(days=policy.history_retention_days)
    doomed = store.count_executions(ExecutionQuery(session_id=report.session_id, until=cutoff))
    if not doomed:
        return None
    return (
        f"note: history_retention_days = {policy.history_retention_days} will remove {doomed} of the imported "
        f"commands (older than {policy.history_retention_days} days) at the next prune; "
        "set [context_management] history_retention_days = 0 to keep them"
    )


def register(app: typer.Typer) -> None:
    @app.command("import")
    def import_(
        shell: str = typer.Argument(..., metavar="bash|zsh|fish", help="Which shell wrote the file."),
        file: Path | None = typer.Argument(None, help="The history file (default: the shell's own)."),
    ) -> None:
        """Import a shell's history file; importing the same file again adds nothing."""
        from ...errors import UsageError
        from ...privacy.filters import PrivacyFilter
        from ..app import load_settings
        from .history_common import open_configured_store

        if shell not in SHELLS:
            raise UsageError(f"cannot import {shell!r} history: choose bash, zsh or fish")
        settings = load_settings().settings
        privacy = PrivacyFilter(settings.privacy, settings.context_management.privacy_mode)
        path = file or default_history_file(shell)
        with open_configured_store() as store:
            report = import_history(store, shell, path, privacy, host=socket.gethostname(), user=_user())
            notice = retention_notice(store, report, settings.context_management.retention_policy())
        typer.echo(
            f"{path}: {report.entries} entries, {report.added} added, {report.already_present} already present, "
            f"{report.recorded_live} already recorded live, "
            f"{report.excluded} excluded by privacy settings, {report.malformed} malformed lines skipped"
        )
        if notice:
            typer.echo(notice)
        for line, text in report.examples:
            typer.echo(f"  skipped line {line}: {text!r}", err=True)
        typer.echo(f"session {report.session_id} (parsec sessions show {report.session_id})")


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
