"""fish stamps each command with its own start, read at its preexec (issue 28, item 4).

fish's history held the previous line's time when the hook read it after a command: each record
got the start of the command before it, and a new shell's first command an older shell's.
"""

from __future__ import annotations

import time

import pytest

from .conftest import need
from .harness import Shell, executions


@pytest.fixture(autouse=True)
def fish_installed():
    need("fish")


def test_each_command_gets_its_own_start_time(sandbox, daemon):
    first = Shell("fish", sandbox)
    first.run("echo old-shell")
    first.run("sleep 2")  # the last line of the first shell's history
    first.exit()
    before_second = time.time()
    second = Shell("fish", sandbox)
    second.run("echo first-of-second")
    second.run("sleep 1.5")
    second.run("echo after-sleep")
    second.exit()
    found = executions(sandbox, daemon, sandbox.work, want=7, timeout=30)
    at = {e.command: e.executed_at.timestamp() for e in found}
    # A new shell's first command is stamped with its own start, not the old shell's `sleep 2`.
    assert at["echo first-of-second"] >= before_second - 0.1, at
    # A command started after `sleep 1.5` ended is stamped at least 1.5 s after that sleep began.
    assert at["echo after-sleep"] - at["sleep 1.5"] >= 1.45, at
    assert at["sleep 2"] - at["echo old-shell"] >= 0, at
