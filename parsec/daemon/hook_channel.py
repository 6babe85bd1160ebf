"""The shells' way in: FIFOs in the owner-only runtime directory (docs/hooks.md, "Transport").

bash and zsh cannot open a Unix socket without a fork, and a TCP port is reachable by every
local user, so the hooks write to a FIFO instead:

- `<runtime>/hooks.fifo`, made here (0600) and held open read-write and non-blocking: it never
  reports EOF and a shell's write never meets a missing reader. Each shell writes whole lines of
  at most PIPE_BUF bytes, which the kernel never interleaves, so lines from many shells arrive
  intact. The pipe is enlarged (F_SETPIPE_SZ) so that it does not fill while the daemon works.
- `<runtime>/reply/<session>`, made by a shell (0600) for the answers to its requests that carry
  `reply_to`; written here non-blocking, so a shell that stopped reading costs nothing.

Every daemon start makes a new request FIFO (shells notice the change and announce their session
again) after taking over the old one: a daemon killed with -9 may have left lines in it.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import re
import select
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psutil

from ..fdio import append_private
from ..protocol import endpoints
from ..protocol import messages as m

log = logging.getLogger("parsec.daemon")

F_SETPIPE_SZ = 1031  # Linux: fcntl.F_SETPIPE_SZ (not exported before Python 3.10 everywhere)
PIPE_SIZE = 1 << 20  # the unprivileged maximum by default (/proc/sys/fs/pipe-max-size)
QUEUE_LIMIT = 8 << 20  # bytes read but not handled yet; beyond it reading pauses (shells spool)
RETRY_FIRST_S, RETRY_MAX_S = 0.05, 2.0  # a record the journal refused is offered again after these
ANSWER_FIELDS = ("v", "id", "ok", "decision")
_SHELL_FILE = re.compile(r"(?:cd|parse)-(\d{1,10})")  # a hook's own files (docs/hooks.md)
_REPLY_NAME = re.compile(rb'"reply_to"\s*:\s*"([A-Za-z0-9._-]{1,128})"')  # any JSON spacing

Handler = Callable[[bytes, dict[str, Any]], Awaitable[dict[str, Any] | None]]


class HookChannel:
    def __init__(self, runtime: Path, handle_line: Handler, limit: int) -> None:
        self.runtime = runtime
        self.handle_line = handle_line
        self.limit = limit
        self.lines_read = 0
        self._fds: list[int] = []
        self._partial: dict[int, bytearray] = {}
        self._queue: collections.deque[bytes] = collections.deque()
        self._queued_bytes = 0
        self._wake = asyncio.Event()
        self._paused: list[int] = []
        self._worker: asyncio.Task[None] | None = None
        self._questions: set[asyncio.Task[None]] = set()
        self.waiting_for_journal = False

    # --- lifecycle -------------------------------------------------------------------------
    def open(self) -> None:
        path = endpoints.hook_fifo(self.runtime)
        reply_dir = endpoints.reply_dir(self.runtime)
        reply_dir.mkdir(mode=0o700, exist_ok=True)
        _check_private(reply_dir, stat.S_ISDIR)
        left_over = _open_fifo(path) if _is_our_fifo(path) else None
        temp = path.with_name(f".{path.name}.{os.getpid()}")
        temp.unlink(missing_ok=True)
        os.mkfifo(temp, 0o600)
        os.replace(temp, path)
        fresh = _open_fifo(path)
        loop = asyncio.get_running_loop()
        for fd in (fresh, left_over):
            if fd is not None:
                self._fds.append(fd)
                self._partial[fd] = bytearray()
                loop.add_reader(fd, self._readable, fd)
        self._worker = asyncio.ensure_future(self._work())

    async def close(self, timeout: float) -> None:
        """Stop taking lines, handle the ones already read (and those still in the FIFO)."""
        endpoints.hook_fifo(self.runtime).unlink(missing_ok=True)  # shells spool from now on
        loop = asyncio.get_running_loop()
        for fd in self._fds:
            loop.remove_reader(fd)
            self._readable(fd, resume=False)  # what was written before the unlink
        deadline = loop.time() + timeout
        while self._queue and loop.time() < deadline:
            await asyncio.sleep(0.01)
        if self._worker is not None:
            self._worker.cancel()
        if self._queue:
            self._spool_left_over()
        await asyncio.gather(*self._questions, return_exceptions=True)
        for fd in self._fds:
            os.close(fd)
        self._fds.clear()

    def _spool_left_over(self) -> None:
        """Records the journal never took (its disk stayed full) go to the spool, which the next
        daemon reads, rather than being lost with this process."""
        path = endpoints.runtime_spool_dir(self.runtime) / f"daemon-{os.getpid()}.jsonl"
        try:
            append_private(path, b"".join(line + b"\n" for line in self._queue))
        except OSError as err:
            log.error("%d hook records lost at exit: cannot spool them to %s: %s", len(self._queue), path, err)
            return
        log.warning("%d hook records the journal did not take are spooled to %s", len(self._queue), path)
        self._queue.clear()

    # --- reading ---------------------------------------------------------------------------
    def _readable(self, fd: int, resume: bool = True) -> None:
        partial = self._partial[fd]
        while self._queued_bytes < QUEUE_LIMIT:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError as err:
                log.warning("reading the hook FIFO: %s", err)
                return
            if not chunk:
                return
            partial += chunk
            start = 0
            while (end := partial.find(b"\n", start)) >= 0:
                if end - start > self.limit:
                    log.warning("dropped a hook line longer than %d bytes", self.limit)
                else:
                    self._take(bytes(partial[start:end]))
                start = end + 1
            del partial[:start]
            if len(partial) > self.limit:  # a line that never ends: drop it up to its newline
                log.warning("dropped a hook line longer than %d bytes", self.limit)
                partial.clear()
                self._partial[fd] = partial
        if resume:  # the daemon is behind: stop reading, so the FIFO fills and shells spool
            asyncio.get_running_loop().remove_reader(fd)
            self._paused.append(fd)

    def _take(self, line: bytes) -> None:
        if not line.strip():
            return
        self.lines_read += 1
        reply_to = _REPLY_NAME.search(line)
        if reply_to is not None:  # a question: answered at once, not behind queued records
            task = asyncio.ensure_future(self._answer(line, reply_to.group(1).decode()))
            self._questions.add(task)
            task.add_done_callback(self._questions.discard)
            return
        self._queue.append(line)
        self._queued_bytes += len(line)
        self._wake.set()

    async def _work(self) -> None:
        """Handle records one by one, in the order the FIFO delivered them.

        A record the journal cannot take (its disk is full and the memory it may hold is used
        up) stays first in the queue and is offered again, slower and slower: the shell that
        sent it is not listening, so refusing would lose it. Meanwhile the queue fills to
        QUEUE_LIMIT, reading pauses, and the shells spool (`status` says how many wait here)."""
        conn: dict[str, Any] = {"transport": "fifo", "sees_refusals": True}
        while True:
            await self._wake.wait()
            delay = RETRY_FIRST_S
            while self._queue:
                reply = await self.handle_line(self._queue[0], conn)
                if _not_kept_for_now(reply):
                    if not self.waiting_for_journal:
                        log.error(
                            "the journal takes no more records: %d bytes of hook records wait in "
                            "memory, shells spool beyond %d",
                            self._queued_bytes,
                            QUEUE_LIMIT,
                        )
                    self.waiting_for_journal = True
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, RETRY_MAX_S)
                    continue
                if reply is not None and not reply.get("ok"):
                    log.debug("hook record refused: %s", reply.get("error"))
                if self.waiting_for_journal:
                    log.warning("the journal takes records again")
                    self.waiting_for_journal = False
                    delay = RETRY_FIRST_S
                line = self._queue.popleft()
                self._queued_bytes -= len(line)
                self._resume_reading()
            self._wake.clear()

    @property
    def waiting_records(self) -> int:
        """Hook records read from the FIFO that wait for the journal to take them again."""
        return len(self._queue) if self.waiting_for_journal else 0

    def _resume_reading(self) -> None:
        if self._paused and self._queued_bytes < QUEUE_LIMIT // 2:
            loop = asyncio.get_running_loop()
            for fd in self._paused:
                loop.add_reader(fd, self._readable, fd)
            self._paused.clear()

    # --- replies ---------------------------------------------------------------------------
    async def _answer(self, line: bytes, name: str) -> None:
        reply = await self.handle_line(line, {"transport": "fifo"})
        if reply is not None:
            write_reply(endpoints.reply_dir(self.runtime) / name, m.encode(hook_answer(reply)))

    def prune_dead_shells(self) -> None:
        """Remove what shells that are gone left in the runtime directory: their reply FIFOs
        (`reply/<pid>-<start time>`) and the files each hook keeps for its life, `cd-<pid>` and
        `parse-<pid>` (emptied after each use, never removed by the shell: one of each per
        shell ever opened piled up where the runtime directory outlives the session, /tmp)."""
        try:
            entries = list(endpoints.reply_dir(self.runtime).iterdir())
        except OSError:
            entries = []
        for path in entries:
            pid = path.name.split("-", 1)[0]
            if not pid.isdigit() or not psutil.pid_exists(int(pid)):
                path.unlink(missing_ok=True)
        try:
            names = os.listdir(self.runtime)
        except OSError:
            return
        for name in names:
            found = _SHELL_FILE.fullmatch(name)
            if found and not psutil.pid_exists(int(found[1])):
                (self.runtime / name).unlink(missing_ok=True)


def _not_kept_for_now(reply: dict[str, Any] | None) -> bool:
    """The journal refused the record (the daemon's `unavailable`): offer it again later."""
    return reply is not None and not reply.get("ok") and reply.get("error", {}).get("code") == "unavailable"


def hook_answer(reply: dict[str, Any]) -> dict[str, Any]:
    """What a hook reads of a reply: its id, whether it is ok and the decision (an error's code).
    Short, so that bash (which reads a pipe a byte at a time) reads it fast, and always one
    atomic write."""
    answer = {key: reply[key] for key in ANSWER_FIELDS if key in reply}
    if isinstance(reply.get("error"), dict):
        answer["error"] = {"code": reply["error"].get("code")}
    return answer


def write_reply(path: Path, data: bytes) -> bool:
    """One reply line to a shell's reply FIFO; never blocks, never follows a symlink. A line is
    written whole or not at all (at most PIPE_BUF bytes): the hooks read the rest of a line they
    have begun without a timeout."""
    if len(data) > select.PIPE_BUF:
        log.warning("dropped a reply of %d bytes for a hook (more than one atomic write)", len(data))
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:  # gone, or no shell reading it (ENXIO)
        return False
    try:
        if not _owned(os.fstat(fd), stat.S_ISFIFO):
            return False
        return os.write(fd, data) == len(data)
    except OSError:  # full (a shell that stopped reading), or closed meanwhile
        return False
    finally:
        os.close(fd)


def _owned(info: os.stat_result, kind: Callable[[int], bool]) -> bool:
    """Of that kind (stat.S_ISFIFO, stat.S_ISDIR) and ours."""
    return kind(info.st_mode) and info.st_uid == os.getuid()


def _is_our_fifo(path: Path) -> bool:
    try:
        return _owned(os.lstat(path), stat.S_ISFIFO)
    except OSError:
        return False


def _open_fifo(path: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    if not _owned(os.fstat(fd), stat.S_ISFIFO):
        os.close(fd)
        raise OSError(f"{path} is not a FIFO of ours")
    try:
        import fcntl

        fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE)
    except OSError:
        pass  # the default 64 KiB: shells spool a little sooner when the daemon is behind
    return fd


def _check_private(path: Path, kind: Callable[[int], bool]) -> None:
    info = os.lstat(path)
    if not _owned(info, kind) or info.st_mode & 0o077:
        raise OSError(f"{path} is not a private directory of ours")
