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

sys.exit(run_reporting_errors(action, debug="--debug" in sys.argv, log_setup="--no-log-setup" not in sys.argv))
"""


def _run(state: Path, *args: str, **extra_env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_STATE_HOME": str(state), "PYTHONPATH": str(REPO)}
    env.pop("PARSEC_DEBUG", None)
    env.update(extra_env)
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


def test_parsec_debug_in_the_environment_is_debug(tmp_path):
    """The fast entries (`ask`, `history`) take it as the typer app does: everything on stderr."""
    done = _run(tmp_path, PARSEC_DEBUG="1")
    assert "tiktoken unavailable" in done.stderr and "a debug line" in done.stderr


def test_without_log_set_up_an_internal_error_still_leaves_its_traceback(tmp_path):
    """`history` and `sessions` skip the log set-up (their start-up budget); a crash still logs."""
    done = _run(tmp_path, "--crash", "--no-log-setup")
    assert done.returncode == 70 and "internal error: RuntimeError: boom" in done.stderr
    text = (tmp_path / "parsec" / "cli.log").read_text()
    assert "Traceback" in text and "RuntimeError: boom" in text
    assert "tiktoken unavailable" not in text  # the warning came before the log was set up


def test_a_reader_that_goes_away_is_no_error(tmp_path):
    """`parsec history | head -1`: the rest of the output has nowhere to go; exit 0, nothing said."""
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "PYTHONPATH": str(REPO),
    }
    env.pop("PARSEC_DEBUG", None)
    from parsec.models.session import DirectCommandExecution, Session
    from parsec.store import open_store

    (tmp_path / "data" / "parsec").mkdir(parents=True)
    store = open_store(f"sqlite:///{tmp_path / 'data' / 'parsec' / 'parsec.db'}")
    session = Session(shell="bash")
    store.save_session(session)
    store.append_executions(
        [
            DirectCommandExecution(session_id=session.id, command=f"echo {i} " + "x" * 200, exit_status=0)
            for i in range(2000)
        ]
    )
    store.close()
    history = subprocess.Popen(
        [sys.executable, "-m", "parsec.cli.entry", "history", "--limit", "2000", "--format", "{command}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert history.stdout is not None and history.stdout.readline()
    history.stdout.close()  # the reader goes away with ~400 KB still to write
    _, err = history.communicate(timeout=60)
    assert history.returncode == 0 and err == b""
