"""Messages the hooks appended to spool files while the daemon was down (or, for fish, always).

A command too long for the hook to escape cheaply (a big paste: bash would take seconds) is
written raw to `<spool>/<name>.txt` and its record says `"command_file": "<name>.txt"`; the text
is read here, as UTF-8 with U+FFFD for bad bytes, and the file deleted with its spool file.

A file is taken in two steps: renamed to `*.taken` on one pass, read on the next (so a hook that
opened it just before the rename has finished its append), then deleted once every record from
it is in the journal. A crash in between re-reads the file; derived ids keep that harmless.

A flush request (`parsec history`, Ctrl-R) first catches up: the complete lines of every file
are handled at once and remembered by offset, and the pass deletes the file later as before
(fish always spools: its last command would otherwise reach the store 2–4 s late). The catch-up
counts the spooled commands the daemon refused, so the flush's reply can say so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..protocol.endpoints import SPOOLED_COMMAND

if TYPE_CHECKING:
    from .journal import Journal

log = logging.getLogger("parsec.daemon")

TAKEN = ".taken"
_TEXT_FILE = re.compile(r"[A-Za-z0-9._-]{1,200}\.txt")


class LineHandler(Protocol):
    """What the spool asks of the daemon (server.Daemon): its journal (a file is kept while the
    journal cannot be written), the line size limit, and the handler a socket's lines go to."""

    journal: Journal
    limit: int

    async def handle_line(self, line: bytes, conn: dict[str, Any]) -> dict[str, Any] | None: ...


class HookSpool:
    def __init__(self, directories: list[Path], daemon: LineHandler) -> None:
        self.directories = directories
        self.daemon = daemon
        self.ingested = 0
        # (device, inode): (bytes, lines) already handled; the lines keep "line N" the file's own
        self._handled: dict[tuple[int, int], tuple[int, int]] = {}
        self._lock = asyncio.Lock()  # a catch-up and a pass never read the same lines twice

    async def catch_up(self) -> int:
        """Handle the complete lines every spool file holds now; the files stay for the pass.
        Returns how many spooled commands (command_finished records) were refused."""
        refused = 0
        async with self._lock:
            for path in self._files(f"*{TAKEN}") + self._files("*.jsonl"):
                refused += await self._replay(path, final=False)
        return refused

    async def ingest(self) -> None:
        """Replay files taken on the previous pass, then take the ones written since."""
        async with self._lock:
            await self._ingest()

    async def _ingest(self) -> None:
        for taken in self._files(f"*{TAKEN}"):
            await self._replay(taken, final=True)
        for fresh in self._files("*.jsonl"):
            taken = fresh.with_name(fresh.name + TAKEN)
            if taken.exists():
                continue  # still being retried: renaming over it would lose what it holds
            try:
                fresh.rename(taken)
            except OSError:
                pass

    def _files(self, pattern: str) -> list[Path]:
        found: list[tuple[float, Path]] = []
        uid = os.getuid()
        for directory in self.directories:
            try:
                if directory.stat().st_uid != uid:
                    continue  # never take input from a directory someone else controls
                for path in directory.glob(pattern):
                    info = path.lstat()
                    if info.st_uid == uid and path.is_file() and not path.is_symlink():
                        found.append((info.st_mtime, path))
            except OSError:
                continue
        return [path for _, path in sorted(found)]

    async def _replay(self, path: Path, final: bool) -> int:
        """Handle the lines of `path` not handled yet. `final`: all of them, then delete the file;
        else only complete lines, and none from a `command_file` record on (the pass does those,
        so a text file is deleted with its spool file). Returns the commands refused."""
        journal = self.daemon.journal
        if journal.write_error is not None:
            return 0  # the journal cannot be written: the file is the only durable copy, keep it
        conn = {"transport": "spool", "sees_refusals": True}
        count = bad = refused_commands = 0
        limit = self.daemon.limit
        text_files: list[Path] = []
        key: tuple[int, int] | None = None
        try:
            with path.open("rb") as handle:
                info = os.fstat(handle.fileno())
                key = (info.st_dev, info.st_ino)
                offset, number = self._handled.get(key, (0, 0))
                handle.seek(offset)
                for line in handle:
                    if not final and (not line.endswith(b"\n") or b'"command_file"' in line):
                        break
                    size = len(line)
                    offset += size
                    number += 1
                    self._handled[key] = (offset, number)
                    if len(line) > limit or not line.strip():
                        continue
                    if b'"command_file"' in line:
                        line = _with_command_text(line, path.parent, text_files)
                    try:
                        reply = await self.daemon.handle_line(line.rstrip(b"\n"), conn)
                    except Exception as err:  # one bad line must not hold back the rest of the file
                        reply = {"ok": False, "error": {"code": "internal", "message": f"{type(err).__name__}: {err}"}}
                    if reply is not None and not reply["ok"]:
                        if reply["error"]["code"] == "unavailable":
                            self._handled[key] = (offset - size, number - 1)
                            return refused_commands  # the journal cannot be written: keep the file for later
                        bad += 1
                        refused_commands += SPOOLED_COMMAND in line
                        log.warning(
                            "spool file %s line %d refused (%s); the rest is ingested",
                            path.name,
                            number,
                            reply["error"]["code"],
                        )
                        continue
                    count += 1
        except OSError as err:
            log.warning("cannot read spool file %s: %s", path, err)
            return refused_commands
        self.ingested += count
        if not final:
            return refused_commands
        if journal.write_error is not None:
            return refused_commands  # some of it is only in memory: keep the file until the journal holds it
        await journal.sync()  # fdatasynced before the spool copy is deleted
        path.unlink(missing_ok=True)
        if key is not None:
            self._handled.pop(key, None)
        for text in text_files:
            text.unlink(missing_ok=True)
        log.info("ingested %d spooled messages from %s (%d refused)", count, path.name, bad)
        return refused_commands


def _with_command_text(line: bytes, directory: Path, seen: list[Path]) -> bytes:
    """The record with `command` read from its `command_file` (in the same private directory,
    a regular file of ours, never through a symlink). Unchanged when that cannot be done."""
    try:
        message = json.loads(line)
        name = message.pop("command_file")
    except (ValueError, AttributeError, KeyError):
        return line
    if not isinstance(name, str) or not _TEXT_FILE.fullmatch(name):
        return line
    path = directory / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return line
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return line
        message["command"] = handle.read().decode("utf-8", "replace")
    seen.append(path)
    return json.dumps(message, ensure_ascii=False).encode()
