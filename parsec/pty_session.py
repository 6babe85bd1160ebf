"""A child process on a pseudo-terminal: the one owner of the pty plumbing that `parsec shell`
(cli/shell/pty_proxy.py) and the workflow's persistent shell (workflow/execution/persistent_shell.py) share: opening the pty
pair, starting the child as the leader of a new session with the pty as its terminal, the window
size, raw mode for the user's keys, and reading a pty whose other side may be gone."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import signal
import struct
import termios
import tty
from collections.abc import Iterator, Mapping, Sequence

_READ = 65536
_FD_SCRATCH = 256  # where the child parks the fds it is handed before placing them (see spawn_on_pty)


def spawn_on_pty(
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    fds: Mapping[int, int] | None = None,
    cwd: str | None = None,
    controlling_terminal: bool = True,
    close_other_fds: bool = False,
    size_from: Sequence[int] = (),
    default_size: tuple[int, int] | None = None,
) -> tuple[int, int]:
    """Start `argv` (found on `env`'s PATH) in a new session on a new pty; returns (pid, master).

    `fds` maps a child fd number to one of ours (handed over: closed here once the child has it);
    `close_other_fds` closes every fd above them in the child. `controlling_terminal=False` leaves
    taking the pty to the child (bwrap's `setsid --ctty`, whose namespace the pty must be taken
    in). The pty gets the size of the first terminal in `size_from`, else `default_size` (rows,
    columns). When the program cannot start, the child says why on the pty and exits 127."""
    handed = dict(fds or {})
    master, slave = os.openpty()
    copy_window_size(slave, size_from, default_size)
    pid = os.fork()
    if pid == 0:  # the child: nothing here may return into the parent's code
        try:
            os.setsid()
            if controlling_terminal:
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            # Parked above every target first, so that placing one cannot clobber another's source.
            parked = {
                target: fcntl.fcntl(source, fcntl.F_DUPFD_CLOEXEC, _FD_SCRATCH) for target, source in handed.items()
            }
            for target, source in parked.items():
                os.dup2(source, target)  # inheritable, unlike the parked copy
            if close_other_fds:
                os.closerange(max(handed, default=2) + 1, 1024)
            if cwd is not None:
                os.chdir(cwd if os.path.isdir(cwd) else "/")
            try:
                os.execvpe(argv[0], list(argv), dict(env))
            except OSError as err:
                os.write(2, f"parsec: cannot start {argv[0]}: {err.strerror}\n".encode())
        finally:
            os._exit(127)
    os.close(slave)
    for source in handed.values():
        os.close(source)
    return pid, master


def exit_code(status: int) -> int:
    """A wait status as a shell reports it: the exit code, or 128 + the signal that ended it."""
    return 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.waitstatus_to_exitcode(status)


def copy_window_size(dst: int, sources: Sequence[int], default: tuple[int, int] | None = None) -> bool:
    """The size of the first terminal among `sources` onto the pty `dst` (either side of it), or
    `default` (rows, columns) when none has one. False when nothing was set."""
    for fd in sources:
        try:
            size = fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
            rows, cols = struct.unpack("HHHH", size)[:2]
            if rows and cols:
                fcntl.ioctl(dst, termios.TIOCSWINSZ, size)
                return True
        except (OSError, ValueError):
            continue
    if default is None:
        return False
    try:
        fcntl.ioctl(dst, termios.TIOCSWINSZ, struct.pack("HHHH", default[0], default[1], 0, 0))
    except OSError:
        return False
    return True


@contextlib.contextmanager
def following_window_size(dst: int, sources: Sequence[int]) -> Iterator[None]:
    """While inside: each SIGWINCH (the user resized the terminal) copies the size onto `dst`."""
    previous = signal.signal(signal.SIGWINCH, lambda *_: copy_window_size(dst, sources))
    try:
        yield
    finally:
        signal.signal(signal.SIGWINCH, previous)


class RawTerminal:
    """A terminal in raw mode while inside, so every key (Ctrl-C too) goes to the child; put back
    as it was on exit. Nothing happens for an fd that is not a terminal (then `fd` is None).
    `when=termios.TCSANOW` keeps the keys typed ahead (TCSAFLUSH drops them)."""

    def __init__(self, fd: int | None, when: int = termios.TCSAFLUSH) -> None:
        self.fd = fd if fd is not None and os.isatty(fd) else None
        self.when = when
        self._saved: list | None = None

    def __enter__(self) -> RawTerminal:
        if self.fd is not None:
            try:
                self._saved = termios.tcgetattr(self.fd)
                tty.setraw(self.fd, self.when)
            except termios.error:
                self.fd = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None and self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)


def readable(fds: Sequence[int], timeout: float) -> list[int]:
    """The fds of `fds` ready to read within `timeout` s ([] when a signal cut the wait short)."""
    try:
        return select.select(fds, [], [], timeout)[0]
    except InterruptedError:
        return []


def read_pty(fd: int) -> bytes:
    """What is there to read; b"" at the end, which on a pty is EIO once the other side closed."""
    try:
        return os.read(fd, _READ)
    except OSError as err:
        if err.errno in (errno.EIO, errno.EBADF):
            return b""
        raise


def drain(fd: int) -> bytes:
    """What is left to read on `fd` (pausing at most 50 ms between chunks)."""
    out = bytearray()
    while readable([fd], 0.05):
        data = read_pty(fd)
        if not data:
            break
        out.extend(data)
    return bytes(out)
