"""The watchdog that ends a workflow shell's whole session (every process group in it) when
Parsec goes away, even by `kill -9`: the pty's hang-up reaches only the shell, not a command
running in its own process group."""

from __future__ import annotations

import os
import signal
import time


def start_reaper(session_id: int) -> tuple[int, int]:
    """Fork the watchdog for the session `session_id`; returns (its pid, the pipe Parsec holds).

    Without it a `sleep 600` would outlive a killed Parsec. The watchdog blocks reading a pipe
    whose only writer is Parsec; end of file means Parsec closed the shell or died.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()  # off Parsec's terminal: no Ctrl-C or hang-up reaches it
            os.closerange(3, read_end)
            os.closerange(read_end + 1, 1024)
            while os.read(read_end, 1):
                pass
            kill_session(session_id)
        finally:
            os._exit(0)
    os.close(read_end)
    return pid, write_end


def kill_session(session_id: int) -> None:
    def members() -> list[int]:
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    if os.getsid(int(entry)) == session_id and not _is_zombie(entry):
                        found.append(int(entry))
                except OSError:
                    continue
        return found

    for pid in members():
        try:
            os.kill(pid, signal.SIGHUP)
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
    deadline = time.monotonic() + 0.5
    while members() and time.monotonic() < deadline:  # a moment to exit cleanly
        time.sleep(0.02)
    for pid in members():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _is_zombie(pid: str) -> bool:
    """A dead process its parent has not reaped yet (the shell, until Parsec waits for it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True
