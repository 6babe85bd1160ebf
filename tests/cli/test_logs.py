"""The CLI's log: warnings to a private cli.log, everything to stderr with --debug, and a log that
cannot be written never breaks a command. Real subprocesses, real files."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import logging, sys
from parsec.cli.failures import run_reporting_errors

def action():
    logging.getLogger("parsec.context.tokens").warning("tiktoken unavailable: an estimate")
    logging.getLogger("parsec.workflow").debug("a debug line")
    if "--crash" in sys.argv:
        raise RuntimeError("boom")
    return 0

sys.exit(run_reporting_errors(action, debug="--debug" in sys.argv))
"""


def _run(state: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_STATE_HOME": str(state), "PYTHONPATH": str(REPO)}
    env.pop("PARSEC_DEBUG", None)
    return subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True, text=True, timeout=30)


def test_warnings_go_to_a_private_log_file_not_the_terminal(tmp_path):
    done = _run(tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    log = tmp_path / "parsec" / "cli.log"
    assert "WARNING tiktoken unavailable: an estimate" in log.read_text()
    assert "a debug line" not in log.read_text()
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_debug_shows_everything_on_stderr(tmp_path):
    done = _run(tmp_path, "--debug")
    assert "tiktoken unavailable" in done.stderr and "a debug line" in done.stderr


def test_an_internal_error_leaves_its_traceback_in_the_log(tmp_path):
    done = _run(tmp_path, "--crash")
    assert done.returncode == 70 and "internal error: RuntimeError: boom" in done.stderr
    text = (tmp_path / "parsec" / "cli.log").read_text()
    assert "Traceback" in text and "RuntimeError: boom" in text


def test_a_log_that_cannot_be_written_changes_nothing(tmp_path):
    state = tmp_path / "state"
    state.write_text("a file where the directory should be")
    done = _run(state)
    assert done.returncode == 0 and done.stderr == ""
