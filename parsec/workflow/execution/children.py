"""Waiting for the processes Parsec started (the workflow's shell, bwrap, the session reaper):
their exit codes kept, and waits woken the moment one ends."""

from __future__ import annotations

import os
import select
import signal
import time

_UNREAPED: list[int] = []  # told to stop, not waited for: reaped at the next reap_later
EXIT_CODES: dict[int, int] = {}  # pid → exit code of shells that ended (`exit 3` ends the shell)


def exited(pid: int) -> bool:
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    if done == pid:
        EXIT_CODES[pid] = os.waitstatus_to_exitcode(status)
    return done == pid


def reap(pid: int, timeout: float) -> None:
    if exited(pid) or _exited_within(pid, timeout):
        return
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (OSError, ChildProcessError):
        pass


def _exited_within(pid: int, timeout: float) -> bool:
    """Wait for `pid` to end, at most `timeout` s: woken the moment it ends (a pidfd), not at the
    next tick of a 20 ms poll, which every shell and reaper at close waited out (issue 26, item 5)."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # an old kernel: poll
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if exited(pid):
                return True
            time.sleep(0.02)
        return False
    try:
        select.select([pidfd], [], [], timeout)
    finally:
        os.close(pidfd)
    return exited(pid)


def reap_later(pid: int) -> None:
    """`pid` was told to stop and finishes alone (off our session): reaped at a later call, or
    by init once Parsec exits; the ones that ended since the last call are reaped now."""
    for earlier in list(_UNREAPED):
        if exited(earlier):
            _UNREAPED.remove(earlier)
    _UNREAPED.append(pid)
