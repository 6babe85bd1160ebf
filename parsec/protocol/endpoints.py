"""Where the daemon listens: the files in its private runtime directory."""

from __future__ import annotations

from pathlib import Path

from .. import paths

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


def connect_socket(runtime: Path, timeout: float) -> socket.socket:
    """A connected stream socket to the daemon in `runtime` (raises OSError when it is not
    there). The one way in for the CLI's client and `parsec shell`'s relay."""
    import socket  # here, not above: `parsec history` reads paths from this module, and socket costs ~2 ms

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(socket_path(runtime)))
    except OSError:
        sock.close()
        raise
    return sock
