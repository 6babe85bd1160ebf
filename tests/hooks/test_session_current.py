"""`parsec history --session current` in a real bash, zsh and fish: in the shell's very first
command (the daemon has not heard of the shell yet) and right after a daemon restart."""

from __future__ import annotations

import pytest

from .conftest import need
from .harness import Daemon, Shell, executions


@pytest.mark.parametrize("kind", ["bash", "zsh", "fish"])
def test_session_current_first_command_and_after_restart(kind, sandbox, daemon):
    need(kind)
    sh = Shell(kind, sandbox)
    sh.child.timeout = 30
    first = sh.run("parsec history --session current --format '{command}' && echo session-ok")
    assert "cannot tell which session" not in first and "session-ok\r\n" in first
    sh.run("echo one-marker")
    found = executions(sandbox, daemon, sandbox.work, want=2, timeout=20)
    session_id = {e.command: e.session_id for e in found}["echo one-marker"]
    daemon.stop()
    fresh = Daemon(sandbox).start()  # a fresh daemon: it knows no shell until the next record
    try:
        out = sh.run("parsec history --session current --format '{session} {command}'")
        assert f"{session_id} echo one-marker" in out
    finally:
        sh.child.close(force=True)
        fresh.stop()
