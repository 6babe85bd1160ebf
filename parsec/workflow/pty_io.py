"""The terminal plumbing of the workflow's shell (shell.py): raw mode for the user's keys while a
command runs, the window size on the pty, and reading a pty that may be closed."""

from __future__ import annotations

import errno
import fcntl
import os
import select
import struct
import sys
import termios
import tty


class RawTerminal:
    """Puts a terminal in raw mode while a command runs, so every key goes to the command."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd if fd is not None and os.isatty(fd) else None
        self._saved: list | None = None

    def __enter__(self) -> RawTerminal:
        if self.fd is not None:
            try:
                self._saved = termios.tcgetattr(self.fd)
                tty.setraw(self.fd)
            except termios.error:
                self.fd = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None and self._saved is not None:
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)


def copy_window_size(slave: int, default: bool = True) -> None:
    """The user's terminal size onto the pty (at start, and again on SIGWINCH)."""
    for fd in (sys.stdout.fileno() if sys.stdout else -1, 0):
        try:
            size = fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
            rows, cols = struct.unpack("HHHH", size)[:2]
            if rows and cols:
                fcntl.ioctl(slave, termios.TIOCSWINSZ, size)
                return
        except (OSError, ValueError):
            continue
    if default:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))


def read_pty(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError as err:
        if err.errno in (errno.EIO, errno.EBADF):  # EIO: the pty's other side is closed
            return b""
        raise


def drain(fd: int) -> bytes:
    out = bytearray()
    while select.select([fd], [], [], 0.05)[0]:
        data = read_pty(fd)
        if not data:
            break
        out.extend(data)
    return bytes(out)


def partial_suffix(data: bytes, marker: bytes) -> int:
    for size in range(min(len(marker) - 1, len(data)), 0, -1):
        if marker.startswith(data[-size:]):
            return size
    return 0
