"""Writing all of a buffer to a file descriptor: os.write may write less than it was given (a
pipe, a pty, a full disk), and a non-blocking descriptor may be full for a moment."""

from __future__ import annotations

import os
import select
from pathlib import Path


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data`, waiting while a non-blocking `fd` is full. Raises OSError (a
    full disk, a closed pipe) with an unknown part written."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except InterruptedError:
            continue
        except BlockingIOError:
            select.select([], [fd], [])


def append_private(path: Path, data: bytes) -> None:
    """Append `data` to `path`, made 0600 in a 0700 directory if new, never through a symlink
    someone planted in its place (the spool files of `parsec shell` and of a stopping daemon).
    Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
