"""What a workflow hands back to the user's shell: the final directory (the hooks `cd` there)
and the executed commands, appended to the shell's history file and to Parsec's history (tagged
with their conversation: `parsec history --source ai`, Ctrl-R)."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...models.session import DirectCommandExecution
    from ...models.workflow import CommandAttempt, Conversation
    from .runner_parts import RunOptions


def history_entry(
    conversation: Conversation, attempt: CommandAttempt, cwd_after: str, options: RunOptions
) -> DirectCommandExecution | None:
    """The history row of a command the workflow ran: source "workflow", its conversation's id,
    the attempt's id (so a retried write stays one row); None when [privacy] keeps it out."""
    if not options.keep_in_history(attempt.command, attempt.cwd):
        return None
    import socket

    from ...models.parsec_model import utcnow
    from ...models.session import DirectCommandExecution

    return DirectCommandExecution(
        id=attempt.id,
        session_id=conversation.session_id,
        command=attempt.command,
        executed_at=attempt.started_at or utcnow(),
        duration_ms=attempt.duration_ms,
        exit_status=attempt.exit_status,
        stdout=None if options.privacy_mode else attempt.output,
        working_directory=attempt.cwd,
        cwd_after=cwd_after,
        host=socket.gethostname(),
        user=options.env.get("USER", ""),
        source="workflow",
        conversation_id=conversation.id,
    )


def write_final_directory(cwd: str, env: Mapping[str, str]) -> bool:
    """Write `cwd` into the file named by PARSEC_CD_FILE (set by the shell hooks), if any."""
    target = env.get("PARSEC_CD_FILE")
    if not target or not _private_parent(target):
        return False
    try:
        # O_NOFOLLOW: a symlink planted in its place must not make us truncate another file.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(cwd + "\n")
    except OSError:
        return False
    return True


def _private_parent(path: str) -> bool:
    """The file's directory is a real directory of ours that no one else may enter (the hooks'
    runtime directory): another user's directory could hand our shell any path to `cd` to."""
    try:
        info = os.lstat(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def history_file(env: Mapping[str, str]) -> str | None:
    """PARSEC_HISTFILE, then HISTFILE (exported by the hooks), then the shell's default file."""
    explicit = env.get("PARSEC_HISTFILE") or env.get("HISTFILE")
    if explicit:
        return explicit
    home = env.get("HOME") or os.path.expanduser("~")
    shell = os.path.basename(env.get("SHELL", ""))
    default = {"bash": ".bash_history", "zsh": ".zsh_history"}.get(shell)
    if default is None:
        return None
    path = os.path.join(home, default)
    return path if os.path.exists(path) else None


def append_history(commands: Iterable[str], env: Mapping[str, str]) -> bool:
    """Append commands the way the shell writes them; zsh's extended format when the file uses it."""
    path = history_file(env)
    commands = [c for c in commands if c.strip()]
    if not path or not commands:
        return False
    extended = _uses_zsh_extended_format(path) or (path.endswith("zsh_history") and not os.path.exists(path))
    now = int(time.time())
    lines = [f": {now}:0;{c}\n" if extended else f"{c}\n" for c in commands]
    try:
        with open(path, "a", encoding="utf-8") as handle:
            handle.writelines(lines)
    except OSError:
        return False
    return True


def _uses_zsh_extended_format(path: str) -> bool:
    """True when the file's last entry looks like `: <start>:<elapsed>;<command>`."""
    import re

    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - 4096))
            lines = [line for line in handle.read().splitlines() if line.strip()]
    except OSError:
        return False
    return bool(lines) and re.match(rb"^: \d+:\d+;", lines[-1]) is not None
