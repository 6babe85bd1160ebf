"""The hooks start the daemon when it is down, but never against the user's `parsec daemon stop`
(issue 12, defect 7: the stop used to be undone a second later by any open shell)."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from installed import installed_parsec

from .conftest import need
from .harness import Shell

PARSEC = installed_parsec()  # the console script, as a user runs it

WRAPPER = """#!/bin/sh
# Stand-in for PARSEC_BIN: notes each call, then runs the real parsec.
printf '%s\\n' "$*" >> "{log}"
exec "{parsec}" "$@"
"""


def _cli(sandbox, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PARSEC), *args], env=sandbox.env, cwd=sandbox.work, capture_output=True, text=True, timeout=60
    )


def _daemon_answers(sandbox) -> bool:
    from parsec.protocol.control import ping

    return ping(sandbox.runtime, timeout=0.5)


def _wait_for(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def _reset_rate_limit(sh: Shell) -> None:
    """The hooks try at most once a minute per shell; the test cannot wait that long."""
    sh.run("set -g __parsec_autostart_at 0" if sh.kind == "fish" else "__parsec_autostart_at=0")


@pytest.fixture
def autostarting(sandbox):
    log = sandbox.root / "autostart.log"
    wrapper = sandbox.root / "bin" / "parsec-wrapper"
    wrapper.write_text(WRAPPER.format(log=log, parsec=PARSEC))
    wrapper.chmod(0o755)
    sandbox.env.update(PARSEC_HOOKS_AUTOSTART_DAEMON="1", PARSEC_BIN=str(wrapper))
    yield log
    pid_file = sandbox.runtime / "daemon.pid"
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        except (ValueError, ProcessLookupError):
            pass
        _wait_for(lambda: not pid_file.exists(), timeout=20)


@pytest.mark.parametrize("kind", ["bash", "zsh", "fish"])
def test_a_stop_by_the_user_holds_until_start(kind, sandbox, autostarting):
    need(kind)
    log = autostarting
    sh = Shell(kind, sandbox)
    # Daemon down and never stopped by the user: the hook starts it (in the background, `--auto`).
    sh.run("true")
    assert _wait_for(lambda: _daemon_answers(sandbox)), (
        f"the hook did not start the daemon: {log.read_text() if log.exists() else 'no call'}"
    )
    assert log.read_text().splitlines() == ["daemon start --auto"]

    stopped = _cli(sandbox, "daemon", "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert "stays stopped" in stopped.stdout and "parsec daemon start" in stopped.stdout
    assert not _daemon_answers(sandbox)

    # Every open shell goes on without starting it: the hook does not even call parsec.
    for _ in range(3):
        _reset_rate_limit(sh)
        sh.run("true")
    other = Shell(kind, sandbox)
    other.run("true")
    # A wrong call would be written to the log within moments; give it ample time on a loaded machine.
    assert not _wait_for(lambda: len(log.read_text().splitlines()) > 1, timeout=3)
    assert not _daemon_answers(sandbox)

    # `parsec daemon start` lifts the stop; the hooks start the daemon again once it is gone
    # without the user asking (SIGTERM: fish tests for the socket file, which a -9 leaves).
    started = _cli(sandbox, "daemon", "start")
    assert started.returncode == 0, started.stderr
    os.kill(int((sandbox.runtime / "daemon.pid").read_text()), signal.SIGTERM)
    assert _wait_for(lambda: not (sandbox.runtime / "daemon.sock").exists() and not _daemon_answers(sandbox))
    _reset_rate_limit(sh)
    sh.run("true")
    assert _wait_for(lambda: _daemon_answers(sandbox)), "autostart did not resume after `parsec daemon start`"
    sh.exit()
    other.exit()


def test_an_automatic_start_leaves_a_stopped_daemon_stopped(sandbox):
    """The race the hooks' builtin test cannot close: a `start --auto` already on its way."""
    assert _cli(sandbox, "daemon", "stop").returncode == 0
    auto = _cli(sandbox, "daemon", "start", "--auto")
    assert auto.returncode == 0 and "left stopped" in auto.stdout
    assert not _daemon_answers(sandbox)
