"""Writing all of a buffer to a file descriptor: os.write may write less than it was given (a
pipe, a pty, a full disk), and a non-blocking descriptor may be full for a moment."""

from __future__ import annotations

import os
import select


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
