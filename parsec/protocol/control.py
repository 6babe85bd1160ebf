"""Finding, starting and stopping the one daemon a user has (the CLI side of the lifecycle).

The lock (`flock` on `<runtime>/daemon.lock`, held for the daemon's whole life) is what makes
the daemon unique: a pid file or socket left by a crashed daemon is stale exactly when the lock
is free, so it is simply replaced.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .. import paths
from ..errors import DaemonUnavailable, ParsecError
from . import endpoints
from .client import DaemonClient
from .messages import Ping
from .replies import ErrorReply

EXIT_ALREADY_RUNNING = 3


class AlreadyRunning(ParsecError):
    exit_code = EXIT_ALREADY_RUNNING


def runtime_for(socket_dir: str) -> Path:
    """The runtime directory for `daemon.socket_dir` (empty: the default), created 0700 when
    missing; refused (UnsafeRuntimeDir) unless it is a private directory of the user's
    (endpoints.check_runtime_dir). The caller reads the setting: this layer knows no config."""
    runtime = endpoints.runtime_dir(socket_dir)
    try:
        mine = runtime.lstat().st_uid == os.getuid() and runtime.is_dir() and not runtime.is_symlink()
    except FileNotFoundError:
        mine = True
    if mine:
        paths.ensure_private_dir(runtime)  # made, or a loose mode of the user's own tightened
    return endpoints.check_runtime_dir(runtime)


def take_lock(runtime: Path) -> int | None:
    """The lock's fd if this process now owns the daemon slot, else None."""
    fd = os.open(endpoints.lock_file(runtime), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def lock_is_held(runtime: Path) -> bool:
    fd = take_lock(runtime)
    if fd is None:
        return True
    os.close(fd)
    return False


def read_pid(runtime: Path) -> int | None:
    try:
        return int(endpoints.pid_file(runtime).read_text().strip())
    except (OSError, ValueError):
        return None


def ping(runtime: Path, timeout: float = 1.0) -> bool:
    try:
        with DaemonClient.connect(runtime, timeout=timeout) as client:
            return not isinstance(client.exchange(Ping()), ErrorReply)
    except (ParsecError, OSError):
        return False


def start_background(
    socket_dir: str, overrides: list[str], timeout: float = 15.0, auto: bool = False
) -> tuple[int | None, bool]:
    """Start a daemon unless one answers. Returns (pid, started_now) once the socket answers.

    A start by the user lifts a stop by the user (`stopped_marker`); an automatic one (`auto`,
    the hooks') does nothing while it is there and returns (None, False)."""
    runtime = runtime_for(socket_dir)
    marker = endpoints.stopped_marker(runtime)
    if auto and marker.exists():
        return None, False
    marker.unlink(missing_ok=True)
    if ping(runtime):
        return read_pid(runtime), False
    out_path = paths.ensure_private_dir(paths.state_dir()) / "daemon.out"
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    start_offset = os.fstat(out_fd).st_size
    with os.fdopen(out_fd, "ab") as out:
        # From "/": a `parsec/` folder or a project's .parsec.toml in the caller's directory is
        # none of the per-user daemon's business (`-P` keeps the cwd off sys.path as well).
        child = subprocess.Popen(
            daemon_command(overrides),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            cwd="/",
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ping(runtime, timeout=0.5):
            return read_pid(runtime), child.poll() is None
        code = child.poll()
        if code not in (None, EXIT_ALREADY_RUNNING):
            why = _last_line(out_path, start_offset)
            raise DaemonUnavailable(
                f"the daemon exited with status {code} at start{': ' + why if why else ''} (its output: {out_path})"
            )
        time.sleep(0.02)
    raise DaemonUnavailable(
        f"the daemon did not answer within {timeout:.0f}s: see {out_path} and {out_path.with_name('daemon.log')}"
    )


def daemon_command(overrides: list[str]) -> list[str]:
    """The daemon's argv. `-P`: `python -m` would otherwise put the working directory first on
    sys.path, and a `parsec/` folder there (a clone of this repository in ~) would be imported."""
    return [sys.executable, "-P", "-m", "parsec.daemon", *(arg for item in overrides for arg in ("--set", item))]


def _last_line(path: Path, offset: int) -> str:
    """The last non-empty line the child wrote (the exception of a traceback), shortened."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            lines = handle.read()[-8192:].decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return last[:300]


def stop(socket_dir: str, timeout: float = 20.0, hold: bool = True) -> int | None:
    """SIGTERM the daemon and wait for it to finish draining. Returns its pid, None if none ran.

    `hold`: the stop holds (`stopped_marker`, written first so no autostart slips in between)
    until a `start`; `restart` does not hold."""
    runtime = runtime_for(socket_dir)
    if hold:
        marker = endpoints.stopped_marker(runtime)
        os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
    pid = read_pid(runtime)
    if not lock_is_held(runtime):
        _remove_stale(runtime)
        return None
    if pid is None:
        raise DaemonUnavailable(f"a daemon holds {endpoints.lock_file(runtime)} but wrote no pid file; stop it by hand")
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not lock_is_held(runtime) and not _running(pid):
            return pid
        time.sleep(0.02)
    raise DaemonUnavailable(f"the daemon (pid {pid}) did not stop within {timeout:.0f}s; `kill -9 {pid}` forces it")


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _remove_stale(runtime: Path) -> None:
    # Not the hook FIFO: lines may wait in it for the next daemon (hook_channel.py).
    for path in (endpoints.socket_path(runtime), endpoints.pid_file(runtime)):
        path.unlink(missing_ok=True)
