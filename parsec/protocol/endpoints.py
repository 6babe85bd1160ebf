"""Where the daemon listens: the files in its private runtime directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .. import paths
from ..errors import UnsafeRuntimeDir

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (`parsec history`'s start-up)
if TYPE_CHECKING:
    import socket


def runtime_dir(socket_dir: str = "") -> Path:
    """`[daemon] socket_dir`, or `$XDG_RUNTIME_DIR/parsec` / `<tmp>/parsec-<uid>`."""
    return Path(socket_dir) if socket_dir else paths.runtime_dir()


def socket_path(runtime: Path) -> Path:
    return runtime / "daemon.sock"


def hook_fifo(runtime: Path) -> Path:
    """The FIFO every shell hook writes its records and questions to (daemon/hook_channel.py)."""
    return runtime / "hooks.fifo"


def reply_dir(runtime: Path) -> Path:
    """Each shell's own reply FIFO, `reply/<session>`, for the answers to its questions."""
    return runtime / "reply"


def lock_file(runtime: Path) -> Path:
    return runtime / "daemon.lock"


def pid_file(runtime: Path) -> Path:
    return runtime / "daemon.pid"


def stopped_marker(runtime: Path) -> Path:
    """Present after `parsec daemon stop`, until `parsec daemon start`: the hooks' autostart then
    leaves the daemon off. The runtime directory is emptied at reboot, and so is the stop."""
    return runtime / "daemon.stopped"


def runtime_spool_dir(runtime: Path) -> Path:
    """Where hooks append messages when the daemon is down (fast, but lost on reboot)."""
    return runtime / "spool"


# A recorded command's line in a spool file (the hooks write compact JSON): what the CLI counts as
# waiting and the daemon as refused.
SPOOLED_COMMAND = b'"type":"command_finished"'


def check_runtime_dir(runtime: Path) -> Path:
    """`runtime` when it is a real directory (not a symlink) of this user's, mode 0700; else
    UnsafeRuntimeDir. Every client of the directory goes through here (the hooks say the same in
    their own language): another local user can make `/tmp/parsec-<uid>` first, with XDG_RUNTIME_DIR
    unset, to receive every command and its output. OSError when it does not exist."""
    info = os.lstat(runtime)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise UnsafeRuntimeDir(
            f"{runtime} is not a private directory of yours (a real directory you own, mode 0700): "
            "nothing is sent there; remove it, or set [daemon] socket_dir"
        )
    return runtime


def connect_socket(runtime: Path, timeout: float) -> socket.socket:
    """A connected stream socket to this user's daemon in `runtime`: OSError when it is not
    there, UnsafeRuntimeDir when the directory or the process listening is not the user's own
    (its uid, from SO_PEERCRED). The one way in for the CLI's client, doctor and `parsec shell`."""
    import socket  # here, not above: `parsec history` reads paths from this module, and socket costs ~2 ms
    import struct

    check_runtime_dir(runtime)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(socket_path(runtime)))
        _, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
    except OSError:
        sock.close()
        raise
    if uid != os.getuid():
        sock.close()
        raise UnsafeRuntimeDir(
            f"{socket_path(runtime)} is served by uid {uid}, not by you: nothing is sent there; "
            "stop that process, or set [daemon] socket_dir"
        )
    return sock
