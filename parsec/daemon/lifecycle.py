"""Running the daemon process: the lock, the pid file, logging, signals, then the server."""

from __future__ import annotations

import asyncio
import logging
import logging.handlers
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from .. import paths
from ..config import Settings
from ..protocol import endpoints
from ..protocol.control import AlreadyRunning, read_pid, runtime_for, take_lock

log = logging.getLogger("parsec.daemon")


def setup_logging(settings: Settings, to_stderr: bool) -> None:
    cfg = settings.daemon
    log_dir = paths.ensure_private_dir(paths.state_dir())
    handler: logging.Handler = logging.handlers.RotatingFileHandler(
        log_dir / "daemon.log", maxBytes=cfg.log_max_bytes, backupCount=cfg.log_backups, encoding="utf-8"
    )
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    handler.setFormatter(formatter)
    logger = logging.getLogger("parsec")
    logger.handlers[:] = [handler]
    if to_stderr:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(formatter)
        logger.addHandler(stream)
    logger.setLevel(cfg.log_level.upper())
    logger.propagate = False


def run_foreground(settings: Settings) -> int:
    """`parsec daemon run`: serve until SIGTERM/SIGINT, then drain. Returns the exit status."""
    # Worker threads (the journal's background fdatasync, the classifier) take the GIL after each
    # blocking call; at the default 5 ms switch interval a reply could wait that long for it back.
    sys.setswitchinterval(0.0005)
    runtime = runtime_for(settings.daemon.socket_dir)
    lock = take_lock(runtime)
    if lock is None:
        raise AlreadyRunning(f"a daemon is already running (pid {read_pid(runtime)}); `parsec daemon stop` stops it")
    os.umask(0o077)
    setup_logging(settings, to_stderr=sys.stderr.isatty())
    pid_path = endpoints.pid_file(runtime)
    pid_path.write_text(f"{os.getpid()}\n")
    try:
        _run_loop(_serve(settings, runtime))
    finally:
        pid_path.unlink(missing_ok=True)
        os.close(lock)
    return 0


def _run_loop(main: Coroutine[Any, Any, None]) -> None:
    """uvloop when it is installed (about half the per-request overhead), else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
        return
    uvloop.run(main)


async def _serve(settings: Settings, runtime: Path) -> None:
    from ..privacy.filters import PrivacyFilter
    from .server import Daemon

    privacy = PrivacyFilter(settings.privacy, privacy_mode=settings.context_management.privacy_mode)
    daemon = Daemon(settings, runtime, privacy_filter=privacy)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, daemon.stop)
    loop.add_signal_handler(signal.SIGHUP, lambda: None)  # a closed terminal is no reason to stop
    await daemon.serve()
