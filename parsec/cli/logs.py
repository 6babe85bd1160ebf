"""Where the CLI's log lines go (the daemon has its own, daemon.log).

Warnings and errors of every command go to `$XDG_STATE_HOME/parsec/cli.log` (opened on the
first line only, 1 MB kept twice): a usage record that could not be stored, a token counter that
fell back to an estimate, the traceback of an internal error. With `--debug` (or PARSEC_DEBUG)
everything from DEBUG up goes to stderr too. Logging never breaks a command: a log file that
cannot be written is skipped.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

from .. import paths

MAX_BYTES = 1 << 20
FORMAT = "%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"


class _QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A private file (0600: its lines may quote what the user typed) in the private state
    directory, made on first use; says nothing when it cannot write."""

    def _open(self):  # the base class opens with the umask; this file stays private
        paths.ensure_private_dir(Path(self.baseFilename).parent)
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        return open(fd, "a", encoding=self.encoding, errors=self.errors)

    def handleError(self, record: logging.LogRecord) -> None:
        pass


_configured = False  # once per process, whichever entry asks first


def configure_cli_logging(debug: bool) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    logger = logging.getLogger("parsec")
    logger.setLevel(logging.DEBUG if debug else logging.WARNING)
    log_file = _QuietFileHandler(paths.state_dir() / "cli.log", maxBytes=MAX_BYTES, backupCount=1, delay=True)
    log_file.setLevel(logging.WARNING)
    log_file.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(log_file)
    if debug:
        to_stderr = logging.StreamHandler(sys.stderr)
        to_stderr.setFormatter(logging.Formatter("parsec: %(name)s %(levelname)s %(message)s"))
        logger.addHandler(to_stderr)
